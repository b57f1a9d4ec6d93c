"""Reports and the moderators' pages. Each view: its form, one action
(socialsite/actions/moderation.py, which applies the rules the API and the commands
share), a response.

Anyone logged in may report an account (``/@<login>/report/``). The moderation pages
(``/moderation/...``) answer 404 to anyone who is not a moderator, visitors included,
whatever the method: they do not even say that they exist. The actions' addresses have
no page: a GET there is answered 404, a moderator's too.
"""

from django.contrib import messages
from django.core.exceptions import BadRequest
from django.http import Http404
from django.shortcuts import redirect, render
from django.views.decorators.http import require_GET, require_http_methods

from accounts.decorators import login_required
from socialsite.acting import actor_of
from socialsite.actions import Invalid, NotFound
from socialsite.actions import moderation as acts
from socialsite.connection import get_redis
from socialsite.query import page_cursor
from socialsite.repository import emails, moderation, users
from socialsite.throttling import throttle, too_many_requests

from .decorators import moderator_action, moderator_required
from .forms import AccountActionForm, ReportActionForm, ReportForm

# The account's newest statuses the report form offers to tick.
REPORT_FORM_STATUSES = 20
# Open reports per page of the queue; suspended accounts listed under it; log entries.
QUEUE_PAGE_SIZE = 20
SUSPENDED_SHOWN = 50
LOG_PAGE_SIZE = 50


def _visible_account_or_404(login):
    """The user dict of a shown account: 404 for nobody, a suspended account or one
    being deleted (as its profile is)."""
    user = users.get_user_by_login(get_redis(), login)
    if user is not None and users.is_suspended(user):
        raise Http404("This account is suspended.")
    if user is None or users.is_hidden(user):
        raise Http404(f"There is no user @{login}.")
    return user


# --- reporting --------------------------------------------------------------------------


def _report_context(r, reporter_id, account, form, ticked):
    """The report form's page: the form, the ticked statuses that are the account's,
    and its newest, each once, as the reporter may see them."""
    shown, ticked = moderation.report_form_statuses(
        r, reporter_id, account, ticked, REPORT_FORM_STATUSES
    )
    return {"account": account, "form": form, "statuses": shown, "ticked": set(ticked)}


def _report_refused(request, counted, login):
    """429 for a report over the reports throttle: the form again, with what was typed
    and the reason it was not sent."""
    account = _visible_account_or_404(login)
    form = ReportForm(request.POST)
    form.is_valid()
    form.add_error(None, counted.message)
    context = _report_context(get_redis(), request.user.id, account, form, form.posted_status_ids())
    return too_many_requests(request, counted, "moderation/report.html", context)


@require_http_methods(["GET", "POST"])
@throttle("reports", refused=_report_refused)
@login_required
def report(request, login):
    """GET: the report form for an account, its newest statuses to tick (and the one
    ``?status=ID`` names, ticked); POST: the report."""
    account = _visible_account_or_404(login)
    if account["id"] == request.user.id:
        raise acts.CannotReportSelf(acts.YOURSELF)  # the 400 page, as the action says it
    r = get_redis()
    form = ReportForm(request.POST or None)
    if request.method == "POST":
        if form.is_valid():
            try:
                acts.report_account(
                    actor_of(request),
                    account["id"],
                    form.cleaned_data["reason"],
                    form.cleaned_data["comment"],
                    form.status_ids,
                )
            except Invalid as refusal:
                # Said in the form, shown again with what was typed.
                form.add_error(
                    refusal.field if refusal.field in form.fields else None, refusal.message
                )
            else:
                messages.success(
                    request,
                    f"Thank you: your report about @{account['login']} is with the moderators.",
                )
                return redirect("profile", account["login"])
        ticked = form.posted_status_ids()
    else:
        named = page_cursor(request, "status")
        ticked = [named] if named is not None else []
    context = _report_context(r, request.user.id, account, form, ticked)
    return render(request, "moderation/report.html", context, status=400 if form.errors else 200)


# --- the queue --------------------------------------------------------------------------


def _queue(request, action_errors=None, status=200):
    r = get_redis()
    page = moderation.open_reports_page(r, before=page_cursor(request), count=QUEUE_PAGE_SIZE)
    suspended = moderation.suspended_page(r, count=SUSPENDED_SHOWN)
    accounts = [report["account"] for report in page.items]
    accounts += [person["id"] for person in suspended.items]
    context = {
        "page": page,
        # The accounts' addresses: moderators see them, nobody else does.
        "addresses": emails.get_many(r, accounts),
        "open_count": moderation.open_report_count(r),
        "suspended": suspended,
        "action_errors": action_errors or [],
        "reason_max_length": ReportActionForm.base_fields["reason"].max_length,
    }
    return render(request, "moderation/queue.html", context, status=status)


@moderator_required
@require_GET
def queue(request):
    """The open reports, newest first, with the statuses and accounts they name."""
    return _queue(request)


def _errors(form):
    return [error for errors in form.errors.values() for error in errors]


@moderator_action
def report_action(request, report_id):
    """A moderator's decision on report ``report_id``: dismiss, delete-status, suspend."""
    report_data = moderation.get_report(get_redis(), report_id)
    if report_data is None:
        raise Http404("There is no such report.")
    form = ReportActionForm(request.POST)
    if not form.is_valid():
        return _queue(request, _errors(form), status=400)
    action, reason = form.cleaned_data["action"], form.cleaned_data["reason"]
    actor, login = actor_of(request), report_data["login"]
    # A status the report does not name goes up as Invalid: the 400 page.
    try:
        if action == "dismiss":
            result = acts.dismiss_report(actor, report_id, reason)
            done = f"Report {report_id} about @{login} is dismissed."
        elif action == "delete-status":
            sid = form.cleaned_data["status"]
            result = acts.delete_status(actor, sid, reason, report_id=report_id)
            done = f"Status {sid} of @{login} is deleted."
        else:
            result = acts.suspend(actor, report_data["account"], reason)
            done = f"@{login} is suspended; the open reports about the account are closed."
    except NotFound as refusal:
        # Gone since the queue was shown (deleted by its author, the account leaving).
        messages.info(request, f"Nothing to do: {refusal.message}")
        return redirect("moderation_queue")
    if result is moderation.Result.DONE:
        messages.success(request, done)
    else:
        messages.info(request, f"Nothing to do: {result.value}.")
    return redirect("moderation_queue")


@moderator_action
def account_action(request, login, action):
    """Suspend an account, or end its suspension (the queue's list of suspended accounts)."""
    user = users.get_user_by_login(get_redis(), login)
    if user is None:
        raise Http404(f"There is no user @{login}.")
    form = AccountActionForm(action, request.POST)
    if not form.is_valid():
        return _queue(request, _errors(form), status=400)
    act = acts.suspend if action == "suspend" else acts.unsuspend
    try:
        result = act(actor_of(request), user["id"], form.cleaned_data["reason"])
    except NotFound as refusal:
        messages.info(request, f"Nothing to do: {refusal.message}")
        return redirect("moderation_queue")
    if result is moderation.Result.DONE:
        done = "is suspended" if action == "suspend" else "is no longer suspended"
        messages.success(request, f"@{user['login']} {done}.")
    else:
        messages.info(request, f"Nothing to do: {result.value}.")
    return redirect("moderation_queue")


# --- the audit log ----------------------------------------------------------------------


@moderator_required
@require_GET
def log(request):
    """The audit log, newest first, a page at a time."""
    before = request.GET.get("before") if request.META.get("QUERY_STRING") else None
    if before is not None and not moderation.LOG_CURSOR.fullmatch(before):
        raise BadRequest("The page link is malformed: 'before' must be a log entry's id.")
    page = moderation.log_page(get_redis(), before=before, count=LOG_PAGE_SIZE)
    return render(request, "moderation/log.html", {"page": page})

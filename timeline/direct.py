"""Direct messages: the inbox, the requests, a conversation's page and its actions, and
the setting of who may start one (docs/messages.md). Each view reads its form, calls
one action (socialsite.actions.direct, which the client API calls too: every rule is
there) and answers; a refusal it does not say in its form goes up to
socialsite.acting.RefusalPagesMiddleware. Only members read a conversation: anyone
else, moderators included, gets 404."""

from django.contrib import messages
from django.http import Http404
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_http_methods, require_POST

from accounts.decorators import login_required, redirect_to_login, verified_email_required
from socialsite.acting import actor_of
from socialsite.actions import Invalid, NotAllowed, Throttled
from socialsite.actions import direct as acts
from socialsite.actions import moderation as moderation_acts
from socialsite.actions.moderation import CannotReportSelf
from socialsite.connection import get_redis
from socialsite.form_markup import BlankForm
from socialsite.head import is_head
from socialsite.query import page_cursor
from socialsite.repository import direct, users
from socialsite.throttling import throttle, too_many_requests

from .forms import MessageForm, MessageReportForm, MessagesFromForm, NewConversationForm
from .posting_keys import new_posting_key, posting_key_of

# Conversations per page of the inbox; messages per page of a conversation.
INBOX_PAGE_SIZE = 20
CONVERSATION_PAGE_SIZE = 50


def _inbox(request, requests=False, form=None, status=200, refusal=None, ids_read=None):
    r = get_redis()
    page = direct.inbox_page(
        r, request.user.id, requests=requests, before=page_cursor(request), count=INBOX_PAGE_SIZE,
        ids_read=ids_read,
    )  # fmt: skip
    context = {
        "page": page,
        "requests": requests,
        "form": form or BlankForm(NewConversationForm),
        "conversations_url": reverse("direct:inbox"),
        "viewer_id": request.user.id,
        "posting_key": request.POST.get("posting_key") or new_posting_key(),
    }
    if refusal is not None:
        return too_many_requests(request, refusal, "timeline/messages.html", context)
    return render(request, "timeline/messages.html", context, status=status)


def _start_refused(request, counted):
    form = NewConversationForm(request.POST)
    form.is_valid()
    form.add_error(None, counted.message)
    return _inbox(request, form=form, refusal=counted)


@require_http_methods(["GET", "POST"])
@throttle("messages", refused=_start_refused)
def inbox(request):
    """GET: the inbox, newest activity first, and the form of a new message. POST: a
    message to ``to`` (one or more logins): into the conversation of the two, or a new
    group; then to its page."""
    if request.method == "GET":
        # The page's ids are read with the session and its user: one round trip.
        ids_read = direct.InboxIdsRead(before=page_cursor(request), count=INBOX_PAGE_SIZE)
        request.session.read_along(ids_read)
        if not request.user.is_authenticated:
            return redirect_to_login(request)
        return _inbox(request, ids_read=ids_read)
    if not request.user.is_authenticated:
        return redirect_to_login(request)
    return _start(request)


def _said_in(form, refusal):
    """``form`` (bound, as sent) again, saying ``refusal``: the action's word on what
    was sent, in place of the form's own checks of it (which would say the same, in
    words of their own)."""
    form.errors.clear()
    form.add_error(refusal.field if refusal.field in form.fields else None, refusal.message)
    return form


@verified_email_required
def _start(request):
    form = NewConversationForm(request.POST)
    if not form.is_valid() and "to" in form.errors:
        # The "To" field read as logins is the page's own input; the rest is the
        # action's (the message's rules are the same for the API).
        return _inbox(request, form=form, status=400)
    try:
        sent = acts.start(
            actor_of(request),
            form.cleaned_data["to"],
            request.POST.get("message", ""),
            posting_key_of(request) or new_posting_key(),
        )
    except Throttled as refusal:
        return _inbox(request, form=_said_in(form, refusal), refusal=refusal.counted)
    except Invalid as refusal:
        return _inbox(request, form=_said_in(form, refusal), status=400)
    return redirect(reverse("direct:conversation", args=[sent.cid]) + f"#m{sent.mid}")


@require_http_methods(["GET"])
@login_required
def requests_page(request):
    """Conversations started by people the reader does not follow, waiting."""
    return _inbox(request, requests=True)


def _conversation(request, cid, form=None, status=200, refusal=None):
    before = page_cursor(request)
    after = page_cursor(request, "after")
    r = get_redis()
    page = direct.conversation_page(
        r, request.user.id, cid, before=before, after=after, count=CONVERSATION_PAGE_SIZE
    )
    if page is None:
        raise Http404("There is no such conversation.")
    if page.conversation.unread and request.method == "GET" and not is_head(request):
        # Reading marks it read; the badge shows what is left.
        unread = acts.mark_read(actor_of(request), page.conversation)
        if unread is not None:
            request.user.direct_unread = unread
    context = {
        "page": page,
        "conversation": page.conversation,
        "form": form or MessageForm(),
        "report_form": MessageReportForm(),
        "posting_key": request.POST.get("posting_key") or new_posting_key(),
        "live": before is None,
    }
    if refusal is not None:
        return too_many_requests(request, refusal, "timeline/conversation.html", context)
    return render(request, "timeline/conversation.html", context, status=status)


def _reply_refused(request, counted, cid):
    form = MessageForm(request.POST)
    form.is_valid()
    form.add_error(None, counted.message)
    return _conversation(request, cid, form=form, refusal=counted)


@require_http_methods(["GET", "POST"])
@throttle("messages", refused=_reply_refused)
@login_required
def conversation(request, cid):
    """GET: the conversation's messages, oldest to newest (``?before=`` pages back,
    ``?after=`` gives the newer ones, for the live page's script). POST: a message."""
    if request.method == "GET":
        return _conversation(request, cid)
    return _reply(request, cid)


@verified_email_required
def _reply(request, cid):
    form = MessageForm(request.POST)
    try:
        sent = acts.reply(
            actor_of(request),
            cid,
            request.POST.get("message", ""),
            posting_key_of(request) or new_posting_key(),
        )
    except Invalid as refusal:
        return _conversation(request, cid, form=_said_in(form, refusal), status=400)
    return redirect(reverse("direct:conversation", args=[cid]) + f"#m{sent.mid}")


def _member_or_404(request, cid):
    if not direct.is_member(get_redis(), request.user.id, cid):
        raise Http404("There is no such conversation.")


def _back(cid):
    return redirect("direct:conversation", cid)


@require_POST
@login_required
def leave(request, cid):
    """Leave a group: its messages leave the inbox, and new ones do not come."""
    acts.leave(actor_of(request), cid)
    messages.success(request, "You left the conversation.")
    return redirect("direct:inbox")


@require_POST
@login_required
def mute(request, cid):
    acts.mute(actor_of(request), cid)
    messages.success(request, "Conversation muted: no badge and no live alert for it.")
    return _back(cid)


@require_POST
@login_required
def unmute(request, cid):
    acts.unmute(actor_of(request), cid)
    messages.success(request, "Conversation unmuted.")
    return _back(cid)


@require_POST
@login_required
def accept(request, cid):
    """Accept a request: the conversation moves to the inbox."""
    acts.accept(actor_of(request), cid)
    messages.success(request, "Request accepted: the conversation is in your inbox.")
    return _back(cid)


@require_POST
@login_required
def delete(request, cid):
    """Delete a conversation (a request, or one of the inbox) for oneself: it leaves the
    inbox and requests and its messages so far are cleared; a new message brings it
    back."""
    acts.delete_conversation(actor_of(request), cid)
    messages.success(request, "Conversation deleted for you.")
    return redirect("direct:inbox")


def _message_or_404(request, cid, mid):
    _member_or_404(request, cid)
    message = direct.get_message(get_redis(), cid, mid)
    if message is None:
        raise Http404("There is no such message.")
    return message


@require_POST
@login_required
def delete_message(request, cid, mid):
    """Delete a message for oneself: the others still see it."""
    acts.delete_message(actor_of(request), cid, mid)
    messages.success(request, "Message deleted for you.")
    return _back(cid)


@require_POST
@throttle("reports")
@login_required
def report_message(request, cid, mid):
    """Report a message: it and the few before it go to the moderators, nothing more
    (actions.moderation.report_message: not one's own, members only, the reason and
    comment as any report's)."""
    try:
        filed = moderation_acts.report_message(
            actor_of(request),
            cid,
            mid,
            request.POST.get("reason", ""),
            request.POST.get("comment", ""),
        )
    except CannotReportSelf:
        raise  # the 400 page (socialsite.acting), as always
    except Invalid as refusal:
        messages.error(request, f"The report was not sent: {refusal.message}")
        return _back(cid)
    except NotAllowed as refusal:  # its sender is gone
        messages.info(request, refusal.message)
        return _back(cid)
    messages.success(
        request, f"Thank you: your report about @{filed.login} is with the moderators."
    )
    return _back(cid)


@require_http_methods(["GET", "POST"])
@login_required
def settings_page(request):
    """Who may start a conversation with the account (its own form: the privacy form
    at /settings/ is never sent here, nor this one there)."""
    r = get_redis()
    if request.method == "POST":
        form = MessagesFromForm(request.POST)
        if form.is_valid():
            acts.set_messages_from(actor_of(request), form.cleaned_data["messages_from"])
            messages.success(request, "Saved: who may send you direct messages.")
            return redirect("direct:settings_messages")
    else:
        user = users.get_user(r, request.user.id) or {}
        form = MessagesFromForm(initial={"messages_from": direct.messages_from(user)})
    status = 400 if form.errors else 200
    return render(request, "timeline/settings_messages.html", {"form": form}, status=status)

"""Pages of email addresses: verifying one, changing it, and resetting a forgotten
password by mail (docs/email.md).

None of them sends mail: they queue it for the workers (accounts/mail.py), so a slow or
unreachable mail server never slows or breaks them. Every link in mail is built from
settings.SITE_URL, never from this request's Host.
"""

from django.contrib import messages
from django.http import HttpResponseRedirect
from django.shortcuts import redirect, render
from django.views.decorators.http import require_http_methods

from socialsite import throttling
from socialsite.acting import actor_of
from socialsite.actions import Invalid
from socialsite.actions import accounts as account_actions
from socialsite.connection import get_redis
from socialsite.repository import emails, users

from . import mail, tokens
from .decorators import login_required
from .forms import EmailChangeForm, PasswordResetForm, SetPasswordForm

RESET_SENT_URL = "/accounts/password/reset/sent/"


def _waiting_address(uid, mac):
    """The account's address that a verification token names and that still waits for
    verification (its unverified address, or the one it is changing to), or None."""
    state = emails.get(get_redis(), uid)
    for address in (state.pending, "" if state.verified else state.address):
        if tokens.names_address(mac, address):
            return address
    return None


@require_http_methods(["GET", "POST"])
def verify_email(request, token):
    """The mailed link: GET asks to confirm (a mail scanner following links verifies
    nothing), POST verifies. Expired, used or forged links get a page that says so."""
    read = tokens.read_verification_token(token)
    address = _waiting_address(*read) if read else None
    if address is None:
        return render(request, "accounts/verify_invalid.html", status=400)
    if request.method == "GET":
        return render(request, "accounts/verify.html", {"address": address, "token": token})
    outcome = account_actions.verify_email(account_actions.link_actor(read[0]), address)
    if outcome is account_actions.Verification.TAKEN:
        messages.error(request, f"{address} belongs to another account now.")
    else:
        messages.success(request, f"Your address {address} is verified. Thank you!")
    return redirect("email_settings" if request.user.is_authenticated else "login")


def _email_page(request, form, status=200):
    state = emails.get(get_redis(), request.user.id)
    context = {"form": form, "email": state}
    return render(request, "accounts/email_settings.html", context, status=status)


@require_http_methods(["GET", "POST"])
@login_required
def email_settings(request):
    """The account's address, whether it is verified, a change of it (with the
    password) and sending the verification link again."""
    if request.method == "GET":
        return _email_page(request, EmailChangeForm(request.user))
    resend = "resend" in request.POST
    counted = throttling.count(request, "email")
    # Kept for the request's Actor: the action, which names this throttle, finds its
    # use counted (as the throttle decorator keeps it; this page answers its own 429).
    throttling.counted_for(request)["email"] = counted
    form = EmailChangeForm(request.user, None if resend else request.POST)
    if throttling.is_refused(counted):
        if not resend:
            form.is_valid()
        state = emails.get(get_redis(), request.user.id)
        context = {"form": form, "email": state, "refusal": counted.message}
        return throttling.too_many_requests(
            request, counted, "accounts/email_settings.html", context
        )
    if resend:
        response = _resend(request)
    elif form.is_valid():
        response = _change(request, form.cleaned_data["email"])
    else:
        throttling.refund(counted)  # nothing was sent
        response = _email_page(request, form, status=400)
    return throttling.set_headers(response, counted)


def _resend(request):
    waiting = account_actions.resend_verification(actor_of(request))
    if waiting:
        messages.success(request, f"A verification link is on its way to {waiting}.")
    else:
        messages.info(request, "There is no address waiting for verification.")
    return redirect("email_settings")


def _change(request, address):
    try:
        done = account_actions.change_email(actor_of(request), address)
    except Invalid as refused:
        messages.error(request, refused.message)
        return _email_page(request, EmailChangeForm(request.user), status=400)
    Outcome = account_actions.EmailOutcome
    if done.outcome is Outcome.SET:
        messages.success(request, f"Your address is {address} now.")
    elif done.outcome is Outcome.SAME:
        messages.info(request, "That is your address already, and it is verified.")
    elif done.outcome is Outcome.PENDING:
        messages.success(
            request,
            f"A verification link is on its way to {address}; your address changes once"
            f" it is verified. {done.former} is told of the change.",
        )
    else:
        messages.success(request, f"A verification link is on its way to {address}.")
    return redirect("email_settings")


@require_http_methods(["GET", "POST"])
def password_reset(request):
    """Ask for a reset link. The answer is the same whether or not an account has the
    address: a redirect to the page saying that mail is on its way if it does. Only a
    verified address gets mail."""
    form = PasswordResetForm(request.POST or None)
    if request.method == "GET":
        return render(request, "accounts/password_reset.html", {"form": form})
    counted = throttling.count(request, "password_reset")
    if throttling.is_refused(counted):
        form.is_valid()
        context = {"form": form, "refusal": counted.message}
        return throttling.too_many_requests(
            request, counted, "accounts/password_reset.html", context
        )
    if not form.is_valid():
        response = render(request, "accounts/password_reset.html", {"form": form}, status=400)
        return throttling.set_headers(response, counted)
    address = form.cleaned_data["email"]
    target = throttling.count(request, "password_reset_target", login=emails.normalized(address))
    if not throttling.is_refused(target):
        _queue_reset(address)
    # A refusal by address asked for is not told either: it would say the address
    # has been asked for lately. Its limit only bounds the mail sent there.
    return throttling.set_headers(HttpResponseRedirect(RESET_SENT_URL), counted)


def _queue_reset(address):
    r = get_redis()
    uid = emails.owner(r, address)
    if uid is None:
        return
    state = emails.get(r, uid)
    if mail.can_reset_by_mail(state) and emails.normalized(state.address) == emails.normalized(
        address
    ):
        mail.queue_password_reset(uid, state.address)


def password_reset_sent(request):
    return render(request, "accounts/password_reset_sent.html")


def _reset_account(uidb64, token):
    """(user dict, its ResetState) if the link is good, else (None, None)."""
    uid = tokens.uid_from_b64(uidb64)
    if uid is None:
        return None, None
    r = get_redis()
    user, password_hash = users.get_user_and_password_hash(r, uid)
    if user is None or users.is_hidden(user):
        return None, None
    state = tokens.ResetState(uid, password_hash, emails.get(r, uid).address)
    if not tokens.password_reset_tokens.check_token(state, token):
        return None, None
    return user, state


@require_http_methods(["GET", "POST"])
def password_reset_confirm(request, uidb64, token):
    """Set a new password from a mailed link (valid an hour, once, and not after the
    password changed). Ends every session of the account and revokes its device
    cookies and apps' access tokens; then the log-in page."""
    user, state = _reset_account(uidb64, token)
    if user is None:
        return render(request, "accounts/password_reset_invalid.html", status=400)
    form = SetPasswordForm(user, request.POST or None)
    if request.method == "POST" and form.is_valid():
        account = account_actions.link_actor(user["id"])
        account_actions.reset_password(account, form.cleaned_data["new_password1"])
        if request.user.is_authenticated:
            request.session.flush()
        messages.success(request, "Your password is changed. Log in with it.")
        return redirect("login")
    status = 400 if form.errors else 200
    return render(
        request, "accounts/password_reset_confirm.html", {"form": form, "account": user},
        status=status,
    )  # fmt: skip

"""Mail the site sends: what each message says and how it goes out (docs/email.md).

Pages only queue mail (repository/mail.py); the fan-out workers take it from the queue
and send it here with Django's mail API (``manage.py fanout`` calls ``send``). A
message's links are built from settings.SITE_URL, never from a request's Host header,
and its tokens are made when it is sent, so the queue holds no secret.
"""

import re
import sys

from django.conf import settings
from django.core.mail import EmailMultiAlternatives
from django.core.mail.backends.filebased import EmailBackend as FileBackend
from django.template.loader import render_to_string

# The verification and change-of-address messages are made where the change of address
# is (its action); sign-up and the accounts command queue them by these names too.
from socialsite.actions.accounts import queue_change_notice, queue_verification  # noqa: F401
from socialsite.connection import get_redis
from socialsite.repository import emails, mail, users

from . import tokens

LINK = re.compile(r"https?://\S+")


class DevelopmentMailBackend(FileBackend):
    """The embedded run's mail (no EMAIL_URL, DEBUG on): each message written to a file
    under DATA_DIR/mail/, and its links printed on the site's console, so that a
    newcomer can verify an address or reset a password without a mail server."""

    def write_message(self, message):
        super().write_message(message)
        # The links to follow: not the signature's link to the site itself.
        home = settings.SITE_URL.rstrip("/")
        links = [link for link in LINK.findall(message.body) if link.rstrip("/") != home]
        print(f"Mail to {', '.join(message.to)}: {message.subject}", file=sys.stderr)
        for link in links:
            print(f"    {link}", file=sys.stderr)
        sys.stderr.flush()


# --- what the workers send -------------------------------------------------------------
# Each kind of message queued (repository/mail.py) and the function that sends it. A
# message whose account or address has changed since it was queued is dropped: the
# state it would speak of is gone.


def send(message):
    """Send one queued message (``manage.py fanout`` calls this for each)."""
    SENDERS[message["kind"]](get_redis(), message)


def _link(path):
    return settings.SITE_URL + path


def _deliver(to, subject, template, context):
    context = {"site_name": settings.SITE_NAME, "site_url": settings.SITE_URL, **context}
    text = render_to_string(f"mail/{template}.txt", context)
    html = render_to_string(f"mail/{template}.html", context)
    message = EmailMultiAlternatives(
        subject=f"[{settings.SITE_NAME}] {subject}",
        body=text,
        from_email=settings.DEFAULT_FROM_EMAIL,
        to=[to],
        # Transactional mail: it answers something the person did, so no list headers.
        headers={"Auto-Submitted": "auto-generated", "X-Auto-Response-Suppress": "All"},
    )
    message.attach_alternative(html, "text/html")
    message.send()


def _send_verification(r, message):
    uid, address = message["uid"], message["address"]
    state = emails.get(r, uid)
    user = users.get_user(r, uid)
    waiting = (state.address == address and not state.verified) or state.pending == address
    if user is None or not waiting:
        return
    link = _link(f"/accounts/verify/{tokens.verification_token(uid, address)}/")
    _deliver(address, "Verify your email address", "verify", {"user": user, "link": link})


def _send_change_notice(r, message):
    user = users.get_user(r, message["uid"])
    if user is None:
        return
    context = {"user": user, "new_address": message["new_address"]}
    _deliver(message["old_address"], "Your email address is changing", "changed", context)


def _send_password_reset(r, message):
    uid = message["uid"]
    user, password_hash = users.get_user_and_password_hash(r, uid)
    state = emails.get(r, uid)
    if user is None or not can_reset_by_mail(state) or state.address != message["address"]:
        return
    token = tokens.password_reset_tokens.make_token(
        tokens.ResetState(uid, password_hash, state.address)
    )
    link = _link(f"/accounts/reset/{tokens.uidb64(uid)}/{token}/")
    _deliver(state.address, "Reset your password", "reset", {"user": user, "link": link})


SENDERS = {
    "verify": _send_verification,
    "address_changed": _send_change_notice,
    "password_reset": _send_password_reset,
}


# --- what the pages queue ----------------------------------------------------------------


def can_reset_by_mail(state):
    """Whether a password reset may be mailed to the account's address (an
    emails.Email): a verified one; with EMAIL_VERIFICATION=off, which verifies nothing,
    the address as given."""
    if settings.EMAIL_VERIFICATION == "off":
        return bool(state.address)
    return state.verified


def queue_password_reset(uid, address):
    mail.queue(get_redis(), {"kind": "password_reset", "uid": int(uid), "address": address})

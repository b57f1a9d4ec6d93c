"""The acts of the accounts app on one's own account: changing its email address and
sending its verification link again (/settings/email/, accounts/email_views.py), and
leaving the site (/settings/delete/, accounts/leaving.py).

The door proves who acts first: those pages ask for the password again
(accounts.forms.EmailChangeForm, DeleteAccountForm), so that nobody at an unattended
browser takes an account over by its reset mail or deletes it; the actions take the
Actor as proven.

Mail is queued, never sent here (repository/mail.py; the workers send it with
accounts/mail.py, which reads the messages queue_verification and queue_change_notice
make).
"""

import enum
from dataclasses import dataclass

from django.conf import settings
from django.core.exceptions import ValidationError
from django.core.validators import validate_email

from media import pictures
from socialsite.connection import get_redis
from socialsite.repository import emails, leaving, mail

from .core import Actor, Invalid, NotFound, require

# --- the address --------------------------------------------------------------------------

EMAIL_TAKEN = "That address belongs to another account."
# The longest address (RFC 5321's path less its brackets), as the forms' EmailField.
EMAIL_MAX_LENGTH = 254


def queue_verification(uid: int, address: str) -> None:
    """Queue the mail with ``address``'s verification link (none with
    EMAIL_VERIFICATION=off, which verifies nothing)."""
    if settings.EMAIL_VERIFICATION != "off":
        mail.queue(get_redis(), {"kind": "verify", "uid": int(uid), "address": address})


def queue_change_notice(uid: int, old_address: str, new_address: str) -> None:
    """Queue the mail telling ``old_address`` that the account's address changes."""
    mail.queue(
        get_redis(),
        {"kind": "address_changed", "uid": int(uid), "old_address": old_address,
         "new_address": new_address},
    )  # fmt: skip


class EmailOutcome(enum.Enum):
    """What change_email did."""

    SET = "set"  # the account's address now (EMAIL_VERIFICATION=off verifies nothing)
    SAME = "same"  # the account's verified address already: nothing sent
    LINK_SENT = "link sent"  # the account's address now, unverified: its link is on its way
    PENDING = "pending"  # the address waits for its link; the former one is told


@dataclass(frozen=True)
class EmailChanged:
    outcome: EmailOutcome
    address: str
    former: str  # the address before ("" for none)


def _checked_address(address: str) -> str:
    address = address.strip()
    if len(address) > EMAIL_MAX_LENGTH:
        raise Invalid(
            f"Ensure this value has at most {EMAIL_MAX_LENGTH} characters (it has {len(address)}).",
            field="email",
        )
    try:
        validate_email(address)
    except ValidationError as refused:
        raise Invalid(refused.messages[0], field="email") from None
    return address


def change_email(actor: Actor, address: str) -> EmailChanged:
    """Make ``address`` the actor's email address: at once with EMAIL_VERIFICATION=off
    (the former address told), else once its mailed link is followed (with a verified
    address now, which the change mail tells; without one, the new address replaces it
    at once, unverified, and its link is sent).

    Rules: the throttle "email" (each change and resend sends mail); an address that
    reads as one; Invalid for an address another account has (in any case).
    """
    require(actor, throttle="email")
    address = _checked_address(address)
    r = get_redis()
    before = emails.get(r, actor.uid)
    changes_address = bool(before.address) and emails.normalized(
        before.address
    ) != emails.normalized(address)
    if settings.EMAIL_VERIFICATION == "off":
        if not emails.set_address(r, actor.uid, address):
            raise Invalid(EMAIL_TAKEN, field="email")
        if changes_address:
            queue_change_notice(actor.uid, before.address, address)
        return EmailChanged(EmailOutcome.SET, address, before.address)
    outcome = emails.change(r, actor.uid, address)
    if outcome == "taken":
        raise Invalid(EMAIL_TAKEN, field="email")
    if outcome == "same" and before.verified:
        return EmailChanged(EmailOutcome.SAME, address, before.address)
    queue_verification(actor.uid, address)
    if outcome == "pending":
        queue_change_notice(actor.uid, before.address, address)
        return EmailChanged(EmailOutcome.PENDING, address, before.address)
    return EmailChanged(EmailOutcome.LINK_SENT, address, before.address)


def resend_verification(actor: Actor) -> str | None:
    """Send the verification link of the actor's address waiting for one (a change
    pending, or an unverified address) again; that address, or None when none waits.
    Rules: the throttle "email"."""
    require(actor, throttle="email")
    state = emails.get(get_redis(), actor.uid)
    waiting = state.pending or ("" if state.verified else state.address)
    if not waiting:
        return None
    queue_verification(actor.uid, waiting)
    return waiting


# --- leaving ------------------------------------------------------------------------------


class Deletion(enum.Enum):
    """How far delete_account went before it returned."""

    DONE = "done"  # everything of the account is gone
    UNDER_WAY = "under way"  # hidden everywhere, sessions ended; the workers finish it


def delete_account(actor: Actor) -> Deletion:
    """Delete the actor's account: hidden at once and out of search, its login
    reserved, every session ended, its statuses and follows taken away within
    leaving.DELETION_INLINE_BUDGET and the rest by the workers; then the files of the
    avatar and header it let go (pictures.delete_unused). NotFound when there is no
    such account (deleted already)."""
    r = get_redis()
    gone = leaving.delete_account(r, actor.uid)
    if gone is None:
        raise NotFound("There is no such account any more.")
    # The avatar and header the deletion's first step let go (profiles.forget_pictures).
    pictures.delete_unused(r)
    return Deletion.DONE if gone else Deletion.UNDER_WAY

"""The acts of the accounts app on one's own account: signing up (/signup/,
accounts/views.py), changing its email address and sending its verification link again
(/settings/email/, accounts/email_views.py), verifying an address by its mailed link,
changing the password (/settings/password/) or resetting it by mail, revoking an app's
access (/settings/apps/, api/oauth_views.py), an operator setting an account's address
(``manage.py accounts email``), and leaving the site (/settings/delete/,
accounts/leaving.py).

The door proves who acts first: those pages ask for the password again
(accounts.forms.EmailChangeForm, DeleteAccountForm, PasswordChangeForm: the throttle
"password_change" is counted by the page before the current password is hashed), so
that nobody at an unattended browser takes an account over by its reset mail or
deletes it; a mailed link (verification, password reset) proves its account by its
token (accounts/tokens.py). The actions take the Actor as proven.

Signing up is done by no account yet: its Actor is the visitor's, uid 0 (ids start at
1), as socialsite.acting.actor_of makes it for an anonymous request, carrying the
door's throttle counter. That keeps one signature for every act (the action names its
throttle, "signup", and the door says whom it counts: the client's address) and lets
the page count the use first for its own answer (its 429 keeps the form) and find it
counted (throttling.counted_for) rather than a ``count`` argument only this act has.
The sign-up form's checks of the login name, the address being free and the password
(accounts/forms.py: the only door making accounts) say every problem beside its field
before the act; the act itself refuses only what a race decides (the login taken
meanwhile).

Mail is queued, never sent here (repository/mail.py; the workers send it with
accounts/mail.py, which reads the messages queue_verification and queue_change_notice
make).
"""

import enum
from dataclasses import dataclass

from django.conf import settings
from django.contrib.auth.hashers import make_password
from django.core.exceptions import ValidationError
from django.core.validators import validate_email

from media import pictures
from socialsite.connection import get_redis
from socialsite.repository import devices, emails, events, leaving, mail, oauth, sessions, users

from .core import Actor, Invalid, NotAllowed, NotFound, require

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


def _address_or_invalid(address: str) -> str | None:
    """``address`` stripped if it reads as an email address, else None."""
    address = address.strip()
    try:
        validate_email(address)
    except ValidationError:
        return None
    return address


def set_address(actor: Actor, login: str, address: str, *, verified: bool = False) -> int:
    """An operator makes ``address`` the address of account @``login`` (answering
    someone who lost access to theirs): at once, verified if ``verified``, else its
    verification link is mailed, as after a change; the account's id.

    Rules: only an operator's or a moderator's Actor (NotAllowed otherwise: a person
    changes their own address with change_email); an address that reads as one
    (Invalid); NotFound for no account @login; Invalid when another account has the
    address."""
    if not actor.is_moderator:
        raise NotAllowed("Only the site's operators may set another account's address.")
    checked = _address_or_invalid(address)
    if checked is None:
        raise Invalid(f"{address.strip()!r} is not an email address.", field="address")
    r = get_redis()
    uid = users.get_user_id(r, login)
    if uid is None:
        raise NotFound(f"There is no account @{login}.")
    if not emails.set_address(r, uid, checked, verified=verified):
        raise Invalid(f"{checked} belongs to another account.", field="address")
    if not verified:
        queue_verification(uid, checked)
    return int(uid)


class Verification(enum.Enum):
    """What verify_email did (repository/emails.py's verify, said as an Enum)."""

    VERIFIED = "verified"  # the address is the account's, verified
    TAKEN = "taken"  # another account took the pending address meanwhile
    STALE = "stale"  # the address is neither waiting one any more (a link used twice)


def link_actor(uid: int) -> Actor:
    """The Actor a mailed link proves (its token names account ``uid``), whoever's
    browser follows it: nothing is counted for it (a link is good once)."""
    return Actor(uid=int(uid), login="")


def verify_email(actor: Actor, address: str) -> Verification:
    """Verify ``address``, the actor's unverified address or the one they are
    changing to (which then becomes their address). The door checked the link's token
    names this address of this account (accounts/tokens.py)."""
    return Verification(emails.verify(get_redis(), actor.uid, address))


# --- the account itself --------------------------------------------------------------------

LOGIN_TAKEN = "That login name is taken."


def sign_up(actor: Actor, login: str, name: str, address: str, password: str) -> int:
    """Make an account @``login`` with display name ``name``, address ``address``
    (its verification link mailed, unless EMAIL_VERIFICATION=off) and ``password``
    (hashed here); its id. ``actor`` is the visitor signing up (uid 0: see the module's
    docstring).

    Rules: the throttle "signup" (the client's address: each use makes an account and
    hashes a password), counted before the password is hashed; Invalid (field
    ``username``) when a sign-up racing this one took the login. An address another
    sign-up took meanwhile is not a refusal: the account is made without one and asked
    for one, as accounts without an address are."""
    require(actor, throttle="signup")
    r = get_redis()
    uid = users.create_user(r, login, name, make_password(password))
    if uid is None:
        raise Invalid(LOGIN_TAKEN, field="username")
    if emails.set_address(r, uid, address):
        queue_verification(uid, address)
    return int(uid)


def change_password(actor: Actor, new_password: str) -> str:
    """Give the actor's account ``new_password``; its new hash. Every device cookie of
    the account is revoked (accounts/devices.py: the door gives its browser a new one)
    and every app's access token (repository/oauth.py). The door keeps its own session
    logged in with the new hash and ends the others' live pages (accounts.auth
    .change_password); the other sessions end as they find the hash changed."""
    password_hash = make_password(new_password)
    r = get_redis()
    users.set_password_hash(r, actor.uid, password_hash)
    devices.revoke_all(r, actor.uid)
    oauth.revoke_user_tokens(r, actor.uid)
    return password_hash


def reset_password(actor: Actor, new_password: str) -> None:
    """Give the account of a password reset link (``link_actor``) ``new_password``:
    every session of the account ends (whoever knew the old one is out), every device
    cookie and every app's access token is revoked, and its open live pages end."""
    r = get_redis()
    users.set_password_hash(r, actor.uid, make_password(new_password))
    sessions.end_all(r, actor.uid)
    devices.revoke_all(r, actor.uid)
    oauth.revoke_user_tokens(r, actor.uid)  # and every app's access
    events.publish_relations_changed(r, [actor.uid])  # open live pages end


def rehash_password(actor: Actor, password_hash: str) -> None:
    """Store ``password_hash``, the actor's password hashed anew: a log-in found its
    stored hash made with outdated parameters (django's check_password). The password
    is the same, so nothing else is revoked."""
    users.set_password_hash(get_redis(), actor.uid, password_hash)


def revoke_app(actor: Actor, client_id: str) -> int:
    """Revoke every access token the actor gave app ``client_id`` (/settings/apps/);
    how many there were (0: none, or revoked already: repeating it is harmless)."""
    return int(oauth.revoke_user_tokens(get_redis(), actor.uid, client_id))


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

"""The acts of the accounts app on one's own account: leaving the site (delete_account,
called by /settings/delete/, accounts/leaving.py).

The door proves who acts first: the deletion page asks for the password again
(accounts.forms.DeleteAccountForm), so that nobody at an unattended browser deletes
someone's account; the action takes the Actor as proven.
"""

import enum

from media import pictures
from socialsite.connection import get_redis
from socialsite.repository import leaving

from .core import Actor, NotFound


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

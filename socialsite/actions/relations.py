"""Relations between two accounts, and what an account says of itself to others:
follow, unfollow (which also withdraws a request), approve and reject a request to
follow, block, unblock, mute, unmute, make the account private or public, change the
display name.

Each act here, whichever door it comes through (the profile's buttons and the settings
pages in timeline/relations.py and timeline/views.py, the client API in
api/accounts.py and api/relations.py):
- finds the other account or raises NotFound (none, suspended, being deleted: the
  pages and the API answer all alike);
- refuses an act on oneself (Invalid), one a block forbids (NotAllowed), and raises
  Busy while another follow or unfollow of the same account holds its lock
  (graph.LockBusy): the pages flash it, the API answers 409;
- passes the site's settings the repository takes (NOTIFICATIONS_KEPT for every
  notification a follow, a request or an approval makes).

Throttle: "follows" counts a follow (and a request to follow) only, at both doors: an
unfollow, a withdrawal, an answer to a request, a block or a mute is not counted (each
undoes or refuses a relation, and a follow they would let one repeat is counted
itself). A follow also needs a verified address (EMAIL_VERIFICATION=required); the
other acts do not (one may always leave or shut out someone).

The refusals' messages are one wording for both doors (the pages' own), naming the
other account: the pages flash them, the API sends them as its error (after Mastodon's
"This action is not allowed:" or "Validation failed:", responses.refusal_response).
"""

import enum
from dataclasses import dataclass

from django.conf import settings

from socialsite.connection import get_redis
from socialsite.repository import blocks, entities, followed_tags, graph, privacy, users
from socialsite.repository.client import Client
from socialsite.repository.records import User

from .core import Actor, Busy, Invalid, NotAllowed, NotFound, require

# The longest mute, in seconds (Mastodon has none; the pages offer up to 7 days or no
# end): ten years, so the end is a time Redis and Python both keep.
LONGEST_MUTE_SECONDS = 10 * 365 * 24 * 3600
MUTE_DURATION_RULE = f"duration is 0 to {LONGEST_MUTE_SECONDS} seconds (0: no end)"
BUSY = "Another follow of yours (or theirs) is still in progress: try again."

FollowResult = graph.FollowResult
BlockResult = blocks.BlockResult
MuteResult = blocks.MuteResult


class RejectResult(enum.Enum):
    REJECTED = "rejected"
    NO_REQUEST = "no request"  # withdrawn, or answered meanwhile: nothing to reject


@dataclass(frozen=True)
class PrivacyChange:
    """The account's privacy after the change, and how many waiting requests turning
    it public approved now (the rest, if any, are approved by a job)."""

    private: bool
    approved: int


def _other(r: Client, other_id: int) -> User:
    """The user dict of the account acted on; NotFound for none, or one hidden
    (suspended, being deleted): no door tells them apart."""
    user = users.get_user(r, other_id)
    if user is None or users.is_hidden(user):
        raise NotFound("There is no such account.")
    return user


def _refuse_blocks(result: graph.FollowResult, blocked: str, blocking: str) -> None:
    """NotAllowed for a follow a block refused either way (``blocked``: the other blocks
    the follower; ``blocking``: the follower blocks the other)."""
    if result is FollowResult.BLOCKED:
        raise NotAllowed(blocked)
    if result is FollowResult.BLOCKING:
        raise NotAllowed(blocking)


def follow(actor: Actor, other_id: int) -> graph.FollowResult:
    """The actor follows account ``other_id``, or asks to if it is private.

    Rules: the "follows" throttle, a verified address; NotFound for an account not
    shown; Invalid for oneself; NotAllowed while a block stands either way; Busy while
    another follow or unfollow of the actor's is under way. The notification it makes
    (a follow, or a request) keeps NOTIFICATIONS_KEPT of the other's.
    Returns FOLLOWED, ALREADY_FOLLOWING, REQUESTED or ALREADY_REQUESTED.
    """
    require(actor, throttle="follows", verified=True)
    if other_id == actor.uid:
        raise Invalid("You cannot follow or unfollow yourself.")
    r = get_redis()
    other = _other(r, other_id)
    try:
        result = graph.follow(
            r, actor.uid, other_id, notifications_kept=settings.NOTIFICATIONS_KEPT
        )
    except graph.LockBusy:
        raise Busy(BUSY) from None
    login = other["login"]
    _refuse_blocks(
        result,
        blocked=f"@{login} has blocked you: you cannot follow them.",
        blocking=f"You block @{login}: unblock them before following them.",
    )
    return result


def unfollow(actor: Actor, other_id: int) -> graph.FollowResult:
    """The actor stops following account ``other_id``, or withdraws their request to.

    Rules: NotFound for an account not shown; Invalid for oneself; Busy while another
    follow or unfollow of the actor's is under way. Not throttled, and needs no
    verified address. Returns UNFOLLOWED, NOT_FOLLOWING or REQUEST_WITHDRAWN.
    """
    if other_id == actor.uid:
        raise Invalid("You cannot follow or unfollow yourself.")
    r = get_redis()
    _other(r, other_id)
    try:
        return graph.unfollow(r, actor.uid, other_id)
    except graph.LockBusy:
        raise Busy(BUSY) from None


def approve(actor: Actor, requester_id: int) -> graph.FollowResult:
    """The actor approves the request of ``requester_id`` to follow them: they follow
    the actor now, and are told (a notification, keeping NOTIFICATIONS_KEPT).

    Rules: NotFound for an account not shown; Invalid for oneself; NotAllowed while a
    block stands either way; Busy while a follow or unfollow of the requester's is
    under way. Returns FOLLOWED, ALREADY_FOLLOWING (approved already: a retry) or
    NO_REQUEST (withdrawn, rejected, or never asked: each door says it its way).
    """
    if requester_id == actor.uid:
        raise Invalid("Nobody asks to follow themself: there is nothing to approve.")
    r = get_redis()
    requester = _other(r, requester_id)
    try:
        result = privacy.approve(
            r, actor.uid, requester_id, notifications_kept=settings.NOTIFICATIONS_KEPT
        )
    except graph.LockBusy:
        raise Busy(BUSY) from None
    login = requester["login"]
    # graph.follow is the requester's: "blocked" is the actor blocking them.
    _refuse_blocks(
        result,
        blocked=f"You block @{login}: unblock them first.",
        blocking=f"@{login} blocks you.",
    )
    return result


def reject(actor: Actor, requester_id: int) -> RejectResult:
    """The actor rejects the request of ``requester_id`` to follow them; the requester
    is not told, and may ask again. NotFound for an account not shown."""
    r = get_redis()
    _other(r, requester_id)
    had = privacy.reject(r, actor.uid, requester_id)
    return RejectResult.REJECTED if had else RejectResult.NO_REQUEST


def block(actor: Actor, other_id: int) -> blocks.BlockResult:
    """The actor blocks account ``other_id``: neither follows the other any more, nor
    may follow; neither gets the other's statuses.

    Rules: NotFound for an account not shown; Invalid for oneself; Busy while a follow
    or unfollow of either holds its lock (blocking again finishes the block). Returns
    BLOCKED or ALREADY_BLOCKED.
    """
    if other_id == actor.uid:
        raise Invalid("You cannot block or unblock yourself.")
    r = get_redis()
    _other(r, other_id)
    try:
        return blocks.block(r, actor.uid, other_id)
    except graph.LockBusy:
        raise Busy(BUSY) from None


def unblock(actor: Actor, other_id: int) -> blocks.BlockResult:
    """The actor no longer blocks ``other_id`` (nobody follows anybody by it).
    NotFound for an account not shown; Invalid for oneself. UNBLOCKED or NOT_BLOCKED."""
    if other_id == actor.uid:
        raise Invalid("You cannot block or unblock yourself.")
    r = get_redis()
    _other(r, other_id)
    return blocks.unblock(r, actor.uid, other_id)


def mute(actor: Actor, other_id: int, duration_ms: int | None = None) -> blocks.MuteResult:
    """The actor mutes ``other_id`` for ``duration_ms`` (None: until unmuted): none of
    their statuses in the actor's home timeline, and none of their notifications (a
    mute here always hides both: the repository has no mute that keeps notifications,
    and neither door offers one). Muting again sets the new end.

    Rules: NotFound for an account not shown; Invalid for oneself, and for a duration
    of no time or over LONGEST_MUTE_SECONDS. Returns MUTED or MUTE_CHANGED.
    """
    if duration_ms is not None and not 0 < duration_ms <= LONGEST_MUTE_SECONDS * 1000:
        raise Invalid(MUTE_DURATION_RULE, field="duration")
    if other_id == actor.uid:
        raise Invalid("You cannot mute or unmute yourself.")
    r = get_redis()
    _other(r, other_id)
    return blocks.mute(r, actor.uid, other_id, duration_ms=duration_ms)


def unmute(actor: Actor, other_id: int) -> blocks.MuteResult:
    """The actor no longer mutes ``other_id``: their statuses come back to the home
    timeline. NotFound for an account not shown; Invalid for oneself. UNMUTED or
    NOT_MUTED."""
    if other_id == actor.uid:
        raise Invalid("You cannot mute or unmute yourself.")
    r = get_redis()
    _other(r, other_id)
    return blocks.unmute(r, actor.uid, other_id)


def set_private(actor: Actor, private: bool) -> PrivacyChange:
    """Make the actor's account private (only the followers they approve see their
    statuses) or public, which approves the requests waiting (each approval's
    notification keeping NOTIFICATIONS_KEPT)."""
    approved = privacy.set_private(
        get_redis(), actor.uid, private, notifications_kept=settings.NOTIFICATIONS_KEPT
    )
    return PrivacyChange(private=private, approved=approved)


# --- followed hashtags -------------------------------------------------------------


def tag_name(tag: str) -> str:
    """``tag`` normalized (entities.normalize_tag, without a leading "#"), or NotFound for
    what cannot be a tag (as its page answers)."""
    normalized = entities.normalize_tag(str(tag).lstrip("#"))
    if not entities.is_tag(normalized):
        raise NotFound(f"There is no tag #{str(tag)[:80]}.")
    return str(normalized)


def follow_tag(actor: Actor, tag: str) -> bool:
    """The actor follows hashtag ``tag``: its public statuses reach their home from now on
    (followed_tags.deliver_status). True if new (twice changes nothing). Throttle
    "follows", a verified address. NotFound for what cannot be a tag."""
    require(actor, throttle="follows", verified=True)
    return followed_tags.follow(get_redis(), actor.uid, tag_name(tag))


def unfollow_tag(actor: Actor, tag: str) -> bool:
    """The actor stops following ``tag``; True if they followed it. Throttle "follows"."""
    require(actor, throttle="follows")
    return followed_tags.unfollow(get_redis(), actor.uid, tag_name(tag))

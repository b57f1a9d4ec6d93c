"""Pinned statuses: an author pins up to MAX_PINNED of their own public statuses to the
top of their profile, and unpins them.

One key, keys.pinned(uid), in the author's slot beside keys.profile: the pinned ids by
when pinned, the latest first. Only one's own public statuses: not a repost, not one
posted while private (``private``), not one of a private account now, not a group's
members-only one (Mastodon pins public and unlisted statuses only). The profile page reads
the pins with its first page's ids (timelines.profile_page, ``with_pins``), and who may
see them is the profile's rule: the pinned statuses are its author's, shown through
visibility.shown_statuses as the page's others.

A deleted status's pin stays until read: pages skip it, and ``pin`` takes such pins out
before counting, so that a deleted status never takes a place.
"""

import enum
import time

from . import keys, likes, scripts, statuses, visibility
from .client import Client
from .records import Status

MAX_PINNED = 5  # as Mastodon's default (max_pinned_statuses in /api/v2/instance)


class PinResult(enum.Enum):
    PINNED = "pinned"
    ALREADY_PINNED = "already pinned"
    UNPINNED = "unpinned"
    NOT_PINNED = "not pinned"
    NOT_FOUND = "not found"  # deleted, never was, or the user may not see it
    NOT_OWN = "not own"  # another's status (or a repost: the original is another's)
    NOT_PUBLIC = "not public"  # posted to followers or to a group's members only
    FULL = "full"  # MAX_PINNED pinned already


def pinnable(status: Status) -> bool:
    """Whether ``status`` (with its ``author``) is public enough to pin."""
    author = status.get("author") or {}
    return not (
        str(status.get("private", "")) == "1"
        or str(author.get("private", "")) == "1"
        or status.get(keys.STATUS_MEMBERS_ONLY_FIELD)
    )


def pin(
    r: Client, uid: int, sid: int, now_ms: int | None = None, most: int = MAX_PINNED
) -> PinResult:
    """User ``uid`` pins their status ``sid``. Round trips: the status and its author;
    the pins (and, when ``most`` are there, whether their statuses still exist, those
    gone taken out); the pin (pin_status.lua)."""
    status, _ = likes.status_for_viewer(r, uid, sid)
    if status is None:
        return PinResult.NOT_FOUND
    if int(status["uid"]) != int(uid) or status.get("repost_of"):
        return PinResult.NOT_OWN
    if not pinnable(status):
        return PinResult.NOT_PUBLIC
    pinned = [int(str(each)) for each in r.zrange(keys.pinned(uid), 0, -1)]
    if len(pinned) >= most and int(sid) not in pinned:
        pipe = r.pipeline(transaction=False)
        for each in pinned:
            pipe.exists(keys.status(each))
        gone = [each for each, there in zip(pinned, pipe.execute(), strict=True) if not there]
        if gone:
            r.zrem(keys.pinned(uid), *gone)
    now_ms = int(time.time() * 1000) if now_ms is None else int(now_ms)
    done = scripts.pin_status(r, uid=int(uid), sid=int(sid), now_ms=now_ms, most=most)
    return {1: PinResult.PINNED, 0: PinResult.ALREADY_PINNED}.get(int(done), PinResult.FULL)


def unpin(r: Client, uid: int, sid: int) -> PinResult:
    """User ``uid`` unpins status ``sid``: UNPINNED, or NOT_PINNED (nothing changes; also
    for a deleted status or another's). One ZREM."""
    if r.zrem(keys.pinned(uid), int(sid)):
        return PinResult.UNPINNED
    return PinResult.NOT_PINNED


def pinned_ids(r: Client, uid: int) -> list[int]:
    """The ids ``uid`` pinned, the latest pin first (deleted ones included): one command."""
    return [int(str(each)) for each in r.zrevrange(keys.pinned(uid), 0, -1)]


def pinned_statuses(r: Client, uid: int, viewer_id: int | None) -> list[Status]:
    """The statuses ``uid`` pinned, the latest pin first, as ``viewer_id`` may see them
    (the caller decided they may see ``uid``'s statuses: visibility.statuses_visibility);
    deleted ones left out. Round trips: the ids; the statuses; the authors' visibility
    (none more for the profile's owner)."""
    found = statuses.get_statuses(r, pinned_ids(r, uid))
    return visibility.shown_statuses(r, viewer_id, found, checked={int(uid)})

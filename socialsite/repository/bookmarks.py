"""Bookmarks: a user keeps a status they can see for later, privately, and lets it go.

One key, keys.bookmarks(uid), in the user's slot: the status ids by when bookmarked
(unique ms scores, mark_bookmark.lua), read only for its owner (/bookmarks/,
GET /api/v1/bookmarks). Nobody is told: a bookmark changes no count and sends no
notification. A repost's id bookmarks its original (what the repost shows).

Who may bookmark what is the one visibility rule (likes.status_for_viewer): a status the
user may not see is NOT_FOUND, as one that is not there. A status of an author the user
blocks may be bookmarked (they see it; a bookmark touches nobody). When the page is read,
statuses deleted since are taken out of the list, and those the owner may no longer see
(visibility.shown_statuses) are left out without being taken out: a follow approved
again shows them again.
"""

import enum
import time
from collections.abc import Iterable
from typing import Any

from . import keys, likes, paging, scripts, statuses, visibility
from .client import Client


class BookmarkResult(enum.Enum):
    BOOKMARKED = "bookmarked"
    ALREADY_BOOKMARKED = "already bookmarked"
    UNBOOKMARKED = "unbookmarked"
    NOT_BOOKMARKED = "not bookmarked"
    NOT_FOUND = "not found"  # deleted, never was, or the user may not see it


def _target(r: Client, uid: int, sid: int) -> int | None:
    """The id a bookmark of ``sid`` by ``uid`` notes (a repost's original), or None if
    the user may not see it. Two or three round trips: the status and its author (and
    the original and its author for a repost)."""
    status, refused = likes.status_for_viewer(r, uid, sid)
    if status is None or refused is likes.LikeResult.NOT_FOUND:
        return None
    if status.get("repost_of"):
        original, refused = likes.status_for_viewer(r, uid, status["repost_of"])
        if original is None or refused is likes.LikeResult.NOT_FOUND:
            return None
        return int(original["id"])
    return int(status["id"])


def bookmark(r: Client, uid: int, sid: int, now_ms: int | None = None) -> BookmarkResult:
    """User ``uid`` bookmarks status ``sid``: BOOKMARKED, ALREADY_BOOKMARKED (nothing
    changes) or NOT_FOUND (nothing written). One round trip past the status's checks."""
    target = _target(r, uid, sid)
    if target is None:
        return BookmarkResult.NOT_FOUND
    now_ms = int(time.time() * 1000) if now_ms is None else int(now_ms)
    added = scripts.mark_bookmark(r, uid=int(uid), sid=target, now_ms=now_ms)
    return BookmarkResult.BOOKMARKED if added else BookmarkResult.ALREADY_BOOKMARKED


def unbookmark(r: Client, uid: int, sid: int) -> BookmarkResult:
    """User ``uid`` lets go of their bookmark of ``sid``: UNBOOKMARKED, NOT_BOOKMARKED
    (nothing changes). A status deleted, or one they may no longer see, can still be
    let go of (its id is only taken out of their own list); NOT_FOUND only for an id
    that was never bookmarked and is not there. One ZREM, after a ``locate`` for a
    repost's original."""
    located = statuses.locate(r, int(sid))
    target = int(located["repost_of"] or sid) if located else int(sid)
    if r.zrem(keys.bookmarks(uid), target):
        return BookmarkResult.UNBOOKMARKED
    if located is None or _target(r, uid, sid) is None:
        return BookmarkResult.NOT_FOUND
    return BookmarkResult.NOT_BOOKMARKED


def bookmarked_of(r: Client, uid: int | None, sids: Iterable[int]) -> frozenset[int]:
    """The ids among ``sids`` that user ``uid`` bookmarked (None: a visitor, none): one
    ZMSCORE, or nothing sent for no ids."""
    sids = [int(sid) for sid in sids]
    if uid is None or not sids:
        return frozenset()
    scores = r.zmscore(keys.bookmarks(uid), sids)  # type: ignore[arg-type]
    return frozenset(sid for sid, score in zip(sids, scores, strict=True) if score)


def queue_bookmarked_of(pipe: Any, uid: int, sids: list[int]) -> None:
    """Queue bookmarked_of's ZMSCORE on ``pipe`` (``sids`` not empty), for a caller that
    reads it with other things: its reply is a list of scores (None: not bookmarked)."""
    pipe.zmscore(keys.bookmarks(uid), sids)


def bookmarks_page(
    r: Client,
    uid: int,
    before: int | None = None,
    count: int = 30,
    since: int | None = None,
    above: int | None = None,
) -> paging.Page:
    """A page of the statuses user ``uid`` bookmarked, the latest bookmark first (each
    with its ``author``), with the page's ``liked`` (those of them the user likes) and
    cursors (the bookmarks' times; ``since``, ``above``: as paging.read_ids). Statuses
    deleted are taken out of the list (one ZREM, sent only when some are found); those
    the user may not see any more are left out (visibility.shown_statuses). Round trips:
    the ids; the statuses with the user's likes of them; the authors' visibility."""
    pairs, next_cursor = paging.read_ids(r, keys.bookmarks(uid), before, count, since, above)
    sids = [sid for sid, _ in pairs]
    viewer_likes = statuses.ViewerLikes(uid)
    found = statuses.get_statuses(r, sids, viewer_likes=viewer_likes)
    gone = set(sids) - {status["id"] for status in found}
    if gone:
        r.zrem(keys.bookmarks(uid), *gone)
    shown = visibility.shown_statuses(r, uid, found)
    return paging.Page(shown, next_cursor, frozenset(viewer_likes.ids), paging.top_cursor(pairs))

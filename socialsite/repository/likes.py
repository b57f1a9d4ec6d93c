"""Likes: a user likes a status they can see, and takes it back.

A like is written in two places, each in its own slot:
- the status's side, keys.likes (who likes it, by time) and the ``likes`` field of
  keys.status_counts, changed together by status_count.lua in the status's slot,
  which refuse a status whose hash is gone: the count is the list's size under any
  concurrency, and a like racing a delete leaves nothing behind it;
- the liker's side, keys.user_likes (what they like, by time: their /@login/likes/ page
  and the "Unlike" of every page), written after the status's side (mark_like.lua).
Both are idempotent, so a like or unlike retried after a crash between the two repairs
the half done: the page shows "Like" until the liker's side is written, and liking again
writes it without counting twice.

The status's author is notified (notifications.member("like", liker, sid, sid): the
likes of one status are grouped) when a like is new, and the notification is taken back
by the unlike, or by deleting the status (statuses.delete_status). Two gaps, both small:
a like whose request dies between status_count.lua and the notification notifies nobody (the
retry finds the like there); a like that lands between a deletion's read of the likers
and its DEL leaves a notification naming a deleted status, which the notifications page
drops (and counts out of the unread count) when it finds it gone.

Counts are read with every page (statuses._read_or_confirm); a like or unlike makes the
process that did it read the status's counts again (statuses.forget_counts), and sets
keys.likes_changed for COUNTS_TRUST_SECONDS, which home_page.lua reads with the page's
ids: the liker's home page reads its counts fresh whichever process answers.
"""

import enum
import time
from collections.abc import Iterable

from . import affinity, keys, notifications, paging, scripts, statuses, users, visibility
from .client import Client
from .limits import COUNTS_TRUST_SECONDS, NOTIFICATIONS_KEPT
from .records import Status


class LikeResult(enum.Enum):
    LIKED = "liked"
    ALREADY_LIKED = "already liked"
    UNLIKED = "unliked"
    NOT_LIKED = "not liked"
    # Deleted, never was, or the viewer may not see it (its author suspended or
    # leaving, private and not followed, blocking the viewer): all alike to them.
    NOT_FOUND = "not found"
    BLOCKED = "blocked"  # the viewer blocks the author (and sees the status)


# What a refusal of status_for_viewer is.
REFUSALS = (LikeResult.NOT_FOUND, LikeResult.BLOCKED)


def status_for_viewer(
    r: Client, viewer_id: int | None, sid: int | str
) -> tuple[Status | None, "LikeResult | None"]:
    """Status ``sid`` (with its counts and ``author``, the user hash read fresh) if
    ``viewer_id`` (None: a visitor) may see it, and None; else (None, a LikeResult of
    REFUSALS). The one rule of visibility.statuses_visibility: a status the viewer may
    not see is NOT_FOUND, exactly as one that is not there (a door answers both alike:
    Mastodon's "Record not found"). A block the viewer made refuses too, with the
    status (which the viewer sees): (status, BLOCKED): one does not like the statuses
    of someone one blocks. Two round trips: the status, then its author with the
    relationship."""
    status = statuses.get_status(r, sid)
    if status is None:
        return None, LikeResult.NOT_FOUND
    author, rel = visibility.author_and_relationship(r, viewer_id, status["uid"])
    if author is None or users.is_hidden(author):
        return None, LikeResult.NOT_FOUND
    if visibility.statuses_visibility(viewer_id, author, rel) is not visibility.Visibility.VISIBLE:
        return None, LikeResult.NOT_FOUND
    if not visibility.members_only_shown(r, viewer_id, [status]):
        return None, LikeResult.NOT_FOUND  # groups: a private group's, to others
    status["author"] = author
    if rel.blocking:
        return status, LikeResult.BLOCKED
    return status, None


def like(
    r: Client,
    uid: int,
    sid: int,
    now_ms: int | None = None,
    notifications_kept: int = NOTIFICATIONS_KEPT,
) -> LikeResult:
    """User ``uid`` likes status ``sid``; a LikeResult: LIKED, ALREADY_LIKED (nothing
    changes), or a refusal (REFUSALS: nothing is written).

    Round trips: the status and its author (status_for_viewer); status_count.lua in the
    status's slot; then the liker's side (mark_like.lua) and, for a new like of another
    user's status, the author's notification (notify.lua, keeping their newest
    ``notifications_kept``)."""
    status, refused = status_for_viewer(r, uid, sid)
    if refused:
        return refused
    assert status is not None  # not refused: found (for mypy; always true)
    sid, author = status["id"], status["uid"]
    now_ms = int(time.time() * 1000) if now_ms is None else int(now_ms)
    added = scripts.status_count(
        r, sid=sid, uid=int(uid), kind="likes", action="add", now_ms=now_ms
    )
    if added == -1:
        return LikeResult.NOT_FOUND  # deleted since it was read: nothing written

    def fill(pipe):
        scripts.mark_like.queue(pipe, uid=uid, sid=sid, now_ms=now_ms)
        if added == 1 and author != int(uid):
            event = notifications.member("like", uid, sid, sid)
            notifications.queue_notify(pipe, author, event, now_ms, notifications_kept)
        if added == 1:  # the Top timeline's affinity (affinity.py), riding along
            affinity.queue_bump(pipe, int(uid), author, "like", now_ms / 1000)

    scripts.run_pipeline(r, fill)
    statuses.forget_counts(sid)
    return LikeResult.LIKED if added == 1 else LikeResult.ALREADY_LIKED


def unlike(r: Client, uid: int, sid: int) -> LikeResult:
    """User ``uid`` takes back their like of status ``sid``; a LikeResult: UNLIKED,
    NOT_LIKED (nothing changes), or a refusal (REFUSALS). Round trips: the status and
    its author; status_count.lua in the status's slot; the liker's side and the notification
    taken back (both whatever status_count.lua found: a retry finishes a half-done unlike)."""
    status, refused = status_for_viewer(r, uid, sid)
    if refused:
        return refused
    assert status is not None  # not refused: found (for mypy; always true)
    sid, author = status["id"], status["uid"]
    removed = scripts.status_count(r, sid=sid, uid=int(uid), kind="likes", action="remove")
    _forget_like(r, uid, sid, author)
    statuses.forget_counts(sid)
    return LikeResult.UNLIKED if removed else LikeResult.NOT_LIKED


def _forget_like(r, uid, sid, author):
    """The liker's side of an unlike, and its notification taken back: one round trip."""

    def fill(pipe):
        pipe.zrem(keys.user_likes(uid), sid)
        pipe.set(keys.likes_changed(uid), "1", px=COUNTS_TRUST_SECONDS * 1000)
        if author is not None and int(author) != int(uid):
            notifications.queue_unnotify(
                pipe, author, [notifications.member("like", uid, sid, sid)]
            )

    scripts.run_pipeline(r, fill)


def likes_of(r: Client, uid: int | None, sids: Iterable[int]) -> frozenset[int]:
    """The ids among ``sids`` that user ``uid`` likes (None: a visitor, none): one
    ZMSCORE, or nothing sent for no ids."""
    sids = [int(sid) for sid in sids]
    if uid is None or not sids:
        return frozenset()
    # redis-py types the members as str; ints are sent as their digits.
    scores = r.zmscore(keys.user_likes(uid), sids)  # type: ignore[arg-type]
    return frozenset(sid for sid, score in zip(sids, scores, strict=True) if score)


def like_count(r: Client, sid: int) -> int:
    """The number of likes of status ``sid`` (tests, maintenance)."""
    return int(r.hget(keys.status_counts(sid), "likes") or 0)


def likers_page(
    r: Client,
    sid: int,
    before: int | None = None,
    count: int = 30,
    since: int | None = None,
    above: int | None = None,
) -> paging.Page:
    """A page of the users who like status ``sid``, the latest like first, and a cursor
    (as graph.followers_page); suspended and leaving accounts are left out. ``since``,
    ``above``: the client API's paging, as paging.read_ids takes them."""
    pairs, next_cursor = paging.read_ids(r, keys.likes(sid), before, count, since, above)
    found = users.get_users(r, [uid for uid, _ in pairs])
    shown = [found[uid] for uid, _ in pairs if uid in found and not users.is_hidden(found[uid])]
    return paging.Page(shown, next_cursor, prev_cursor=paging.top_cursor(pairs))


def liked_page(
    r: Client,
    uid: int,
    viewer_id: int | None = None,
    before: int | None = None,
    count: int = 30,
    since: int | None = None,
    above: int | None = None,
) -> paging.Page:
    """A page of the statuses user ``uid`` likes, the latest like first (each with its
    ``author``), and a cursor; the page's ``liked``, those of them ``viewer_id`` likes.
    Left out: statuses deleted (their ids are taken out of the list here, one ZREM in
    ``uid``'s slot, sent only when some are found), those whose author is gone, and those
    ``viewer_id`` may not see (visibility.shown_statuses). Round trips: the ids; the
    statuses with the viewer's likes of them; the authors not shown lately; the
    visibility of other authors' statuses (when there are any). The cursors are the
    likes' times; ``since``, ``above``: as paging.read_ids."""
    pairs, next_cursor = paging.read_ids(r, keys.user_likes(uid), before, count, since, above)
    sids = [sid for sid, _ in pairs]
    viewer_likes = statuses.ViewerLikes(viewer_id)
    found = statuses.get_statuses(r, sids, viewer_likes=viewer_likes)
    gone = set(sids) - {status["id"] for status in found}
    if gone:
        r.zrem(keys.user_likes(uid), *gone)
    shown = visibility.shown_statuses(r, viewer_id, found)
    return paging.Page(shown, next_cursor, frozenset(viewer_likes.ids), paging.top_cursor(pairs))


def undo_likes_of_leaving_user(r, uid, budget):
    """Take back up to ``budget`` of the likes of user ``uid``, whose account is being
    deleted (leaving.DELETION_STEPS): each status's count drops (status_count.lua) and its
    author's notification goes. Returns how many were taken back (fewer than ``budget``:
    all). Three round trips a run: the likes and their statuses' authors, the unlikes
    with the notifications, and the liker's list."""
    sids = [int(sid) for sid in r.zrange(keys.user_likes(uid), 0, budget - 1)]
    if not sids:
        return 0
    pipe = r.pipeline(transaction=False)
    for sid in sids:
        pipe.hget(keys.status(sid), "uid")
    authors = pipe.execute()

    def fill(pipe):
        for sid, author in zip(sids, authors, strict=True):
            scripts.status_count.queue(pipe, sid=sid, uid=int(uid), kind="likes", action="remove")
            if author is not None and int(author) != int(uid):
                event = notifications.member("like", uid, sid, sid)
                notifications.queue_unnotify(pipe, int(author), [event])

    scripts.run_pipeline(r, fill)
    # Last: a run that dies before this finds them again, and unlikes nothing twice.
    r.zrem(keys.user_likes(uid), *sids)
    for sid in sids:
        statuses.forget_counts(sid)
    return len(sids)

"""Blocks and mutes: whose statuses a user does not get, and who may not follow whom.

A block is mutual in effect: neither user follows the other any more (both follows
are undone, with their counts), neither may follow the other, and neither gets the
other's statuses in their home timeline. The blocked user, logged in, cannot see the
blocker's statuses on any page (visibility.py). A mute only keeps the muted user's
statuses out of the muter's home timeline, for a while or for good, and changes
nothing the muted user can see.

Each side of a block is written in its own user's slot (set_block.lua), so that each
user's follows, home timeline and deliveries are checked within that user's slot. The
step that writes a side also notes it where deliveries and home pages look:
- keys.hiding(uid, author) (per shard and author: "who in this shard does not get the
  author's statuses"), which deliver.lua reads in the same step as each SADD: a
  fan-out batch read before the block delivers nothing to the blocker once the note
  is written, and a delivery that landed before is taken out right after;
- keys.hides(uid), the user's own list, which home_page.lua returns with each page so
  that a status delivered before the note is dropped when read, and which the refill
  after an unfollow and the backfill after a follow respect.
A mute writes the same notes (set_mute.lua), with the mute's end as score: readers
ignore a note whose end has passed, and the fan-out workers' sweep (end_mutes) ends
such mutes and brings the muted user's statuses back, as a follow's backfill does.
Each change is also published (events.publish_relations_changed), so that the live
pages of those concerned read their filters again at once.
"""

import enum
import time
from typing import cast

from . import events, eviction, graph, keys, lists, notifications, paging, scripts, users
from .client import Client
from .limits import HOME_TIMELINE_SIZE

# Mute endings one sweep handles per shard; the rest wait for the next sweep.
MUTE_ENDINGS_PER_SWEEP = 100


class BlockResult(enum.Enum):
    BLOCKED = "blocked"
    UNBLOCKED = "unblocked"
    ALREADY_BLOCKED = "already blocked"
    NOT_BLOCKED = "not blocked"
    SELF = "self"


class MuteResult(enum.Enum):
    MUTED = "muted"
    MUTE_CHANGED = "mute changed"  # muted already: the new end (or none) holds
    UNMUTED = "unmuted"
    NOT_MUTED = "not muted"
    SELF = "self"


def _relations_changed(r, uids, hidden=()):
    """After a block, mute or their undoing: count the unread notifications of ``uids``
    again without (or with) the users they now hide (keys.hidden_actors),
    and tell the open live pages (events.publish_relations_changed)."""
    for uid in uids:
        notifications.recount(r, uid)
    events.publish_relations_changed(r, uids, hidden=hidden)


def _now_ms():
    return int(time.time() * 1000)


def _set_block(r, uid, other_uid, now, action, side):
    """One side of a block or unblock, in ``uid``'s slot (set_block.lua)."""
    return scripts.set_block(r, uid=uid, other=other_uid, now_ms=now, action=action, side=side)


def _take_out_of_home(r, uid, author_uid):
    """Take ``author_uid``'s newest HOME_TIMELINE_SIZE statuses out of ``uid``'s home
    timeline. Called after the hiding note is written: a status delivered before it is
    on the author's profile already (a post reaches its profile before any follower),
    so this read finds it; none delivered after lands."""
    status_ids = graph.take_out_of_home(r, uid, author_uid)
    if status_ids:
        # And out of uid's named lists that hold the author (who stays on them).
        lists.hide_statuses(r, uid, author_uid, status_ids)


def block(r: Client, uid: int, other_uid: int) -> BlockResult:
    """User ``uid`` blocks ``other_uid``; return a BlockResult.

    1. Note the block on uid's side, then on other's side (set_block.lua): from each
       step on, that user's home timeline gets none of the other's statuses, neither
       can follow the other, and a request of either to follow the other goes.
    2. Undo both follows, if any (graph.unfollow, under each user's follow lock, with
       counts and the refill of the home timeline); that also takes each user's
       statuses out of the other's home timeline.
    Every step can be repeated: blocking again (after a crash, or LockBusy from step 2)
    finishes what an earlier attempt left.
    """
    uid, other_uid = int(uid), int(other_uid)
    if uid == other_uid:
        return BlockResult.SELF
    now = _now_ms()
    added = _set_block(r, uid, other_uid, now, "block", "blocker")
    _set_block(r, other_uid, uid, now, "block", "blocked")
    pairs = [(uid, other_uid), (other_uid, uid)]
    _relations_changed(r, [uid, other_uid], hidden=pairs)
    # (Their live pages were told above, with the block: one event, not three.)
    graph.unfollow(r, uid, other_uid, tell_live_pages=False)
    graph.unfollow(r, other_uid, uid, tell_live_pages=False)
    return BlockResult.BLOCKED if added else BlockResult.ALREADY_BLOCKED


def unblock(r: Client, uid: int, other_uid: int) -> BlockResult:
    """User ``uid`` no longer blocks ``other_uid``; return a BlockResult.

    Both may follow each other again; nobody follows anybody by it. A mute of either
    stays in force (set_block.lua works the notes out again from what remains).
    """
    uid, other_uid = int(uid), int(other_uid)
    if uid == other_uid:
        return BlockResult.SELF
    now = _now_ms()
    removed = _set_block(r, uid, other_uid, now, "unblock", "blocker")
    _set_block(r, other_uid, uid, now, "unblock", "blocked")
    _relations_changed(r, [uid, other_uid])
    return BlockResult.UNBLOCKED if removed else BlockResult.NOT_BLOCKED


def _set_mute(r, uid, other_uid, now, action, ends=0):
    return scripts.set_mute(r, uid=uid, other=other_uid, now_ms=now, action=action, ends_ms=ends)


def mute(
    r: Client, uid: int, other_uid: int, duration_ms: int | None = None, now_ms: int | None = None
) -> MuteResult:
    """User ``uid`` mutes ``other_uid`` for ``duration_ms`` (None: until unmuted);
    return a MuteResult.

    1. Note the mute (set_mute.lua): from then on no status of other's is delivered to
       uid's home timeline.
    2. Take other's statuses out of uid's home timeline.
    A follow either way is left as it is; other sees no change anywhere. Muting again
    sets the new end. ``now_ms``: the time to count the duration from (tests).
    """
    uid, other_uid = int(uid), int(other_uid)
    if uid == other_uid:
        return MuteResult.SELF
    now = _now_ms() if now_ms is None else int(now_ms)
    ends = 0 if duration_ms is None else now + max(1, int(duration_ms))
    added = _set_mute(r, uid, other_uid, now, "mute", ends)
    _relations_changed(r, [uid], hidden=[(uid, other_uid)])
    _take_out_of_home(r, uid, other_uid)
    return MuteResult.MUTED if added else MuteResult.MUTE_CHANGED


def unmute(r: Client, uid: int, other_uid: int) -> MuteResult:
    """User ``uid`` no longer mutes ``other_uid``; return a MuteResult. The muted
    user's statuses come back to the home timeline (restore)."""
    uid, other_uid = int(uid), int(other_uid)
    if uid == other_uid:
        return MuteResult.SELF
    removed = _set_mute(r, uid, other_uid, _now_ms(), "unmute")
    _relations_changed(r, [uid])
    restore(r, uid, other_uid)
    return MuteResult.UNMUTED if removed else MuteResult.NOT_MUTED


def restore(r: Client, uid: int, other_uid: int, now_ms: int | None = None) -> int:
    """Bring ``other_uid``'s statuses back to ``uid``'s home timeline, after a mute:
    what a follow's backfill brings (the newest HOME_TIMELINE_SIZE, cut with the rest
    of the timeline to its cap, replies by the home timeline's rule), if uid follows
    other and gets their statuses again (backfill.lua checks both in the same step as
    it adds). Returns how many came back.
    """
    pipe = r.pipeline(transaction=False)  # one slot: other's
    pipe.zrevrange(keys.profile(other_uid), 0, HOME_TIMELINE_SIZE - 1)
    pipe.zrange(keys.profile_replies(other_uid), 0, -1)
    pipe.zrange(keys.profile_reposts(other_uid), 0, -1)
    status_ids, replies, reposts = pipe.execute()
    if not status_ids:
        return 0
    now = _now_ms() if now_ms is None else int(now_ms)
    restored = graph.backfill(r, uid, other_uid, now, status_ids, replies, reposts)
    # And into uid's named lists that hold other (list_fill.lua checks the same); lists
    # hold statuses, not reposts.
    marked = eviction.list_statuses_marked(status_ids, replies, reposts)
    lists.restore_statuses(r, uid, other_uid, marked)
    return restored


def end_mutes(r: Client, now_ms: int | None = None) -> int:
    """End every mute whose end has come, and bring the muted statuses back; return
    how many ended. The fan-out workers call this every few seconds.

    One round trip reads the due endings of every shard; each is then ended in its
    muter's slot only if its end has really come (a mute made again meanwhile with a
    later end, or none, stays). Until then a mute past its end already counts for
    nothing (readers compare its end with the time), so a late sweep only delays the
    return of the statuses held back. Safe to run in several workers at once.
    """
    now = _now_ms() if now_ms is None else int(now_ms)
    shard_keys = keys.all_mute_endings()
    pipe = r.pipeline(transaction=False)
    for key in shard_keys:
        pipe.zrangebyscore(key, "-inf", now, start=0, num=MUTE_ENDINGS_PER_SWEEP)
    ended = 0
    for due in pipe.execute():
        for ending in due:
            uid, _, other_uid = ending.partition(":")
            if _set_mute(r, int(uid), int(other_uid), now, "end"):
                ended += 1
                _relations_changed(r, [int(uid)])
                restore(r, int(uid), int(other_uid), now)
    return ended


# --- reading ------------------------------------------------------------------------------


def is_blocking(r: Client, uid: int, other_uid: int) -> bool:
    """Whether ``uid`` blocks ``other_uid``."""
    return graph.is_blocking(r, uid, other_uid)


def is_blocked_either_way(r: Client, uid: int, other_uid: int) -> bool:
    """Whether ``uid`` blocks ``other_uid`` or ``other_uid`` blocks ``uid``. One
    command, in ``uid``'s slot (both directions are noted there).

    For the features that put one user's words before another (replies, mentions,
    likes, reposts, notifications): refuse or leave out when this is true.
    """
    pipe = r.pipeline(transaction=False)  # one slot: one node
    pipe.zscore(keys.blocks(uid), other_uid)
    pipe.zscore(keys.blocked_by(uid), other_uid)
    return any(score is not None for score in pipe.execute())


def hidden_authors(r: Client, uid: int, now_ms: int | None = None) -> set[int]:
    """The ids of the users whose statuses ``uid`` does not get: blocked either way,
    or muted (until the mute's end). One command, in ``uid``'s slot.

    For any list of statuses put before ``uid`` outside the home timeline (mentions,
    replies in a thread, tag timelines, search, notifications): leave these authors'
    out, and reposts of them. The home page reads the same list in its own round trip
    (home_page.lua).
    """
    now = _now_ms() if now_ms is None else int(now_ms)
    hidden = cast(list[str], r.zrangebyscore(keys.hides(uid), f"({now}", "+inf"))
    return {int(author) for author in hidden}


def blocks_page(
    r: Client,
    uid: int,
    before: int | None = None,
    count: int = 30,
    since: int | None = None,
    above: int | None = None,
) -> paging.Page:
    """A page of the users ``uid`` blocks, latest block first, and a cursor.
    ``since``, ``above``: the client API's paging, as paging.read_ids takes them."""
    pairs, next_cursor = paging.read_ids(r, keys.blocks(uid), before, count, since, above)
    found = users.get_users(r, [other for other, _ in pairs])
    return paging.Page(
        [found[other] for other, _ in pairs if other in found], next_cursor,
        prev_cursor=paging.top_cursor(pairs),
    )  # fmt: skip


def mutes_page(
    r: Client,
    uid: int,
    before: int | None = None,
    count: int = 30,
    now_ms: int | None = None,
    since: int | None = None,
    above: int | None = None,
) -> paging.Page:
    """A page of the users ``uid`` mutes, latest mute first, and a cursor: each user's
    dict with ``mute_ends`` (ms; 0: no end). Mutes whose end has passed are left out
    (the sweep has yet to remove them). ``since``, ``above``: the client API's paging,
    as paging.read_ids takes them."""
    pairs, next_cursor = paging.read_ids(r, keys.mutes(uid), before, count, since, above)
    ids = [other for other, _ in pairs]
    ends = r.hmget(keys.mute_ends(uid), ids) if ids else []
    found = users.get_users(r, ids)
    now = _now_ms() if now_ms is None else int(now_ms)
    items = []
    for other, stored in zip(ids, ends, strict=True):
        end = int(stored or 0)
        if other in found and (end == 0 or end > now):
            items.append({**found[other], "mute_ends": end})
    return paging.Page(items, next_cursor, prev_cursor=paging.top_cursor(pairs))


def mute_ends_at(r: Client, uid: int, other_uid: int, now_ms: int | None = None) -> int | None:
    """When ``uid``'s mute of ``other_uid`` ends, in ms: 0 for no end, None if ``uid``
    does not mute ``other_uid`` (or the mute has ended)."""
    stored = r.hget(keys.mute_ends(uid), other_uid)
    if stored is None:
        return None
    end = int(stored)
    now = _now_ms() if now_ms is None else int(now_ms)
    return end if end == 0 or end > now else None

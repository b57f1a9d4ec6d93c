"""The social graph: following and unfollowing, and the two lists (section 8.3).

Each follow is two entries: ``o`` in following:{u} and ``u`` in followers:{o}. They
live in different slots (one per user), so no single step can change both. Instead:
- each side is changed by a script that updates the list and its count together
  (add_edge.lua, remove_edge.lua, unfollow.lua), so a count always equals its list;
- every step is idempotent, and a follow or unfollow always runs all of its steps,
  so repeating one after a crash repairs a half-done earlier attempt;
- ``u`` holds a short lock (lock:follow:{u}) while following or unfollowing, so two
  requests of the same user (a double click, two tabs) cannot interleave their steps
  and leave the two sides disagreeing.
"""

import enum
import time

from . import fanout, jobs, keys, locks, paging, scripts, users
from .limits import HOME_TIMELINE_SIZE, HOME_TIMELINE_SLACK, UNFOLLOW_MEMORY_MS

LockBusy = locks.LockBusy


class FollowResult(enum.Enum):
    FOLLOWED = "followed"
    UNFOLLOWED = "unfollowed"
    ALREADY_FOLLOWING = "already following"
    NOT_FOLLOWING = "not following"
    SELF = "self"


def _now_ms():
    return int(time.time() * 1000)


def follow(r, uid, other_uid):
    """User ``uid`` follows ``other_uid``; return a FollowResult.

    1. Add other to following:{uid} (and count it), under the lock.
    2. Add uid to followers:{other} (and count it) and, in the same round trip, read
       other's newest HOME_TIMELINE_SIZE status ids.
    3. Add those ids to home:{uid} and trim it to the cap (backfill.lua).
    Raises LockBusy if another follow or unfollow of ``uid`` takes too long.
    """
    uid, other_uid = int(uid), int(other_uid)
    if uid == other_uid:
        return FollowResult.SELF
    with locks.hold(r, keys.follow_lock(uid)):
        now = _now_ms()
        added = scripts.ADD_EDGE(
            r,
            [keys.following(uid), keys.user(uid), keys.unfollowed(uid, other_uid)],
            [other_uid, now, "following", uid],
        )

        def fill(pipe):
            scripts.ADD_EDGE.queue(
                pipe, [keys.followers(other_uid), keys.user(other_uid)], [uid, now, "followers"]
            )
            pipe.zrevrange(keys.profile(other_uid), 0, HOME_TIMELINE_SIZE - 1)

        status_ids = scripts.run_pipeline(r, fill)[1]
        if status_ids:
            scripts.BACKFILL(
                r,
                [keys.home(uid), keys.following(uid)],
                [other_uid, HOME_TIMELINE_SIZE, HOME_TIMELINE_SLACK, *status_ids],
            )
    return FollowResult.FOLLOWED if added else FollowResult.ALREADY_FOLLOWING


def unfollow(r, uid, other_uid, refill=True):
    """User ``uid`` stops following ``other_uid``; return a FollowResult.

    1. Read other's newest HOME_TIMELINE_SIZE status ids.
    2. Remove other from following:{uid} (and uncount it) and those ids from
       home:{uid}, and note the unfollow for fan-outs in progress, in one step
       (unfollow.lua).
    3. Remove uid from followers:{other} (and uncount it).
    4. Queue a job to refill home:{uid} (fanout.refill_job), unless ``refill`` is
       False (``uid``'s account is being deleted: its home timeline goes too).
    Raises LockBusy if another follow or unfollow of ``uid`` takes too long.
    """
    uid, other_uid = int(uid), int(other_uid)
    if uid == other_uid:
        return FollowResult.SELF
    with locks.hold(r, keys.follow_lock(uid)):
        status_ids = r.zrevrange(keys.profile(other_uid), 0, HOME_TIMELINE_SIZE - 1)
        removed = scripts.UNFOLLOW(
            r,
            [keys.following(uid), keys.user(uid), keys.home(uid), keys.unfollowed(uid, other_uid)],
            [other_uid, uid, _now_ms(), UNFOLLOW_MEMORY_MS, *status_ids],
        )
        scripts.REMOVE_EDGE(
            r, [keys.followers(other_uid), keys.user(other_uid)], [uid, "followers"]
        )
    if removed and refill:
        # Deferred, so the unfollow returns at once: top the home timeline up again
        # with older statuses of the people still followed (the book's exercise).
        jobs.enqueue(r, fanout.refill_job(uid))
    return FollowResult.UNFOLLOWED if removed else FollowResult.NOT_FOLLOWING


def is_following(r, uid, other_uid):
    return r.zscore(keys.following(uid), other_uid) is not None


def _page_of_users(r, key, before, count):
    pairs, next_cursor = paging.read_ids(r, key, before, count)
    found = users.get_users(r, [uid for uid, _ in pairs])
    # Suspended accounts, and those being deleted, are listed nowhere.
    shown = [found[uid] for uid, _ in pairs if uid in found and not users.is_hidden(found[uid])]
    return paging.Page(shown, next_cursor)


def followers_page(r, uid, before=None, count=30):
    """A page of the users following ``uid``, most recent follow first, and a cursor."""
    return _page_of_users(r, keys.followers(uid), before, count)


def following_page(r, uid, before=None, count=30):
    """A page of the users ``uid`` follows, most recent follow first, and a cursor."""
    return _page_of_users(r, keys.following(uid), before, count)


def follower_ids(r, uid):
    """All follower ids of ``uid`` (tests and maintenance)."""
    return {int(member) for member in r.zrange(keys.followers(uid), 0, -1)}


def following_ids(r, uid):
    """All ids ``uid`` follows (tests and maintenance)."""
    return {int(member) for member in r.zrange(keys.following(uid), 0, -1)}

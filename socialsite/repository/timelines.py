"""Reading home and profile timelines: a page of statuses with their authors.

A timeline is a ZSET of status ids scored by the id itself. Ids come from INCR, so
they are unique and in posting order: ordering by id is ordering by time, with no
ties, which makes cursor paging exact (see paging.py).

Reading one page costs three round trips whatever its length: the ids, the status
hashes (one pipeline), the authors' hashes (one pipeline).
"""

import heapq

from . import keys, locks, paging, statuses, users
from .limits import HOME_TIMELINE_SIZE


def _page_of_statuses(r, key, before, count):
    pairs, next_cursor = paging.read_ids(r, key, before, count)
    found = statuses.get_statuses(r, [sid for sid, _ in pairs])
    authors = users.get_users(r, [status["uid"] for status in found])
    for status in found:
        status["author"] = authors.get(status["uid"])
    # A status whose author is gone is not shown; a deleted status (no hash) neither.
    return paging.Page([s for s in found if s["author"]], next_cursor)


def home_page(r, uid, before=None, count=30):
    """A page of the home timeline of ``uid``: statuses (newest first) and a cursor."""
    return _page_of_statuses(r, keys.home(uid), before, count)


def profile_page(r, uid, before=None, count=30):
    """A page of the statuses ``uid`` posted (newest first) and a cursor."""
    return _page_of_statuses(r, keys.profile(uid), before, count)


def home_ids(r, uid):
    """Every id in the home timeline of ``uid``, newest first (tests, maintenance)."""
    return [int(sid) for sid in r.zrevrange(keys.home(uid), 0, -1)]


def profile_ids(r, uid, count=None):
    """Ids of the statuses ``uid`` posted, newest first; the newest ``count`` if given."""
    stop = -1 if count is None else count - 1
    return [int(sid) for sid in r.zrevrange(keys.profile(uid), 0, stop)]


# Followed profiles read per round trip while refilling.
_REFILL_CHUNK = 1000


def refill_home(r, uid):
    """Top the home timeline of ``uid`` up to HOME_TIMELINE_SIZE (after an unfollow).

    The unfollow took the unfollowed user's statuses out. Everything newer than the
    oldest id left is already there (it was delivered and never trimmed), so the
    missing ones are older: for each user still followed, and the user themself, read
    up to ``gap`` ids below that oldest id, and add the newest ``gap`` of them all.
    Holds the user's follow lock, so a follow or unfollow cannot interleave. Returns
    the number of ids added.
    """
    with locks.hold(r, keys.follow_lock(uid), wait_seconds=10):
        pipe = r.pipeline(transaction=False)
        pipe.zcard(keys.home(uid))
        pipe.zrange(keys.home(uid), 0, 0, withscores=True)
        pipe.zrange(keys.following(uid), 0, -1)
        size, oldest, followed = pipe.execute()
        gap = HOME_TIMELINE_SIZE - size
        if gap <= 0:
            return 0
        below = f"({int(oldest[0][1])}" if oldest else "+inf"
        authors = [uid, *followed]
        candidates = []
        for start in range(0, len(authors), _REFILL_CHUNK):
            pipe = r.pipeline(transaction=False)
            for author in authors[start : start + _REFILL_CHUNK]:
                pipe.zrevrangebyscore(keys.profile(author), below, "-inf", start=0, num=gap)
            candidates += [int(sid) for ids in pipe.execute() for sid in ids]
        newest = heapq.nlargest(gap, set(candidates))
        if not newest:
            return 0
        pipe = r.pipeline(transaction=True)  # one key: a MULTI is cluster-safe
        pipe.zadd(keys.home(uid), {str(sid): sid for sid in newest})
        pipe.zremrangebyrank(keys.home(uid), 0, -HOME_TIMELINE_SIZE - 1)
        return pipe.execute()[0]

"""Reading home and profile timelines: a page of statuses with their authors.

A timeline is a ZSET of status ids scored by the id itself. Ids come from INCR, so
they are unique and in posting order: ordering by id is ordering by time, with no
ties, which makes cursor paging exact (see paging.py).

Reading one page costs three round trips whatever its length: the ids, the status
hashes (one pipeline), the authors' hashes (one pipeline).
"""

from . import keys, paging, statuses, users


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

"""Tag timelines: the newest statuses with each hashtag, for the /tags/<tag>/ pages.

A tag's timeline is a ZSET of status ids scored by id (keys.tag), in a slot of its own:
never in the author's. So posting and deleting write it in a step of their own, after
(posting) or before (deleting) the author's script, with commands that are safe to
repeat: ZADD of the same id and score, ZREM, and a trim to the newest
TAG_TIMELINE_SIZE. Readers skip ids whose status hash is gone (timelines.tag_page), so
an id left behind by a request that died shows nothing and falls off in time.
The pages read it in timelines.tag_page.
"""

from . import keys, search
from .limits import TAG_TIMELINE_SIZE


def queue_add(pipe, sid, tags, public=True):
    """Queue on ``pipe`` adding status ``sid`` to the timeline of each of ``tags``
    (normalized), each then cut to its newest TAG_TIMELINE_SIZE; and, for a ``public``
    status (its author's account was not private when posting it), noting the use in
    the search index's tags (search.queue_tag_use).

    A tag is named by search and autocomplete only once a public status used it: a tag
    only private accounts use would tell everyone what their followers read. The tag's
    page shows each reader the statuses they may see (visibility.shown_statuses)."""
    for tag in tags:
        key = keys.tag(tag)
        pipe.zadd(key, {sid: sid})
        pipe.zremrangebyrank(key, 0, -TAG_TIMELINE_SIZE - 1)
    if public:
        search.queue_tag_use(pipe, sid, tags)


def queue_remove(pipe, sid, tags):
    """Queue on ``pipe`` taking status ``sid`` off the timeline of each of ``tags``."""
    for tag in tags:
        pipe.zrem(keys.tag(tag), sid)


def tag_ids(r, tag):
    """Every status id of tag ``tag``, newest first (tests, maintenance)."""
    return [int(sid) for sid in r.zrevrange(keys.tag(tag), 0, -1)]

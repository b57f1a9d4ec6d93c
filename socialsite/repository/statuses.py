"""Statuses: posting (with fan-out), reading and deleting them (sections 8.1.2 and 8.4)."""

import enum
import time

from . import events, fanout, keys, scripts
from .limits import HOME_TIMELINE_SIZE, INLINE_FANOUT_LIMIT


class DeleteResult(enum.Enum):
    DELETED = "deleted"
    NOT_FOUND = "not found"
    NOT_OWNER = "not owner"


def _decode_status(data):
    if not data:
        return None
    status = dict(data)
    status["id"] = int(status["id"])
    status["uid"] = int(status["uid"])
    status["posted"] = float(status["posted"])
    return status


def post_status(r, uid, message, inline_limit=INLINE_FANOUT_LIMIT, **data):
    """Post a status for user ``uid`` and deliver it; return its id (None: no such user).

    Extra keyword fields (``location="lat,lon"``...) are stored with the status, as
    the book's ``**data``. Steps, each safe to retry:
    1. One round trip: the author's login, and a new id (INCR status:id:).
    2. One round trip: write status:<id>; add the id to the author's profile and home
       and count the post (add_own_status.lua); read the first ``inline_limit``
       followers (their follow list is in the author's slot).
    3. One round trip: deliver to those followers (fanout.deliver).
    4. Followers beyond them: fanout.defer_remaining. Then publish for streaming.
    """
    pipe = r.pipeline(transaction=False)
    pipe.hget(keys.user(uid), "login")
    pipe.incr(keys.STATUS_IDS)
    login, sid = pipe.execute()
    if not login:
        return None
    status = {
        **{name: str(value) for name, value in data.items() if value not in (None, "")},
        "message": message,
        "posted": time.time(),
        "id": sid,
        "uid": uid,
        "login": login,
    }

    def fill(pipe):
        pipe.hset(keys.status(sid), mapping=status)
        scripts.ADD_OWN_STATUS.queue(
            pipe,
            [keys.profile(uid), keys.home(uid), keys.user(uid)],
            [sid, HOME_TIMELINE_SIZE],
        )
        pipe.zrangebyscore(
            keys.followers(uid), "-inf", "+inf", start=0, num=inline_limit, withscores=True
        )

    followers = scripts.run_pipeline(r, fill)[2]
    fanout.deliver(r, uid, sid, [int(member) for member, _ in followers])
    if len(followers) == inline_limit:
        fanout.defer_remaining(r, uid, sid, after_score=int(followers[-1][1]))
    events.publish_posted(r, status)
    return sid


def get_status(r, sid):
    """The status hash as a dict (id, uid as ints; posted as float), or None."""
    return _decode_status(r.hgetall(keys.status(sid)))


def get_statuses(r, sids):
    """Several statuses in one round trip, in the order given; missing ones left out."""
    if not sids:
        return []
    pipe = r.pipeline(transaction=False)
    for sid in sids:
        pipe.hgetall(keys.status(sid))
    return [status for status in map(_decode_status, pipe.execute()) if status]


def delete_status(r, uid, sid):
    """Delete status ``sid`` if user ``uid`` posted it; return a DeleteResult.

    1. Read the status and check its owner.
    2. Take it off the author's profile and home and uncount it
       (remove_own_status.lua): a retry after a crash does not uncount it twice.
    3. Delete the hash: from now on no timeline shows it, since readers skip ids
       without a hash.
    4. Take its id out of followers' home timelines (the book's "zombie" exercise)
       and publish the deletion for streaming clients.
    """
    status = get_status(r, sid)
    if status is None:
        return DeleteResult.NOT_FOUND
    if status["uid"] != int(uid):
        return DeleteResult.NOT_OWNER
    scripts.REMOVE_OWN_STATUS(r, [keys.profile(uid), keys.home(uid), keys.user(uid)], [sid])
    r.delete(keys.status(sid))
    fanout.remove_from_followers(r, uid, sid)
    events.publish_deleted(r, status)
    return DeleteResult.DELETED

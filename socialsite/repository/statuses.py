"""Statuses: posting (with fan-out), reading and deleting them (sections 8.1.2 and 8.4)."""

import enum
import time

from ..memory import Memory
from . import events, fanout, jobs, keys, scripts
from .limits import (
    DELETED_NOTE_MS,
    HOME_TIMELINE_SIZE,
    HOME_TIMELINE_SLACK,
    INLINE_FANOUT_LIMIT,
    STATUS_TRUST_SECONDS,
)


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
       followers and the newest follower's score (all in the author's slot).
    3. One round trip: deliver to those followers (fanout.deliver).
    4. If there are more: one job for the fan-out workers covering everyone who
       followed after the last inline follower and up to now (fanout.plan_job).
    5. Publish the status for the streaming API.
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
            [sid, HOME_TIMELINE_SIZE, HOME_TIMELINE_SLACK],
        )
        pipe.zrangebyscore(
            keys.followers(uid), "-inf", "+inf", start=0, num=inline_limit, withscores=True
        )
        pipe.zrange(keys.followers(uid), -1, -1, withscores=True)

    _, _, followers, newest = scripts.run_pipeline(r, fill)
    fanout.deliver(r, uid, sid, [int(member) for member, _ in followers])
    # Followers past the inline ones (all of them when inline_limit is 0) are deferred.
    last_inline = int(followers[-1][1]) if followers else None
    if newest and (last_inline is None or newest[0][1] > last_inline):
        jobs.enqueue(r, fanout.plan_job("deliver", uid, sid, last_inline, int(newest[0][1])))
    events.publish_posted(r, status)
    return sid


def get_status(r, sid):
    """The status hash as a dict (id, uid as ints; posted as float), or None."""
    return _decode_status(r.hgetall(keys.status(sid)))


# A status hash never changes once written (deleting a status deletes the whole hash),
# so each process remembers the statuses it has read, with when Redis last confirmed
# that each still exists. A profile page then costs 30 EXISTS with integer answers
# instead of 30 hashes to send and parse, and a home page, whose ids home_page.lua has
# already filtered through the deletion notes, nothing at all for statuses confirmed in
# the last STATUS_TRUST_SECONDS. Ids are never reused (INCR), except after a FLUSHALL,
# which empties every memory (client.flush_all).
KNOWN_STATUSES = 50_000  # ~0.5 KB each: ~25 MB per process at most
# {sid: (decoded status, monotonic time last confirmed)}
_known = Memory("statuses", KNOWN_STATUSES)


def get_statuses(r, sids, deletions_skipped=False):
    """Several statuses in one round trip at most, in the order given; missing ones
    left out. Each is a fresh dict the caller may change.

    ``deletions_skipped``: the ids were read through the deletion notes a moment ago
    (timelines.home_page), so statuses this process confirmed lately are shown from
    memory without asking Redis; otherwise remembered statuses cost an EXISTS each.
    """
    sids = [int(sid) for sid in sids]
    if not sids:
        return []
    now = time.monotonic()
    remembered = _known.get_many(sids)
    unknown = []
    if len(remembered) < len(sids):
        unknown = [sid for sid in dict.fromkeys(sids) if sid not in remembered]
    to_confirm = [
        sid
        for sid, entry in remembered.items()
        if not (deletions_skipped and now - entry[1] < STATUS_TRUST_SECONDS)
    ]
    if unknown or to_confirm:
        _read_or_confirm(r, unknown, to_confirm, remembered, now)
    return [dict(entry[0]) for entry in map(remembered.get, sids) if entry]


def _read_or_confirm(r, unknown, to_confirm, remembered, now):
    """One round trip: read the ``unknown`` statuses' hashes and check that the
    ``to_confirm`` ones still exist; update ``remembered`` and the process's memory."""
    pipe = r.pipeline(transaction=False)
    # One EXISTS per key: a command's keys must share a slot, and status keys do not.
    for sid in to_confirm:
        pipe.exists(keys.status(sid))
    for sid in unknown:
        pipe.hgetall(keys.status(sid))
    replies = pipe.execute()
    for sid, exists in zip(to_confirm, replies, strict=False):
        if not exists:
            remembered[sid] = None
            _known.forget(sid)
    confirmed = {sid: (remembered[sid][0], now) for sid in to_confirm if remembered[sid]}
    for sid, data in zip(unknown, replies[len(to_confirm) :], strict=True):
        status = _decode_status(data)
        remembered[sid] = (status, now) if status else None
        if status:
            confirmed[sid] = remembered[sid]
    _known.put_many(confirmed)


def _note_deleted(r, sid):
    """Note status ``sid`` as deleted in every shard's keys.deleted_statuses, for
    limits.DELETED_NOTE_MS, dropping notes older than that (one pipeline)."""
    now_ms = int(time.time() * 1000)
    pipe = r.pipeline(transaction=False)
    for key in keys.all_deleted_statuses():
        pipe.zadd(key, {sid: now_ms})
        pipe.zremrangebyscore(key, "-inf", now_ms - DELETED_NOTE_MS)
        pipe.pexpire(key, DELETED_NOTE_MS)
    pipe.execute()


def delete_status(r, uid, sid):
    """Delete status ``sid`` if user ``uid`` posted it; return a DeleteResult.

    1. Read the status and check its owner.
    2. Take it off the author's profile and home and uncount it
       (remove_own_status.lua; a retry after a crash does not uncount it twice), and
       read the newest follower's score, in one round trip.
    3. Note the deletion in every shard (home pages skip it from now on, even from a
       process's memory of statuses), then delete the hash (other readers skip ids
       without a hash).
    4. Queue a job for the fan-out workers to take the id out of followers' home
       timelines (the book's "zombie" exercise), and publish the deletion.
    """
    status = get_status(r, sid)
    if status is None:
        return DeleteResult.NOT_FOUND
    if status["uid"] != int(uid):
        return DeleteResult.NOT_OWNER

    def fill(pipe):
        scripts.REMOVE_OWN_STATUS.queue(
            pipe, [keys.profile(uid), keys.home(uid), keys.user(uid)], [sid]
        )
        pipe.zrange(keys.followers(uid), -1, -1, withscores=True)

    _, newest = scripts.run_pipeline(r, fill)
    _note_deleted(r, sid)
    r.delete(keys.status(sid))
    if newest:
        jobs.enqueue(r, fanout.plan_job("remove", uid, sid, None, int(newest[0][1])))
    events.publish_deleted(r, status)
    return DeleteResult.DELETED

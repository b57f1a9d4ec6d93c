"""Statuses: posting (with fan-out), reading and deleting them (sections 8.1.2 and 8.4)."""

import enum
import json
import time

from ..memory import Memory
from . import events, fanout, jobs, keys, locks, scripts
from .limits import (
    DELETED_NOTE_MS,
    HOME_TIMELINE_SIZE,
    HOME_TIMELINE_SLACK,
    INLINE_FANOUT_LIMIT,
    POSTING_KEY_SECONDS,
    STATUS_TRUST_SECONDS,
    UNFINISHED_POST_GRACE_MS,
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


def post_status(r, uid, message, inline_limit=INLINE_FANOUT_LIMIT, posting_key=None, **data):
    """Post a status for user ``uid`` and deliver it; return its id (None: no such user).

    Extra keyword fields (``location="lat,lon"``...) are stored with the status, as
    the book's ``**data``. ``posting_key`` names one form submission: the same key
    again (a resubmitted form) posts nothing new and returns the status it posted.
    Steps, each safe to retry:
    1. One round trip: the author's login, and a new id (INCR status:id:). With a
       posting key, one more: claim the key for that id, or find the id it names.
    2. One round trip: add the id to the author's profile and home, count the post and
       note it as unfinished with the newest follower's score (add_own_status.lua);
       write status:<id>; read the first ``inline_limit`` followers. Readers skip an
       id whose hash is not written yet.
    3. One round trip: deliver to those followers (fanout.deliver).
    4. If there are more: one job for the fan-out workers covering everyone who
       followed after the last inline follower, up to the newest at posting time.
    5. Clear the unfinished note and publish the status for the streaming API.
    Should the request die between 2 and 5, the workers find the note and queue the
    fan-out over every follower at posting time (finish_unfinished).
    """
    pipe = r.pipeline(transaction=False)
    pipe.hget(keys.user(uid), "login")
    pipe.incr(keys.STATUS_IDS)
    login, sid = pipe.execute()
    if not login:
        return None
    if posting_key is not None:
        earlier = _claim_posting_key(r, uid, posting_key, sid)
        if earlier is not None:
            if r.exists(keys.status(earlier)):
                return earlier  # posted by the first submission
            sid = earlier  # that submission died before storing it: store it now
    status = {
        **{name: str(value) for name, value in data.items() if value not in (None, "")},
        "message": message,
        "posted": time.time(),
        "id": sid,
        "uid": uid,
        "login": login,
    }

    def fill(pipe):
        # The note first, then the hash: whatever prefix of these writes survives a
        # crash (Redis applies and logs them in order) is one the workers can finish.
        scripts.ADD_OWN_STATUS.queue(
            pipe,
            [keys.profile(uid), keys.home(uid), keys.user(uid), keys.followers(uid),
             keys.unfinished_posts(uid)],
            [sid, HOME_TIMELINE_SIZE, HOME_TIMELINE_SLACK, uid, int(time.time() * 1000)],
        )  # fmt: skip
        pipe.hset(keys.status(sid), mapping=status)
        pipe.zrangebyscore(
            keys.followers(uid), "-inf", "+inf", start=0, num=inline_limit, withscores=True
        )

    (_, upto), _, followers = scripts.run_pipeline(r, fill)
    fanout.deliver(r, uid, sid, [int(member) for member, _ in followers])
    if upto >= 0:
        # Followers past the inline ones (all of them when inline_limit is 0) are deferred.
        last_inline = int(followers[-1][1]) if followers else None
        if last_inline is None or upto > last_inline:
            jobs.enqueue(r, fanout.plan_job("deliver", uid, sid, last_inline, upto))
        # Only once the job is queued: until then the note stands for it.
        r.hdel(keys.unfinished_posts(uid), sid)
    events.publish_posted(r, status)
    return sid


def _claim_posting_key(r, uid, posting_key, sid):
    """Make form submission ``posting_key`` of ``uid`` name status ``sid``; or, if an
    earlier request claimed it, return the status id that one chose."""
    key = keys.posting_key(uid, posting_key)
    now_ms = int(time.time() * 1000)
    pipe = r.pipeline(transaction=False)  # one slot: one node, in order
    pipe.set(key, sid, nx=True, ex=POSTING_KEY_SECONDS)
    pipe.get(key)
    # Listed, so that deleting the account can find the user's posting keys.
    listed = keys.posting_keys(uid)
    pipe.zadd(listed, {posting_key: now_ms})
    pipe.zremrangebyscore(listed, "-inf", now_ms - POSTING_KEY_SECONDS * 1000)
    pipe.pexpire(listed, POSTING_KEY_SECONDS * 1000)
    claimed, named, *_ = pipe.execute()
    return None if claimed else int(named)


def forget_posting_keys(r, uid):
    """Delete every posting key of ``uid`` (the account is being deleted)."""
    listed = keys.posting_keys(uid)
    posting_keys = r.zrange(listed, 0, -1)
    # Every key in the user's slot: one command.
    r.delete(listed, *(keys.posting_key(uid, key) for key in posting_keys))


def finish_unfinished(r, grace_ms=UNFINISHED_POST_GRACE_MS):
    """Queue the fan-out of every post left unfinished for ``grace_ms`` (its request
    died after the status became visible); return how many were finished.

    For a stored status, one plan job over every follower at posting time (those
    already reached get the id again, which changes nothing). A status whose hash was
    never written was never shown: it is taken off the profile and uncounted. The
    fan-out workers call this now and then; one sweeps at a time.
    """
    try:
        with locks.hold(r, keys.UNFINISHED_SWEEP_LOCK, wait_seconds=0, expire_ms=60_000):
            return _finish_unfinished(r, grace_ms)
    except locks.LockBusy:
        return 0  # another worker is sweeping


def _finish_unfinished(r, grace_ms):
    shard_keys = keys.all_unfinished_posts()
    pipe = r.pipeline(transaction=False)
    for key in shard_keys:
        pipe.hgetall(key)
    due_before = time.time() * 1000 - grace_ms
    due = [
        (key, int(sid), json.loads(note))
        for key, notes in zip(shard_keys, pipe.execute(), strict=True)
        for sid, note in notes.items()
        if json.loads(note)["at"] <= due_before
    ]
    for key, sid, note in due:
        author = note["author"]
        if r.exists(keys.status(sid)):
            jobs.enqueue(r, fanout.plan_job("deliver", author, sid, None, int(note["upto"])))
        else:
            scripts.REMOVE_OWN_STATUS(
                r, [keys.profile(author), keys.home(author), keys.user(author)], [sid]
            )
        r.hdel(key, sid)
    return len(due)


def decode_status(data):
    """A status hash as read by HGETALL (a dict of strings) as get_status gives it."""
    return _decode_status(data)


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


def delete_statuses_of_leaving_user(r, uid, sids):
    """Delete statuses ``sids`` of user ``uid``, whose account is being deleted; return
    how many of them were still there.

    Unlike delete_status, nothing is queued to take the ids out of followers' home
    timelines: deleting an account unfollows them all first, which takes the
    account's statuses out of their timelines (graph.unfollow), and until then every
    page leaves a hidden author's statuses out (users.get_authors). Nor are deletions
    noted in every shard: ten thousand notes would make every home page read ten
    thousand ids more for an hour (home_page.lua). Each status leaves the profile and
    the unfinished notes, its hash is deleted and the deletion is published, for the
    streams that showed it. Two round trips, plus one to publish each.
    """
    sids = [int(sid) for sid in sids]
    if not sids:
        return 0
    pipe = r.pipeline(transaction=False)
    for sid in sids:
        pipe.hgetall(keys.status(sid))
    found = [_decode_status(data) for data in pipe.execute()]

    def fill(pipe):
        for sid in sids:
            scripts.REMOVE_OWN_STATUS.queue(
                pipe, [keys.profile(uid), keys.home(uid), keys.user(uid)], [sid]
            )
        pipe.hdel(keys.unfinished_posts(uid), *sids)
        for sid in sids:
            pipe.delete(keys.status(sid))

    scripts.run_pipeline(r, fill)
    for status in found:
        if status is not None:
            _known.forget(status["id"])
            events.publish_deleted(r, status)
    return sum(1 for status in found if status is not None)

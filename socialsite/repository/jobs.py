"""The queue of deferred work: a Redis Stream read through a consumer group.

Any number of workers, on any number of machines, read from one group, so each job
goes to one worker at a time. A job stays "pending" (in flight) until its worker
completes it; a worker that dies leaves it pending, and after ``min_idle_ms`` another
worker claims it. A job attempted ``max_attempts`` times goes to the dead-letter
stream, where an operator can look at it and replay it.

A job is a small JSON object in the entry's single field ``job``. Handlers must be
idempotent: a job may run more than once (its worker died before completing it).
"""

import json
import time
from dataclasses import dataclass

from redis.exceptions import ResponseError

from . import keys, scripts

# Give a job this many tries before it goes to the dead-letter stream.
MAX_ATTEMPTS = 5
# A pending job idle this long is taken to belong to a dead worker and is claimed.
CLAIM_IDLE_MS = 30_000


@dataclass
class Job:
    id: str  # the stream entry id, "<ms>-<seq>"
    data: dict
    attempts: int = 1

    @property
    def kind(self):
        return self.data["kind"]


def ensure_group(r):
    """Create the consumer group (and the stream) unless they exist.

    The group starts at id 0, so jobs queued before any worker ever ran are read too.
    """
    try:
        r.xgroup_create(keys.JOBS, keys.JOBS_GROUP, id="0", mkstream=True)
    except ResponseError as error:
        if "BUSYGROUP" not in str(error):
            raise


def enqueue(r, *jobs):
    """Queue jobs (dicts with a ``kind``) in one round trip; return their ids."""
    pipe = r.pipeline(transaction=False)
    for job in jobs:
        pipe.xadd(keys.JOBS, {"job": json.dumps(job)})
    return pipe.execute()


def _job(entry_id, fields, attempts=1):
    return Job(entry_id, json.loads(fields["job"]), attempts)


def read(r, consumer, count=1, block_ms=1000):
    """Up to ``count`` new jobs for ``consumer``, waiting up to ``block_ms`` for one."""
    try:
        reply = r.xreadgroup(
            keys.JOBS_GROUP, consumer, {keys.JOBS: ">"}, count=count, block=block_ms
        )
    except ResponseError as error:
        if "NOGROUP" not in str(error):
            raise
        ensure_group(r)  # the stream was deleted (FLUSHALL, a new server): start again
        return []
    return [_job(entry_id, fields) for _, entries in reply or [] for entry_id, fields in entries]


def complete(r, job, followups=()):
    """Mark ``job`` done and queue ``followups`` with it, in one step (complete_job.lua)."""
    scripts.COMPLETE_JOB(
        r,
        [keys.JOBS],
        [keys.JOBS_GROUP, job.id, *(json.dumps(followup) for followup in followups)],
    )


def claim_stale(r, consumer, min_idle_ms=CLAIM_IDLE_MS, max_attempts=MAX_ATTEMPTS, count=10):
    """Take over jobs left pending longer than ``min_idle_ms`` (their worker died).

    Jobs already attempted ``max_attempts`` times are dead-lettered instead. Returns
    the claimed jobs, to be run by ``consumer``.
    """
    try:
        stale = r.xpending_range(
            keys.JOBS, keys.JOBS_GROUP, min="-", max="+", count=count, idle=min_idle_ms
        )
    except ResponseError as error:
        if "NOGROUP" not in str(error):
            raise
        return []
    claimed = []
    for entry in stale:
        entry_id, attempts = entry["message_id"], entry["times_delivered"]
        if attempts >= max_attempts:
            entries = r.xrange(keys.JOBS, entry_id, entry_id)
            if entries:
                dead_letter(r, _job(*entries[0], attempts), f"gave up after {attempts} attempts")
            continue
        # XCLAIM re-checks the idle time, so two workers never both take one job.
        for claimed_id, fields in r.xclaim(
            keys.JOBS, keys.JOBS_GROUP, consumer, min_idle_ms, [entry_id]
        ):
            if fields:  # an entry deleted meanwhile comes back without fields
                claimed.append(_job(claimed_id, fields, attempts + 1))
    return claimed


def dead_letter(r, job, reason):
    """Move ``job`` to the dead-letter stream (dead_letter.lua)."""
    scripts.DEAD_LETTER(
        r,
        [keys.JOBS, keys.DEAD_JOBS],
        [keys.JOBS_GROUP, job.id, json.dumps(job.data), job.attempts, reason[:500]],
    )


def dead_letters(r, count=100):
    """The oldest dead-lettered jobs: [{id, job, attempts, reason, original_id}]."""
    return [
        {"id": entry_id, **fields, "job": json.loads(fields["job"])}
        for entry_id, fields in r.xrange(keys.DEAD_JOBS, count=count)
    ]


def replay_dead(r, count=1000):
    """Queue dead-lettered jobs again (replay_dead.lua); return how many."""
    return scripts.REPLAY_DEAD(r, [keys.DEAD_JOBS, keys.JOBS], [count])


def _age_seconds(entry_id, now):
    return max(0.0, now - int(entry_id.split("-")[0]) / 1000)


def backlog(r):
    """How many jobs are waiting or in flight, in one command: completed jobs are
    deleted from the stream, so its length is the work left (benchmarks poll this)."""
    return r.xlen(keys.JOBS)


def status(r):
    """What an operator wants to know about the queue, as a dict.

    waiting: queued and not yet read; in_flight: read and not completed; dead: in the
    dead-letter stream; oldest_waiting_seconds / oldest_in_flight_seconds: ages by
    the stream ids (their first part is the time they were queued, in ms); consumers:
    workers known to the group with their pending counts and idle times.
    """
    now = time.time()
    length, dead = r.xlen(keys.JOBS), r.xlen(keys.DEAD_JOBS)
    group = next(
        (g for g in _groups(r) if g["name"] == keys.JOBS_GROUP),
        {"pending": 0, "last-delivered-id": "0-0"},
    )
    in_flight = group["pending"]
    # Completed jobs are deleted, so the stream holds only waiting and in-flight ones.
    waiting = max(0, length - in_flight)
    oldest_waiting = None
    if waiting:
        after = r.xrange(keys.JOBS, f"({group['last-delivered-id']}", "+", count=1)
        if after:
            oldest_waiting = _age_seconds(after[0][0], now)
    oldest_in_flight = None
    consumers = []
    if in_flight:
        summary = r.xpending(keys.JOBS, keys.JOBS_GROUP)
        if summary.get("min"):
            oldest_in_flight = _age_seconds(summary["min"], now)
    if group.get("name"):
        consumers = [
            {"name": c["name"], "pending": c["pending"], "idle_ms": c["idle"]}
            for c in r.xinfo_consumers(keys.JOBS, keys.JOBS_GROUP)
        ]
    return {
        "waiting": waiting,
        "in_flight": in_flight,
        "dead": dead,
        "oldest_waiting_seconds": oldest_waiting,
        "oldest_in_flight_seconds": oldest_in_flight,
        "consumers": consumers,
    }


def _groups(r):
    try:
        return r.xinfo_groups(keys.JOBS)
    except ResponseError:
        return []  # no stream yet


def forget_consumer(r, consumer):
    """Remove a stopped worker from the group (only once it has nothing pending)."""
    try:
        known = r.xinfo_consumers(keys.JOBS, keys.JOBS_GROUP)
    except ResponseError:
        return
    mine = [c for c in known if c["name"] == consumer]
    if mine and mine[0]["pending"] == 0:
        r.xgroup_delconsumer(keys.JOBS, keys.JOBS_GROUP, consumer)

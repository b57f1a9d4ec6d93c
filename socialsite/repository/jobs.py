"""The queue of deferred work: a Redis Stream read through a consumer group.

Any number of workers, on any number of machines, read from one group, so each job
goes to one worker at a time. A job stays "pending" (in flight) until its worker
completes it; a worker that dies leaves it pending, and after ``min_idle_ms`` another
worker claims it, as often as that happens: being claimed is not failing. A job whose
run raised an error is counted (keys.JOB_FAILURES) and tried again; after
``max_attempts`` failed runs it goes to the dead-letter stream with its last error,
where an operator can look at it and replay it.

A job is a small JSON object in the entry's single field ``job``. Handlers must be
idempotent: a job may run more than once (its worker died before completing it).
"""

import json
import time
from dataclasses import dataclass

from redis.exceptions import ResponseError

from . import heartbeats, keys, scripts

# A job whose runs raised an error this many times goes to the dead-letter stream.
MAX_ATTEMPTS = 5
# A pending job idle this long is taken to belong to a dead worker and is claimed.
CLAIM_IDLE_MS = 30_000
# A consumer (a worker's name in the group) idle this long with nothing pending, and not
# seen alive as long (heartbeats), is a worker that stopped or died: it is removed from
# the group (prune_consumers).
CONSUMER_FORGET_MS = heartbeats.FORGET_MS


@dataclass
class Job:
    id: str  # the stream entry id, "<ms>-<seq>"
    data: dict
    deliveries: int = 1  # how many times the group handed it out, claims included

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


def _job(entry_id, fields, deliveries=1):
    return Job(entry_id, json.loads(fields["job"]), deliveries)


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
    complete_all(r, [(job, followups)])


def complete_all(r, done):
    """``complete`` for each (job, followups) of ``done``, in one round trip: a worker
    completes the deliver jobs it ran together at once."""

    def fill(pipe):
        for job, followups in done:
            scripts.complete_job.queue(
                pipe, job_id=job.id, followups_json=[json.dumps(each) for each in followups]
            )

    if done:
        scripts.run_pipeline(r, fill)


def claim_stale(r, consumer, min_idle_ms=CLAIM_IDLE_MS, count=10):
    """Take over jobs left pending longer than ``min_idle_ms`` (their worker died, or
    their last run failed); return them, to be run by ``consumer``.

    There is no limit on claims: a job that keeps being claimed is one whose workers
    keep dying, and it is retried until it completes or fails ``max_attempts`` times
    (fail). XCLAIM re-checks the idle time, so two workers never both take one job.
    """
    try:
        stale = r.xpending_range(
            keys.JOBS, keys.JOBS_GROUP, min="-", max="+", count=count, idle=min_idle_ms
        )
    except ResponseError as error:
        if "NOGROUP" not in str(error):
            raise
        return []
    if not stale:
        return []
    deliveries = {entry["message_id"]: entry["times_delivered"] for entry in stale}
    claimed = r.xclaim(keys.JOBS, keys.JOBS_GROUP, consumer, min_idle_ms, list(deliveries))
    return [
        _job(entry_id, fields, deliveries[entry_id] + 1)
        for entry_id, fields in claimed
        if fields  # an entry deleted meanwhile comes back without fields
    ]


def fail(r, job, error, max_attempts=MAX_ATTEMPTS):
    """Count a run of ``job`` that raised ``error``; at ``max_attempts`` failed runs
    move it to the dead-letter stream with the error (fail_job.lua).

    Returns the failed runs so far, 0 if it was dead-lettered now, -1 if it had been
    completed meanwhile (by a worker that claimed it while this one ran it).
    """
    return scripts.fail_job(
        r, job_id=job.id, job_json=json.dumps(job.data), max_attempts=max_attempts,
        error=error[:500], deliveries=job.deliveries,
    )  # fmt: skip


def dead_letters(r, count=100):
    """The oldest dead-lettered jobs: [{id, job, attempts, reason, original_id,
    deliveries}] (attempts: the runs that failed; deliveries: claims included)."""
    return [
        {"id": entry_id, **fields, "job": json.loads(fields["job"])}
        for entry_id, fields in r.xrange(keys.DEAD_JOBS, count=count)
    ]


def replay_dead(r, count=1000):
    """Queue dead-lettered jobs again (replay_dead.lua); return how many."""
    return scripts.replay_dead(r, count=count)


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
    workers known to the group with their pending counts and idle times (XINFO
    CONSUMERS: which workers it lists, and what idle means, differ between Redis
    versions: see heartbeats.py); workers: {name: seconds since it was last seen alive},
    by the workers' own heartbeats (note_alive);
    reclaimed: in-flight jobs handed out more than once (their worker died, or a run
    failed), most_deliveries: the most times one was handed out, failing: queued jobs
    with at least one failed run. The claim figures look at the oldest 100 in flight.
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
    reclaimed, most_deliveries = 0, 0
    if in_flight:
        summary = r.xpending(keys.JOBS, keys.JOBS_GROUP)
        if summary.get("min"):
            oldest_in_flight = _age_seconds(summary["min"], now)
        pending = r.xpending_range(keys.JOBS, keys.JOBS_GROUP, min="-", max="+", count=100)
        handed_out = [entry["times_delivered"] for entry in pending]
        reclaimed = sum(1 for times in handed_out if times > 1)
        most_deliveries = max(handed_out, default=0)
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
        "reclaimed": reclaimed,
        "most_deliveries": most_deliveries,
        "failing": r.hlen(keys.JOB_FAILURES),
        "consumers": consumers,
        "workers": heartbeats.last_seen(r, keys.JOB_WORKERS_SEEN, now),
    }


def note_alive(r, consumer, now=None):
    """Note that worker ``consumer`` is alive (heartbeats.note): each worker does so at
    least every heartbeats.NOTE_EVERY_SECONDS, with jobs or without."""
    heartbeats.note(r, keys.JOB_WORKERS_SEEN, consumer, now)


def alive_workers(r, within_ms, now=None):
    """The workers seen alive within the last ``within_ms``."""
    return heartbeats.alive(r, keys.JOB_WORKERS_SEEN, within_ms, now)


def completed_count(r):
    """Jobs completed since the queue was made (each counted once, complete_job.lua)."""
    return int(r.get(keys.JOBS_COMPLETED) or 0)


def _groups(r):
    try:
        return r.xinfo_groups(keys.JOBS)
    except ResponseError:
        return []  # no stream yet


def prune_consumers(r, idle_ms=CONSUMER_FORGET_MS, now=None):
    """Remove from the group the consumers idle ``idle_ms`` or more with nothing
    pending and not seen alive (note_alive) for as long before ``now`` (seconds since
    the epoch, default: this machine's clock): workers that stopped or died. Returns
    their names.

    A consumer's idle alone does not tell: before Redis 7.2 a read that finds nothing
    does not reset it, so a live worker of a quiet site grows idle. A consumer with
    pending jobs is kept until another worker has claimed them.
    """
    try:
        known = r.xinfo_consumers(keys.JOBS, keys.JOBS_GROUP)
    except ResponseError:
        return []  # no stream or group yet
    alive = set(alive_workers(r, idle_ms, now))
    gone = [
        c["name"]
        for c in known
        if c["pending"] == 0 and c["idle"] >= idle_ms and c["name"] not in alive
    ]
    for name in gone:
        r.xgroup_delconsumer(keys.JOBS, keys.JOBS_GROUP, name)
    return gone


def forget_consumer(r, consumer):
    """Remove a stopped worker from the group (only once it has nothing pending), and
    its heartbeat: it is not alive any more."""
    heartbeats.forget(r, keys.JOB_WORKERS_SEEN, consumer)
    try:
        known = r.xinfo_consumers(keys.JOBS, keys.JOBS_GROUP)
    except ResponseError:
        return
    mine = [c for c in known if c["name"] == consumer]
    if mine and mine[0]["pending"] == 0:
        r.xgroup_delconsumer(keys.JOBS, keys.JOBS_GROUP, consumer)

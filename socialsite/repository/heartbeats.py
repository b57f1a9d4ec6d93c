"""Which workers are alive: each long-running worker notes the time in a ZSET of its
kind (keys.JOB_WORKERS_SEEN, keys.MAIL_SENDERS_SEEN: worker name -> when it last went
round its loop, in ms), and the doctor, the metrics and ``manage.py fanout --status``
read who did so lately.

Why not the consumer group's own figures (XINFO CONSUMERS' ``idle``): they differ between
the Redis versions the site supports. A read that finds nothing creates no consumer on
Redis 7.0, and before 7.2 it does not reset an existing consumer's ``idle`` either, so a
sound worker on a quiet site looks dead after a minute without jobs. A heartbeat is the
same on every version.

Why one ZSET rather than a key per worker with an expiry: it is one key in the slot of
its queue, read with one command on a cluster too (keys per worker would need a SCAN of
every master), and it keeps when each worker was last seen, which says how long ago a
worker stopped. Entries older than ``forget_ms`` are trimmed by each note, so workers that
stopped long ago leave nothing behind.
"""

import time

# How often a worker notes that it is alive: often enough for the doctor's minute
# (server_checks.WORKER_ALIVE_MS), rarely enough to cost nothing (one round trip).
NOTE_EVERY_SECONDS = 2
# A worker not seen for this long is forgotten (its entry trimmed).
FORGET_MS = 24 * 60 * 60 * 1000


def _now_ms(now):
    return int((time.time() if now is None else now) * 1000)


def note(r, key, name, now=None, forget_ms=FORGET_MS):
    """Note in ``key`` that worker ``name`` is alive at ``now`` (seconds since the epoch,
    default: this machine's clock), and trim the workers not seen for ``forget_ms``: ZADD
    and ZREMRANGEBYSCORE in one round trip."""
    now_ms = _now_ms(now)
    pipe = r.pipeline(transaction=False)
    pipe.zadd(key, {name: now_ms})
    pipe.zremrangebyscore(key, "-inf", f"({now_ms - forget_ms}")
    pipe.execute()


def forget(r, key, name):
    """Remove worker ``name`` from ``key`` (it stopped cleanly)."""
    r.zrem(key, name)


def last_seen(r, key, now=None):
    """{worker name: seconds since it was last noted}, the latest first (one ZREVRANGE)."""
    now_ms = _now_ms(now)
    return {
        name: max(0.0, (now_ms - seen_ms) / 1000)
        for name, seen_ms in r.zrevrange(key, 0, -1, withscores=True)
    }


def alive(r, key, within_ms, now=None):
    """The names of the workers noted in ``key`` within the last ``within_ms``."""
    return [name for name, ago in last_seen(r, key, now).items() if ago * 1000 < within_ms]

"""The mail queue: messages to send, a Redis Stream read by the fan-out workers.

A page never sends mail: it queues a small description of the message (its kind and
whom it is for; no token, no secret), and a worker sends it (``manage.py fanout``
hands each one to the sender it is given: accounts/mail.py makes and sends the
message). A slow or unreachable mail server thus never slows or breaks a page.

A message whose sending raised is retried with a growing delay (RETRY_DELAYS_MS: the
first retries within a minute), by whichever worker claims it once its delay is over;
after MAX_ATTEMPTS failed sends it goes to the dead-letter stream (keys.DEAD_MAIL)
with its last error, as jobs do (jobs.py, fail_job.lua). A message may be sent twice
if a worker dies after sending it and before completing it: better twice than never.
"""

import json
import logging

from redis.exceptions import ResponseError

from . import heartbeats, keys, scripts
from .jobs import Job

log = logging.getLogger(__name__)

# How long a message waits after its n-th failed send (the last one repeats). The first
# retries come soon (a mail server restarting), then less and less often. A message is
# claimed when idle this long, so each is longer than a send can take (settings'
# EMAIL_TIMEOUT): no second worker takes a message still being sent.
RETRY_DELAYS_MS = (30_000, 60_000, 120_000, 300_000, 900_000, 1_800_000, 3_600_000)
# Failed sends after which a message is dead-lettered: about two hours of retries.
MAX_ATTEMPTS = 8


def ensure_group(r):
    try:
        r.xgroup_create(keys.MAIL, keys.MAIL_GROUP, id="0", mkstream=True)
    except ResponseError as error:
        if "BUSYGROUP" not in str(error):
            raise


def queue(r, message):
    """Queue ``message`` (a dict with a ``kind``, JSON-serialisable) to be sent."""
    return r.xadd(keys.MAIL, {"job": json.dumps(message)})


def _read(r, consumer, count):
    try:
        reply = r.xreadgroup(keys.MAIL_GROUP, consumer, {keys.MAIL: ">"}, count=count)
    except ResponseError as error:
        if "NOGROUP" not in str(error):
            raise
        # No group yet (or the stream was deleted): made from id 0, so that mail queued
        # before any worker ran is sent too.
        ensure_group(r)
        reply = r.xreadgroup(keys.MAIL_GROUP, consumer, {keys.MAIL: ">"}, count=count)
    return [
        Job(entry_id, json.loads(fields["job"]))
        for _, entries in reply or []
        for entry_id, fields in entries
    ]


def retry_delay_ms(deliveries, delays=RETRY_DELAYS_MS):
    """How long a message handed out ``deliveries`` times waits before the next try."""
    return delays[min(deliveries, len(delays)) - 1]


def _claim_due(r, consumer, count, delays):
    """The messages whose delay after their last failed send (or their worker's death)
    is over, claimed for ``consumer``."""
    try:
        pending = r.xpending_range(
            keys.MAIL, keys.MAIL_GROUP, min="-", max="+", count=100, idle=delays[0]
        )
    except ResponseError as error:
        if "NOGROUP" not in str(error):
            raise
        return []
    due = [
        entry for entry in pending
        if entry["time_since_delivered"] >= retry_delay_ms(entry["times_delivered"], delays)
    ][:count]  # fmt: skip
    claimed = []
    for entry in due:
        delay = retry_delay_ms(entry["times_delivered"], delays)
        # XCLAIM checks the idle time again: of two workers, one takes it.
        for entry_id, fields in r.xclaim(
            keys.MAIL, keys.MAIL_GROUP, consumer, delay, [entry["message_id"]]
        ):
            if fields:
                claimed.append(
                    Job(entry_id, json.loads(fields["job"]), entry["times_delivered"] + 1)
                )
    return claimed


def send_waiting(r, consumer, send, count=10, max_attempts=MAX_ATTEMPTS,
                 retry_delays_ms=RETRY_DELAYS_MS):  # fmt: skip
    """Send up to ``count`` messages with ``send(message dict)``: those due for another
    try first, else new ones (without waiting for any). Returns how many were sent.

    A ``send`` that raises leaves its message pending, its failure counted, to be tried
    again after its delay (retry_delay_ms), or dead-lettered at ``max_attempts``.
    Redis errors are the caller's to handle, as in worker.work.
    """
    batch = _claim_due(r, consumer, count, retry_delays_ms) or _read(r, consumer, count)
    sent = 0
    for message in batch:
        try:
            send(message.data)
        except Exception as error:  # noqa: BLE001 - whatever the mail server said
            _failed(r, consumer, message, error, max_attempts)
            continue
        scripts.complete_job(r, job_id=message.id, followups_json=[], mail=True)
        sent += 1
    return sent


def _failed(r, consumer, message, error, max_attempts):
    failures = scripts.fail_job(
        r, job_id=message.id, job_json=json.dumps(message.data), max_attempts=max_attempts,
        error=f"{type(error).__name__}: {error}"[:500], deliveries=message.deliveries,
        mail=True,
    )  # fmt: skip
    if failures > 0:
        # Its delay counts from now, not from when it was handed out: JUSTID resets the
        # idle time without counting a delivery.
        r.xclaim(keys.MAIL, keys.MAIL_GROUP, consumer, 0, [message.id], justid=True)
    outcome = "dead-lettered" if failures == 0 else f"failure {failures} of {max_attempts}"
    log.warning("mail %s (%s) not sent (%s): %s", message.id, message.data.get("kind"),
                outcome, error)  # fmt: skip


def dead_letters(r, count=100):
    return [
        {"id": entry_id, **fields, "job": json.loads(fields["job"])}
        for entry_id, fields in r.xrange(keys.DEAD_MAIL, count=count)
    ]


def replay_dead(r, count=1000):
    """Queue dead-lettered mail again (after a long outage of the mail server); how many."""
    return scripts.replay_dead(r, count=count, mail=True)


def dead_count(r):
    return r.xlen(keys.DEAD_MAIL)


def sent_count(r):
    """Messages sent since the queue was made (each counted once)."""
    return int(r.get(keys.MAIL_SENT) or 0)


def backlog(r):
    """Messages waiting or being retried (sent ones are deleted from the stream)."""
    return r.xlen(keys.MAIL)


def note_alive(r, sender, now=None):
    """Note that mail sender ``sender`` is alive (heartbeats.note), as jobs.note_alive."""
    heartbeats.note(r, keys.MAIL_SENDERS_SEEN, sender, now)


def alive_senders(r, within_ms, now=None):
    """The mail senders seen alive within the last ``within_ms``."""
    return heartbeats.alive(r, keys.MAIL_SENDERS_SEEN, within_ms, now)


def forget_sender(r, sender):
    """Remove a stopped sender's heartbeat."""
    heartbeats.forget(r, keys.MAIL_SENDERS_SEEN, sender)

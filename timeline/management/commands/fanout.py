"""``manage.py fanout``: a fan-out worker. Run as many as needed, on any machines.

A thread of the worker sends the mail waiting in the mail queue (repository/mail.py, with
accounts/mail.py's sender): mail is never sent inside a page's request, and a slow or
unreachable mail server holds up neither pages nor fan-out.

Also: ``--status`` prints the queue's state, ``--dead`` lists dead letters and
``--replay-dead`` queues them again (``--dead-mail``, ``--replay-dead-mail``: the same for
mail). SIGTERM or SIGINT: the worker finishes the jobs (and the mail) in hand, then stops;
nothing else stops it: while Redis is unreachable it waits (logging once per outage) and
goes on when Redis is back.
"""

import json
import logging
import os
import signal
import socket
import threading
import time

from django.conf import settings
from django.core.management.base import BaseCommand

from accounts import mail as account_mail
from media import attachments, pictures
from socialsite.connection import new_redis
from socialsite.repository import (
    blocks,
    eviction,
    heartbeats,
    jobs,
    mail,
    polls,
    statuses,
    trends,
    worker,
)
from socialsite.repository.client import OUTAGE_ERRORS
from socialsite.repository.limits import JOBS_PER_STEP

log = logging.getLogger(__name__)

# How long one blocking read waits for a job, and the socket timeout around it.
READ_BLOCK_MS = 1000
READ_TIMEOUT_SECONDS = READ_BLOCK_MS / 1000 + 4
# Waits between attempts while Redis is unreachable: quick at first (a restart takes
# a moment), then backing off so that a long outage costs little.
OUTAGE_FIRST_WAIT = 0.1
OUTAGE_MAX_WAIT = 5.0
# How often the mail thread looks for mail when it found none: at most this late.
MAIL_POLL_SECONDS = 0.5
# How often a worker removes the group's consumers that stopped or died.
PRUNE_EVERY_SECONDS = 3600
# How often a worker looks for posts whose request died before their fan-out was
# queued (statuses.finish_unfinished; one worker at a time does it), and for mutes
# whose end has come (blocks.end_mutes: the muted statuses come back), and for polls
# that have ended (polls.end_due: their authors and voters notified). At the same
# pace each asks whether the trends are due (trends.recompute_if_due: one SET; one
# worker recomputes them every 5 minutes, whatever the number of workers), and deletes
# the files of pictures nothing shows any more (pictures.delete_unused: one read when
# there are none) and of uploads no status showed within MEDIA_PENDING_MAX_AGE
# (attachments.sweep_pending: one round trip over the shards when there are none), and
# whether the hourly sweep of homes not seen for HOME_EVICT_AFTER is due
# (eviction.sweep_if_due: one SET; one worker sweeps).
SWEEP_EVERY_SECONDS = 10


class Command(BaseCommand):
    help = "Run a fan-out worker, or inspect and repair the fan-out queue."

    def add_arguments(self, parser):
        parser.add_argument("--status", action="store_true", help="print the queue's state")
        parser.add_argument("--json", action="store_true", help="with --status: as JSON")
        parser.add_argument("--dead", action="store_true", help="list dead-lettered jobs")
        parser.add_argument(
            "--replay-dead", action="store_true", help="queue dead-lettered jobs again"
        )
        parser.add_argument("--dead-mail", action="store_true", help="list dead-lettered mail")
        parser.add_argument(
            "--replay-dead-mail", action="store_true", help="queue dead-lettered mail again"
        )
        parser.add_argument(
            "--name", default=None, help="consumer name (default: host-pid, unique per worker)"
        )
        parser.add_argument(
            "--claim-idle-ms",
            type=int,
            default=settings.FANOUT_CLAIM_IDLE_MS,
            help="claim jobs another worker has held this long (it is presumed dead)",
        )
        parser.add_argument(
            "--max-attempts",
            type=int,
            default=settings.FANOUT_MAX_ATTEMPTS,
            help="dead-letter a job after this many failed attempts",
        )
        parser.add_argument(
            "--jobs-per-step",
            type=int,
            default=JOBS_PER_STEP,
            help="jobs taken at once; deliver jobs of one status among them run together",
        )
        parser.add_argument(
            "--exit-when-idle", action="store_true", help="stop once no job is waiting"
        )

    def handle(self, *args, **options):
        # Its own client: a blocking read must not time out, and the worker's loop,
        # not redis-py's retries, rides out an outage.
        r = new_redis(timeout=READ_TIMEOUT_SECONDS, retries=0)
        if options["status"]:
            return self.print_status(r, as_json=options["json"])
        if options["dead"]:
            for letter in jobs.dead_letters(r):
                self.stdout.write(json.dumps(letter))
            return
        if options["dead_mail"]:
            for letter in mail.dead_letters(r):
                self.stdout.write(json.dumps(letter))
            return
        if options["replay_dead_mail"]:
            count = mail.replay_dead(r)
            self.stdout.write(f"Queued {count} dead-lettered mail(s) again.")
            return
        if options["replay_dead"]:
            count = jobs.replay_dead(r)
            self.stdout.write(f"Queued {count} dead-lettered job(s) again.")
            return
        self.run_worker(r, options)

    def print_status(self, r, as_json=False):
        state = jobs.status(r)
        if as_json:
            self.stdout.write(json.dumps(state))
            return
        age = state["oldest_waiting_seconds"]
        self.stdout.write(f"waiting jobs:    {state['waiting']}")
        self.stdout.write(f"in flight:       {state['in_flight']}")
        self.stdout.write(
            f"reclaimed:       {state['reclaimed']} in flight were handed out again "
            f"(at most {state['most_deliveries']} times)"
        )
        self.stdout.write(f"failing:         {state['failing']} queued jobs have failed runs")
        self.stdout.write(f"dead letters:    {state['dead']}")
        self.stdout.write(f"mail to send:    {mail.backlog(r)} (dead: {mail.dead_count(r)})")
        self.stdout.write("oldest waiting:  " + ("-" if age is None else f"{age:.1f} s"))
        pending = {consumer["name"]: consumer["pending"] for consumer in state["consumers"]}
        for name, seconds in state["workers"].items():
            self.stdout.write(
                f"worker {name}: {pending.get(name, 0)} in flight, "
                f"last seen alive {seconds:.1f} s ago"
            )
        for name in sorted(pending.keys() - state["workers"].keys()):
            self.stdout.write(f"worker {name}: {pending[name]} in flight, not seen alive lately")

    def run_worker(self, r, options):
        name = options["name"] or f"{socket.gethostname()}-{os.getpid()}"
        self.stopping = False

        def stop(signum, frame):
            # Finish the jobs in hand: the loop checks this flag between steps.
            self.stopping = True

        signal.signal(signal.SIGTERM, stop)
        signal.signal(signal.SIGINT, stop)
        self.stdout.write(f"Fan-out worker {name} started.")
        sender = threading.Thread(target=self.send_mail, args=(name,), name="mail", daemon=True)
        sender.start()
        done, outage_wait, next_prune, next_sweep, next_note = 0, None, 0.0, 0.0, 0.0
        while not self.stopping:
            try:
                if time.monotonic() >= next_note:
                    # Alive, with jobs or without (heartbeats.py: what the doctor and
                    # the metrics read); a step blocks for READ_BLOCK_MS at most.
                    jobs.note_alive(r, name)
                    next_note = time.monotonic() + heartbeats.NOTE_EVERY_SECONDS
                if time.monotonic() >= next_prune:
                    jobs.ensure_group(r)
                    mail.ensure_group(r)
                    jobs.prune_consumers(r)
                    next_prune = time.monotonic() + PRUNE_EVERY_SECONDS
                if time.monotonic() >= next_sweep:
                    statuses.finish_unfinished(r)
                    blocks.end_mutes(r)
                    # Polls: the ended ones' authors and voters notified, once.
                    polls.end_due(r, keep=settings.NOTIFICATIONS_KEPT)
                    self.recompute_trends(r)
                    # The files of images whose statuses a worker deleted (a big
                    # account's deletion, finished here): listed by the deletion.
                    pictures.delete_unused(r)
                    attachments.sweep_pending(r)
                    eviction.sweep_if_due(r, settings.HOME_EVICT_AFTER)
                    next_sweep = time.monotonic() + SWEEP_EVERY_SECONDS
                step = self.step(r, name, options)
            except OUTAGE_ERRORS as error:
                outage_wait = self.wait_out(error, outage_wait)
                continue
            if outage_wait is not None:
                log.warning("Fan-out worker %s: Redis is reachable again.", name)
                outage_wait = None
            done += step
            if options["exit_when_idle"] and step == 0 and self.queue_is_empty(r):
                break
        self.stopping = True  # also when idle with --exit-when-idle
        sender.join()  # the message in hand is sent (or fails) first
        try:
            # The files the last jobs let go, before the worker stops, not at the next
            # sweep (some other worker's, or this one's when it runs again).
            pictures.delete_unused(r)
            jobs.forget_consumer(r, name)
            mail.forget_sender(r, name)
        except OUTAGE_ERRORS:
            pass  # prune_consumers removes it later; the next sweep deletes the files
        self.stdout.write(f"Fan-out worker {name} stopped after {done} job(s).")

    def send_mail(self, name):
        """The mail thread: send what is due (mail.send_waiting), else look again in
        MAIL_POLL_SECONDS; while Redis is unreachable, wait as the worker does. Its own
        Redis client: its waits are not the fan-out's."""
        r = new_redis(timeout=READ_TIMEOUT_SECONDS, retries=0)
        wait, next_note = 0.0, 0.0
        while not self.stopping:
            try:
                if time.monotonic() >= next_note:
                    mail.note_alive(r, name)
                    next_note = time.monotonic() + heartbeats.NOTE_EVERY_SECONDS
                sent = mail.send_waiting(r, name, account_mail.send, count=1)
                wait = 0.0 if sent else MAIL_POLL_SECONDS
            except OUTAGE_ERRORS:
                # The worker's loop logs the outage (once); this thread only waits it out.
                wait = min(max(wait * 2, OUTAGE_FIRST_WAIT), OUTAGE_MAX_WAIT)
            except Exception:
                log.exception("Sending mail failed; trying again shortly.")
                wait = MAIL_POLL_SECONDS
            deadline = time.monotonic() + wait
            while not self.stopping and time.monotonic() < deadline:
                time.sleep(0.05)

    def recompute_trends(self, r):
        """The trends, if due (trends.recompute_if_due). A failure other than an outage
        is logged, not raised: trends are not worth stopping the fan-out for, and the
        recompute lock keeps the next try 5 minutes away."""
        try:
            trends.recompute_if_due(r)
        except OUTAGE_ERRORS:
            raise
        except Exception:
            log.exception("Recomputing the trends failed; the next try is in 5 minutes.")

    def step(self, r, name, options):
        """One step of the worker (worker.work); the number of jobs it completed."""
        return worker.work(
            r,
            name,
            block_ms=READ_BLOCK_MS,
            claim_idle_ms=options["claim_idle_ms"],
            max_attempts=options["max_attempts"],
            jobs_per_step=options["jobs_per_step"],
        )

    def queue_is_empty(self, r):
        state = jobs.status(r)
        return state["waiting"] == 0 and state["in_flight"] == 0 and mail.backlog(r) == 0

    def wait_out(self, error, previous_wait):
        """Sleep before trying Redis again (logged at the outage's first error only);
        returns the wait, doubled from ``previous_wait`` up to OUTAGE_MAX_WAIT. A stop
        signal ends the sleep at once."""
        if previous_wait is None:
            log.warning("Fan-out worker: Redis is unreachable (%s); waiting for it.", error)
            wait = OUTAGE_FIRST_WAIT
        else:
            wait = min(previous_wait * 2, OUTAGE_MAX_WAIT)
        deadline = time.monotonic() + wait
        while not self.stopping and time.monotonic() < deadline:
            time.sleep(min(0.05, wait))
        return wait

"""``manage.py fanout``: a fan-out worker. Run as many as needed, on any machines.

Also: ``--status`` prints the queue's state, ``--dead`` lists dead letters and
``--replay-dead`` queues them again. SIGTERM or SIGINT: the worker finishes the job in
hand, then stops.
"""

import json
import os
import signal
import socket

from django.conf import settings
from django.core.management.base import BaseCommand

from socialsite.connection import get_redis
from socialsite.repository import jobs, worker
from socialsite.repository.limits import JOBS_PER_STEP


class Command(BaseCommand):
    help = "Run a fan-out worker, or inspect and repair the fan-out queue."

    def add_arguments(self, parser):
        parser.add_argument("--status", action="store_true", help="print the queue's state")
        parser.add_argument("--json", action="store_true", help="with --status: as JSON")
        parser.add_argument("--dead", action="store_true", help="list dead-lettered jobs")
        parser.add_argument(
            "--replay-dead", action="store_true", help="queue dead-lettered jobs again"
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
        r = get_redis()
        if options["status"]:
            return self.print_status(r, as_json=options["json"])
        if options["dead"]:
            for letter in jobs.dead_letters(r):
                self.stdout.write(json.dumps(letter))
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
        self.stdout.write(f"dead letters:    {state['dead']}")
        self.stdout.write("oldest waiting:  " + ("-" if age is None else f"{age:.1f} s"))
        for consumer in state["consumers"]:
            self.stdout.write(
                f"worker {consumer['name']}: {consumer['pending']} in flight, "
                f"idle {consumer['idle_ms'] / 1000:.1f} s"
            )

    def run_worker(self, r, options):
        name = options["name"] or f"{socket.gethostname()}-{os.getpid()}"
        self.stopping = False

        def stop(signum, frame):
            # Finish the jobs in hand: the loop checks this flag between steps.
            self.stopping = True

        signal.signal(signal.SIGTERM, stop)
        signal.signal(signal.SIGINT, stop)
        jobs.ensure_group(r)
        self.stdout.write(f"Fan-out worker {name} started.")
        done = 0
        while not self.stopping:
            step = worker.work(
                r,
                name,
                block_ms=1000,
                claim_idle_ms=options["claim_idle_ms"],
                max_attempts=options["max_attempts"],
                jobs_per_step=options["jobs_per_step"],
            )
            done += step
            if options["exit_when_idle"] and step == 0:
                state = jobs.status(r)
                if state["waiting"] == 0 and state["in_flight"] == 0:
                    break
        jobs.forget_consumer(r, name)
        self.stdout.write(f"Fan-out worker {name} stopped after {done} job(s).")

"""``manage.py bench_web``: how fast gunicorn serves the pages, or with --in-process the
CPU time per page in one process (benchmarks/web.py)."""

import argparse

from django.core.management.base import BaseCommand

from benchmarks.web import DEFAULT_CONFIG, WebBenchmark


class Command(BaseCommand):
    help = "Benchmark the pages through gunicorn: home page vs /healthz, and posting."

    def add_arguments(self, parser):
        parser.add_argument("--seconds", type=float, default=10.0, help="per measurement")
        parser.add_argument("--warmup", type=float, default=2.0, help="unrecorded, before each")
        parser.add_argument("--connections", type=int, default=32)
        parser.add_argument(
            "--repeat",
            type=int,
            default=1,
            help="measure each page this many times, alternating, and keep the fastest run",
        )
        parser.add_argument("--worker-class", default=DEFAULT_CONFIG.worker_class)
        parser.add_argument("--workers", type=int, default=DEFAULT_CONFIG.workers)
        parser.add_argument("--threads", type=int, default=DEFAULT_CONFIG.threads)
        parser.add_argument(
            "--reuse-port",
            action=argparse.BooleanOptionalAction,
            default=DEFAULT_CONFIG.reuse_port,
            help="a listening socket per worker, so the kernel spreads connections evenly",
        )
        parser.add_argument(
            "--also",
            action="append",
            default=[],
            metavar="CLASS:WORKERS[:THREADS][:reuse-port]",
            help="another gunicorn configuration to measure in the same run (repeatable)",
        )
        parser.add_argument("--followers", type=int, default=1000, help="the poster's")
        parser.add_argument(
            "--pulled",
            type=int,
            default=0,
            help="the reader also follows this many pulled accounts (their statuses merged"
            " into the home page when read; decision 0054)",
        )
        parser.add_argument(
            "--max-posts", type=int, default=2000, help="posting stops after this many"
        )
        parser.add_argument(
            "--tool",
            choices=["python", "wrk", "both"],
            default="python",
            help="load generator: the built-in asyncio client, wrk (apt-get install wrk), or"
            " both, alternating, each page's figures and verdict given for each",
        )
        parser.add_argument("--redis-url", default="", help="an existing server (not flushed)")
        parser.add_argument("--cluster", action="store_true", help="--redis-url is a cluster")
        parser.add_argument("--skip-posting", action="store_true")
        parser.add_argument(
            "--ranking-sizes",
            type=lambda text: tuple(int(n) for n in text.split(",") if n),
            default=(200, 800),
            help="the Top timeline's ranking measured with these numbers of candidates"
            " (comma-separated; empty: not measured)",
        )
        parser.add_argument("--ranking-rounds", type=int, default=20)
        parser.add_argument(
            "--in-process",
            action="store_true",
            help="instead: CPU time per request of each page through Django's WSGI handler"
            " in this process (no server, no network; steady on a busy machine)",
        )
        parser.add_argument(
            "--cold",
            action="store_true",
            help="with --in-process: also each page with the CPU caches emptied before every"
            " request, as a gunicorn worker finds them between requests",
        )
        parser.add_argument(
            "--spread",
            type=int,
            default=0,
            metavar="READERS",
            help="with --in-process: then, on a demo network (seed_demo), the home pages of"
            " this many of its users in turn against one user's page again and again",
        )
        parser.add_argument(
            "--spread-users",
            type=int,
            default=20_000,
            help="the demo network's users for --spread (20 follows and 10 statuses each)",
        )

    def handle(self, *args, **options):
        WebBenchmark(self.stdout, self.stderr).run(options)

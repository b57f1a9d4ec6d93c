"""``manage.py bench_stream``: how fast the streaming server delivers, matching by index
against matching by scan (and the book's design of one subscription per client), in
one run (benchmarks/stream.py)."""

from django.core.management.base import BaseCommand

from benchmarks.stream import StreamBenchmark


class Command(BaseCommand):
    help = "Benchmark the streaming server: delivery delay, clients, memory, CPU; by design."

    def add_arguments(self, parser):
        parser.add_argument("--clients", type=int, default=1000, help="streaming clients")
        parser.add_argument(
            "--rate",
            default="100",
            help="statuses posted a second; a list (100,200,400) measures each in turn on the "
            "same clients, stops at the first not sustained, and reports the highest sustained",
        )
        parser.add_argument(
            "--max-p99",
            type=float,
            default=100.0,
            help="milliseconds: a rate is sustained when p99 stays under this, everything "
            "is delivered and nothing dropped",
        )
        parser.add_argument(
            "--processes", type=int, default=1, help="stream server processes (--processes)"
        )
        parser.add_argument(
            "--live-homes",
            type=int,
            default=0,
            help="logged-in live home pages (Server-Sent Events), besides --clients",
        )
        parser.add_argument(
            "--mastodon",
            action="store_true",
            help="the live homes' users read their homes through Mastodon's user stream "
            "(/api/v1/streaming/user, with a token) instead of the live page's /live/home",
        )
        parser.add_argument(
            "--live-refresh",
            type=float,
            default=None,
            help="seconds between a live page's periodic checks (the server's "
            "--live-refresh; default: the server's default)",
        )
        parser.add_argument(
            "--following", type=int, default=200, help="users each live home follows"
        )
        parser.add_argument(
            "--users", type=int, default=20000, help="users, with --live-homes (they post)"
        )
        parser.add_argument("--seconds", type=float, default=20.0, help="posting time per design")
        parser.add_argument("--warmup", type=float, default=2.0, help="first seconds not measured")
        parser.add_argument("--posters", type=int, default=100, help="users who post")
        parser.add_argument(
            "--firehose", type=int, default=10, help="clients of the whole firehose (100%%)"
        )
        parser.add_argument(
            "--compare-clients",
            type=int,
            default=None,
            help="clients for the book's design (default: --clients)",
        )
        parser.add_argument(
            "--design",
            default="index,scan",
            help="comma-separated: index (ours: events find their clients through indexes), "
            "scan (every client's filter on every event), client (the book's: one Redis "
            "subscription per client); measured in turn, side by side",
        )
        parser.add_argument(
            "--redis-url", default="", help="use this Redis (it gets users and statuses)"
        )
        parser.add_argument("--cluster", action="store_true", help="--redis-url is a cluster")
        parser.add_argument("--seed", type=int, default=1, help="random seed for the workload")

    def handle(self, *args, **options):
        StreamBenchmark(self.stdout, self.stderr).run(options)

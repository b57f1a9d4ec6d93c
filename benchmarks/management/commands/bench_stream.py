"""``manage.py bench_stream``: how fast the streaming server delivers, against the book's
design of one subscription per client, in one run (benchmarks/stream.py)."""

from django.core.management.base import BaseCommand

from benchmarks.stream import StreamBenchmark


class Command(BaseCommand):
    help = "Benchmark the streaming server: delivery delay, clients, memory; vs the book's design."

    def add_arguments(self, parser):
        parser.add_argument("--clients", type=int, default=1000, help="streaming clients")
        parser.add_argument("--rate", type=float, default=100.0, help="statuses posted a second")
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
            choices=["both", "process", "client"],
            default="both",
            help="one subscription per process (ours), per client (the book's), or both",
        )
        parser.add_argument(
            "--redis-url", default="", help="use this Redis (it gets users and statuses)"
        )
        parser.add_argument("--cluster", action="store_true", help="--redis-url is a cluster")
        parser.add_argument("--seed", type=int, default=1, help="random seed for the workload")

    def handle(self, *args, **options):
        StreamBenchmark(self.stdout, self.stderr).run(options)

"""``manage.py bench_memory``: bytes per home-timeline entry and per status, and server
time per insert, ours against the book's layout (benchmarks/memory.py)."""

from django.core.management.base import BaseCommand

from benchmarks.memory import MemoryBenchmark


class Command(BaseCommand):
    help = "Measure memory per timeline entry and per status, and server time per insert."

    def add_arguments(self, parser):
        parser.add_argument("--timelines", type=int, default=1000)
        parser.add_argument("--rounds", type=int, default=400)
        parser.add_argument("--statuses", type=int, default=20000)
        parser.add_argument(
            "--reposts", type=int, default=100, help="reposts delivered to each home (0: none)"
        )

        parser.add_argument(
            "--rebuild-follows",
            type=lambda value: [int(n) for n in value.split(",") if n],
            default=[100, 1000, 7500],
            help="follow counts of the evicted homes rebuilt, comma-separated",
        )
        parser.add_argument(
            "--rebuild-statuses", type=int, default=200, help="statuses of each followed account"
        )

    def handle(self, *args, **options):
        MemoryBenchmark(self.stdout, self.stderr).run(options)

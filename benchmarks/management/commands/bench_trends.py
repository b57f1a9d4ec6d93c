"""``manage.py bench_trends``: the time and memory of one trends recomputation with
10,000 tags in use (benchmarks/trends.py)."""

from django.core.management.base import BaseCommand

from benchmarks.trends import TrendsBenchmark


class Command(BaseCommand):
    help = "Measure the time and memory of a trends recomputation with --tags tags in use."

    def add_arguments(self, parser):
        parser.add_argument("--tags", type=int, default=10_000, help="tags used today")
        parser.add_argument("--head", type=int, default=5000, help="users of the busiest tag")
        parser.add_argument("--users", type=int, default=100_000, help="user ids drawn from")
        parser.add_argument("--repeat", type=int, default=3, help="recomputes measured")
        parser.add_argument("--seed", type=int, default=19)

    def handle(self, *args, **options):
        TrendsBenchmark(self.stdout, self.stderr).run(options)

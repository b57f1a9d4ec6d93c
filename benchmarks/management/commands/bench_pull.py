"""``manage.py bench_pull``: posting from a pulled account with a million followers, and
home pages merging 0, 5 and 50 pulled accounts against /healthz (benchmarks/pull.py)."""

from django.core.management.base import BaseCommand

from benchmarks.pull import PullBenchmark


class Command(BaseCommand):
    help = "Measure pulled accounts: posting to a million followers, and merged home pages."

    def add_arguments(self, parser):
        parser.add_argument("--followers", type=int, default=1_000_000)
        parser.add_argument("--repeat", type=int, default=5, help="posts and page rounds")

    def handle(self, *args, **options):
        PullBenchmark(self.stdout, self.stderr).run(options)

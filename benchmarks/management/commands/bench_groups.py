"""``manage.py bench_groups``: posting to a pulled group of 100,000 members, and group
pages and a home following 5 groups (one pulled) against /healthz (benchmarks/groups.py)."""

from django.core.management.base import BaseCommand

from benchmarks.groups import GroupsBenchmark


class Command(BaseCommand):
    help = "Measure groups: posting to 100,000 members (pulled), group pages, a home of 5 groups."

    def add_arguments(self, parser):
        parser.add_argument("--members", type=int, default=100_000)
        parser.add_argument("--repeat", type=int, default=5, help="posts and page rounds")
        parser.add_argument(
            "--pull-members", type=int, default=0,
            help="the pulled threshold (default: FANOUT_PULL_FOLLOWERS); for tests",
        )  # fmt: skip
        parser.add_argument("--requests", type=int, default=100, help="requests per round")

    def handle(self, *args, **options):
        GroupsBenchmark(self.stdout, self.stderr).run(options)

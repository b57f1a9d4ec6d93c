"""``manage.py bench_search``: search and autocomplete latency (p50, p99) on the demo
network, and the search index's memory per user; full-text search of statuses (a
two-word query, p50, p99) and the status index's bytes per status (benchmarks/search.py)."""

from django.core.management.base import BaseCommand

from benchmarks.search import SearchBenchmark


class Command(BaseCommand):
    help = "Benchmark search and autocomplete on the demo network (seed_demo)."

    def add_arguments(self, parser):
        parser.add_argument(
            "--users", type=int, default=100_000, help="the demo network seeded (seed_demo)"
        )
        parser.add_argument("--queries", type=int, default=2000, help="queries timed, each kind")
        parser.add_argument("--seed", type=int, default=1, help="same seed, same queries")
        parser.add_argument(
            "--redis-url",
            default="",
            help="measure the demo network already there (seed_demo); nothing is written",
        )
        parser.add_argument("--cluster", action="store_true", help="--redis-url is a cluster")
        parser.add_argument(
            "--index-statuses",
            action="store_true",
            help="with --redis-url: make every account indexable and build the status index"
            " there (writes)",
        )

    def handle(self, *args, **options):
        SearchBenchmark(self.stdout).run(options)

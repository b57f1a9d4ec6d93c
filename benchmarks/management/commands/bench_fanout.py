"""``manage.py bench_fanout``: fan-out rate, ours against the book's and the raw ceiling
(benchmarks/fanout.py)."""

from django.core.management.base import BaseCommand

from benchmarks.fanout import FanoutBenchmark
from socialsite.repository.limits import JOBS_PER_STEP


class Command(BaseCommand):
    help = "Measure fan-out rate: socialsite's workers vs the book's algorithm vs raw ZADDs."

    def add_arguments(self, parser):
        parser.add_argument("--followers", default="10000,100000,1000000")
        parser.add_argument("--workers", default="2", help="worker processes, e.g. 1,2,3")
        parser.add_argument(
            "--jobs-per-step",
            default=str(JOBS_PER_STEP),
            help="the workers' --jobs-per-step, e.g. 1,5 to compare",
        )
        parser.add_argument("--redis-url", default="", help="default: a throwaway server")
        parser.add_argument("--skip-book", action="store_true")
        parser.add_argument(
            "--repost",
            action="store_true",
            help="also time a repost's fan-out to the same followers (next to the post's)",
        )
        parser.add_argument(
            "--repeat",
            type=int,
            default=1,
            help="measure everything N times, alternating, and compare each one's best",
        )

        parser.add_argument(
            "--listed-fraction",
            type=float,
            default=0.0,
            help="the share of followers who have the author in a named list (0 to 1): "
            "their lists get each status in the same step as their homes",
        )

        parser.add_argument(
            "--ceiling-timelines",
            type=int,
            default=1000,
            help="full home timelines the server-time ceiling is measured on, each round "
            "(bench_memory's; 0: not measured)",
        )
        parser.add_argument(
            "--breakdown",
            action="store_true",
            help="instead of the timed runs: where a delivery's time goes (Redis time by "
            "command, round trips, one profiled worker's CPU by part) at each size",
        )

    def handle(self, *args, **options):
        FanoutBenchmark(self.stdout, self.stderr).run(options)

"""``manage.py bench_filters``: the home page of a reader with 10 keyword filters of 5
keywords each against /healthz through gunicorn (benchmarks/filters.py)."""

from django.core.management.base import BaseCommand

from benchmarks.filters import FiltersBenchmark
from benchmarks.management.commands import bench_web


class Command(BaseCommand):
    help = "Benchmark keyword filters: the home page with 10 filters against /healthz."

    def add_arguments(self, parser):
        # bench_web's options (gunicorn, load generator, durations), with its defaults.
        bench_web.Command().add_arguments(parser)
        parser.set_defaults(followers=0, skip_posting=True)

    def handle(self, *args, **options):
        FiltersBenchmark(self.stdout, self.stderr).run(options)

"""``manage.py bench_group_pages``: a group's page and a home of 5 groups (one pulled)
against /healthz through gunicorn (benchmarks/group_pages.py)."""

from django.core.management.base import BaseCommand

from benchmarks.group_pages import GroupPagesBenchmark
from benchmarks.management.commands import bench_web


class Command(BaseCommand):
    help = "Benchmark group pages: a group's page and a home of 5 groups against /healthz."

    def add_arguments(self, parser):
        # bench_web's options (gunicorn, load generator, durations), with its defaults.
        bench_web.Command().add_arguments(parser)
        parser.set_defaults(followers=0, skip_posting=True)

    def handle(self, *args, **options):
        GroupPagesBenchmark(self.stdout, self.stderr).run(options)

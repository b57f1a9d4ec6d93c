"""``manage.py bench_api``: the client API through gunicorn, with bench_web's machinery:
GET /api/v1/timelines/home (40 statuses) against /healthz, and POST /api/v1/statuses
(benchmarks/api.py)."""

from benchmarks.api import ApiBenchmark
from benchmarks.management.commands.bench_web import Command as WebCommand


class Command(WebCommand):
    help = "Benchmark the client API through gunicorn: home timeline vs /healthz, and posting."

    def handle(self, *args, **options):
        ApiBenchmark(self.stdout, self.stderr).run(options)

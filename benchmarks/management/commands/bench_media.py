"""``manage.py bench_media``: the CPU time to accept a 12-megapixel JPEG, and the home
page with images against /healthz through gunicorn (benchmarks/media.py)."""

from django.core.management.base import BaseCommand, CommandError

from benchmarks.management.commands import bench_web
from benchmarks.media import MediaBenchmark


class Command(BaseCommand):
    help = "Benchmark pictures: accepting a 12 MP JPEG, and the home page with images."

    def add_arguments(self, parser):
        # bench_web's options (gunicorn, load generator, durations), with its defaults.
        bench_web.Command().add_arguments(parser)
        parser.add_argument("--megapixels", type=float, default=12.0, help="the JPEG's size")
        parser.add_argument("--jpeg-runs", type=int, default=5, help="the best one is kept")
        parser.add_argument("--skip-pages", action="store_true", help="the JPEG alone")
        parser.set_defaults(followers=0, skip_posting=True)

    def handle(self, *args, **options):
        if not (0 < options["megapixels"] <= 40 and 1 <= options["jpeg_runs"] <= 50):
            raise CommandError("--megapixels must be in (0, 40] and --jpeg-runs in [1, 50]")
        MediaBenchmark(self.stdout, self.stderr).run(options)

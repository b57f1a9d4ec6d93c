"""``manage.py bench_messages``: sending direct messages, the inbox page against
/healthz, and bytes per message (benchmarks/messages.py)."""

from django.core.management.base import BaseCommand

from benchmarks.messages import MessagesBenchmark
from benchmarks.web import DEFAULT_CONFIG


class Command(BaseCommand):
    help = "Benchmark direct messages: sending (2 and 50 people), the inbox, bytes per message."

    def add_arguments(self, parser):
        parser.add_argument("--seconds", type=float, default=10.0, help="per measurement")
        parser.add_argument("--warmup", type=float, default=2.0, help="unrecorded, before each")
        parser.add_argument("--connections", type=int, default=32)
        parser.add_argument("--repeat", type=int, default=1, help="rounds of inbox vs /healthz")
        parser.add_argument("--worker-class", default=DEFAULT_CONFIG.worker_class)
        parser.add_argument("--workers", type=int, default=DEFAULT_CONFIG.workers)
        parser.add_argument("--threads", type=int, default=DEFAULT_CONFIG.threads)
        parser.add_argument("--inbox", type=int, default=20, help="the reader's conversations")
        parser.add_argument("--max-messages", type=int, default=2000, help="sent per conversation")
        parser.add_argument("--bytes-messages", type=int, default=1000)

    def handle(self, *args, **options):
        MessagesBenchmark(self.stdout, self.stderr).run(options)

"""``manage.py search_index rebuild``: make the search index again from the users and
the tag timelines (repository/search.py rebuild). Safe to run at any time, and again."""

import time

from django.core.management.base import BaseCommand

from socialsite.connection import get_redis
from socialsite.repository import search


class Command(BaseCommand):
    help = "Rebuild the search index (people and tags) from the users and tag timelines."

    def add_arguments(self, parser):
        parser.add_argument("action", choices=["rebuild"])
        parser.add_argument(
            "--batch", type=int, default=1000, help="hashes read per round trip (default 1000)"
        )

    def handle(self, *args, action, batch, **options):
        started = time.perf_counter()
        report = search.rebuild(get_redis(), batch=max(1, batch))
        seconds = time.perf_counter() - started
        self.stdout.write(
            f"Users read: {report.users_seen:,}; indexed: {report.people_indexed:,}; "
            f"left out (suspended or leaving): {report.hidden_skipped:,}.\n"
            f"People index: {report.index_keys:,} keys; stale entries removed: "
            f"{report.entries_removed:,}.\n"
            f"Tags indexed: {report.tags_indexed:,}; removed (no timeline): "
            f"{report.tags_removed:,}.\n"
            f"Done in {seconds:.1f} s."
        )

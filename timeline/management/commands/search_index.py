"""``manage.py search_index rebuild``: make the search index again from the users and
the tag timelines (repository/search.py rebuild), then the status index from the
statuses (repository/status_search.py rebuild, a batch of statuses at a time, with a
progress bar). Safe to run at any time, and again. ``--only people`` or ``--only
statuses`` rebuilds one of them."""

import time

from django.core.management.base import BaseCommand

from socialsite.connection import get_redis
from socialsite.repository import keys, search, status_search
from timeline.management.commands.seed_demo import Progress


class Command(BaseCommand):
    help = (
        "Rebuild the search indexes: people and tags from the users and tag timelines, "
        "statuses from the statuses."
    )

    def add_arguments(self, parser):
        parser.add_argument("action", choices=["rebuild"])
        parser.add_argument(
            "--batch", type=int, default=1000, help="hashes read per round trip (default 1000)"
        )
        parser.add_argument(
            "--only", choices=["people", "statuses"], help="rebuild one index (default: both)"
        )

    def handle(self, *args, action, batch, only=None, **options):
        r = get_redis()
        batch = max(1, batch)
        if only != "statuses":
            self.people(r, batch)
        if only != "people":
            self.statuses(r, batch)

    def people(self, r, batch):
        started = time.perf_counter()
        report = search.rebuild(r, batch=batch)
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

    def statuses(self, r, batch):
        started = time.perf_counter()
        # The ids handed out bound the statuses there are: the bar's total.
        progress = Progress(self.stdout, "statuses", int(r.get(keys.STATUS_IDS) or 0))
        report = status_search.rebuild(r, batch=batch, progress=progress.advance)
        seconds = time.perf_counter() - started
        self.stdout.write(
            f"\nStatuses read: {report.statuses_seen:,}; indexed: {report.statuses_indexed:,}"
            f" (public, of accounts that let them be found).\n"
            f"Status index: {report.index_keys:,} keys; stale entries removed: "
            f"{report.entries_removed:,}.\n"
            f"Done in {seconds:.1f} s."
        )

"""``manage.py timelines``: the state of home timelines at scale (decisions 0054, 0055).

    manage.py timelines status     # the pulled accounts, and how many homes are evicted
    manage.py timelines evict      # evict the homes of people not seen for HOME_EVICT_AFTER
    manage.py timelines track      # note every account never seen as seen today (once)

An account with FANOUT_PULL_FOLLOWERS followers or more is pulled: its statuses are
merged into its followers' pages when read instead of delivered (repository/fanout.py).
A person not seen for HOME_EVICT_AFTER loses their home and list timelines, which
deliveries then skip and their first page back rebuilds (repository/eviction.py); the
fan-out workers sweep every hour, ``evict`` sweeps now. An account is swept only once it
was seen: ``track`` notes the accounts made before eviction ran (run it once).
"""

from django.conf import settings
from django.core.management.base import BaseCommand

from socialsite.connection import get_redis
from socialsite.repository import eviction, fanout, users


class Command(BaseCommand):
    help = "Show the pulled accounts and evicted homes; evict the homes of people away."

    def add_arguments(self, parser):
        actions = parser.add_subparsers(dest="action", required=True, metavar="ACTION")
        actions.add_parser("status", help="the pulled accounts, and the evicted homes")
        actions.add_parser(
            "evict", help="evict now the homes of people not seen for HOME_EVICT_AFTER"
        )
        actions.add_parser(
            "track", help="note every account never seen as seen today, so that it can be swept"
        )

    def handle(self, *args, action, **options):
        r = get_redis()
        if action == "track":
            added = eviction.note_everyone_seen(r)
            self.stdout.write(f"{added:,} account(s) noted seen today, never seen before")
            return None
        if action == "evict":
            evicted = eviction.sweep(r, settings.HOME_EVICT_AFTER)
            self.stdout.write(
                f"{evicted:,} home(s) evicted (not seen for {_duration(settings.HOME_EVICT_AFTER)})"
            )
            return None
        threshold = settings.FANOUT_PULL_FOLLOWERS
        counts = fanout.pulled_counts(r)
        self.stdout.write(
            f"Pulled from {threshold:,} followers" if threshold else "Pulling is off (0)"
        )
        self.stdout.write(
            f"{counts['pulled_accounts']} pulled account(s), {counts['registered_accounts']}"
            f" registered, {counts['pulled_statuses']:,} pulled status(es) held"
        )
        for uid, state in fanout.pulled_accounts(r).items():
            user = users.get_user(r, uid)
            login = f"@{user['login']}" if user else f"(account {uid} deleted)"
            self.stdout.write(
                f"  {login:<24} {state['path']:<7} {state['followers']:>12,} followers"
                f" {state['statuses']:>6,} pulled statuses"
            )
        self.stdout.write(
            f"{eviction.evicted_count(r):,} evicted home(s) (not seen for"
            f" {_duration(settings.HOME_EVICT_AFTER)})"
        )
        return None


def _duration(seconds):
    """``seconds`` in the largest unit that divides it (30d, 12h, 90s)."""
    for unit, size in (("d", 86400), ("h", 3600), ("m", 60)):
        if seconds % size == 0:
            return f"{seconds // size}{unit}"
    return f"{seconds}s"

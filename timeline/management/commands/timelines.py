"""``manage.py timelines``: the state of home timelines at scale (decision 0054).

    manage.py timelines status     # the pulled accounts: path, followers, statuses held

An account with FANOUT_PULL_FOLLOWERS followers or more is pulled: its statuses are
merged into its followers' pages when read instead of delivered (repository/fanout.py).
"""

from django.conf import settings
from django.core.management.base import BaseCommand

from socialsite.connection import get_redis
from socialsite.repository import fanout, users


class Command(BaseCommand):
    help = "Show the pulled accounts (statuses merged when read, not delivered)."

    def add_arguments(self, parser):
        actions = parser.add_subparsers(dest="action", required=True, metavar="ACTION")
        actions.add_parser("status", help="the pulled accounts and their figures")

    def handle(self, *args, action, **options):
        r = get_redis()
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

"""``manage.py accounts email LOGIN ADDRESS [--verified]``: set an account's address (an
operator answering someone who lost access to theirs); with --verified, as verified.
Without --verified the account is mailed a verification link, as after a change.

An operator's act on one account, so through its action (actions.accounts.set_address),
acting as the command line (actions.moderation.command_line_actor: recorded as
``manage.py``)."""

from django.core.management.base import BaseCommand, CommandError

from socialsite.actions import Refused
from socialsite.actions import accounts as account_actions
from socialsite.actions.moderation import command_line_actor


class Command(BaseCommand):
    help = "Operators' changes to accounts: `email LOGIN ADDRESS [--verified]`."

    def add_arguments(self, parser):
        actions = parser.add_subparsers(dest="action", required=True)
        email = actions.add_parser("email", help="set an account's email address")
        email.add_argument("login")
        email.add_argument("address")
        email.add_argument("--verified", action="store_true", help="mark it verified")

    def handle(self, *args, **options):
        login, address = options["login"], options["address"].strip()
        try:
            account_actions.set_address(
                command_line_actor(), login, address, verified=options["verified"]
            )
        except Refused as refused:
            raise CommandError(refused.message) from None
        if options["verified"]:
            self.stdout.write(f"@{login}'s address is {address}, verified.")
        else:
            self.stdout.write(f"@{login}'s address is {address}; a verification link is queued.")

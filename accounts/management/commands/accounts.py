"""``manage.py accounts email LOGIN ADDRESS [--verified]``: set an account's address (an
operator answering someone who lost access to theirs); with --verified, as verified.
Without --verified the account is mailed a verification link, as after a change."""

from django.core.exceptions import ValidationError
from django.core.management.base import BaseCommand, CommandError
from django.core.validators import validate_email

from accounts import mail as account_mail
from socialsite.connection import new_redis
from socialsite.repository import emails, users


class Command(BaseCommand):
    help = "Operators' changes to accounts: `email LOGIN ADDRESS [--verified]`."

    def add_arguments(self, parser):
        actions = parser.add_subparsers(dest="action", required=True)
        email = actions.add_parser("email", help="set an account's email address")
        email.add_argument("login")
        email.add_argument("address")
        email.add_argument("--verified", action="store_true", help="mark it verified")

    def handle(self, *args, **options):
        r = new_redis()
        login, address = options["login"], options["address"].strip()
        try:
            validate_email(address)
        except ValidationError:
            raise CommandError(f"{address!r} is not an email address.") from None
        uid = users.get_user_id(r, login)
        if uid is None:
            raise CommandError(f"There is no account @{login}.")
        if not emails.set_address(r, uid, address, verified=options["verified"]):
            raise CommandError(f"{address} belongs to another account.")
        if options["verified"]:
            self.stdout.write(f"@{login}'s address is {address}, verified.")
        else:
            account_mail.queue_verification(uid, address)
            self.stdout.write(f"@{login}'s address is {address}; a verification link is queued.")

"""``manage.py moderators add|remove|list [login]``: who may use the moderation pages.
Adding and removing are moderators' acts (socialsite/actions/moderation.py), done as
``manage.py`` and recorded in the audit log."""

from django.core.management.base import BaseCommand, CommandError

from socialsite.actions import Refused
from socialsite.actions import moderation as acts
from socialsite.connection import get_redis
from socialsite.repository import moderation, users


class Command(BaseCommand):
    help = "Make a user a moderator (add), stop that (remove), or list the moderators."

    def add_arguments(self, parser):
        parser.add_argument("action", choices=["add", "remove", "list"])
        parser.add_argument("login", nargs="?", help="the user's login (add, remove)")

    def handle(self, *args, action, login=None, **options):
        r = get_redis()
        if action == "list":
            if login:
                raise CommandError("list takes no login.")
            found = moderation.moderators(r)
            for user in found:
                self.stdout.write(f"@{user['login']}  {user['name']}")
            if not found:
                self.stdout.write("No moderators.")
            return
        if not login:
            raise CommandError(f"{action} needs a login: manage.py moderators {action} LOGIN")
        user = users.get_user_by_login(r, login.lstrip("@"))
        if user is None:
            raise CommandError(f"There is no user @{login.lstrip('@')}.")
        act = acts.add_moderator if action == "add" else acts.remove_moderator
        try:
            result = act(acts.command_line_actor(), user["id"])
        except Refused as refusal:
            raise CommandError(refusal.message) from None
        if result is acts.Result.ALREADY:
            state = "a moderator already" if action == "add" else "not a moderator"
        else:
            state = "a moderator now" if action == "add" else "no longer a moderator"
        self.stdout.write(f"@{user['login']} is {state}.")

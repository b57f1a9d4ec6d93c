"""``manage.py moderators add|remove|list [login]``: who may use the moderation pages."""

from django.core.management.base import BaseCommand, CommandError

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
        uid = users.get_user_id(r, login.lstrip("@"))
        if uid is None:
            raise CommandError(f"There is no user @{login.lstrip('@')}.")
        act = moderation.add_moderator if action == "add" else moderation.remove_moderator
        result = act(r, uid)
        user = users.get_user(r, uid)
        if result is moderation.Result.NOT_FOUND:
            raise CommandError(f"@{login.lstrip('@')} is suspended or leaving the site.")
        if result is moderation.Result.ALREADY:
            state = "a moderator already" if action == "add" else "not a moderator"
            self.stdout.write(f"@{user['login']} is {state}.")
        else:
            state = "a moderator now" if action == "add" else "no longer a moderator"
            self.stdout.write(f"@{user['login']} is {state}.")

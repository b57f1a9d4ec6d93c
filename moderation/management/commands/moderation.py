"""``manage.py moderation``: the moderators' actions from the command line, the pages'
own (socialsite/actions/moderation.py), recorded in the same audit log (who:
``manage.py``, or ``--by LOGIN``, a moderator).

    manage.py moderation suspend LOGIN --reason "..."
    manage.py moderation unsuspend LOGIN [--reason "..."]
    manage.py moderation delete-status ID --reason "..."
    manage.py moderation log [--count N]
"""

import datetime

from django.core.management.base import BaseCommand, CommandError

from socialsite.actions import Actor, Refused
from socialsite.actions import moderation as acts
from socialsite.connection import get_redis
from socialsite.repository import moderation, users

# The acts that need a reason, as on the pages (acts.suspend, acts.delete_status).
REASON_NEEDED = ("suspend", "delete-status")


def when(seconds):
    moment = datetime.datetime.fromtimestamp(seconds, tz=datetime.UTC)
    return f"{moment:%Y-%m-%d %H:%M:%S} UTC"


class Command(BaseCommand):
    help = "Suspend or unsuspend an account, delete a status, or show the moderation log."

    def add_arguments(self, parser):
        actions = parser.add_subparsers(dest="action", required=True, metavar="ACTION")
        for name, target, help_text in (
            ("suspend", "login", "hide an account everywhere and end its sessions"),
            ("unsuspend", "login", "show a suspended account again"),
            ("delete-status", "status_id", "delete a status, whoever posted it"),
        ):
            action = actions.add_parser(name, help=help_text)
            action.add_argument(target, type=int if target == "status_id" else str)
            action.add_argument(
                "--reason",
                required=name in REASON_NEEDED,
                default="",
                help="why, for the audit log" + (" (required)" if name in REASON_NEEDED else ""),
            )
            action.add_argument(
                "--by", default=None, help="the moderator's login to record (default: manage.py)"
            )
        log = actions.add_parser("log", help="the audit log, newest first")
        log.add_argument("--count", type=int, default=50, help="entries to show (default 50)")

    def handle(self, *args, action, **options):
        r = get_redis()
        if action == "log":
            return self.show_log(r, options["count"])
        actor = self.actor(options["by"])
        try:
            if action == "delete-status":
                sid = options["status_id"]
                result = acts.delete_status(actor, sid, options["reason"])
                self.report(result, f"Status {sid} is deleted.")
                return
            login = options["login"].lstrip("@")
            uid = users.get_user_id(r, login)
            if uid is None:
                raise CommandError(f"There is no user @{login}.")
            act = acts.suspend if action == "suspend" else acts.unsuspend
            result = act(actor, uid, options["reason"])
        except Refused as refusal:
            raise CommandError(refusal.message) from None
        done = "suspended" if action == "suspend" else "no longer suspended"
        self.report(result, f"@{login} is {done}.")

    def actor(self, by: str | None) -> Actor:
        """Who acts, as the log records it: the moderator named by --by, or manage.py."""
        if by is None:
            return acts.command_line_actor()
        try:
            return acts.moderator_actor(by)
        except Refused as refusal:
            raise CommandError(f"--by: {refusal.message}") from None

    def report(self, result, done):
        if result is moderation.Result.ALREADY:
            self.stdout.write(f"Nothing to do: {result.value}.")
        else:
            self.stdout.write(done)

    def show_log(self, r, count):
        if count < 1:
            raise CommandError("--count must be at least 1.")
        page = moderation.log_page(r, count=count)
        for entry in page.items:
            by = f"@{entry['by']}" if entry.get("by_id") else entry["by"]
            target = f"@{entry['target']}" if entry.get("target") else "-"
            details = " ".join(
                f"{name}={entry[name]}" for name in ("status", "report", "tag") if entry.get(name)
            )
            line = f"{when(entry['at'])}  {by}  {entry['action']}  {target}"
            if details:
                line += f"  {details}"
            if entry.get("reason"):
                line += f"  reason: {entry['reason']}"
            self.stdout.write(line)
        if not page.items:
            self.stdout.write("The moderation log is empty.")

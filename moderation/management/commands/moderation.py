"""``manage.py moderation``: the moderators' actions from the command line, recorded in
the same audit log as the pages' (who: ``manage.py``, or ``--by LOGIN``).

    manage.py moderation suspend LOGIN --reason "..."
    manage.py moderation unsuspend LOGIN [--reason "..."]
    manage.py moderation delete-status ID [--reason "..."]
    manage.py moderation log [--count N]
"""

import datetime

from django.core.management.base import BaseCommand, CommandError

from media import pictures
from socialsite.connection import get_redis
from socialsite.repository import moderation, users


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
                required=name == "suspend",
                default="",
                help="why, for the audit log" + (" (required)" if name == "suspend" else ""),
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
        who = self.who(r, options["by"])
        if action == "delete-status":
            sid = options["status_id"]
            result = moderation.delete_status(r, sid, reason=options["reason"], **who)
            pictures.delete_unused(r)  # its images' files, which the deletion listed
            if result is moderation.Result.NOT_FOUND:
                raise CommandError(f"There is no status {sid}.")
            self.report(result, f"Status {sid} is deleted.")
            return
        login = options["login"].lstrip("@")
        uid = users.get_user_id(r, login)
        if uid is None:
            raise CommandError(f"There is no user @{login}.")
        act = moderation.suspend if action == "suspend" else moderation.unsuspend
        result = act(r, uid, reason=options["reason"], **who)
        if result is moderation.Result.NOT_FOUND:
            raise CommandError(f"@{login} is leaving the site.")
        done = "suspended" if action == "suspend" else "no longer suspended"
        self.report(result, f"@{login} is {done}.")

    def who(self, r, by):
        """Whom the log records as having acted: a moderator named by --by, or manage.py."""
        if by is None:
            return {"by": moderation.COMMAND_LINE, "by_uid": None}
        user = users.get_user_by_login(r, by.lstrip("@"))
        if not moderation.is_moderator(user):
            raise CommandError(f"--by: @{by.lstrip('@')} is not a moderator.")
        return {"by": user["login"], "by_uid": user["id"]}

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
                f"{name}={entry[name]}" for name in ("status", "report") if entry.get(name)
            )
            line = f"{when(entry['at'])}  {by}  {entry['action']}  {target}"
            if details:
                line += f"  {details}"
            if entry.get("reason"):
                line += f"  reason: {entry['reason']}"
            self.stdout.write(line)
        if not page.items:
            self.stdout.write("The moderation log is empty.")

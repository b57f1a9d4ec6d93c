"""``manage.py pictures``: the pictures' files nothing shows any more.

    manage.py pictures unused          # how many are waiting to be deleted
    manage.py pictures delete-unused   # delete their files now
    manage.py pictures pending         # how many uploads wait for a status
    manage.py pictures sweep           # delete those past MEDIA_PENDING_MAX_AGE now

A deleted account's pictures, and a deleted status's images, are deleted by the request
that deletes it (or, for statuses a fan-out worker deleted, by the workers' sweep); one cut
short (a crash between listing them and deleting them) leaves them listed, and the next
deletion or sweep deletes them with its own. This deletes them at once, and may run from
cron.

An upload no status shows (its posting request died between storing the files and
writing the status) is deleted by the workers' sweep once older than
MEDIA_PENDING_MAX_AGE, unless a status of its uploader names it; ``sweep`` does the same
at once (``--older-than SECONDS`` for another age).
"""

from django.core.management.base import BaseCommand, CommandError

from media import attachments, pictures
from socialsite.connection import get_redis
from socialsite.repository import profiles, uploads


class Command(BaseCommand):
    help = "Count, or delete, the files of pictures nothing shows any more."

    def add_arguments(self, parser):
        actions = parser.add_subparsers(dest="action", required=True, metavar="ACTION")
        actions.add_parser("unused", help="how many pictures wait to be deleted")
        actions.add_parser("delete-unused", help="delete their files now")
        actions.add_parser("pending", help="how many uploads wait for a status")
        sweep = actions.add_parser(
            "sweep", help="delete the files of uploads no status showed in time"
        )
        sweep.add_argument(
            "--older-than", type=int, default=None, metavar="SECONDS",
            help="the age past which they go (default: MEDIA_PENDING_MAX_AGE)",
        )  # fmt: skip

    def handle(self, *args, action, **options):
        r = get_redis()
        if action == "pending":
            self.stdout.write(f"{uploads.count(r)} upload(s) wait for a status.")
            return
        if action == "sweep":
            age = options["older_than"]
            if age is not None and age < 0:
                raise CommandError("--older-than takes a number of seconds, 0 or more.")
            done = attachments.sweep_pending(r, max_age=age)
            self.stdout.write(f"Deleted the files of {done} upload(s) no status showed.")
            return
        if action == "unused":
            waiting = len(profiles.unused_pictures(r, count=10_000))
            self.stdout.write(f"{waiting} picture file(s) wait to be deleted.")
            return
        done = pictures.delete_unused(r)
        self.stdout.write(f"Deleted {done} picture file(s).")

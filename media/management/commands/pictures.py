"""``manage.py pictures``: the pictures' files nothing shows any more.

    manage.py pictures unused          # how many are waiting to be deleted
    manage.py pictures delete-unused   # delete their files now

A deleted account's pictures, and a deleted status's images, are deleted by the request
that deletes it (or, for statuses a fan-out worker deleted, by the workers' sweep); one cut
short (a crash between listing them and deleting them) leaves them listed, and the next
deletion or sweep deletes them with its own. This deletes them at once, and may run from
cron.
"""

from django.core.management.base import BaseCommand

from media import pictures
from socialsite.connection import get_redis
from socialsite.repository import profiles


class Command(BaseCommand):
    help = "Count, or delete, the files of pictures nothing shows any more."

    def add_arguments(self, parser):
        actions = parser.add_subparsers(dest="action", required=True, metavar="ACTION")
        actions.add_parser("unused", help="how many pictures wait to be deleted")
        actions.add_parser("delete-unused", help="delete their files now")

    def handle(self, *args, action, **options):
        r = get_redis()
        if action == "unused":
            waiting = len(profiles.unused_pictures(r, count=10_000))
            self.stdout.write(f"{waiting} picture file(s) wait to be deleted.")
            return
        done = pictures.delete_unused(r)
        self.stdout.write(f"Deleted {done} picture file(s).")

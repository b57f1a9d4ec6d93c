"""``manage.py trends``: what trends on /explore/, and the tags an operator hides from it.

    manage.py trends list              # the trends as of the last recompute, and the hidden tags
    manage.py trends hide TAG          # leave TAG out of the trends, at once and from now on
    manage.py trends unhide TAG        # let it trend again (from the next recompute)
    manage.py trends recompute         # recompute now (the fan-out workers do every 5 minutes)

hide and unhide take ``--reason "..."`` for the moderation log.

TAG with or without "#", in any case or width: it is normalized as hashtags are. Hiding
and unhiding are moderators' acts (socialsite/actions/moderation.py: hide_tag,
unhide_tag), done as ``manage.py`` and recorded in the moderation log.
"""

from django.core.management.base import BaseCommand, CommandError

from socialsite.actions import Refused
from socialsite.actions import moderation as acts
from socialsite.connection import get_redis
from socialsite.repository import trends
from socialsite.repository.limits import TRENDS_KEPT


class Command(BaseCommand):
    help = "List the trending tags, hide a tag from them or unhide it, or recompute them."

    def add_arguments(self, parser):
        actions = parser.add_subparsers(dest="action", required=True, metavar="ACTION")
        actions.add_parser("list", help="the trends and the hidden tags")
        actions.add_parser("recompute", help="recompute the trends now")
        for name, help_text in (
            ("hide", "leave a tag out of the trends"),
            ("unhide", "let a hidden tag trend again"),
        ):
            act = actions.add_parser(name, help=help_text)
            act.add_argument("tag")
            act.add_argument("--reason", default="", help="why, for the moderation log")

    def handle(self, *args, action, **options):
        r = get_redis()
        if action == "list":
            return self.show(r)
        if action == "recompute":
            found = trends.recompute(r)
            self.stdout.write(f"Recomputed: {len(found)} trend(s).")
            return
        act = acts.hide_tag if action == "hide" else acts.unhide_tag
        try:
            outcome = act(acts.command_line_actor(), options["tag"], options["reason"])
        except Refused as refusal:
            raise CommandError(refusal.message) from None
        tag, done = outcome.tag, outcome.result is acts.Result.DONE
        if action == "hide":
            self.stdout.write(f"#{tag} is hidden from trends." if done else f"#{tag} was hidden.")
        else:
            self.stdout.write(
                f"#{tag} may trend again (from the next recompute)."
                if done
                else f"#{tag} was not hidden."
            )

    def show(self, r):
        listed = trends.trending(r, count=TRENDS_KEPT)
        if not listed:
            self.stdout.write("No trends.")
        for trend in listed:
            self.stdout.write(f"#{trend.tag}  score {trend.score:.1f}  {trend.uses} people today")
        for tag in trends.hidden_tags(r):
            self.stdout.write(f"hidden: #{tag}")

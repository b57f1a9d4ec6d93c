"""``manage.py bench_group_pages``: a group's page and the home page of a reader in 5
groups (one pulled), against /healthz, through gunicorn (the floor: at least 30% of
/healthz by gunicorn CPU per request, each).

bench_web's run (benchmarks/web.py: its gunicorn, login, load generator and verdict on
gunicorn CPU per request), whose seeding is followed here by GROUPS groups that the
reader and bench_web's 30 authors belong to, each author posting one status to each
through the posting action (as bench_groups does); the last group is pulled (its
threshold lowered below its size), so the home page merges it when read. The home page
then shows 30 of the groups' statuses; the group page measured is a public group's.
"""

from django.test import override_settings

from socialsite import connection
from socialsite.repository import communities, users
from socialsite.repository.limits import FANOUT_PULL_FOLLOWERS

from .groups import HOME_GROUPS, post_in
from .web import HOME_AUTHORS, HOME_FLOOR, WebBenchmark

GROUP_PAGE = "/g/group1/"


class GroupPagesBenchmark(WebBenchmark):
    """One run of ``manage.py bench_group_pages`` with bench_web's options."""

    PAGES = [
        ("/healthz", "/healthz"),
        ("/", f"/ ({HOME_GROUPS} groups)"),
        (GROUP_PAGE, f"{GROUP_PAGE} (30)"),
    ]
    FLOORS = [("group page", HOME_FLOOR)]

    def seed(self, r, followers, pulled=0):
        seeded = super().seed(r, followers, pulled)
        connection.use_redis(r)  # the posting action's connection: the benchmark's server
        prefix = seeded["reader"].removesuffix("reader")
        reader = users.get_user_id(r, seeded["reader"])
        authors = [users.get_user_id(r, f"{prefix}author{i}") for i in range(HOME_AUTHORS)]
        slugs = [f"group{g}" for g in range(HOME_GROUPS)]
        for g, slug in enumerate(slugs):
            cid = communities.create(r, authors[0], slug, f"Group {g}", "", "public")
            for uid in [reader, *authors[1:]]:
                communities.join(r, cid, uid)
        for n, uid in enumerate(authors):
            for g, slug in enumerate(slugs):
                # The last group is pulled (a threshold below its size), the rest pushed.
                pull = 2 if g == HOME_GROUPS - 1 else FANOUT_PULL_FOLLOWERS
                with override_settings(FANOUT_PULL_FOLLOWERS=pull):
                    post_in(uid, f"{prefix}author{n}", slug, f"status {n} in {slug}")
        self.stdout.write(
            f"Then {HOME_GROUPS} groups of the reader and the authors, the last pulled, each"
            f" author posting one status to each: the home page and {GROUP_PAGE} show 30."
        )
        return seeded

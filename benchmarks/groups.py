"""``manage.py bench_groups``: what groups ("communities" in code) cost.

On one throwaway Redis, in one run:
- posting to a group of --members members (100,000 by default: at FANOUT_PULL_FOLLOWERS,
  so the group is pulled: delivered to nobody, its newest statuses copied into every
  shard, merged into its members' home pages when read), through the one
  posting action (actions.statuses.post with ``group``): the request's wall time and the
  Redis time it costs (INFO commandstats, microseconds summed over every command), best
  and median of --repeat, against the issue's bound of 10 ms of Redis time;
- the CPU time in this process (Django's WSGI handler, as bench_web --in-process) of a
  group's page showing 30 statuses, of a private group's page to a member, and of the
  home page of a reader who belongs to 5 groups (four delivered to the home, the fifth
  pulled: merged into the page when read),
  each against /healthz and a tag page of 30 statuses (the page a group's is built as),
  rounds alternating, the fastest round of each kept. The floor of 30% of /healthz's
  rate (docs/benchmarks.md) is of gunicorn's CPU per request, which bench_web measures
  (its HTTP work makes /healthz dearer): in this process, compare with the tag page and
  the home page instead.
The machine is shared: compare the figures of one run with each other (ratios).
"""

import statistics
import tempfile
import time

from django.contrib.auth.hashers import make_password
from django.core.management.base import CommandError
from django.test import override_settings

from benchmarks.pull import redis_usec
from benchmarks.web import STATUS_ARTICLE, in_process_getter, logged_in_cookies
from socialsite import connection
from socialsite.actions import Actor
from socialsite.actions import statuses as statuses_actions
from socialsite.repository import client, communities, keys, users
from socialsite.repository.limits import FANOUT_PULL_FOLLOWERS

REDIS_MS_BOUND = 10.0
PAGE_STATUSES = 30
HOME_GROUPS = 5


def post_in(uid, login, slug, text):
    """A status posted to group ``slug`` through the posting action, as the pages do."""
    actor = Actor(uid=uid, login=login)
    return statuses_actions.post(actor, statuses_actions.NewStatus(text=text), group=slug)


def add_members(r, cid, count, first_uid=10_000_000):
    """``count`` members written straight into the group's and their own keys (what
    communities.join writes, without a script call each)."""
    now = int(time.time() * 1000)
    for start in range(0, count, 20_000):
        chunk = range(first_uid + start, first_uid + min(start + 20_000, count))
        pipe = r.pipeline(transaction=False)
        pipe.zadd(keys.community_members(cid), {str(uid): now + uid for uid in chunk})
        for uid in chunk:
            pipe.zadd(keys.memberships(uid), {cid: now + uid})
        pipe.execute()


class GroupsBenchmark:
    def __init__(self, stdout, stderr):
        self.stdout, self.stderr = stdout, stderr

    def run(self, options):
        with tempfile.TemporaryDirectory() as tmp:
            from socialsite_dev.redis_servers import RedisServer

            server = RedisServer(tmp).start()
            try:
                r = client.connect(server.url)
                connection.use_redis(r)
                self.stdout.write(f"Redis {r.info('server')['redis_version']} at {server.url}")
                pull = options.get("pull_members") or FANOUT_PULL_FOLLOWERS
                with override_settings(FANOUT_PULL_FOLLOWERS=pull):
                    self.posting(r, options["members"], options["repeat"], pull)
                r.flushall()
                self.pages(r, options["repeat"], options.get("requests", 100))
            finally:
                server.stop()

    # --- posting to a pulled group -------------------------------------------------------

    def posting(self, r, members, repeat, pull):
        if members < pull:
            raise CommandError(f"--members must be at least {pull:,} (a pulled group)")
        unusable = make_password(None)
        owner = users.create_user(r, "owner", "Owner", unusable)
        cid = communities.create(r, owner, "crowd", "The Crowd", "", "public")
        started = time.perf_counter()
        add_members(r, cid, members - 1)
        self.stdout.write(f"\n{members:,} members written in {time.perf_counter() - started:.1f} s")
        runs = []
        for n in range(repeat):
            before = redis_usec(r)
            started = time.perf_counter()
            sid = post_in(owner, "owner", "crowd", f"to the crowd {n}")
            wall = (time.perf_counter() - started) * 1000
            used = (redis_usec(r) - before) / 1000
            if int(r.zscore(keys.community_timeline(cid), sid) or 0) != sid:
                raise CommandError("the status is not on the group's timeline")
            if r.xlen(keys.JOBS):
                raise CommandError("a pulled group's status queued deliveries")
            if r.zscore(keys.pulled_copy(owner, -cid), str(sid)) is None:
                raise CommandError("a pulled group's status is not copied for its members")
            runs.append((wall, used))
        walls, used = [w for w, _ in runs], [u for _, u in runs]
        verdict = "within" if min(used) <= REDIS_MS_BOUND else "OVER"
        self.stdout.write(
            f"Posting to a group of {members:,} members (pulled), best and median of {repeat}:"
            f"\n  wall ms   {min(walls):>7.2f} {statistics.median(walls):>8.2f}"
            f"\n  Redis ms  {min(used):>7.2f} {statistics.median(used):>8.2f}"
            f"   ({verdict} the bound of {REDIS_MS_BOUND:.0f} ms)"
        )

    # --- pages -----------------------------------------------------------------------------

    def pages(self, r, repeat, requests_per_round):
        unusable = make_password(None)
        authors = [
            users.create_user(r, f"author{i}", f"Author {i}", unusable)
            for i in range(PAGE_STATUSES)
        ]
        reader = users.create_user(r, "reader", "Reader", unusable)
        slugs = [f"group{g}" for g in range(HOME_GROUPS)]
        for g, slug in enumerate(slugs):
            kind = "private" if g == 0 else "public"
            cid = communities.create(r, authors[0], slug, f"Group {g}", "", kind)
            for uid in [reader, *authors[1:]]:
                communities.invite(r, cid, uid)
                communities.join(r, cid, uid)
        for n, uid in enumerate(authors):
            for g, slug in enumerate(slugs):
                # The last group is pulled (a threshold below its size), the rest pushed.
                pull = 2 if g == HOME_GROUPS - 1 else FANOUT_PULL_FOLLOWERS
                with override_settings(FANOUT_PULL_FOLLOWERS=pull):
                    post_in(uid, f"author{n}", slug, f"status {n} in {slug} #bench{slug}")
        pulled = communities.community_id(r, slugs[-1])
        if not r.hget(keys.community(pulled), keys.COMMUNITY_PULLED_FIELD):
            raise CommandError(f"{slugs[-1]} is not pulled")
        get = in_process_getter()
        cookie = logged_in_cookies(reader)
        runs = {
            "/healthz": "/healthz",
            "tag page": f"/tags/bench{slugs[1]}/",
            "public group page": f"/g/{slugs[1]}/",
            "private group page": f"/g/{slugs[0]}/",
            f"home ({HOME_GROUPS} groups, 1 pulled)": "/",
        }
        for label, path in runs.items():
            if path != "/healthz" and get(path, cookie).decode().count(STATUS_ARTICLE) != 30:
                raise CommandError(f"{label} does not show {PAGE_STATUSES} statuses")
        best = dict.fromkeys(runs, float("inf"))
        for _ in range(max(5, repeat)):
            for label, path in runs.items():
                get(path, cookie)
                started = time.process_time()
                for _ in range(requests_per_round):
                    get(path, cookie)
                used = (time.process_time() - started) / requests_per_round * 1000
                best[label] = min(best[label], used)
        self.stdout.write(f"\nCPU ms per request in this process (best round of {max(5, repeat)}):")
        for label, ms in best.items():
            self.stdout.write(
                f"  {label:<26} {ms:>6.3f} ms   {best['/healthz'] / ms:>6.1%} of /healthz's rate"
            )

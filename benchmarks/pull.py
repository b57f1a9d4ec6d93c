"""``manage.py bench_pull``: what pulled accounts (decision 0054) cost and save.

On one throwaway Redis, in one run:
- posting from an account with --followers followers (1,000,000 by default), pulled
  (FANOUT_PULL_FOLLOWERS at its default, 100,000) and, alternating, pushed (the same
  account with the path off: the request's 1,000 inline deliveries and the plan job it
  queues, not the workers' part): the request's wall time and the Redis time it costs
  (INFO commandstats, microseconds summed over every command), and whether one of the
  followers' home pages shows the status right after the request returns;
- the bytes the scale model (docs/scale.md) starts from that bench_memory does not give:
  per follow (both sides, graph.follow), per logged-in session (as the login view
  saves one), per user hash, and per pulled account's copies in every shard;
- the CPU time of a home page in this process (Django's WSGI handler, as bench_web
  --in-process) for readers who follow 30 pushed authors and 0, 5 or 50 pulled
  accounts (the threshold lowered to 3 so that the data stays small), against /healthz,
  rounds alternating, the fastest round of each kept.
The machine is shared: compare the figures of one run with each other (ratios).
"""

import random
import statistics
import tempfile
import time

from django.contrib.auth.hashers import make_password
from django.core.management.base import CommandError

from benchmarks.web import HOST, STATUS_ARTICLE, in_process_getter, logged_in_cookies
from socialsite import connection
from socialsite.repository import client, graph, keys, statuses, timelines, users
from socialsite.repository.limits import FANOUT_PULL_FOLLOWERS, PULLED_COPY_SIZE
from socialsite_dev.redis_servers import RedisServer

PUSHED_AUTHORS = 30
PULLED_STATUSES = 10
SMALL_THRESHOLD = 3


def redis_usec(r):
    """Microseconds Redis has spent in commands so far (INFO commandstats)."""
    return sum(stats["usec"] for stats in r.info("commandstats").values())


class PullBenchmark:
    def __init__(self, stdout, stderr):
        self.stdout, self.stderr = stdout, stderr

    def run(self, options):
        with tempfile.TemporaryDirectory() as tmp:
            server = RedisServer(tmp).start()
            try:
                r = client.connect(server.url)
                connection.use_redis(r)  # the sessions, saved as the login view saves them
                self.stdout.write(f"Redis {r.info('server')['redis_version']} at {server.url}")
                self.posting(r, options["followers"], options["repeat"])
                r.flushall()
                self.sizes(r)
                r.flushall()
                self.pages(r, options["repeat"])
            finally:
                server.stop()

    # --- posting -------------------------------------------------------------------------

    def posting(self, r, followers, repeat):
        if followers < FANOUT_PULL_FOLLOWERS:
            raise CommandError(f"--followers must be at least {FANOUT_PULL_FOLLOWERS:,}")
        author = users.create_user(r, "star", "Star", make_password(None))
        reader = users.create_user(r, "reader", "Reader", make_password(None))
        graph.follow(r, reader, author)
        started = time.perf_counter()
        now = int(time.time() * 1000)
        for start in range(0, followers - 1, 50_000):
            chunk = range(10_000_000 + start, 10_000_000 + min(start + 50_000, followers - 1))
            r.zadd(keys.followers(author), {str(uid): now + uid for uid in chunk})
        self.stdout.write(
            f"\n{followers:,} followers written in {time.perf_counter() - started:.1f} s"
        )
        # The first post over the threshold registers the account; then it is pulled.
        statuses.post_status(r, author, "registering")
        times = {"pulled": [], "pushed": []}
        for _ in range(repeat):
            for path, threshold in (("pulled", FANOUT_PULL_FOLLOWERS), ("pushed", 0)):
                before = redis_usec(r)
                started = time.perf_counter()
                sid = statuses.post_status(r, author, f"{path} status", pull_followers=threshold)
                wall = time.perf_counter() - started
                used = redis_usec(r) - before
                shown = timelines.home_page(r, reader, count=1).items[0]["id"] == sid
                if not shown:
                    raise CommandError(f"the {path} status is not on the follower's page")
                times[path].append((wall * 1000, used / 1000))
                # Back to pulled for the next round: the pushed post left it "ready".
                r.hset(keys.user(author), keys.FANOUT_PATH_FIELD, "pulled")
                r.delete(keys.JOBS)
        self.stdout.write(
            f"Posting from an account with {followers:,} followers, the request only"
            f" (best and median of {repeat}); the status was on a follower's page at once:"
        )
        self.stdout.write(f"  {'path':<8} {'wall ms':>16} {'Redis ms':>16}")
        for path, runs in times.items():
            walls, redis_ms = [w for w, _ in runs], [u for _, u in runs]
            self.stdout.write(
                f"  {path:<8} {min(walls):>7.2f} {statistics.median(walls):>8.2f}"
                f" {min(redis_ms):>7.2f} {statistics.median(redis_ms):>8.2f}"
            )
        self.stdout.write(
            "  (pushed: plus the workers' deliveries to the other followers, which a pulled"
            " status never costs)"
        )

    # --- bytes -------------------------------------------------------------------------

    def sizes(self, r, people=2000, follows_each=20):
        """Bytes per user hash, follow, session and pulled account (used_memory deltas)."""

        def used():
            return r.info("memory")["used_memory"]

        unusable = make_password(None)
        start = used()
        uids = [users.create_user(r, f"m{i}", f"Member {i}", unusable) for i in range(people)]
        per_user = (used() - start) / people
        rng = random.Random(5)
        start = used()
        for uid in uids:
            for other in rng.sample(uids, follows_each + 1):
                if other != uid:
                    graph.follow(r, uid, other)
        follows = sum(r.zcard(keys.following(uid)) for uid in uids)
        per_follow = (used() - start) / follows
        start = used()
        for uid in uids:
            cookies = logged_in_cookies(uid)
        per_session = (used() - start) / people
        stars = uids[:20]
        for star in stars:
            r.hset(keys.user(star), keys.FANOUT_PATH_FIELD, "pulled")
        start = used()
        for star in stars:
            for n in range(PULLED_COPY_SIZE):
                statuses.post_status(r, star, f"pulled status {n:03}", pull_followers=1)
        posted = used() - start
        copies = sum(r.memory_usage(key) for star in stars for key in keys.all_pulled_copies(star))
        self.stdout.write(
            f"\nBytes (used_memory deltas; {people:,} users, {follows:,} follows):"
            f"\n  per user (hash, login and search entries): {per_user:,.0f}"
            f"\n  per follow (both sides, counts):           {per_follow:,.1f}"
            f"\n  per logged-in session:                     {per_session:,.0f}"
            f"\n  per pulled account, its {PULLED_COPY_SIZE} newest copied into"
            f" {keys.USER_SHARDS} shards: {copies / len(stars):,.0f} (MEMORY USAGE)"
            f"\n  per pulled post in all (hash, profile, lists, copies):"
            f" {posted / len(stars) / PULLED_COPY_SIZE:,.0f}"
        )
        del cookies

    # --- pages ---------------------------------------------------------------------------

    def pages(self, r, repeat, requests_per_round=100):
        connection.use_redis(r)
        unusable = make_password(None)
        pushed = [
            users.create_user(r, f"author{i}", f"Author {i}", unusable)
            for i in range(PUSHED_AUTHORS)
        ]
        pulled = [users.create_user(r, f"puller{i}", f"P {i}", unusable) for i in range(50)]
        fans = [users.create_user(r, f"fan{i}", f"Fan {i}", unusable) for i in range(2)]
        readers = {}
        for follows in (0, 5, 50):
            reader = users.create_user(r, f"reader{follows}", "R", unusable)
            for author in pushed:
                graph.follow(r, reader, author)
            for author in pulled[:follows]:
                graph.follow(r, reader, author)
            readers[follows] = reader
        for author in pulled:
            for fan in fans:
                graph.follow(r, fan, author)
        for author in pushed:
            statuses.post_status(r, author, f"pushed status of {author}")
        for n in range(PULLED_STATUSES + 1):
            for author in pulled:
                statuses.post_status(
                    r, author, f"pulled status {n}", pull_followers=SMALL_THRESHOLD
                )
        if r.hget(keys.user(pulled[0]), keys.FANOUT_PATH_FIELD) != "pulled":
            raise CommandError("the accounts were not pulled")
        get = in_process_getter()
        cookies = {follows: logged_in_cookies(uid) for follows, uid in readers.items()}
        for follows, cookie in cookies.items():
            if get("/", cookie).decode().count(STATUS_ARTICLE) != 30:
                raise CommandError(f"the home page with {follows} pulled does not show 30")
        runs = {"/healthz": ("/healthz", cookies[0])}
        for follows, cookie in cookies.items():
            runs[f"/ ({follows} pulled)"] = ("/", cookie)
        best = dict.fromkeys(runs, float("inf"))
        for _ in range(max(5, repeat)):
            for label, (path, cookie) in runs.items():
                get(path, cookie)
                started = time.process_time()
                for _ in range(requests_per_round):
                    get(path, cookie)
                used = (time.process_time() - started) / requests_per_round * 1000
                best[label] = min(best[label], used)
        self.stdout.write(
            f"\nCPU ms per request in this process ({HOST}, best round of"
            f" {max(5, repeat)}); home pages follow {PUSHED_AUTHORS} pushed authors too:"
        )
        for label, ms in best.items():
            self.stdout.write(
                f"  {label:<18} {ms:>6.3f} ms   {best['/healthz'] / ms:>6.1%} of /healthz's rate"
            )

"""``manage.py bench_fanout``: fan-out rate, ours against the book's and the raw ceiling.

For each follower count, on one throwaway Redis (or --redis-url), in one run:
- ours: statuses.post_status (1000 followers inline, as in a request) plus N
  ``manage.py fanout`` worker processes for the rest; timed from the post until no
  job is left and the last follower's home timeline holds the status;
- the book: listings 8.6/8.7 (book.py), its deferred passes run by one worker as
  chapter 6's queue does; timed the same way;
- with --repost, ours for a repost: reposts.repost by the same author of a status by
  someone else, to the same followers with the same workers, timed the same way: a
  repost's fan-out next to a post's (deliver_repost.lua decides the dedupe per home);
- raw ceiling: pipelined ZADDs of the status into every follower's timeline from one
  client, 1000 a pipeline, with nothing else (no follower reads, no trimming).
Home timelines start empty; followers are written in bulk beforehand. With
--listed-fraction F, that share of the followers (spread evenly) has the author in a
named list of theirs (keys written as list_member.lua writes them), so that their lists
get the status in the same step as their homes (lists.py); ours is checked for it.
"""

import cProfile
import os
import pstats
import signal
import subprocess
import sys
import tempfile
import time

from django.conf import settings
from django.core.management.base import CommandError

from benchmarks import book, memory
from socialsite.repository import (
    bulk,
    client,
    jobs,
    keys,
    reposts,
    scripts,
    statuses,
    timelines,
    worker,
)
from socialsite.repository.limits import INLINE_FANOUT_LIMIT
from socialsite_dev.redis_servers import RedisServer

# Statuses delivered to each full timeline to measure the ceiling: bench_memory's
# --rounds default (two trims of every timeline at HOME_TIMELINE_SLACK 200).
CEILING_ROUNDS = 400

# The commands deliver.lua and complete_job.lua run (INFO commandstats counts them
# inside their EVALSHA too, from Redis 6.2 on): the breakdown's "in scripts".
SCRIPT_COMMANDS = {
    "exists", "scard", "sismember", "sadd", "sort", "srem", "zscore", "hget",
    "xadd", "xack", "xdel", "hdel", "incr",
}  # fmt: skip

# Where a worker's CPU goes, by the functions the breakdown reads the cumulative CPU of
# (cProfile on process time), in the order printed: (label, [(file, function, called
# from file or None), ...]). The rest is "other".
WORKER_PARTS = [
    ("reading and decoding jobs (XREADGROUP, JSON)", [("jobs.py", "read", None)]),
    ("completing jobs (complete_job.lua)",
     [("jobs.py", "complete", "worker.py"), ("jobs.py", "complete_all", "worker.py")]),
    ("author and status reads (HMGET)", [("core.py", "hmget", None)]),
    ("reading followers (ZRANGEBYSCORE, ids parsed)",
     [("fanout.py", "followers_in_ranges", None)]),
    ("grouping followers by shard", [("keys.py", "same_shard_groups", "fanout.py")]),
    ("deliver.lua calls built (keys, arguments)", [("scripts.py", "queue", "fanout.py")]),
    # run_pipeline less the calls built inside it (below)
    ("deliver.lua calls sent, replies parsed", [("scripts.py", "run_pipeline", "fanout.py")]),
]  # fmt: skip


class FanoutBenchmark:
    """One run of ``manage.py bench_fanout`` with its options (a dict)."""

    listed_fraction = 0.0  # --listed-fraction
    listing = []  # the followers of the present setup who list the author

    def __init__(self, stdout, stderr):
        # The command's output wrappers: each write() is a line.
        self.stdout = stdout
        self.stderr = stderr

    def run(self, options):
        sizes = [int(n) for n in options["followers"].split(",")]
        worker_counts = [int(n) for n in options["workers"].split(",")]
        steps = [int(n) for n in options["jobs_per_step"].split(",")]
        with tempfile.TemporaryDirectory() as tmp:
            server = None
            url = options["redis_url"]
            if not url:
                server = RedisServer(tmp).start()
                url = server.url
            try:
                r = client.connect(url, timeout=60)  # big pipelines on a busy server
                self.stdout.write(f"Redis {r.info('server')['redis_version']} at {url}")
                self.stdout.write(
                    f"{'followers':>10} {'who':<22} {'seconds':>8} {'deliveries/s':>13}"
                )
                self.listed_fraction = options.get("listed_fraction") or 0.0
                self.ceiling_timelines = options.get("ceiling_timelines", 1000)
                if options.get("breakdown"):
                    for size in sizes:
                        self.breakdown(r, size)
                    return
                for size in sizes:
                    self.run_size(
                        r,
                        url,
                        tmp,
                        size,
                        worker_counts,
                        steps,
                        options["skip_book"],
                        options["repeat"],
                        options.get("repost", False),
                    )
            finally:
                if server:
                    server.stop()

    def row(self, size, who, seconds):
        self.stdout.write(f"{size:>10,} {who:<22} {seconds:>8.2f} {size / seconds:>13,.0f}")
        return size / seconds

    def run_size(self, r, url, tmp, size, worker_counts, steps, skip_book, repeat, repost=False):
        """Measure each configuration ``repeat`` times, alternating; keep each one's best."""
        rates, ceiling = {}, None

        def keep(who, seconds):
            rates[who] = max(rates.get(who, 0.0), self.row(size, who, seconds))

        for _ in range(repeat):
            for step in steps:
                for count in worker_counts:
                    author, followers = self.setup(r, size)
                    who = (
                        f"ours ({count} workers)"
                        if len(steps) == 1
                        else f"ours ({count}w, {step}/step)"
                    )
                    if self.listed_fraction:
                        who = f"{who[:-1]}, {self.listed_fraction:.0%} listed)"
                    keep(who, self.time_ours(r, url, tmp, author, followers, count, step))
                    if repost:
                        author, followers = self.setup(r, size)
                        seconds = self.time_ours(
                            r, url, tmp, author, followers, count, step, repost=True
                        )
                        keep(f"repost ({count} workers)", seconds)
            if not skip_book:
                author, followers = self.setup(r, size)
                keep("book (1 worker)", self.time_book(r, author, followers))
            author, followers = self.setup(r, size)
            keep("raw ZADD ceiling", self.time_raw(r, followers))
            if self.ceiling_timelines:  # the best of the rounds' rates, as for the rest
                ceiling = max(ceiling or 0.0, 1e6 / self.ceiling_usec(r))
        rates["book"] = rates.pop("book (1 worker)", None)
        rates["raw"] = rates.pop("raw ZADD ceiling")
        if repeat > 1:
            self.stdout.write(f"{'':>10} (best of {repeat} for each below)")
        ours = {who: rate for who, rate in rates.items() if who.startswith("ours")}
        for who in [who for who in rates if who.startswith("repost")]:
            post = rates.get(f"ours{who[6:]}")
            if post:
                self.stdout.write(f"{'':>10} {who} / post: {rates[who] / post:.2f}x")
        if rates["book"]:
            # Every configuration's ratio, not only the best: the README quotes the one
            # it recommends.
            ratios = ", ".join(
                f"{who[6:-1]} {rate / rates['book']:.1f}x" for who, rate in ours.items()
            )
            self.stdout.write(f"{'':>10} ours / book: {ratios}")
        self.stdout.write(f"{'':>10} best ours / raw = {max(ours.values()) / rates['raw']:.2f}x")
        if ceiling:
            shares = ", ".join(f"{who[6:-1]} {rate / ceiling:.0%}" for who, rate in ours.items())
            self.stdout.write(
                f"{'':>10} ours / server-time ceiling ({1e6 / ceiling:.2f} us, "
                f"{ceiling:,.0f} deliveries/s): {shares}"
            )

    def ceiling_usec(self, r):
        """The server-time ceiling, as bench_memory measures it (memory.ceiling_usec):
        Redis's time per delivery into a full home timeline, --ceiling-timelines of
        them, 400 statuses each; its row shows the rate it makes (1 / that time)."""
        usec = memory.ceiling_usec(r, self.ceiling_timelines, CEILING_ROUNDS)
        self.stdout.write(
            f"{'':>10} {'server-time ceiling':<22} {usec:>6.2f}us {1e6 / usec:>13,.0f}"
        )
        return usec

    def breakdown(self, r, size):
        """Where a delivery's time goes, for a post to ``size`` followers: the deferred
        part run by one worker in this process (worker.work_until_idle, as
        ``manage.py fanout`` runs it), with Redis's time by command (INFO commandstats),
        the round trips it made (client.round_trips) and its own CPU by part (cProfile
        on process time), per delivery; then the server-time ceiling, for comparison."""
        deliveries = size - min(size, INLINE_FANOUT_LIMIT)  # the workers' part
        wall, cpu, trips, stats = self.run_one_worker(r, size)
        # Again under cProfile, for where the CPU goes (builtins left to their callers,
        # so that the profile costs less); its figures are scaled to the run above.
        profile = cProfile.Profile(time.process_time, builtins=False)
        profiled_cpu = self.run_one_worker(r, size, profile)[1]
        per = 1e6 / deliveries  # us per delivery, from seconds
        out = self.stdout.write
        out(f"\nBreakdown: {size:,} followers, {deliveries:,} delivered by one worker in "
            f"this process in {wall:.2f} s")  # fmt: skip
        out("Redis time per delivery by command (INFO commandstats):")
        out(f"  {'command':<24} {'calls/1000':>10} {'us/delivery':>12}")
        inside = 0.0
        for name, stat in sorted(stats.items(), key=lambda item: -item[1]["usec"]):
            calls, usec = stat["calls"] * 1000 / deliveries, stat["usec"] / deliveries
            if name in SCRIPT_COMMANDS:
                inside += usec
                name = f"  {name} (in scripts)"
            out(f"  {name:<24} {calls:>10.1f} {usec:>12.3f}")
        # EXEC's time holds the commands of its MULTI, counted on their own lines too.
        outside = SCRIPT_COMMANDS | {"exec"}
        total = sum(stat["usec"] for name, stat in stats.items() if name not in outside)
        evalsha = stats.get("evalsha", {}).get("usec", 0) / deliveries
        out(f"  scripts' own (Lua, calls): {evalsha - inside:.3f} us; Redis in all: "
            f"{total / deliveries:.3f} us per delivery")  # fmt: skip
        out(f"Round trips: {trips * 1000 / deliveries:.1f} per 1,000 deliveries")
        out(f"Worker CPU: {cpu * per:.3f} us per delivery; by part (cumulative, from a "
            f"second run under cProfile, scaled to that figure):")  # fmt: skip
        found = pstats.Stats(profile).stats

        def cumulative(filename, function, caller):
            return sum(
                sum(
                    ct
                    for (file, _, _), (_, _, _, ct) in callers.items()
                    if caller is None or file.endswith(caller)
                )
                for (file, _, name), (_, _, _, _, callers) in found.items()
                if name == function and file.endswith(filename)
            )

        parts, built = 0.0, 0.0
        for label, functions in WORKER_PARTS:
            spent = sum(cumulative(*function) for function in functions)
            spent *= cpu / profiled_cpu
            if label.startswith("deliver.lua calls built"):
                built = spent
            elif label.startswith("deliver.lua calls sent"):
                spent -= built
            parts += spent
            out(f"  {label:<48} {spent * per:7.3f} us")
        out(f"  {'other (Python around them)':<48} {(cpu - parts) * per:7.3f} us")
        if self.ceiling_timelines:
            self.ceiling_usec(r)

    def run_one_worker(self, r, size, profile=None):
        """A post to ``size`` followers, its deferred part run by one worker in this
        process (worker.work_until_idle), under ``profile`` if given. Returns the
        worker's wall time, CPU time and round trips, and INFO commandstats by command
        ({"sadd": {"calls", "usec", ...}}) for that part."""
        author, followers = self.setup(r, size)
        scripts.load_all(r)
        jobs.ensure_group(r)
        sid = statuses.post_status(r, author, "hello, everyone", pull_followers=0)
        r.config_resetstat()
        trips, cpu, wall = client.round_trips(), time.process_time(), time.perf_counter()
        if profile:
            profile.enable()
        worker.work_until_idle(r, "breakdown")
        if profile:
            profile.disable()
        wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
        trips = client.round_trips() - trips
        stats = r.info("commandstats")
        self.verify(r, sid, followers, lambda f: timelines.in_home(r, f, sid))
        return wall, cpu, trips, {name.removeprefix("cmdstat_"): s for name, s in stats.items()}

    def setup(self, r, size):
        """An author followed by ``size`` followers, in both layouts; empty timelines."""
        client.flush_all(r)
        memory.freed(r)
        (author,) = bulk.create_users(r, [("author", "Author")], "unused")
        followers = list(range(author + 1, author + 1 + size))
        base = int(time.time() * 1000) - size
        for start in range(0, size, 100_000):
            chunk = followers[start : start + 100_000]
            bulk.add_follows(r, [(f, author, base + f) for f in chunk])
            r.zadd(book.key("followers", author), {str(f): base + f for f in chunk})
        r.hset(book.key("user", author), mapping={"login": "author", "posts": 0})
        self.listing = self.add_to_lists(r, author, followers)
        return author, followers

    def add_to_lists(self, r, author, followers):
        """The followers (a --listed-fraction of them, evenly spread) who get a list 1
        holding the author, written as create_list.lua and list_member.lua write it."""
        if not self.listed_fraction:
            return []
        every = max(1, round(1 / self.listed_fraction))
        listing = followers[::every]
        for start in range(0, len(listing), 1000):
            pipe = r.pipeline(transaction=False)
            for follower in listing[start : start + 1000]:
                pipe.hset(keys.lists(follower), 1, "Author")
                pipe.set(keys.list_ids(follower), 1)
                pipe.zadd(keys.list_members(follower, 1), {author: 1})
                pipe.hset(keys.listed(follower), author, "1")
                pipe.sadd(keys.listing(follower, author), follower)
            pipe.execute()
        return listing

    def start_workers(self, url, tmp, count, jobs_per_step):
        env = {**os.environ, "REDIS_URL": url, "REDIS_CLUSTER": "false", "DATA_DIR": tmp}
        manage = str(settings.BASE_DIR / "manage.py")
        workers = [
            subprocess.Popen(
                [
                    sys.executable,
                    manage,
                    "fanout",
                    "--name",
                    f"bench{i}",
                    "--jobs-per-step",
                    str(jobs_per_step),
                ],  # fmt: skip
                env=env,
                stdout=subprocess.PIPE,
                text=True,
            )
            for i in range(count)
        ]
        # Each says "started" once it reads from the group, so start-up is not timed.
        # (Redis lists a consumer only after handing it a job: XINFO cannot tell.)
        for process in workers:
            process.stdout.readline()
        return workers

    def time_ours(self, r, url, tmp, author, followers, count, jobs_per_step, repost=False):
        jobs.ensure_group(r)
        if repost:
            # A status by someone the followers do not follow, to be reposted (an id
            # past the followers', which are ids no user hash was written for).
            r.set(keys.USER_IDS, followers[-1])
            (other,) = bulk.create_users(r, [("original", "Original")], "unused")
            original = statuses.post_status(r, other, "worth passing on")
        workers = self.start_workers(url, tmp, count, jobs_per_step)
        try:
            started = time.perf_counter()
            if repost:
                reposts.repost(r, author, original)
                sid = int(r.zscore(keys.reposted(author), original))
            else:
                # Pushed, whatever the followers (a pulled post is bench_pull's).
                sid = statuses.post_status(r, author, "hello, everyone", pull_followers=0)
            # One XLEN a millisecond: the end is seen within about 1 ms, at little cost
            # to the 2 cores the workers and Redis share.
            while jobs.backlog(r):
                time.sleep(0.001)
            elapsed = time.perf_counter() - started
        finally:
            for process in workers:
                process.send_signal(signal.SIGTERM)
            for process in workers:
                process.wait()
        self.verify(r, sid, followers, lambda f: timelines.in_home(r, f, sid))
        if self.listing:
            self.verify(r, sid, self.listing, lambda f: r.sismember(keys.list_timeline(f, 1), sid))
        return elapsed

    def time_book(self, r, author, followers):
        started = time.perf_counter()
        sid = book.post_status(r, author, "hello, everyone")
        book.work_until_idle(r)
        elapsed = time.perf_counter() - started
        self.verify(r, sid, followers, lambda f: r.zscore(book.key("home", f), sid) is not None)
        return elapsed

    def time_raw(self, r, followers):
        started = time.perf_counter()
        for start in range(0, len(followers), 1000):
            pipe = r.pipeline(transaction=False)
            for follower in followers[start : start + 1000]:
                pipe.zadd(book.key("home", follower), {"1": 1})
            pipe.execute()
        return time.perf_counter() - started

    def verify(self, r, sid, followers, holds):
        """The first, last and a spread of followers hold the status, or we say so."""
        sample = [followers[0], followers[-1], *followers[:: max(1, len(followers) // 200)]]
        missing = [f for f in sample if not holds(f)]
        if missing:
            # A rate for a fan-out that lost deliveries would be a lie: stop here.
            raise CommandError(f"status {sid} missing for followers {missing[:5]}")

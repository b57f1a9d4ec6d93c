"""``manage.py bench_trends``: the time and memory of one trends recomputation
(repository/trends.py) with ``--tags`` tags in use today, on a Redis of its own.

Seeding, as posting counts (PFADD of user ids into each tag's HyperLogLog of the day, the
day's SET of tags), with a realistic spread: the distinct users of the tag of rank k
today are about ``--head`` / k^0.9 (a few tags used by thousands, most by one or two, as
hashtag use is), yesterday's the same times a random factor between 0.5 and 1.5, and
one tag in 20 rising (yesterday a tenth of that). Users are drawn from ``--users`` ids.

Measured: the recompute's wall time (``--repeat`` runs: the first with no peaks stored,
the others with the peaks the first stored), Redis's own time in it (INFO commandstats),
used_memory before and after seeding and around the first recompute, and MEMORY USAGE
of the keys it reads and writes.
"""

import random
import statistics
import tempfile
import time

from socialsite import embedded_redis
from socialsite.repository import client, keys, trends
from socialsite_dev.redis_servers import RedisServer

DAY = 24 * 3600


class TrendsBenchmark:
    """One run of ``manage.py bench_trends`` with its options (a dict)."""

    def __init__(self, stdout, stderr):
        self.stdout = stdout
        self.stderr = stderr

    def run(self, options):
        with tempfile.TemporaryDirectory() as tmp:
            server = RedisServer(tmp).start()
            try:
                r = client.connect(server.url)
                info = r.info("server")
                self.stdout.write(
                    f"Redis {info['redis_version']}, settings {embedded_redis.SERVER_SETTINGS}"
                )
                self.measure(r, options)
            finally:
                server.stop()

    def used(self, r):
        return r.info("memory")["used_memory"]

    def seed(self, r, options, now):
        rng = random.Random(options["seed"])
        today, yesterday = trends.day_of(now), trends.day_of(now - DAY)
        tags = [f"tag{rank}" for rank in range(1, options["tags"] + 1)]
        counts = {"today": 0, "yesterday": 0}
        pipe = r.pipeline(transaction=False)
        for rank, tag in enumerate(tags, start=1):
            users_today = max(1, round(options["head"] / rank**0.9))
            factor = 0.1 if rng.random() < 0.05 else rng.uniform(0.5, 1.5)
            users_yesterday = max(0, round(users_today * factor))
            for day, how_many, name in (
                (today, users_today, "today"),
                (yesterday, users_yesterday, "yesterday"),
            ):
                if not how_many:
                    continue
                uids = rng.sample(range(1, options["users"] + 1), how_many)
                key = keys.trend_users(tag, day)
                for start in range(0, how_many, 1000):
                    pipe.pfadd(key, *uids[start : start + 1000])
                pipe.expire(key, 14 * DAY)
                counts[name] += how_many
            if len(pipe) > 2000:
                pipe.execute()
        pipe.sadd(keys.trend_tags(today), *tags)
        pipe.execute()
        return tags, counts

    def server_usec(self, r):
        stats = r.info("commandstats")
        return sum(stat["usec"] for stat in stats.values())

    def measure(self, r, options):
        now = time.time()
        before_seed = self.used(r)
        started = time.perf_counter()
        tags, counts = self.seed(r, options, now)
        seeded = self.used(r)
        self.stdout.write(
            f"Seeded {len(tags)} tags in {time.perf_counter() - started:.1f} s: "
            f"{counts['today']} (tag, user) pairs today, {counts['yesterday']} yesterday; "
            f"HyperLogLogs and the day's set: {(seeded - before_seed) / 1e6:.1f} MB "
            f"({(seeded - before_seed) / (2 * len(tags)):.0f} B per tag and day)"
        )
        walls, server = [], []
        for run in range(options["repeat"]):
            r.config_resetstat()
            before = self.used(r)
            started = time.perf_counter()
            found = trends.recompute(r, now=now + run)
            walls.append(time.perf_counter() - started)
            server.append(self.server_usec(r) / 1e6)
            if run == 0:
                self.stdout.write(
                    f"Recompute 1 (no peaks yet): {walls[0] * 1000:.0f} ms wall, "
                    f"{server[0] * 1000:.0f} ms of it in Redis; {len(found)} trends; "
                    f"used_memory {before} -> {self.used(r)} bytes "
                    f"({self.used(r) - before:+d})"
                )
                top = ", ".join(f"#{t.tag} ({t.uses} today, {t.score:.0f})" for t in found[:5])
                self.stdout.write(f"  top: {top}")
        if len(walls) > 1:
            self.stdout.write(
                f"Recomputes 2-{len(walls)} (peaks stored): median "
                f"{statistics.median(walls[1:]) * 1000:.0f} ms wall, "
                f"{statistics.median(server[1:]) * 1000:.0f} ms in Redis"
            )
        self.stdout.write("MEMORY USAGE (bytes):")
        today, yesterday = trends.day_of(now), trends.day_of(now - DAY)
        for label, key in (
            ("HyperLogLog of the busiest tag, today", keys.trend_users(tags[0], today)),
            ("HyperLogLog of the busiest tag, yesterday", keys.trend_users(tags[0], yesterday)),
            ("HyperLogLog of a tag of one user", keys.trend_users(tags[-1], today)),
            (f"the day's set of {len(tags)} tags", keys.trend_tags(today)),
            ("the trends (ZSET)", keys.TRENDS),
            ("their uses today (HASH)", keys.TREND_USES),
            ("the peaks (HASH)", keys.TREND_PEAKS),
        ):
            self.stdout.write(f"  {r.memory_usage(key, samples=0) or 0:>9}  {label} ({key})")

"""``manage.py seed_demo``: a realistic network to try the site with and to measure.

Heavy-tailed follows (a Zipf law: a few accounts with very many followers, most with
few), statuses spread over the last days, home timelines as posting would have left
them. Written through the repository's bulk functions (repository/bulk.py), which keep
the same keys and invariants as one-by-one posting and following; a sample of users
is checked against those invariants at the end.
"""

import itertools
import random
import time

from django.contrib.auth.hashers import make_password
from django.core.management.base import BaseCommand, CommandError

from socialsite.connection import new_redis
from socialsite.repository import bulk, client, entities, graph, keys, timelines, users
from socialsite.repository.limits import HOME_TIMELINE_SIZE

# Public on purpose: demo accounts are for trying the site out, never for real use.
DEMO_PASSWORD = "socialsite-demo-password"  # noqa: S105

FIRST_NAMES = """Ada Alan Barbara Claude Donald Edsger Frances Grace Guido Hedy Ivan Jean
John Katherine Ken Linus Margaret Niklaus Radia Richard Shafi Sophie Tim Whitfield
Yukihiro Anita Bjarne Brian Dennis Fran""".split()
LAST_NAMES = """Lovelace Turing Liskov Shannon Knuth Dijkstra Allen Hopper Rossum Lamarr
Sutherland Sammet Backus Johnson Thompson Torvalds Hamilton Wirth Perlman Stallman
Goldwasser Wilson Berners-Lee Diffie Matsumoto Borg Stroustrup Kernighan Ritchie""".split()
WORDS = """redis django timeline follow post coffee morning build deploy cache queue
stream latency memory cluster shard replica script lua python test bug fix ship
release weekend music walk rain sun city train book read write code review merge
lunch dinner idea launch network friends team learn today tomorrow great nice
""".split()
TAGS = ["#redis", "#django", "#python", "#music", "#news", "#weekend", "#coffee"]


class Progress:
    """A one-line progress bar on stdout (a line every few seconds when not a TTY)."""

    def __init__(self, out, label, total):
        self.out, self.label, self.total = out, label, max(total, 1)
        self.done, self.start, self.shown = 0, time.monotonic(), 0.0
        self.tty = hasattr(out, "isatty") and out.isatty()

    def advance(self, n=1):
        self.done += n
        now = time.monotonic()
        if now - self.shown >= (0.2 if self.tty else 5) or self.done >= self.total:
            self.shown = now
            self._draw(end="" if self.tty and self.done < self.total else "\n")

    def _draw(self, end):
        share = min(self.done / self.total, 1)
        bar = "#" * int(share * 30)
        line = (f"{self.label:<9} [{bar:<30}] {share:4.0%} {self.done:>9,}/{self.total:,}"
                f"  {time.monotonic() - self.start:6.1f}s")  # fmt: skip
        self.out.write(("\r" if self.tty else "") + line, ending=end)
        self.out.flush()


def zipf_cumulative_weights(n, exponent):
    """Cumulative weights of ranks 1..n under a Zipf law (weight 1/rank**exponent)."""
    return list(itertools.accumulate(1 / (rank**exponent) for rank in range(1, n + 1)))


class Command(BaseCommand):
    help = "Fill Redis with a demo network: users, heavy-tailed follows, statuses, homes."

    def add_arguments(self, parser):
        parser.add_argument("--users", type=int, default=100_000)
        parser.add_argument("--follows", type=int, default=2_000_000)
        parser.add_argument("--statuses", type=int, default=1_000_000)
        parser.add_argument("--days", type=int, default=30, help="statuses span this many days")
        parser.add_argument("--seed", type=int, default=1, help="same seed, same network")
        parser.add_argument(
            "--zipf", type=float, default=0.8, help="exponent of the follower distribution"
        )
        parser.add_argument("--password", default=DEMO_PASSWORD, help="every demo user's")
        parser.add_argument("--flush", action="store_true", help="delete ALL data in Redis first")

    def handle(self, *args, **options):
        r = new_redis()
        if options["users"] < 2:
            raise CommandError("--users must be at least 2")
        if options["flush"]:
            client.flush_all(r)
        elif r.exists(keys.USER_IDS):
            raise CommandError("Redis already holds users: add --flush to replace ALL data.")
        rng = random.Random(options["seed"])
        started = time.monotonic()
        uids, logins = self.create_users(r, options["users"], options["password"])
        following = self.create_follows(r, rng, uids, options["follows"], options["zipf"])
        profiles = self.create_statuses(
            r, rng, uids, logins, following, options["statuses"], options["days"]
        )
        self.create_homes(r, uids, following, profiles)
        self.check_invariants(r, rng, uids, following, profiles)
        elapsed = time.monotonic() - started
        self.stdout.write(
            self.style.SUCCESS(
                f"Demo network ready in {elapsed:.0f} s: {len(uids):,} users, "
                f"{sum(map(len, following.values())):,} follows, "
                f"{sum(map(len, profiles.values())):,} statuses."
            )
        )
        self.stdout.write(
            f"Log in as user1 (the most followed), user2, ... user{len(uids)} "
            f"with the password {options['password']!r}."
        )

    def create_users(self, r, count, password):
        """user1..userN with display names; returns (uids, {uid: login})."""
        rng = random.Random(count)  # names depend on the count only
        people = [
            (f"user{i}", f"{rng.choice(FIRST_NAMES)} {rng.choice(LAST_NAMES)}")
            for i in range(1, count + 1)
        ]
        progress = Progress(self.stdout, "users", count)
        password_hash = make_password(password)
        uids = []
        for start in range(0, count, 10_000):
            uids += bulk.create_users(r, people[start : start + 10_000], password_hash)
            progress.advance(min(10_000, count - start))
        if None in uids:
            raise CommandError("some demo logins were taken already: use --flush")
        return uids, {uid: login for uid, (login, _) in zip(uids, people, strict=True)}

    def create_follows(self, r, rng, uids, count, exponent):
        """``count`` follows: followers uniform, followed by Zipf rank (user1 is top).

        Follow times are spread over the past year and are unique, as add_edge.lua
        keeps them. Returns {follower: [followed, ...]}.
        """
        n = len(uids)
        count = min(count, n * (n - 1))
        cumulative = zipf_cumulative_weights(n, exponent)
        pairs = set()
        while len(pairs) < count:
            missing = count - len(pairs)
            followers = [rng.randrange(n) for _ in range(missing)]
            followed = rng.choices(range(n), cum_weights=cumulative, k=missing)
            pairs.update((a, b) for a, b in zip(followers, followed, strict=True) if a != b)
        pairs = list(pairs)[:count]
        rng.shuffle(pairs)  # the order of following, over the past year
        now_ms = int(time.time() * 1000)
        spacing = max(1, 365 * 86_400_000 // max(count, 1))
        first_ms = now_ms - spacing * count
        progress = Progress(self.stdout, "follows", count)
        following = {uid: [] for uid in uids}
        for start in range(0, count, 200_000):
            chunk = pairs[start : start + 200_000]
            edges = [
                (uids[a], uids[b], first_ms + (start + i) * spacing)
                for i, (a, b) in enumerate(chunk)
            ]
            bulk.add_follows(r, edges)
            for follower, followed, _ in edges:
                following[follower].append(followed)
            progress.advance(len(chunk))
        return following

    def create_statuses(self, r, rng, uids, logins, following, count, days):
        """``count`` statuses over the last ``days`` days; returns {uid: [ids, oldest first]}."""
        n = len(uids)
        # Some people post much more than others, independently of their followers.
        authors_by_activity = list(uids)
        rng.shuffle(authors_by_activity)
        cumulative = zipf_cumulative_weights(n, 0.5)
        now = time.time()
        times = sorted(now - rng.random() * days * 86_400 for _ in range(count))
        profiles = {uid: [] for uid in uids}
        # Mentions are resolved as posting resolves them, from every demo login.
        ids_by_login = {login.lower(): uid for uid, login in logins.items()}
        progress = Progress(self.stdout, "statuses", count)
        for start in range(0, count, 100_000):
            size = min(100_000, count - start)
            ids = bulk.reserve_status_ids(r, size)
            authors = rng.choices(authors_by_activity, cum_weights=cumulative, k=size)
            batch = []
            for sid, uid, posted in zip(ids, authors, times[start : start + size], strict=True):
                status = {"id": sid, "uid": uid, "login": logins[uid], "posted": posted,
                          "message": self.message(rng, following[uid], logins)}  # fmt: skip
                if rng.random() < 0.1:
                    status["location"] = f"{rng.uniform(-60, 70):.4f},{rng.uniform(-180, 180):.4f}"
                packed = entities.pack(entities.parse(status["message"], ids_by_login))
                if packed:
                    status["entities"] = packed
                batch.append(status)
                profiles[uid].append(sid)
            bulk.add_statuses(r, batch)
            progress.advance(size)
        return profiles

    def message(self, rng, followed, logins):
        words = rng.choices(WORDS, k=rng.randint(4, 18))
        if rng.random() < 0.15:
            words.append(rng.choice(TAGS))
        if followed and rng.random() < 0.1:
            words.insert(0, "@" + logins[rng.choice(followed)])
        return " ".join(words).capitalize()

    def expected_home(self, uid, following, profiles):
        """What posting and following would have put in the home of ``uid``."""
        candidates = list(profiles[uid][-HOME_TIMELINE_SIZE:])
        for followed in following[uid]:
            candidates += profiles[followed][-HOME_TIMELINE_SIZE:]
        return sorted(candidates, reverse=True)[:HOME_TIMELINE_SIZE]

    def create_homes(self, r, uids, following, profiles):
        progress = Progress(self.stdout, "homes", len(uids))
        for start in range(0, len(uids), 2000):
            chunk = uids[start : start + 2000]
            bulk.set_homes(r, {uid: self.expected_home(uid, following, profiles) for uid in chunk})
            progress.advance(len(chunk))

    def check_invariants(self, r, rng, uids, following, profiles, sample=200):
        """Check the invariants on a sample of users; raise CommandError if one fails."""
        for uid in rng.sample(uids, min(sample, len(uids))):
            user = users.get_user(r, uid)
            checks = {
                "following count": (user["following"], r.zcard(keys.following(uid))),
                "followers count": (user["followers"], r.zcard(keys.followers(uid))),
                "posts count": (user["posts"], r.zcard(keys.profile(uid))),
                "following list": (graph.following_ids(r, uid), set(following[uid])),
                "home timeline": (
                    timelines.home_ids(r, uid),
                    self.expected_home(uid, following, profiles),
                ),
            }
            for name, (stored, expected) in checks.items():
                if stored != expected:
                    raise CommandError(f"user {uid}: {name} is wrong after seeding")
        self.stdout.write(f"checked     invariants hold for {min(sample, len(uids))} random users")

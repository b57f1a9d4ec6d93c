"""``manage.py bench_memory``: bytes per home-timeline entry and per status, and the
server time per insert, for socialsite's layout and the book's, on one Redis.

- Timelines: ``--timelines`` full (1000-entry) home timelines in each layout; bytes per
  entry from the server's used_memory before and after (allocator overhead and key
  included), and from MEMORY USAGE of one key.
- Inserts: ``--rounds`` statuses delivered to every one of those full timelines, as a
  fan-out does (ours: deliver.lua by shard group, trims included; the book: ZADD +
  ZREMRANGEBYRANK per follower); server microseconds per delivery from INFO
  commandstats.
- Reposts: ``--reposts`` reposts, each of a different original, delivered to every one
  of those timelines (fanout.deliver_repost, as a repost's fan-out does); bytes per
  home entry that came through a repost (the SET entry, its keys.home_reposts fields,
  the per-shard notes), and server time per delivery; then a second reposter of the
  same originals (the dedupe only notes them): bytes and time per noted reposter.
  The timelines above, without reposts, keep their bytes per entry.
- Eviction (eviction.py): half the full timelines above evicted; bytes freed per home,
  and server time per delivery to an evicted home (skipped) and to a full home in the
  same shards (the mark exists there). Then a home rebuilt from
  nothing by its first page back, for a reader following each of ``--rebuild-follows``
  (100,1000,7500) accounts with ``--rebuild-statuses`` statuses each (interleaved in
  time): server time (all commands, INFO commandstats) and wall time of the rebuild.
- Statuses: ``--statuses`` posts of 100-character messages; bytes per status hash,
  and per post in all (hash, profile entry, own home entry, counts).
"""

import tempfile
import time

from benchmarks import book
from socialsite import embedded_redis
from socialsite.repository import (
    bulk,
    client,
    eviction,
    fanout,
    keys,
    scripts,
    statuses,
    timelines,
)
from socialsite.repository.limits import HOME_TIMELINE_SIZE, HOME_TIMELINE_SLACK
from socialsite_dev.redis_servers import RedisServer


def script_usec(r):
    """Server time of the EVALSHA calls since the last CONFIG RESETSTAT (the commands
    they ran are inside it)."""
    return r.info("commandstats")["cmdstat_evalsha"]["usec"]


def delivery_usec(r, author, followers, first_sid, rounds):
    """Redis's time per delivery, in microseconds, of ``rounds`` statuses (ids from
    ``first_sid``) delivered by ``author`` to every one of ``followers`` as a fan-out
    does (fanout.deliver: deliver.lua by shard group, the unfollow check and the trims
    included), from INFO commandstats, so the client's cost is left out. Into full
    timelines this is the server-time ceiling of the fan-out: the rate Redis could
    deliver at if it did nothing else (bench_fanout reads its share of it)."""
    r.config_resetstat()
    for n in range(rounds):
        fanout.deliver(r, author, first_sid + n, followers)
    return script_usec(r) / (rounds * len(followers))


# The ids of a full timeline: 8-digit ids, as a site with millions of statuses has.
FIRST_ID = 10_000_000
FULL_IDS = list(range(FIRST_ID, FIRST_ID + HOME_TIMELINE_SIZE))
NEXT_ID = FIRST_ID + HOME_TIMELINE_SIZE


def freed(r):
    """Wait until Redis has freed what FLUSHALL ASYNC let go: freeing millions of keys
    in the background slows the server, and a big pipeline sent meanwhile can outwait
    the client's timeout."""
    while r.info("memory").get("lazyfree_pending_objects", 0):
        time.sleep(0.05)


def author_and_followers(r, count):
    """On an emptied server: an author and ``count`` followers (ids with no user hash).
    Returns (author, followers)."""
    client.flush_all(r)
    freed(r)
    (author,) = bulk.create_users(r, [("author", "Author")], "unused")
    followers = list(range(author + 1, author + 1 + count))
    bulk.add_follows(r, [(f, author, i + 1) for i, f in enumerate(followers)])
    return author, followers


def ceiling_usec(r, count, rounds):
    """delivery_usec into ``count`` full home timelines, on an emptied server, emptied
    again after: the fan-out's server-time ceiling, which bench_fanout measures in its
    own run (bench_memory's "ours: N us per delivery" is the same figure)."""
    author, followers = author_and_followers(r, count)
    bulk.set_homes(r, {f: FULL_IDS for f in followers})
    usec = delivery_usec(r, author, followers, NEXT_ID, rounds)
    client.flush_all(r)
    return usec


class MemoryBenchmark:
    """One run of ``manage.py bench_memory`` with its options (a dict)."""

    def __init__(self, stdout, stderr):
        # The command's output wrappers: each write() is a line.
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
                followers = self.timelines(r, options["timelines"], options["rounds"])
                self.eviction(r, followers, options["rounds"])
                for follows in options.get("rebuild_follows") or ():
                    self.rebuild(r, follows, options["rebuild_statuses"])
                if options.get("reposts"):
                    self.reposts(r, options["timelines"], options["reposts"])
                self.statuses(r, options["statuses"])
            finally:
                server.stop()

    def used(self, r):
        """used_memory once Redis has finished freeing what FLUSHALL ASYNC let go."""
        freed(r)
        return r.info("memory")["used_memory"]

    def timelines(self, r, count, rounds):
        author, followers = author_and_followers(r, count)
        now = time.time()

        before = self.used(r)
        bulk.set_homes(r, {f: FULL_IDS for f in followers})
        ours = (self.used(r) - before) / (count * HOME_TIMELINE_SIZE)
        ours_key = r.memory_usage(keys.home(followers[0])) / HOME_TIMELINE_SIZE
        encoding = r.object("encoding", keys.home(followers[0]))

        before = self.used(r)
        for start in range(0, count, 100):
            pipe = r.pipeline(transaction=False)
            book_home = {str(sid): now + i for i, sid in enumerate(FULL_IDS)}
            for f in followers[start : start + 100]:
                pipe.zadd(book.key("home", f), book_home)
            pipe.execute()
        theirs = (self.used(r) - before) / (count * HOME_TIMELINE_SIZE)
        theirs_key = r.memory_usage(book.key("home", followers[0])) / HOME_TIMELINE_SIZE
        theirs_encoding = r.object("encoding", book.key("home", followers[0]))

        self.stdout.write(f"\nFull home timelines ({count:,} x {HOME_TIMELINE_SIZE} entries):")
        self.stdout.write(f"  ours ({encoding}):       {ours:6.1f} bytes/entry (used_memory), "
                          f"{ours_key:6.1f} (MEMORY USAGE)")  # fmt: skip
        self.stdout.write(f"  book ({theirs_encoding}):    {theirs:6.1f} bytes/entry "
                          f"(used_memory), {theirs_key:6.1f} (MEMORY USAGE)")  # fmt: skip

        # Inserts into full timelines.
        ours_usec = delivery_usec(r, author, followers, NEXT_ID, rounds)
        sizes = [r.scard(keys.home(f)) for f in followers[:100]]
        steady = self.used(r)
        r.config_resetstat()
        for n in range(rounds):
            sid = NEXT_ID + n
            pipe = r.pipeline(transaction=False)
            for f in followers:
                pipe.zadd(book.key("home", f), {str(sid): now + HOME_TIMELINE_SIZE + n})
                pipe.zremrangebyrank(book.key("home", f), 0, -HOME_TIMELINE_SIZE - 1)
            pipe.execute()
        stats = r.info("commandstats")
        book_usec = sum(stats[c]["usec"] for c in ("cmdstat_zadd", "cmdstat_zremrangebyrank"))
        book_usec /= rounds * count
        self.stdout.write(f"\nInserting {rounds} statuses into each full timeline (server time):")
        self.stdout.write(f"  ours: {ours_usec:5.2f} us per delivery (unfollow check, SADD, "
                          f"trim every {HOME_TIMELINE_SLACK} included); timelines now hold "
                          f"{min(sizes)}-{max(sizes)} ids, 1000 shown")  # fmt: skip
        self.stdout.write(f"  book: {book_usec:5.2f} us per delivery (ZADD + ZREMRANGEBYRANK)")
        self.stdout.write(f"  used_memory after the inserts: {steady / 1e6:.1f} MB")
        return author, followers

    def eviction(self, r, author_and_followers, rounds):
        """Evict half the full timelines, then deliver to each half: what eviction
        saves, and what a delivery costs in shards that hold evicted homes."""
        author, followers = author_and_followers
        away, here = followers[::2], followers[1::2]
        sizes = [r.scard(keys.home(f)) for f in away]
        long_ago = time.time() - 365 * 86400
        for follower in away:
            eviction.note_seen(r, follower, long_ago)
        before = self.used(r)
        evicted = eviction.sweep(r, 30 * 86400)
        freed = (before - self.used(r)) / evicted
        self.stdout.write(f"\nEvicting {evicted:,} full home timelines "
                          f"({min(sizes)}-{max(sizes)} ids), half of them:")  # fmt: skip
        self.stdout.write(f"  {freed:,.0f} bytes freed per evicted home (used_memory)")
        first = 30_000_000
        groups = (("an evicted home (skipped)", away), ("a full home beside them", here))
        for label, group in groups:
            r.config_resetstat()
            for n in range(rounds):
                fanout.deliver(r, author, first + n, group)
            usec = script_usec(r) / (rounds * len(group))
            self.stdout.write(f"  delivering to {label}: {usec:5.2f} us per delivery")
            first += rounds

    def rebuild(self, r, follows, per_author):
        """An evicted home's rebuild for a reader following ``follows`` accounts."""
        client.flush_all(r)
        people = [(f"p{n}", "P") for n in range(follows + 1)]
        reader, *authors = bulk.create_users(r, people, "unused")
        bulk.add_follows(r, [(reader, a, i + 1) for i, a in enumerate(authors)])
        # Profiles only (the rebuild reads no status hash): interleaved ids, so that the
        # newest 1000 come from many accounts.
        first = 40_000_000
        for start in range(0, follows, 500):
            pipe = r.pipeline(transaction=False)
            for i, author in enumerate(authors[start : start + 500], start):
                ids = [first + n * follows + i for n in range(per_author)]
                pipe.zadd(keys.profile(author), {str(sid): sid for sid in ids})
            pipe.execute()
        eviction.note_seen(r, reader, time.time() - 365 * 86400)
        eviction.sweep(r, 30 * 86400)
        scripts.load_all(r)  # not the first call's loading, in the figures
        r.config_resetstat()
        started = time.perf_counter()
        assert eviction.rebuild(r, reader) == "rebuilt"
        wall = time.perf_counter() - started
        stats = r.info("commandstats")
        redis_ms = sum(stat["usec"] for stat in stats.values()) / 1000
        size = len(timelines.home_ids(r, reader))
        self.stdout.write(f"\nRebuilding an evicted home following {follows:,} accounts "
                          f"({per_author} statuses each): {redis_ms:6.1f} ms of Redis time, "
                          f"{wall * 1000:6.1f} ms wall; {size} ids")  # fmt: skip

    def reposts(self, r, count, per_home):
        """What reposts cost in home timelines that hold full plain timelines."""
        (author,) = bulk.create_users(r, [("author2", "Author")], "unused")
        reposters = bulk.create_users(r, [("reposter1", "R1"), ("reposter2", "R2")], "unused")
        followers = list(range(10_000_000, 10_000_000 + count))  # ids no user has
        first_id = 20_000_000
        plain = list(range(first_id, first_id + HOME_TIMELINE_SIZE - per_home))
        bulk.set_homes(r, {f: plain for f in followers})
        originals = list(range(first_id - per_home, first_id))
        rid = first_id + HOME_TIMELINE_SIZE
        self.stdout.write(f"\nReposts ({per_home} per home, in {count:,} full home timelines):")
        for label, reposter in (("first", reposters[0]), ("second", reposters[1])):
            before = self.used(r)
            r.config_resetstat()
            for orig in originals:
                fanout.deliver_repost(r, reposter, rid, orig, author, followers)
                rid += 1
            per_entry = (self.used(r) - before) / (count * per_home)
            usec = script_usec(r) / (count * per_home)
            if label == "first":
                self.stdout.write(f"  a home entry through a repost: {per_entry:6.1f} bytes "
                                  f"(the SET entry, its home-reposts fields, the notes), "
                                  f"{usec:5.2f} us per delivery")  # fmt: skip
            else:
                self.stdout.write(
                    f"  a second reposter of a status shown: {per_entry:6.1f} bytes (noted, "
                    f"no entry), {usec:5.2f} us per delivery"
                )
        encoding = r.object("encoding", keys.home_reposts(followers[0]))
        self.stdout.write(f"  home-reposts hash: {encoding}, "
                          f"{r.memory_usage(keys.home_reposts(followers[0]))} bytes for "
                          f"{per_home} originals (MEMORY USAGE)")  # fmt: skip

    def statuses(self, r, count):
        client.flush_all(r)
        (author,) = bulk.create_users(r, [("author", "Author")], "unused")
        message = ("Coffee, then a walk by the river before the release. " * 2)[:100]
        before = self.used(r)
        for _ in range(count):
            statuses.post_status(r, author, message)
        per_post = (self.used(r) - before) / count
        sample = statuses.post_status(r, author, message)
        per_hash = r.memory_usage(keys.status(sample))
        self.stdout.write(f"\nStatuses ({count:,} posts of {len(message)}-character messages):")
        self.stdout.write(f"  status hash: {per_hash} bytes (MEMORY USAGE)")
        self.stdout.write(f"  a post in all: {per_post:.0f} bytes (used_memory: hash, profile and"
                          " own home entries)")  # fmt: skip

"""Bulk loading (demo data, benchmarks): the same keys and invariants as one-by-one
writes, in big pipelines.

Meant for a single writer filling a network quickly, e.g. ``manage.py seed_demo``:
- counts are raised with HINCRBY by what each ZADD reports as new, so they equal
  the list sizes even when loading onto existing data;
- follow scores must be unique per list (as add_edge.lua makes them); the caller
  passes them;
- home timelines are written whole, already merged by the caller.
"""

import heapq
import time
from collections import defaultdict

from . import entities, keys, search, suggestions, trends
from .limits import HOME_TIMELINE_SIZE, MOST_FOLLOWED_KEPT, TAG_TIMELINE_SIZE, TREND_DAYS_KEPT

# Commands per pipeline: big enough to amortize round trips, small enough to keep
# client and server buffers modest.
CHUNK = 5000


def _pipelined(r, items, queue, chunk=CHUNK):
    """Call ``queue(pipe, item)`` for each item, in pipelines of ``chunk``; return results."""
    results = []
    for start in range(0, len(items), chunk):
        pipe = r.pipeline(transaction=False)
        for item in items[start : start + chunk]:
            queue(pipe, item)
        results += pipe.execute()
    return results


def _add_and_count(r, members_by_owner, key_of, count_field):
    """ZADD each owner's members, then HINCRBY the owner's count by how many were new."""
    owners = list(members_by_owner)
    added = _pipelined(
        r, owners, lambda p, uid: p.zadd(key_of(uid), members_by_owner[uid]), chunk=500
    )
    _pipelined(
        r,
        [(uid, n) for uid, n in zip(owners, added, strict=True) if n],
        lambda p, item: p.hincrby(keys.user(item[0]), count_field, item[1]),
    )


def create_users(r, people, password_hash):
    """Create users from (login, name) pairs, all with one password hash; return ids.

    Logins must be new (any case): one already taken is left out, its id None.
    """
    first = r.incrby(keys.USER_IDS, len(people)) - len(people) + 1
    pairs = list(zip(range(first, first + len(people)), people, strict=True))
    now = time.time()

    def write_user(pipe, pair):
        uid, (login, name) = pair
        fields = {"id": uid, "login": login, "name": name, "followers": 0, "following": 0,
                  "posts": 0, "signup": now}  # fmt: skip
        pipe.hset(keys.user(uid), mapping=fields)
        pipe.hset(keys.credentials(uid), "password", password_hash)

    def claim_login(pipe, pair):
        uid, (login, _) = pair
        pipe.hsetnx(keys.LOGINS, login.lower(), uid)

    _pipelined(r, pairs, write_user)
    uids = []
    for (uid, _), won in zip(pairs, _pipelined(r, pairs, claim_login), strict=True):
        if not won:
            r.delete(keys.user(uid), keys.credentials(uid))
        uids.append(uid if won else None)
    # In the search index, as sign-up puts them (search.queue_add_person).
    winners = [pair for pair, uid in zip(pairs, uids, strict=True) if uid is not None]
    _pipelined(r, winners, lambda p, pair: search.queue_add_person(p, pair[0], *pair[1]), 1000)
    return uids


def add_follows(r, edges):
    """Add follows from (follower, followed, score) triples; count what is new.

    Scores must be unique within each list (each followed user's followers, each
    follower's followings).
    """
    following, followers = defaultdict(dict), defaultdict(dict)
    for follower, followed, score in edges:
        following[follower][str(followed)] = score
        followers[followed][str(follower)] = score
    _add_and_count(r, following, keys.following, "following")
    _add_and_count(r, followers, keys.followers, "followers")
    # The most-followed list (suggestions.py): the counts these follows left.
    followed = list(followers)
    counts = _pipelined(r, followed, lambda p, uid: p.hget(keys.user(uid), "followers"))
    best = sorted(zip(followed, counts, strict=True), key=lambda pair: -int(pair[1] or 0))
    suggestions.note_followers_counts(
        r, {uid: int(count) for uid, count in best[:MOST_FOLLOWED_KEPT] if count}
    )
    # The most followed in the search index's higher tiers, as a follow puts them.
    search.place_in_tiers(r, followers)


def reserve_status_ids(r, count):
    """``count`` new status ids, increasing, from one INCRBY."""
    last = r.incrby(keys.STATUS_IDS, count)
    return list(range(last - count + 1, last + 1))


def add_statuses(r, statuses):
    """Store statuses (dicts with id, uid, login, message, posted, ...), put them on
    their authors' profiles and count them, and on the timelines of the tags in their
    ``entities`` (packed, as entities.pack makes them; optional), each kept to its
    newest TAG_TIMELINE_SIZE. Ids must come from reserve_status_ids."""
    _pipelined(r, statuses, lambda p, status: p.hset(keys.status(status["id"]), mapping=status))
    profiles = defaultdict(dict)
    tagged = defaultdict(dict)
    for status in statuses:
        profiles[status["uid"]][str(status["id"])] = status["id"]
        if status.get("entities"):
            for tag in entities.tags(entities.unpack(status["message"], status["entities"])):
                tagged[tag][str(status["id"])] = status["id"]
    _add_and_count(r, profiles, keys.profile, "posts")
    # When each author last posted (keys.LAST_POSTED_FIELD), and each tag's users of the
    # day (trends.py).
    last_posted, used = {}, defaultdict(set)
    for status in statuses:
        posted = float(status["posted"])
        last_posted[status["uid"]] = max(last_posted.get(status["uid"], 0), posted)
        if status.get("entities"):
            for tag in entities.tags(entities.unpack(status["message"], status["entities"])):
                used[(trends.day_of(posted), tag)].add(status["uid"])
    _pipelined(
        r,
        list(last_posted.items()),
        lambda p, item: p.hset(keys.user(item[0]), keys.LAST_POSTED_FIELD, int(item[1] * 1000)),
    )

    def count_users(pipe, item):
        (day, tag), uids = item
        key = keys.trend_users(tag, day)
        pipe.pfadd(key, *uids)
        pipe.expire(key, TREND_DAYS_KEPT * trends.DAY_SECONDS)
        pipe.sadd(keys.trend_tags(day), tag)
        pipe.expire(keys.trend_tags(day), trends.TREND_TAGS_KEPT_SECONDS)

    _pipelined(r, list(used.items()), count_users, chunk=500)

    def add_to_tag(pipe, item):
        tag, ids = item
        pipe.zadd(keys.tag(tag), ids)
        pipe.zremrangebyrank(keys.tag(tag), 0, -TAG_TIMELINE_SIZE - 1)

    _pipelined(r, list(tagged.items()), add_to_tag, chunk=500)
    # The tags' latest uses, for search (search.queue_tag_use).
    _pipelined(
        r,
        list(tagged.items()),
        lambda p, item: search.queue_tag_use(p, max(item[1].values()), [item[0]]),
        chunk=500,
    )


def set_homes(r, homes):
    """Add to home timelines: {uid: status ids}, the newest HOME_TIMELINE_SIZE of each."""

    def write_home(pipe, item):
        uid, ids = item
        newest = heapq.nlargest(HOME_TIMELINE_SIZE, ids)
        if newest:
            pipe.sadd(keys.home(uid), *newest)

    _pipelined(r, list(homes.items()), write_home, chunk=500)

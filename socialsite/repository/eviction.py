"""Inactive people's homes: evicted, then rebuilt on their first page back (decision 0055).

Most home timelines belong to people who will not open them soon, yet every delivery
writes into them. A person not seen for HOME_EVICT_AFTER loses their home and list
timelines, and deliveries skip them (deliver.lua, deliver_repost.lua), so fan-out work
shrinks with the share of active people; their first page rebuilds them before it
answers.

- **Seen.** keys.seen(uid), one ZSET per shard, scores each person by the day they were
  last seen: a ZADD GT queued on the round trip every request makes anyway (the
  session read, sessions.load_with_user; an API token's, oauth.token_and_user; live
  pages and the streaming API use the same two). A process queues it only the first
  time it sees a person in a day (``_noted``), and ZADD GT writes only when the day is
  newer: about once a day per person, and no round trip of its own.
- **Evicted.** The sweep (``sweep``: the fan-out workers, and ``manage.py timelines
  evict``) reads, shard by shard, the people seen before the cutoff, and evict_home.lua
  drops each one's home, keys.home_reposts and list timelines in the same step as it
  checks the seen day again (a person who comes back meanwhile keeps their home). Two
  marks say "evicted", not a missing key (an empty or new home has none either): the
  person in keys.evicted_homes, which pages and counts read, and the home holding only
  EVICTED_MEMBER, which deliveries read: they read a home's size anyway, so a delivery
  to anyone else costs what it did and a skipped one less. Someone never seen (no
  request since the sweep began to run) is not swept.
- **Rebuilt.** Every home and list page reads the mark with its ids, in the same round
  trip (``queue_state``). A page that finds it calls ``rebuild``: rebuild_home.lua takes
  both marks off and holds the rebuild in the same step (concurrent first pages wait for
  the one that holds it), then ``refill_home`` fills the home from the followed
  accounts' profiles, the code an unfollow's refill runs (the reply rule, blocks and
  mutes, reposts by the dedupe rules of backfill.lua) and the timelines of the groups
  the person keeps in their home (communities.py, by a group delivery's rules), and
  ``refill_lists`` each list
  from its members' profiles (list_fill.lua, as adding a member does). Deliveries reach
  the home again from the moment the marks go, before the profiles are read, so a
  status is either delivered or read. Then the page reads its ids again.
"""

import heapq
import time

from . import keys, locks, scripts, search
from .limits import HOME_TIMELINE_SIZE

# What an evicted home holds, alone (lua/_home.lua's EVICTED_MEMBER): deliveries read a
# home's size anyway, and ask only a home of exactly one id whether it is this (an
# empty home has no key: decision 0065).
EVICTED_MEMBER = "0"

# How precisely "seen" is kept: one write a day per person at most.
SEEN_EVERY_SECONDS = 24 * 3600

# How long a rebuild holds off concurrent first pages before another may start over
# (the holder died). A rebuild of 7,500 follows takes well under a second (docs/scale.md).
REBUILD_HOLD_MS = 30_000

# How often one of the workers sweeps: a day of HOME_EVICT_AFTER is noticed within it.
SWEEP_EVERY_SECONDS = 3600

# People swept per round trip: read from a shard's keys.seen, then evicted in a pipeline.
_SWEEP_CHUNK = 500

# {uid: the day this process noted them seen}; forgotten whole when it grows this big.
_noted: dict[int, int] = {}
_NOTED_MOST = 200_000


def seen_day(now=None):
    """The first second of the day ``now`` (s; default now) falls in: keys.seen's score."""
    now = time.time() if now is None else now
    return int(now) // SEEN_EVERY_SECONDS * SEEN_EVERY_SECONDS


def queue_seen(pipe, uid, now=None):
    """Queue on ``pipe`` (a request's round trip, in uid's slot) the note that ``uid`` was
    seen today, unless this process noted it already today. Returns how many replies it
    queued (0 or 1): the caller drops them."""
    day = seen_day(now)
    uid = int(uid)
    if _noted.get(uid) == day:
        return 0
    if len(_noted) >= _NOTED_MOST:
        _noted.clear()
    _noted[uid] = day
    pipe.zadd(keys.seen(uid), {uid: day}, gt=True)
    return 1


def forget_noted():
    """Forget which people this process noted seen (tests)."""
    _noted.clear()


def note_seen(r, uid, now=None):
    """Set the day ``uid`` was last seen to ``now``'s, earlier or later, in a round trip of
    its own (tests, seeding, benchmarks)."""
    r.zadd(keys.seen(uid), {int(uid): seen_day(now)})


def note_everyone_seen(r, now=None, batch=1000):
    """Note every account seen on ``now``'s day unless it is noted already (ZADD NX), so
    that the sweep may evict, HOME_EVICT_AFTER from now, the homes of those who stay
    away: for a site whose accounts were made before eviction ran (an account is swept
    only once it was seen). One SCAN of the user hashes; returns how many were new."""
    day = seen_day(now)
    added = 0
    for found in search.user_key_batches(r, batch):
        pipe = r.pipeline(transaction=False)
        for key in found:
            uid = int(key.rsplit(":", 1)[1])
            pipe.zadd(keys.seen(uid), {uid: day}, nx=True)
        added += sum(pipe.execute())
    return added


def queue_forget(pipe, uid):
    """Queue taking ``uid`` out of keys.seen and keys.evicted_homes (their account is
    deleted)."""
    uid = int(uid)
    pipe.zrem(keys.seen(uid), uid)
    pipe.zrem(keys.evicted_homes(uid), uid, f"r:{uid}")


def queue_state(pipe, uid):
    """Queue the read of whether ``uid``'s home is evicted or being rebuilt (one reply,
    for ``needs_rebuild``), in uid's slot: it rides on the page's round trip."""
    pipe.zmscore(keys.evicted_homes(uid), [int(uid), f"r:{int(uid)}"])


def needs_rebuild(state):
    """Whether ``queue_state``'s reply says the home must be rebuilt (or waited for)."""
    return bool(state) and any(score is not None for score in state)


def is_evicted(r, uid):
    """Whether ``uid``'s home is evicted (tests, maintenance)."""
    return r.zscore(keys.evicted_homes(uid), int(uid)) is not None


def evict(r, uid, seen_before):
    """Evict ``uid``'s home if they were last seen before ``seen_before`` (s); return
    whether it was."""
    return bool(scripts.evict_home(r, uid=int(uid), seen_before=int(seen_before)))


def sweep(r, evict_after, now=None):
    """Evict the homes of the people not seen for ``evict_after`` seconds; return how
    many. Reads each shard's keys.seen below the cutoff, a chunk at a time; each is
    evicted only if still not seen (evict_home.lua). Idempotent: the evicted leave
    keys.seen, so a sweep run twice, or by two workers at once, evicts each home once."""
    now = time.time() if now is None else now
    cutoff = int(now - evict_after)
    evicted = 0
    shards = keys.all_seen()
    while shards:
        # Every shard's candidates in one round trip, then their evictions in another.
        pipe = r.pipeline(transaction=False)
        for seen_key in shards:
            pipe.zrangebyscore(seen_key, "-inf", f"({cutoff}", start=0, num=_SWEEP_CHUNK)
        found = pipe.execute()
        pipe = r.pipeline(transaction=False)
        for uids in found:
            for uid in uids:
                scripts.evict_home.queue(pipe, uid=int(uid), seen_before=cutoff)
        evicted += sum(pipe.execute())
        shards = [key for key, uids in zip(shards, found, strict=True) if len(uids) == _SWEEP_CHUNK]
    return evicted


def sweep_if_due(r, evict_after, every_seconds=SWEEP_EVERY_SECONDS):
    """``sweep``, if no worker swept in the last ``every_seconds`` (one SET NX: the
    workers ask at their sweeps' pace, one of them sweeps). Returns how many homes it
    evicted (0 when not due)."""
    if not r.set(keys.EVICTION_SWEEP_DUE, "1", nx=True, ex=every_seconds):
        return 0
    return sweep(r, evict_after)


def evicted_count(r):
    """How many homes are evicted now (one ZCOUNT per shard, one pipeline)."""
    pipe = r.pipeline(transaction=False)
    for key in keys.all_evicted_homes():
        pipe.zcount(key, 0, 0)
    return sum(pipe.execute())


def page_read(r, uid, queue):
    """The replies of ``queue(pipe)`` (reads of a home or list page, in uid's slot), read
    with whether uid's home is evicted in the same round trip; an evicted home is rebuilt
    first (rebuild) and the page read again: the page its owner gets back is
    whole, never a part."""

    def fill(pipe):
        queue(pipe)
        queue_state(pipe, uid)

    *replies, state = scripts.run_pipeline(r, fill)
    if needs_rebuild(state):
        rebuild(r, uid)
        *replies, _ = scripts.run_pipeline(r, fill)
    return replies


def rebuild(r, uid, wait_seconds=None):
    """Rebuild ``uid``'s evicted home and lists, or wait for the request rebuilding
    them; return "rebuilt", "waited" or "none" (not evicted). See the module's
    docstring."""
    uid = int(uid)
    wait_seconds = REBUILD_HOLD_MS / 1000 if wait_seconds is None else wait_seconds
    deadline = time.monotonic() + wait_seconds
    waited = False
    while True:
        now_ms = int(time.time() * 1000)
        state, until = scripts.rebuild_home(
            r, uid=uid, action="begin", now_ms=now_ms, hold_ms=REBUILD_HOLD_MS
        )
        if state == "rebuild":
            break
        if state == "none":
            return "waited" if waited else "none"
        # Another request rebuilds: the page waits for it rather than show a part.
        if time.monotonic() > deadline:
            return "waited"
        waited = True
        time.sleep(0.01)
    try:
        refill_home(r, uid)
        refill_lists(r, uid)
    finally:
        scripts.rebuild_home(r, uid=uid, action="end", now_ms=now_ms, until_ms=int(until))
    return "rebuilt"


# Followed profiles read per round trip while refilling.
_REFILL_CHUNK = 1000


def refill_home(r, uid):
    """Top the home timeline of ``uid`` up to HOME_TIMELINE_SIZE: after an unfollow (the
    workers' refill job), or from nothing (an evicted home's rebuild).

    The unfollow took the unfollowed user's statuses out. Everything newer than the
    oldest id left is already there (it was delivered and never trimmed), so the
    missing ones are older: for each user still followed (but not muted or in a
    block), and the user themself, read up to ``gap`` ids below that oldest id, and
    add the newest ``gap`` of them all, leaving out replies to users ``uid`` neither
    follows nor is (the reply rule, as in fan-out: each author's replies among those
    ids are read with them, from keys.profile_replies). Holds the user's follow lock,
    so a follow or unfollow cannot interleave. Returns the number of ids added.
    """
    uid = int(uid)
    with locks.hold(r, keys.follow_lock(uid), wait_seconds=10):
        call = {"uid": uid, "before": None, "count": HOME_TIMELINE_SIZE, "skip_deleted": False,
                "now_ms": int(time.time() * 1000)}  # fmt: skip
        visible = [int(sid) for sid in scripts.home_page(r, **call)[0]]
        gap = HOME_TIMELINE_SIZE - len(visible)
        if gap <= 0:
            return 0
        below = f"({visible[-1]}" if visible else "+inf"
        pipe = r.pipeline(transaction=False)  # one slot: one node
        pipe.zrange(keys.following(uid), 0, -1)
        pipe.zrangebyscore(keys.hides(uid), f"({int(time.time() * 1000)}", "+inf")
        pipe.zrange(keys.memberships(uid), 0, -1)
        pipe.smembers(keys.communities_out_of_home(uid))
        following, hidden, joined, kept_out = pipe.execute()
        hidden = set(hidden)
        seen = {uid, *(int(author) for author in following)}
        # Not the authors the user does not get (muted, blocked either way).
        authors = [uid, *(author for author in following if author not in hidden)]
        candidates, marks = [], {}
        for start in range(0, len(authors), _REFILL_CHUNK):
            pipe = r.pipeline(transaction=False)
            for author in authors[start : start + _REFILL_CHUNK]:
                pipe.zrevrangebyscore(keys.profile(author), below, "-inf", start=0, num=gap)
                # The newest ``gap`` replies below: all the replies among those ids.
                pipe.zrevrangebyscore(keys.profile_replies(author), below, "-inf", start=0, num=gap)
                # And the reposts among them, to go in by the dedupe rules.
                pipe.zrevrangebyscore(keys.profile_reposts(author), below, "-inf", start=0, num=gap)
            read = pipe.execute()
            chunk = authors[start : start + _REFILL_CHUNK]
            for author, ids, replies, reposted in zip(
                chunk, read[::3], read[1::3], read[2::3], strict=True
            ):
                # The user's own replies stay, as every status of theirs does.
                unseen = set()
                if int(author) != uid:
                    unseen = {
                        sid
                        for sid, replied_to in (reply.split(":") for reply in replies)
                        if int(replied_to) not in seen
                    }
                for repost in reposted:
                    rid, orig, orig_author = repost.split(":")
                    marks[int(rid)] = f"{rid}/{orig}/{orig_author}/{author}"
                candidates += [int(sid) for sid in ids if sid not in unseen]
        newest = heapq.nlargest(gap, set(candidates))
        groups = [int(cid) for cid in joined if cid not in kept_out]
        if groups:
            newest = _with_group_statuses(r, uid, groups, newest, gap, below, seen, hidden)
        if not newest:
            return 0
        # Oldest first, as they were delivered: of several reposts of one original,
        # the earliest is the one the home shows it under (lua/_reposts.lua).
        oldest_first = newest[::-1]
        items = [marks.get(sid, str(sid)) for sid in oldest_first]
        originals = [int(marks[sid].split("/")[1]) for sid in oldest_first if sid in marks]
        return scripts.backfill(
            r, uid=uid, followed=None, now_ms=int(time.time() * 1000), items=items,
            originals=originals,
        )  # fmt: skip


def _with_group_statuses(r, uid, groups, newest, gap, below, followed, hidden):
    """``newest`` (the ids a refill adds, newest first) with the statuses of the groups
    ``groups`` (communities.py: those ``uid`` belongs to and keeps in their home) that
    make the newest ``gap`` of them all, by the rules a group's delivery applies: not
    the statuses of ``hidden`` authors, nor replies to users not in ``followed`` (the
    reply rule). Two round trips: the groups' timelines, and the authors and replied-to
    users of the group statuses among the newest."""

    def read(pipe):
        for cid in groups:
            pipe.zrevrangebyscore(keys.community_timeline(cid), below, "-inf", start=0, num=gap)

    from_groups = {int(sid) for ids in scripts.run_pipeline(r, read) for sid in ids}
    merged = heapq.nlargest(gap, from_groups | set(newest))
    asked = [sid for sid in merged if sid in from_groups and sid not in set(newest)]
    if not asked:
        return merged

    def place(pipe):
        for sid in asked:
            pipe.hmget(keys.status(sid), ["uid", "in_reply_to_uid"])

    ruled_out = set()
    for sid, (author, replied_to) in zip(asked, scripts.run_pipeline(r, place), strict=True):
        if author is None or author in hidden:
            ruled_out.add(sid)  # gone, or an author the user does not get
        elif int(author) != uid and replied_to and int(replied_to) not in followed:
            ruled_out.add(sid)
    return [sid for sid in merged if sid not in ruled_out]


def replies_marked(status_ids, replies):
    """``status_ids`` (a profile's) with each reply marked "<id>:<replied-to user>", as
    list_fill.lua takes them; ``replies``: the profile's keys.profile_replies members."""
    replied = dict(reply.split(":") for reply in replies)
    return [f"{sid}:{replied[sid]}" if sid in replied else sid for sid in status_ids]


def list_statuses_marked(status_ids, replies, reposts):
    """A profile's ``status_ids`` as list_fill.lua takes them to fill a named list:
    without the profile's reposts (``reposts``: its keys.profile_reposts members), for
    a list holds its members' own statuses, never their reposts (the fan-out delivers
    none to lists: deliver_repost.lua; home_page.lua merges none), and each reply
    marked (replies_marked)."""
    repost_ids = {repost.split(":")[0] for repost in reposts}
    return replies_marked([sid for sid in status_ids if sid not in repost_ids], replies)


def refill_lists(r, uid):
    """Fill every list of ``uid``'s from its members' newest statuses, as adding each
    member does (list_fill.lua: while uid follows and gets them, replies by the reply
    rule, each list capped): an evicted home's lists, rebuilt (eviction.py). Two round
    trips whatever the number of members: their profiles, then the fills."""
    members = [int(member) for member in r.hkeys(keys.listed(uid))]
    if not members:
        return 0
    pipe = r.pipeline(transaction=False)
    for member in members:
        pipe.zrevrange(keys.profile(member), 0, HOME_TIMELINE_SIZE - 1)
        pipe.zrange(keys.profile_replies(member), 0, -1)
        pipe.zrange(keys.profile_reposts(member), 0, -1)
    read = pipe.execute()
    now_ms = int(time.time() * 1000)
    pipe = r.pipeline(transaction=False)  # one slot: uid's
    profiles = zip(members, read[::3], read[1::3], read[2::3], strict=True)
    for member, status_ids, replies, reposts in profiles:
        marked = list_statuses_marked(status_ids, replies, reposts)
        if marked:
            scripts.list_fill.queue(
                pipe, uid=uid, member=member, action="fill", now_ms=now_ms, lid="",
                marked_ids=marked,
            )  # fmt: skip
    return sum(pipe.execute())

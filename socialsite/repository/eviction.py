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
  drops each one's keys.home, keys.home_reposts and list timelines and notes them in
  keys.evicted_homes, in the same step as it checks the seen day again: a person who
  comes back meanwhile keeps their home. The mark, not a missing key, says "evicted":
  an empty or new home has no key either. Someone never seen (no request since the
  sweep began to run) is not swept.
- **Rebuilt.** Every home and list page reads the mark with its ids, in the same round
  trip (``queue_state``). A page that finds it calls ``rebuild``: rebuild_home.lua takes
  the mark off and holds the rebuild in the same step (concurrent first pages wait for
  the one that holds it), then timelines.refill_home fills the home from the followed
  accounts' profiles, the code an unfollow's refill runs (the reply rule, blocks and
  mutes, reposts by the dedupe rules of backfill.lua), and lists.refill_lists each list
  from its members' profiles (list_fill.lua, as adding a member does). Deliveries reach
  the home again from the moment the mark goes, before the profiles are read, so a
  status is either delivered or read. Then the page reads its ids again.
"""

import time

from . import keys, scripts

# How precisely "seen" is kept: one write a day per person at most.
SEEN_EVERY_SECONDS = 24 * 3600

# How long a rebuild holds off concurrent first pages before another may start over
# (the holder died). A rebuild of 7,500 follows takes well under a second (docs/scale.md).
REBUILD_HOLD_MS = 30_000

# People swept per round trip: read from a shard's keys.seen, then evicted in a pipeline.
_SWEEP_CHUNK = 500

# {uid: the day this process noted them seen}; forgotten whole when it grows this big.
_noted = {}
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
    """Note ``uid`` seen on ``now``'s day in a round trip of its own (tests, seeding)."""
    r.zadd(keys.seen(uid), {int(uid): seen_day(now)}, gt=True)


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
    for seen_key in keys.all_seen():
        while True:
            uids = r.zrangebyscore(seen_key, "-inf", f"({cutoff}", start=0, num=_SWEEP_CHUNK)
            if not uids:
                break
            pipe = r.pipeline(transaction=False)  # one shard: one slot
            for uid in uids:
                scripts.evict_home.queue(pipe, uid=int(uid), seen_before=cutoff)
            evicted += sum(pipe.execute())
            if len(uids) < _SWEEP_CHUNK:
                break
    return evicted


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
    # Imported here: the pages' modules read through page_read, and their refills are
    # what rebuilds.
    from . import lists, timelines

    try:
        timelines.refill_home(r, uid)
        lists.refill_lists(r, uid)
    finally:
        scripts.rebuild_home(r, uid=uid, action="end", now_ms=now_ms, until_ms=int(until))
    return "rebuilt"

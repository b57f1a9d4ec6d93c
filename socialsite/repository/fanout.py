"""Fan-out: putting statuses into followers' home timelines, and taking them out.

Posting delivers to the first ``inline_limit`` followers (the book's 1000) within the
request. The rest is deferred work on the jobs stream (jobs.py), run by worker.py in
``manage.py fanout`` workers:

1. The request queues one *plan* job covering follow scores (after, upto]: above the
   last inline follower, up to the newest follower at posting time.
2. A worker turns a plan into *deliver* jobs of about FANOUT_BATCH_SIZE followers
   each: it reads the follow score found every FANOUT_BATCH_SIZE ranks and cuts
   (after, upto] at those scores. Follow scores are unique per list (add_edge.lua),
   so the ranges are disjoint and cover everyone once. A plan makes at most
   PLAN_BATCHES_PER_JOB deliver jobs and queues a plan for the rest, so each job is
   short whatever the number of followers.
3. Any worker runs any deliver job. Many workers share one fan-out.

Why this delivers exactly once to every follower at posting time:
- someone who follows later gets a score above ``upto``: no range includes them (the
  follow's backfill copies the status from the profile instead);
- someone who unfollows while their batch is being delivered is skipped: unfollow.lua
  notes them in keys.unfollowed in the same step as it cleans their home timeline,
  and deliver.lua reads that note in the same step as the SADD;
- a job that runs twice (its worker died before completing it) repeats SADDs of ids
  already in the set, which change nothing.

Followers who block the author, are blocked by them or mute them are skipped the same
way: set_block.lua and set_mute.lua note them in keys.hiding, in the slot of their
home timeline, and deliver.lua reads that note in the same step as the SADD.

A reply reaches only the followers who also follow the user it replies to, or are
them (Mastodon's rule); deliver.lua checks that for replies alone.

Deleting a status queues the same kind of plan with *remove* jobs, which take the id
out of followers' home timelines (the book's "zombie" exercise). Readers skip ids
whose status hash is gone, so nobody sees a deleted status while that runs.

Pulled accounts (decision 0054). An account with FANOUT_PULL_FOLLOWERS followers or
more is *pulled*: its statuses go into keys.pulled_statuses, in its own slot, and
nobody's home; each follower's page merges them when read (timelines.py), in a
constant number of round trips. add_own_status.lua decides the path in the step that
puts the status on the profile, so every status is either delivered or pulled:
- before its first pulled status, the account is registered in every shard's copy of
  keys.pulled_accounts (register_pulled), which home_page.lua reads in the reader's
  slot, so a reader never misses a pulled status for not knowing the account yet;
- it becomes pushed again only below FANOUT_PUSH_BELOW_SHARE of the threshold (no
  switching back and forth at every follow), and stays registered: the statuses it
  posted while pulled are still merged, the ones after are delivered. A status is
  read from one place or the other, or both (a page shows an id once), never neither.

Pulled communities (communities.py) are merged the same way, for the members who keep
them in their home: each is the source ``-cid`` (keys.community_pulled, its copies
keys.pulled_copy(uid, -cid)), found by home_page.lua in keys.pulled_communities and
the reader's keys.memberships.
"""

import time

from . import keys, scripts
from .limits import (
    FANOUT_BATCH_SIZE,
    FANOUT_PUSH_BELOW_SHARE,
    PLAN_BATCHES_PER_JOB,
    PULLED_COPY_SIZE,
)

# --- the path: pushed or pulled ----------------------------------------------------------

# add_own_status.lua's third answer.
PUSHED, PULLED, TO_REGISTER = 0, 1, 2


def pull_thresholds(pull_followers):
    """add_own_status's ``pull_at`` and ``push_below`` for a FANOUT_PULL_FOLLOWERS of
    ``pull_followers`` (0: never pulled)."""
    pull_at = max(0, int(pull_followers))
    return {"pull_at": pull_at, "push_below": int(pull_at * FANOUT_PUSH_BELOW_SHARE)}


def register_pulled(r, uid):
    """Note ``uid`` in every shard's keys.pulled_accounts, then let its next post be
    pulled (keys.FANOUT_PATH_FIELD "ready"); one round trip (one per node on a cluster)
    and one command. Idempotent: posting asks again until it is done."""

    def fill(pipe):
        for key in keys.all_pulled_accounts():
            pipe.sadd(key, uid)

    scripts.run_pipeline(r, fill)
    r.hsetnx(keys.user(uid), keys.FANOUT_PATH_FIELD, "ready")


def queue_copy(pipe, author_uid, sid, member):
    """Queue the copying of pulled status ``sid`` (``member``, as keys.pulled_statuses
    holds it) into every shard's keys.pulled_copy of ``author_uid``, each kept to its
    newest PULLED_COPY_SIZE. Idempotent."""
    for key in keys.all_pulled_copies(author_uid):
        pipe.zadd(key, {member: sid})
        pipe.zremrangebyrank(key, 0, -(PULLED_COPY_SIZE + 1))


def copy_pulled(r, author_uid, sid, member):
    """queue_copy's writes, now: one round trip (one per node on a cluster)."""
    scripts.run_pipeline(r, lambda pipe: queue_copy(pipe, author_uid, sid, member))


def queue_uncopy(pipe, author_uid, sid):
    """Queue taking status ``sid`` out of every shard's copy of ``author_uid``'s pulled
    statuses (a deletion: pages skip it by the deletion notes meanwhile)."""
    for key in keys.all_pulled_copies(author_uid):
        pipe.zremrangebyscore(key, sid, sid)


def refill_copies(r, author_uid):
    """After queue_uncopy's writes: put the status now PULLED_COPY_SIZE-th newest of
    ``author_uid``'s pulled statuses back into every shard's copy, each kept to its
    newest PULLED_COPY_SIZE. A copy is read as the account's whole list while it holds
    fewer (home_page.lua merges nothing older than it then), so a copy that lost a status
    must be full again whenever the account has older ones. One read and one round trip
    (one per node on a cluster); idempotent."""
    below = r.zrevrange(
        pulled_source(author_uid), PULLED_COPY_SIZE - 1, PULLED_COPY_SIZE - 1,
        withscores=True,
    )  # fmt: skip
    if below:
        member, sid = below[0]
        copy_pulled(r, author_uid, int(sid), member)


def pulled_source(author):
    """The list of pulled statuses of the merge's source ``author``: a pulled account's
    keys.pulled_statuses, or for a negative id, pulled community -author's
    keys.community_pulled (communities.py)."""
    author = int(author)
    if author < 0:
        return keys.community_pulled(-author)
    return keys.pulled_statuses(author)


def forget_community_status(r, cid, sid):
    """Take status ``sid`` out of community ``cid``'s pulled statuses and their copies
    (it left the community, or was deleted), the copies filled again from older ones
    (refill_copies). One round trip when the community was never pulled."""
    if not r.hget(keys.community(cid), keys.COMMUNITY_PULLED_FIELD):
        return

    def fill(pipe):
        pipe.zremrangebyscore(keys.community_pulled(cid), int(sid), int(sid))
        queue_uncopy(pipe, -int(cid), int(sid))

    scripts.run_pipeline(r, fill)
    refill_copies(r, -int(cid))


def pulled_member(sid, author_uid, replied_to_uid=None):
    """How keys.pulled_statuses holds status ``sid``: its id, or "<id>:<uid>" for a reply
    to another user (add_own_status.lua writes the same)."""
    if replied_to_uid is None or int(replied_to_uid) == int(author_uid):
        return str(sid)
    return f"{sid}:{replied_to_uid}"


def pulled_counts(r):
    """How many accounts are pulled now, how many are registered (pulled now or once:
    their pulled statuses are still merged) and how many pulled statuses they hold, as
    numbers (manage.py timelines status; metrics)."""
    accounts = pulled_accounts(r)
    return {
        "pulled_accounts": sum(1 for a in accounts.values() if a["path"] == "pulled"),
        "registered_accounts": len(accounts),
        "pulled_statuses": sum(a["statuses"] for a in accounts.values()),
    }


def pulled_repost_member(rid, orig_sid, orig_uid):
    """How keys.pulled_statuses holds repost ``rid`` of ``orig_sid`` by ``orig_uid``
    (add_repost.lua writes the same)."""
    return f"{rid}:{orig_sid}:{orig_uid}"


def pulled_accounts(r):
    """The registered pulled accounts, with their path now ("pulled", or "ready": pushed
    again, or not yet pulled), follower counts and statuses held in keys.pulled_statuses,
    as {uid: {"path", "followers", "statuses"}} (manage.py timelines status; metrics).
    Two round trips."""
    uids = sorted(int(uid) for uid in r.smembers(keys.pulled_accounts(0)))
    pipe = r.pipeline(transaction=False)
    for uid in uids:
        pipe.hget(keys.user(uid), keys.FANOUT_PATH_FIELD)
        pipe.zcard(keys.followers(uid))
        pipe.zcard(keys.pulled_statuses(uid))
    read = pipe.execute() if uids else []
    return {
        uid: {"path": path or "pushed", "followers": followers, "statuses": held}
        for uid, path, followers, held in zip(uids, read[::3], read[1::3], read[2::3], strict=True)
    }


# --- reading: pulled statuses merged into a page (timelines.py, lists.py) -----------------


class Merged:
    """What merge_pulled found: the page's ids (delivered and pulled, newest first, at
    most the page's count), the next page's cursor, the pulled ids among them, and of
    those the ones the reader likes and reposted."""

    def __init__(
        self, ids, next_cursor, pulled=frozenset(), liked=frozenset(), reposted=(), through=None
    ):
        self.ids, self.next_cursor, self.pulled = ids, next_cursor, pulled
        self.liked, self.reposted = liked, set(reposted)
        # Pulled reposts on the page: {repost id: (original, reposter, 0)}, as
        # home_page.lua gives delivered ones.
        self.through = through or {}


def merged_page(r, uid, ids, merged, before, count, marks=False, with_reposts=None):
    """The Merged page of ``ids`` (up to count + 1, as home_page.lua returned them with
    ``merged``, its last answer, for a page below ``before``): the pulled statuses are
    in them already, unless a page this deep needs the pulled accounts' own lists
    (merge_pulled: two more round trips)."""
    state, floor, authors, on_page = merged
    if state == "fallback":
        authors = [int(author) for author in authors]
        return merge_pulled(r, uid, ids, authors, before, count, marks, with_reposts)
    if len(ids) > count:
        next_cursor = ids[count - 1]
    else:  # a short page: the next goes on below the lowest id it was sure of
        next_cursor = int(floor) if floor else None
    return Merged(ids[:count], next_cursor, frozenset(int(sid) for sid in on_page))


# How many reads a page read upward makes at most (read_upward): past stretches of
# entries it does not show, and below a page the merge cut short.
UPWARD_TRIES = 4


def read_upward(r, uid, read, before, count, above, marks=False, with_reposts=None):
    """A home or list page read upward from ``above`` (the client API's min_id): the
    ``count`` entries just above it. ``read(before, above, merge)`` reads home_page.lua's
    answer (``count`` ids below ``before``; with ``above``, starting where every entry
    above it is on the page, and one more answer, last; ``merge``: the pulled accounts
    merged). Returns (its answer, without that last one, with a merge's answer last; the
    Merged page of ids; ``above`` as read), or None when ``read`` found no page (a list
    gone). One round trip, most often.

    When a pulled account's copy does not reach down to ``above``, where the page starts
    comes from the accounts' own lists (upward_start) and the page is merged from them
    (merge_pulled). A merged page may stop above some entries it did not read (its
    cursor, above ``above``): the entries below it are read instead, the lowest. A
    stretch of entries the page shows none of is read past (``above`` moves up)."""
    kept, first_before, top = None, before, None
    for _ in range(UPWARD_TRIES):
        found = _read_upward_once(r, uid, read, before, count, above, marks, with_reposts)
        if found is None:
            return None
        reply, merged, page_before = found
        if top is None:
            top = page_before  # once read below it, all up to it is read
        shows = any(sid > above for sid in merged.ids)
        if shows:
            kept = (reply, merged, above)  # a page further down replaces it
        if merged.next_cursor is not None and merged.next_cursor > above + 1:
            before = merged.next_cursor  # cut short: what it did not read, below it
        elif kept is not None:
            return kept  # read down to ``above``: the lowest page that shows any
        elif top == first_before:
            return reply, merged, above  # read up to the top: nothing above ``above``
        else:
            # Everything up to ``top`` is read, none of it shown: on from there.
            above, before, top = top - 1, first_before, None
    return kept or (reply, merged, above)


def _read_upward_once(r, uid, read, before, count, above, marks, with_reposts):
    """read_upward's one read: (the answer, the Merged page, the cursor it is below)."""
    reply = read(before, above, True)
    if reply is None:
        return None
    *reply, (moved, delivered, short) = reply
    state, _, authors, _ = reply[-1]
    if short or state == "fallback":
        authors = [int(author) for author in authors]
        start = upward_start(r, uid, authors, delivered, above, before, count)
        page_before = start + 1 if start is not None else before
        reply = read(page_before, None, False)
        if reply is None:
            return None
        reply = [*reply, ("fallback", "", authors, [])]
    else:
        page_before = int(moved) if moved else None
    ids = [int(sid) for sid in reply[0]]
    return (
        reply,
        merged_page(r, uid, ids, reply[-1], page_before, count, marks, with_reposts),
        (page_before),
    )


def upward_start(r, uid, authors, delivered, above, before, count):
    """Where a page read upward from ``above`` starts when a pulled account's copy does
    not reach down to it: the ``count``-th lowest id above ``above`` and below ``before``
    among ``delivered`` (the timeline's, lowest first, as home_page.lua counted them) and
    the statuses of the pulled accounts ``authors`` that the page shows (not replies to
    people ``uid`` does not follow, not deleted: asked in ``uid``'s slot); at most the last
    id read of an account read to its limit. None when there are fewer (the page starts
    at ``before``). Two round trips."""
    top = f"({int(before)}" if before is not None else "+inf"
    wanted = 2 * count + 8  # room for some the rules leave out

    def read_pulled(pipe):
        for author in authors:
            pipe.zrangebyscore(pulled_source(author), f"({int(above)}", top, 0, wanted)

    members, ceiling = [], None
    for read in scripts.run_pipeline(r, read_pulled):
        parsed = [[int(part) for part in member.split(":")] for member in read]
        members += parsed
        if len(read) >= wanted:
            ceiling = parsed[-1][0] if ceiling is None else min(ceiling, parsed[-1][0])
    uid = int(uid)
    # A reply to someone else: shown only if ``uid`` follows them (the reply rule).
    replied = sorted({rest[0] for _, *rest in members if len(rest) == 1 and rest[0] != uid})
    sids = [sid for sid, *_ in members]
    found = {int(sid) for sid in delivered}
    if sids:

        def ask(pipe):  # the reader's slot
            pipe.zmscore(keys.deleted_statuses(uid), sids)
            if replied:
                pipe.zmscore(keys.following(uid), replied)

        deleted, *following = scripts.run_pipeline(r, ask)
        followed = set()
        if following:
            followed = {to for to, score in zip(replied, following[0], strict=True) if score}
        for (sid, *rest), gone in zip(members, deleted, strict=True):
            ruled_out = len(rest) == 1 and rest[0] != uid and rest[0] not in followed
            if gone is None and not ruled_out:
                found.add(sid)
    lowest = sorted(found)
    start = lowest[count - 1] if len(lowest) >= count else None
    if ceiling is not None and (start is None or ceiling < start):
        start = ceiling
    return start


def merge_pulled(r, uid, ids, authors, before, count, marks=False, with_reposts=None):
    """Merge the statuses of the pulled accounts ``authors`` (followed by ``uid``, not
    hidden) into ``ids``: up to count + 1 ids read from ``uid``'s timeline below
    ``before``, newest first. Returns a Merged. home_page.lua does this from the copies
    in the reader's slot; this reads the accounts' own lists, for pages deeper than the
    copies reach.

    Each author's newest count + 1 pulled ids below ``before`` are read (one round trip
    for all). Only ids at or above the highest of the lowest ids of the sources that
    had more to give are sure to be in order with everything not read: the page is cut
    there, and when that leaves it short, the cursor is that id (the next page goes on
    below it: nothing is skipped, nothing is shown twice). A reply by a pulled author
    to someone else is kept only if ``uid`` follows them (the delivery's reply rule); a
    repost only if ``uid``'s home (``with_reposts``: keys.home_reposts' owner's home;
    None for a list, which holds no reposts) shows its original neither itself nor
    through another repost, the earliest of several, and not of ``uid``'s own status.
    Both asked in ``uid``'s slot with, for ``marks``, which of the pulled ids ``uid``
    likes and reposted: one more round trip, only when pulled ids are on the page.
    """
    floor = ids[-1] if len(ids) > count else None
    if not authors:
        return Merged(ids[:count], ids[count - 1] if len(ids) > count else None)
    top = f"({int(before)}" if before is not None else "+inf"

    def read_pulled(pipe):
        for author in authors:
            pipe.zrevrangebyscore(pulled_source(author), top, "-inf", start=0, num=count + 1)

    pulled, replied, reposts_of = set(), {}, {}
    for author, read in zip(authors, scripts.run_pipeline(r, read_pulled), strict=True):
        if len(read) > count:
            lowest = int(read[-1].split(":")[0])
            floor = lowest if floor is None else max(floor, lowest)
        for member in read:
            sid, *rest = (int(part) for part in member.split(":"))
            if len(rest) == 2:  # a repost: its original and the original's author
                orig, orig_author = rest
                if with_reposts and orig_author != int(uid):
                    earlier = reposts_of.get(orig)
                    if earlier is None or sid < earlier[0]:
                        reposts_of[orig] = (sid, int(author))
                continue
            pulled.add(sid)
            if rest and rest[0] != int(uid):
                replied[sid] = rest[0]
    delivered = set(ids)
    pulled = {sid for sid in pulled - delivered if floor is None or sid >= floor}
    reposts_of = {
        orig: repost for orig, repost in reposts_of.items()
        if orig not in pulled and orig not in delivered and repost[0] not in delivered
        and (floor is None or repost[0] >= floor)
    }  # fmt: skip
    pulled |= {rid for rid, _ in reposts_of.values()}
    ordered = sorted((sid for sid in delivered | pulled if floor is None or sid >= floor),
                     reverse=True)  # fmt: skip
    # Only the pulled ids that can be on this page are asked about.
    asked = [sid for sid in ordered[: count + len(replied) + len(reposts_of)] if sid in pulled]
    replied = {sid: replied[sid] for sid in asked if sid in replied}
    originals = {rid: orig for orig, (rid, _) in reposts_of.items() if rid in asked}
    liked, reposted, through = frozenset(), set(), {}
    if replied or originals or (asked and marks):
        targets = sorted(set(replied.values()))
        shown = [originals.get(sid, sid) for sid in asked]
        wanted = sorted(set(originals.values()))

        def ask(pipe):  # the reader's slot
            if targets:
                pipe.zmscore(keys.following(uid), targets)
            if wanted:
                pipe.smismember(keys.home(uid), wanted)
                pipe.hmget(keys.home_reposts(uid), wanted)
            if marks:
                pipe.zmscore(keys.user_likes(uid), shown)
                pipe.zmscore(keys.reposted(uid), shown)

        answers = scripts.run_pipeline(r, ask)
        unseen = set()
        if targets:
            followed = {t for t, score in zip(targets, answers.pop(0), strict=True) if score}
            unseen |= {sid for sid, to in replied.items() if to not in followed}
        if wanted:
            in_home, through_home = answers.pop(0), answers.pop(0)
            there = {o for o, a, b in zip(wanted, in_home, through_home, strict=True) if a or b}
            unseen |= {rid for rid, orig in originals.items() if orig in there}
            for orig, (rid, reposter) in reposts_of.items():
                if rid in originals and orig not in there:
                    through[rid] = (orig, reposter, 0)
        ordered = [sid for sid in ordered if sid not in unseen]
        if marks:
            liked = frozenset(s for s, score in zip(shown, answers[0], strict=True) if score)
            reposted = {s for s, score in zip(shown, answers[1], strict=True) if score}
    if len(ordered) > count:
        next_cursor = ordered[count - 1]
    else:
        next_cursor = floor
    ids = ordered[:count]
    on_page = set(ids)
    through = {rid: seen for rid, seen in through.items() if rid in on_page}
    return Merged(ids, next_cursor, frozenset(pulled & on_page), liked, reposted, through)


# --- the work itself -------------------------------------------------------------------


def deliver(r, author_uid, sid, follower_uids, replied_to=None):
    """Put status ``sid`` into the home timelines of ``follower_uids``; one round trip.

    Followers are grouped by shard: each group's keys share a cluster slot, so one
    call of deliver.lua serves the whole group. A batch of 1000 followers costs at
    most USER_SHARDS script calls instead of 1000, which is most of the fan-out's
    speed. Returns how many were delivered (followers who unfollowed meanwhile, and
    those who block, are blocked by or mute the author, are skipped).

    ``replied_to``: for a reply to someone other than its author, that user's id: the
    reply reaches only the followers who follow them too, or are them (deliver.lua
    reads each follower's following list, which shares their home's slot). Any other
    status costs what it did before replies existed.
    """
    groups = keys.same_shard_groups(follower_uids)
    if not groups:
        return 0
    now_ms = int(time.time() * 1000)

    def fill(pipe):
        for followers in groups:
            scripts.deliver.queue(
                pipe, author=author_uid, sid=sid, followers=followers, now_ms=now_ms,
                replied_to=replied_to,
            )  # fmt: skip

    return sum(scripts.run_pipeline(r, fill))


def deliver_repost(r, reposter_uid, rid, orig_sid, orig_uid, follower_uids):
    """Put repost ``rid`` (by ``reposter_uid`` of status ``orig_sid`` by ``orig_uid``)
    into the home timelines of ``follower_uids``, one script call per shard group as
    ``deliver``; each home decides in that same step whether it gets a new entry or
    shows the original already (deliver_repost.lua, lua/_reposts.lua). Returns how
    many homes got a new entry."""
    groups = keys.same_shard_groups(follower_uids)
    if not groups:
        return 0
    now_ms = int(time.time() * 1000)

    def fill(pipe):
        for followers in groups:
            scripts.deliver_repost.queue(
                pipe, reposter=reposter_uid, rid=rid, orig=orig_sid, orig_author=orig_uid,
                followers=followers, now_ms=now_ms,
            )  # fmt: skip

    return sum(scripts.run_pipeline(r, fill))


def remove_repost(r, rid, orig_sid, orig_uid, reposter_uid, follower_uids, purge=False):
    """Take repost ``rid`` out of the home timelines of ``follower_uids`` by the dedupe
    rules (remove_repost.lua): the original stays where another followed reposter or
    its followed author still brings it. ``purge``: the original is deleted, and goes
    with every repost of it. One round trip."""
    groups = keys.same_shard_groups(follower_uids)
    if not groups:
        return 0

    def fill(pipe):
        for followers in groups:
            scripts.remove_repost.queue(
                pipe, rid=rid, orig=orig_sid, orig_author=orig_uid, reposter=reposter_uid,
                followers=followers, purge=purge,
            )  # fmt: skip

    return sum(scripts.run_pipeline(r, fill))


def remove(r, sid, follower_uids, author_uid=None):
    """Take status ``sid`` out of the home timelines of ``follower_uids``, one pipeline;
    with ``author_uid``, out of their named lists too (lists.py: one call of
    list_remove_status.lua per shard group, one EXISTS where nobody lists the author)."""
    if not follower_uids:
        return 0

    def fill(pipe):
        for follower in follower_uids:
            pipe.srem(keys.home(follower), sid)
        if author_uid is not None:
            for group in keys.same_shard_groups(follower_uids):
                scripts.list_remove_status.queue(pipe, sid=sid, author=author_uid, followers=group)

    return sum(scripts.run_pipeline(r, fill)[: len(follower_uids)])


def _score_bound(score, exclusive=False):
    if score is None:
        return "-inf"
    return f"({score}" if exclusive else str(score)


def followers_in_range(r, uid, after, upto, count):
    """Up to ``count`` follower ids with follow scores in (after, upto], oldest first,
    in one round trip; and, if the range holds more, the score of the last id read (to
    resume from), else None."""
    return followers_in_ranges(r, uid, [(after, upto)], count)[0]


def followers_in_ranges(r, uid, ranges, count):
    """``followers_in_range`` for several (after, upto) ranges, in one round trip.

    Scores are not read for the whole batch: parsing 1000 of them took longer than
    delivering to the batch. Only the last id's and the next one's are read: a planned
    range holds exactly ``count`` followers, and seeing that nothing follows spares a
    second read. One MULTI (all on one key, so one slot) makes them belong to the same
    state of the list as the ids.
    """
    key = keys.followers(uid)
    pipe = r.pipeline(transaction=True)
    for after, upto in ranges:
        low = _score_bound(after, exclusive=True)
        high = _score_bound(upto) if upto is not None else "+inf"
        pipe.zrangebyscore(key, low, high, start=0, num=count)
        pipe.zrangebyscore(key, low, high, start=count - 1, num=2, withscores=True)
    replies = pipe.execute()
    found = []
    for members, tail in zip(replies[::2], replies[1::2], strict=True):
        resume_after = int(tail[0][1]) if len(tail) == 2 else None  # None: no more
        found.append(([int(member) for member in members], resume_after))
    return found


# --- jobs --------------------------------------------------------------------------------


def plan_job(action, author_uid, sid, after, upto):
    """A job that splits followers with scores in (after, upto] into ``action`` jobs."""
    return {"kind": "plan", "action": action, "author": author_uid, "sid": sid,
            "after": after, "upto": upto}  # fmt: skip


def refill_job(uid):
    """A job that tops the home timeline of ``uid`` up again (after an unfollow)."""
    return {"kind": "refill", "uid": uid}


def plan(r, job):
    """Cut a plan job's score range at every FANOUT_BATCH_SIZE-th follower; return jobs.

    Two ZCOUNTs give the rank where the range starts and how many it holds; then one
    MULTI reads the score at each cut's rank (ZRANGE by rank is O(log n), where an
    offset would walk the list). If the list changed in between, the cuts land a few
    followers off, which only makes some batches a little bigger or smaller: ranges
    are defined by scores, so they still cover (after, upto] exactly once.
    """
    key, after, upto = keys.followers(job["author"]), job["after"], job["upto"]
    pipe = r.pipeline(transaction=False)
    pipe.zcount(key, "-inf", _score_bound(after))  # 0 when after is None
    pipe.zcount(key, _score_bound(after, exclusive=True), upto)
    first_rank, size = pipe.execute()
    # Only ranks inside the range can hold a cut: a post to 1,500 followers reads none.
    reads = min(PLAN_BATCHES_PER_JOB, size // FANOUT_BATCH_SIZE)
    found = []
    if reads:
        pipe = r.pipeline(transaction=True)
        for k in range(1, reads + 1):
            rank = first_rank + k * FANOUT_BATCH_SIZE - 1
            pipe.zrange(key, rank, rank, withscores=True)
        found = [int(pairs[0][1]) for pairs in pipe.execute() if pairs]
    cuts = [score for score in found if (after is None or score > after) and score < upto]
    work, start = [], after
    for cut in cuts:
        work.append({**job, "kind": job["action"], "after": start, "upto": cut})
        start = cut
    if len(found) == PLAN_BATCHES_PER_JOB and cuts and cuts[-1] == found[-1]:
        work.append({**job, "after": start})  # more than one plan's worth: plan the rest later
    else:
        work.append({**job, "kind": job["action"], "after": start, "upto": upto})
    return work


def deliver_range(r, job):
    """Deliver ``job['sid']`` to the author's followers with scores in the job's range."""
    return deliver_ranges(r, [job])


def deliver_ranges(r, same_status_jobs):
    """Run deliver jobs of one status together: one read of all their followers, one
    delivery to them all.

    Each job is a batch of FANOUT_BATCH_SIZE followers, but a delivery pays a fixed
    cost per script call (up to USER_SHARDS a batch) in redis-py and in Redis; a
    worker that takes JOBS_PER_STEP batches of one fan-out delivers them with about
    as many calls as one (manage.py bench_fanout measures it).
    """
    author, sid = same_status_jobs[0]["author"], same_status_jobs[0]["sid"]
    # The author's id says that the status exists; who it replies to, whom to check
    # followers against; for a repost, its original (the hash never changes, so it is
    # read once per step).
    fields = ["uid", "in_reply_to_uid", "repost_of", "repost_of_uid"]
    posted_by, replied_to, repost_of, repost_of_uid = r.hmget(keys.status(sid), fields)
    if posted_by is None:
        return []  # deleted meanwhile: delivering would only plant ids to clean up
    if replied_to is not None and int(replied_to) == int(posted_by):
        replied_to = None  # a reply to oneself reaches every follower

    def act(batch):
        if repost_of is not None:
            deliver_repost(r, author, sid, int(repost_of), int(repost_of_uid), batch)
        else:
            deliver(r, author, sid, batch, replied_to)

    ranges = [(job["after"], job["upto"]) for job in same_status_jobs]
    found = followers_in_ranges(r, author, ranges, FANOUT_BATCH_SIZE)
    act([uid for batch, _ in found for uid in batch])
    for job, (_, resume_after) in zip(same_status_jobs, found, strict=True):
        if resume_after is not None:  # a range bigger than a batch: go on with the rest
            _each_batch(r, {**job, "after": resume_after}, act)
    return []


def remove_range(r, job):
    """Take ``job['sid']`` out of the homes of the followers in the job's range."""
    _each_batch(r, job, lambda batch: remove(r, job["sid"], batch, job["author"]))
    return []


def unrepost_job(reposter_uid, rid, orig_sid, orig_uid, after, upto, purge=False):
    """A plan job that takes repost ``rid`` out of the homes of its reposter's followers
    with scores in (after, upto] (unrepost jobs; ``purge``: the original is deleted)."""
    return {**plan_job("unrepost", reposter_uid, rid, after, upto),
            "orig": orig_sid, "orig_uid": orig_uid, "purge": bool(purge)}  # fmt: skip


def unrepost_range(r, job):
    """Take repost ``job['sid']`` out of the homes of the followers in the job's range."""
    rid, orig, orig_uid, reposter = job["sid"], job["orig"], job["orig_uid"], job["author"]
    _each_batch(
        r, job, lambda batch: remove_repost(r, rid, orig, orig_uid, reposter, batch, job["purge"])
    )
    return []


def _each_batch(r, job, act):
    """Call ``act(follower ids)`` for each batch of the job's range, oldest first.

    A range planned at about FANOUT_BATCH_SIZE followers is one batch; the loop is for
    ranges that are bigger (jobs from an older version, a replayed dead letter).
    """
    after = job["after"]
    while True:
        batch, resume_after = followers_in_range(
            r, job["author"], after, job["upto"], FANOUT_BATCH_SIZE
        )
        if batch:
            act(batch)
        if resume_after is None:  # nothing past this batch
            return
        after = resume_after

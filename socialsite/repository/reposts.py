"""Reposts: a user puts someone's status, as it is, on their profile and into their
followers' home timelines; and undoes it.

A repost is a status of its own: ``status:<rid>`` holds id, uid and login (the
reposter), posted, ``repost_of`` (the original's id) and ``repost_of_uid`` (its
author), with an id from keys.STATUS_IDS, so that it sorts at the repost's time on the
profile and in every home timeline. Bodies never change; pages show the original.

Where its parts live, each changed by one script in one slot:
- the original's slot: keys.reposts (who reposted) and the ``reposts`` count of
  keys.status_counts, together (status_count.lua): exact under concurrency, refused
  once the original is deleted;
- the reposter's slot: keys.reposted (original -> repost id: a second repost of the
  same status is a no-op, and undo finds the repost), the profile and
  keys.profile_reposts, and the unfinished-post note (add_repost.lua);
- each follower's slot: the home timeline and keys.home_reposts, by the dedupe rules
  of lua/_reposts.lua: a home shows an original once over all its entries.

A repost is delivered by the fan-out machinery of posts (fanout.deliver_repost: inline
for the first ``inline_limit`` followers, plan and deliver jobs for the rest, the sweep
of unfinished posts for a request that died); undoing it takes it out the same way
(fanout.remove_repost, "unrepost" jobs). Deleting the original (statuses.delete_status)
queues a "purge_reposts" job that undoes every repost of it, the original going with
them from every home.
"""

import enum
import time
from collections.abc import Iterable

from . import (
    affinity,
    events,
    fanout,
    jobs,
    keys,
    notifications,
    paging,
    scripts,
    statuses,
    users,
    visibility,
)
from .client import Client
from .limits import INLINE_FANOUT_LIMIT, NOTIFICATIONS_KEPT
from .records import Status


class RepostResult(enum.Enum):
    REPOSTED = "reposted"
    ALREADY_REPOSTED = "already reposted"
    UNREPOSTED = "unreposted"
    NOT_REPOSTED = "not reposted"
    # No such status, deleted, or one the reposter may not see (its author suspended or
    # leaving, private and not followed, blocking the reposter): all alike to them.
    NOT_FOUND = "not found"
    NOT_PUBLIC = "not public"  # a private account's status, seen by an approved follower
    BLOCKED = "blocked"  # the reposter blocks the author


def _now_ms():
    return int(time.time() * 1000)


def original_of(status: Status) -> int:
    """The id of the status a repost shows (the status's own id for any other)."""
    return int(status.get("repost_of") or status["id"])


def repost(
    r: Client,
    uid: int,
    sid: int,
    inline_limit: int = INLINE_FANOUT_LIMIT,
    notifications_kept: int = NOTIFICATIONS_KEPT,
) -> tuple[RepostResult, int | None]:
    """User ``uid`` reposts status ``sid`` (a repost of a repost reposts its original);
    return (a RepostResult, the original's id or None).

    1. One round trip: the status, the reposter's login, privacy, name, counts and
       signup (for the repost's event), a new id, and the blocks between the reposter
       and the author (both in the reposter's slot).
    2. The original's author read fresh (private, suspended, being deleted: refused; its
       name, counts and signup for the event); a status the reposter may not see is
       refused as NOT_FOUND, as one that is not there (one round trip more to tell a
       private account's follower, refused NOT_PUBLIC, from anyone else);
       then the repost counted in the original's slot (status_count.lua: refused if
       the status is gone; counted once per user).
    3. One round trip: the reposter's side (add_repost.lua: a no-op if reposted
       already), the author's notification, the repost noted among the recent public
       statuses (unless the reposter's account is private), the first ``inline_limit``
       followers.
    4. One round trip: the repost's hash (marked private if the reposter's account
       is); then its delivery (fanout.deliver_repost),
       the job for the followers past the inline ones, clearing the unfinished note,
       publishing it for the streaming API.
    Should the request die between 3 and 4, the workers' sweep of unfinished posts
    finishes it, or takes it back if its hash was never written (statuses.py).
    """
    uid, sid = int(uid), int(sid)
    pipe = r.pipeline(transaction=False)
    pipe.hgetall(keys.status(sid))
    pipe.hmget(keys.user(uid), ["private", keys.FANOUT_PATH_FIELD, *users.EVENT_AUTHOR_FIELDS])
    pipe.incr(keys.STATUS_IDS)
    pipe.zrange(keys.blocks(uid), 0, -1)
    pipe.zrange(keys.blocked_by(uid), 0, -1)
    data, (reposter_private, path, *reposter), rid, blocking, blocked_by = pipe.execute()
    login = reposter[0]
    status = statuses.decode_status(data)
    if status is None or login is None:
        return RepostResult.NOT_FOUND, None
    if status.get("repost_of"):
        # A repost of a repost reposts the original, if the reposter may see the
        # repost named (rare: its own author's visibility read apart).
        if str(status["uid"]) in blocked_by or not _sees_author(r, uid, status["uid"]):
            return RepostResult.NOT_FOUND, None
        orig, author = int(status["repost_of"]), int(status["repost_of_uid"])
    else:
        orig, author = status["id"], status["uid"]
    if str(author) in blocked_by:
        return RepostResult.NOT_FOUND, None  # their statuses are not there, to the reposter
    # Groups: a private community's status stays inside it, never reposted
    # (the original is the status read here, unless this was a repost of one).
    original = (
        status
        if not status.get("repost_of")
        else statuses.decode_status(r.hgetall(keys.status(orig))) or {}
    )
    if original.get(keys.STATUS_MEMBERS_ONLY_FIELD) == "1":
        if not visibility.members_only_shown(r, uid, [original]):
            return RepostResult.NOT_FOUND, None
        return RepostResult.NOT_PUBLIC, orig
    if str(author) in blocking:
        return RepostResult.BLOCKED, orig
    now = _now_ms()
    fields = ["private", keys.SUSPENDED_FIELD, keys.LEAVING_FIELD, *users.EVENT_AUTHOR_FIELDS]
    private, suspended, leaving, *author_fields = r.hmget(keys.user(author), fields)
    if author_fields[0] is None or suspended or leaving:
        return RepostResult.NOT_FOUND, None
    if private == "1" and author != uid:
        if not _sees_author(r, uid, author):
            return RepostResult.NOT_FOUND, None
        return RepostResult.NOT_PUBLIC, orig
    counted = scripts.status_count(r, sid=orig, uid=uid, kind="reposts", action="add", now_ms=now)
    if counted == -1:
        return RepostResult.NOT_FOUND, orig

    def fill(pipe):
        scripts.add_repost.queue(pipe, uid=uid, orig=orig, rid=rid, author=author, now_ms=now)
        if author != uid:
            event = notifications.member("repost", uid, orig, orig)
            notifications.queue_notify(pipe, author, event, now, notifications_kept)
            # The Top timeline's affinity (affinity.py), riding along.
            affinity.queue_bump(pipe, uid, author, "repost", now / 1000)
        if reposter_private != "1":
            # Among the recent public statuses, for the streaming API's catch-up: before
            # it is published (an id without a hash, should the request die, is skipped).
            events.queue_note_recent(pipe, rid)
        if path != "pulled":  # a pulled reposter's repost is delivered to nobody
            pipe.zrangebyscore(
                keys.followers(uid), "-inf", "+inf", start=0, num=inline_limit, withscores=True
            )

    written = scripts.run_pipeline(r, fill)
    rid, upto, pulled = written[0]
    followers = written[-1] if path != "pulled" and not pulled else []
    if not pulled and path == "pulled":  # pushed again since: the followers, now
        followers = r.zrangebyscore(
            keys.followers(uid), "-inf", "+inf", start=0, num=inline_limit, withscores=True
        )
    if upto == -2:
        return RepostResult.ALREADY_REPOSTED, orig
    repost_status = {
        "id": rid,
        "uid": uid,
        "login": login,
        "posted": time.time(),
        "repost_of": orig,
        "repost_of_uid": author,
        "message": "",
    }
    if reposter_private == "1":
        # Reposted while the reposter's account is private: as a status posted then, the
        # streaming API never sends it; live pages send it to their followers (privacy.py).
        repost_status["private"] = "1"
    r.hset(keys.status(rid), mapping=repost_status)  # type: ignore[arg-type]
    if pulled:
        # Merged into the followers' pages by the dedupe rules when read (fanout.py).
        fanout.copy_pulled(r, uid, rid, fanout.pulled_repost_member(rid, orig, author))
    fanout.deliver_repost(r, uid, rid, orig, author, [int(member) for member, _ in followers])
    if upto >= 0:
        last_inline = int(followers[-1][1]) if followers else None
        if last_inline is None or upto > last_inline:
            jobs.enqueue(r, fanout.plan_job("deliver", uid, rid, last_inline, upto))
    r.hdel(keys.unfinished_posts(uid), rid)
    original = _original_event(r, orig, users.event_author(author, author_fields))
    if original is not None:
        events.publish_posted(
            r,
            {**repost_status, "retweeted_status": original},
            users.event_author(uid, reposter),
        )
    return RepostResult.REPOSTED, orig


def _sees_author(r, uid, author_uid):
    """Whether ``uid`` may see the statuses of ``author_uid`` (the one rule:
    visibility.statuses_visibility, the author read fresh). One round trip."""
    return visibility.sees_statuses_of(uid, *visibility.author_and_relationship(r, uid, author_uid))


def _original_event(r, orig, author):
    """The original's hash with its ``author`` (users.event_author), as a repost's event
    carries it (``retweeted_status``, as Twitter sends a retweet): the streaming API
    sends it, the live pages show it."""
    found = statuses.get_statuses(r, [orig])
    if not found:
        return None
    status = dict(found[0])
    status.pop("replies", None)
    status["author"] = author
    return status


def unrepost(
    r: Client,
    uid: int,
    sid: int,
    inline_limit: int = INLINE_FANOUT_LIMIT,
    purge: bool = False,
    rid: int | None = None,
) -> RepostResult:
    """User ``uid`` undoes their repost of status ``sid`` (or of its original, for a
    repost); return a RepostResult.

    1. The reposter's side, with the newest follower's score (remove_own_repost.lua;
       nothing if not reposted: a repeat).
    2. The repost's hash read; uncounted in the original's slot, the author's
       notification taken back.
    3. Taken out of the first ``inline_limit`` followers' homes at once
       (fanout.remove_repost), the rest by "unrepost" jobs; the hash deleted and the
       deletion published (the streaming API's delete notice for the repost's id).
    ``purge``: the original is deleted (purge_reposts): the original leaves those
    homes too. ``rid``: undo only that repost (the sweep's take-back).
    """
    uid, sid = int(uid), int(sid)
    data = r.hgetall(keys.status(sid))
    orig = int(data["repost_of"]) if data.get("repost_of") else sid
    pipe = r.pipeline(transaction=False)
    scripts.remove_own_repost.queue(pipe, uid=uid, orig=orig, rid=rid)
    pipe.zrangebyscore(
        keys.followers(uid), "-inf", "+inf", start=0, num=inline_limit, withscores=True
    )
    pipe.zrange(keys.followers(uid), -1, -1, withscores=True)
    # A reposter who is or was pulled may have the repost copied into every shard.
    pipe.hget(keys.user(uid), keys.FANOUT_PATH_FIELD)
    removed, followers, newest, registered = pipe.execute()
    if not removed:
        return RepostResult.NOT_REPOSTED
    repost_data = statuses.decode_status(r.hgetall(keys.status(removed)))
    author = int(repost_data["repost_of_uid"]) if repost_data else None
    if author is None:
        author = int(data["uid"]) if orig == sid and data else 0

    def fill(pipe):
        if registered:
            fanout.queue_uncopy(pipe, uid, removed)
        scripts.status_count.queue(
            pipe, sid=orig, uid=uid, kind="reposts", action="remove", now_ms=_now_ms()
        )
        if author and author != uid:
            notifications.queue_unnotify(
                pipe, author, [notifications.member("repost", uid, orig, orig)]
            )

    scripts.run_pipeline(r, fill)
    if registered:
        fanout.refill_copies(r, uid)
    fanout.remove_repost(
        r, removed, orig, author, uid, [int(member) for member, _ in followers], purge
    )
    last_inline = int(followers[-1][1]) if followers else None
    if newest and (last_inline is None or int(newest[0][1]) > last_inline):
        upto = int(newest[0][1])
        jobs.enqueue(r, fanout.unrepost_job(uid, removed, orig, author, last_inline, upto, purge))
    r.delete(keys.status(removed))
    if repost_data is not None:
        events.publish_deleted(r, repost_data)
    return RepostResult.UNREPOSTED


# Reposters undone per round of purge_reposts_job.
_PURGE_CHUNK = 100


def purge_job(sid, author_uid):
    """The job that undoes every repost of the deleted status ``sid``."""
    return {"kind": "purge_reposts", "sid": int(sid), "author": int(author_uid)}


def purge_reposts(r, job):
    """Undo every repost of a deleted status (a worker's "purge_reposts" job): each
    reposter's repost leaves their profile and their followers' homes, and the
    original with it. Each reposter leaves keys.reposts once done, so a job run
    again goes on where it stopped; the list goes once empty. Returns follow-up jobs:
    itself again while reposters remain."""
    sid = job["sid"]
    reposters = r.zrange(keys.reposts(sid), 0, _PURGE_CHUNK - 1)
    for reposter in reposters:
        unrepost(r, int(reposter), sid, purge=True)
        r.zrem(keys.reposts(sid), reposter)
    if len(reposters) == _PURGE_CHUNK:
        return [job]
    r.delete(keys.reposts(sid), keys.status_counts(sid))
    return []


def undo_all_of(r, uid, budget):
    """Undo up to ``budget`` of ``uid``'s reposts (their account is being deleted);
    return how many. Once none is left, the account's repost keys go."""
    originals = r.zrange(keys.reposted(uid), 0, budget - 1)
    for orig in originals:
        unrepost(r, uid, int(orig))
    if len(originals) < budget:
        r.delete(keys.reposted(uid), keys.profile_reposts(uid), keys.home_reposts(uid))
    return len(originals)


def reposters_page(
    r: Client,
    sid: int,
    before: int | None = None,
    count: int = 30,
    since: int | None = None,
    above: int | None = None,
) -> paging.Page:
    """A page of the users who reposted status ``sid``, newest first, and a cursor
    (as graph.followers_page: hidden accounts are listed nowhere). ``since``, ``above``:
    the client API's paging, as paging.read_ids takes them."""
    pairs, next_cursor = paging.read_ids(r, keys.reposts(sid), before, count, since, above)
    found = users.get_users(r, [uid for uid, _ in pairs])
    shown = [found[uid] for uid, _ in pairs if uid in found and not users.is_hidden(found[uid])]
    return paging.Page(shown, next_cursor, prev_cursor=paging.top_cursor(pairs))


def repost_count(r: Client, sid: int) -> int:
    """The number of reposts of status ``sid`` (tests, maintenance)."""
    return int(r.hget(keys.status_counts(sid), "reposts") or 0)


def has_reposted(r: Client, uid: int, sid: int) -> bool:
    """Whether ``uid`` reposted status ``sid``."""
    return r.zscore(keys.reposted(uid), sid) is not None


def reposted_among(r: Client, uid: int | None, sids: Iterable[int]) -> set[int]:
    """The ids among ``sids`` that ``uid`` reposted (one ZMSCORE; none without ids)."""
    sids = [int(sid) for sid in sids]
    if uid is None or not sids:
        return set()
    # redis-py types the members as str; ints are sent as their digits.
    scores = r.zmscore(keys.reposted(uid), sids)  # type: ignore[arg-type]
    return {sid for sid, score in zip(sids, scores, strict=True) if score is not None}


# --- showing reposts on pages -------------------------------------------------------------


def with_headers(r, found, next_cursor, through, reposted, viewer_id):
    """A home page's statuses (originals) with their "reposted" headers: ``through``,
    {entry id: (original id, first reposter, others)} as home_page.lua gives it, keyed
    here by original; ``reposted``, the originals the viewer reposted. One round trip
    at most (the authors and reposters not shown lately)."""
    by_original = {orig: (reposter, others) for orig, reposter, others in through.values()}
    # Originals shown by a repost's entry (not their own): not if no longer public.
    via_repost = {orig for entry, (orig, _, _) in through.items() if entry != orig}
    reposters = [reposter for reposter, _ in by_original.values()]
    authors = users.get_authors(r, [status["uid"] for status in found] + reposters)
    shown = []
    for status in found:
        author = status["author"] = authors.get(status["uid"])
        if not author:
            continue
        if "private" in author and status["id"] in via_repost and author["id"] != viewer_id:
            continue
        header = by_original.get(status["id"])
        if header is not None:
            reposter = authors.get(header[0])
            if reposter is not None:
                status["reposted_by"] = reposter
                status["reposted_others"] = header[1]
        if status["id"] in reposted:
            status["viewer_reposted"] = True
        shown.append(status)
    return paging.Page(shown, next_cursor)


def shown_as_repost(repost, original, reposter):
    """How a page shows ``repost`` (a repost's hash): its ``original`` (with its
    author) under the header "↻ <reposter> reposted" (``reposted_by``, a user dict),
    ``repost_id`` naming the repost itself (what a report about the reposter names)."""
    return {**original, "reposted_by": reposter, "reposted_others": 0, "repost_id": repost["id"]}


def with_originals(r, found, next_cursor, viewer_id=None, reposted=None, viewer_likes=None):
    """A page's statuses (shown to ``viewer_id``: a profile, the public page, the report
    form) with each repost replaced by its original under the header
    "↻ <reposter> reposted" (shown_as_repost). One round trip more: the originals, and
    with a ``viewer_id`` which of them the viewer reposted, added to ``reposted``, and
    which they like, added to ``viewer_likes`` (a statuses.ViewerLikes); originals
    deleted, hidden from the viewer or no longer public are left out, and their reposts
    with them."""
    reposted = set() if reposted is None else reposted
    wanted = [original_of(s) for s in found if "repost_of" in s]
    # The caller decided the viewer may see the reposters (visibility.statuses_visibility,
    # shown_statuses, or their deliveries); the originals' authors (each repost names
    # its original's) are asked about, for this viewer, with the originals.
    owners = {status["uid"] for status in found}
    seen = visibility.Seen(
        viewer_id, {int(s["repost_of_uid"]) for s in found if "repost_of_uid" in s} - owners
    )
    if viewer_id is None:
        read = statuses.get_statuses(r, wanted, seen=seen)
    else:
        read, scores = statuses.get_statuses_and(
            r,
            wanted,
            lambda pipe: pipe.zmscore(keys.reposted(viewer_id), wanted),
            viewer_likes=viewer_likes,
            seen=seen,
        )
        reposted.update(sid for sid, score in zip(wanted, scores, strict=True) if score)
    # The page's and the originals' authors in one pipeline (often none: memory).
    authors = users.get_authors(r, [s["uid"] for s in found] + [s["uid"] for s in read])
    originals = {
        status["id"]: status
        for status in visibility.shown_statuses(r, viewer_id, read, checked=owners, seen=seen)
    }
    shown = []
    for status in found:
        if "repost_of" in status:
            reposter = authors.get(status["uid"])
            original = originals.get(original_of(status))
            if original is None or reposter is None:
                continue
            author = original["author"]
            if "private" in author and author["id"] != viewer_id:
                continue  # no longer public: reposts of it are shown nowhere
            status = shown_as_repost(status, original, reposter)
        else:
            status["author"] = authors.get(status["uid"])
        if status["author"]:
            shown.append(status)
    # Groups: the page's own statuses a private group keeps from the viewer.
    shown = visibility.members_only_shown(r, viewer_id, shown)
    return paging.Page(shown, next_cursor)


def mark_reposted(statuses_shown, reposted):
    """Mark the statuses (dicts) the viewer reposted: ``viewer_reposted``."""
    for status in statuses_shown:
        if status["id"] in reposted:
            status["viewer_reposted"] = True
    return statuses_shown


def repost_id(r: Client, uid: int, sid: int) -> int | None:
    """The id of ``uid``'s repost of status ``sid``, or None (one command)."""
    score = r.zscore(keys.reposted(uid), sid)
    return int(score) if score is not None else None


def reposts_of(r, pairs):
    """{(reposter id, original id): (the repost's id, when it was posted)} for the
    ``pairs`` that are reposts (a page showing originals under "reposted" headers, as the
    client API shows them: a repost wrapping its original). Two round trips, none for no
    pairs: the repost ids (keys.reposted), then their times."""
    pairs = list(dict.fromkeys((int(uid), int(orig)) for uid, orig in pairs))
    if not pairs:
        return {}
    pipe = r.pipeline(transaction=False)
    for uid, orig in pairs:
        pipe.zscore(keys.reposted(uid), orig)
    found = [(pair, int(rid)) for pair, rid in zip(pairs, pipe.execute(), strict=True) if rid]
    if not found:
        return {}
    pipe = r.pipeline(transaction=False)
    for _, rid in found:
        pipe.hget(keys.status(rid), "posted")
    posted = pipe.execute()
    return {
        pair: (rid, float(when))
        for (pair, rid), when in zip(found, posted, strict=True)
        if when is not None
    }

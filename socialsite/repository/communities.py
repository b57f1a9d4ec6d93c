"""Groups, called communities here (apart from a direct-message "group conversation":
direct.py; docs/decisions/0067): public, private and announcement communities with
their own timelines.

A community's keys share one slot (keys.community_tag): its hash, members, admins,
requests, invitations, bans, the members who keep its statuses out of their home,
its timeline and its audit log. Each member's list of their communities
(keys.memberships) is in the member's own slot, where the one visibility path reads it
with the viewer's other keys (visibility.members_only_shown). Joining writes the
community's side first (community_join.lua: ban, kind and invitation checked in the
same step) and then the member's; leaving takes the member's side first, so that a
person who left sees a private community's statuses no more from that moment. Every
step can be run again.

A community's status is a status (statuses.post_status) with the community's id in
keys.STATUS_COMMUNITY_FIELD; in a private community it is also members-only
(keys.STATUS_MEMBERS_ONLY_FIELD) and marked "private", which keeps it off the public
timeline, tags, trends and the public streams. add_status puts it on the community's
timeline and delivers it to the members' homes through the fan-out (fanout.deliver:
blocks and mutes apply); a community of FANOUT_PULL_FOLLOWERS members or more is pulled
instead (add_pulled), merged into its members' home pages when read (fanout.py).
"""

import dataclasses
import enum
import time

from . import (
    client,
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
from .limits import FANOUT_BATCH_SIZE, HOME_TIMELINE_SIZE

KINDS = ("public", "private", "announcement")
# How many entries a community's audit log keeps (XADD MAXLEN ~).
LOG_KEPT = 1000
# How many of a private community's newest statuses leave a member's home when they
# leave: a home holds the newest 1000 (limits.HOME_TIMELINE_SIZE).
LEFT_STATUSES_SWEPT = 1000
# The directory's search looks among this many of the most active communities.
DIRECTORY_SEARCHED = 2000


class JoinResult(enum.Enum):
    JOINED = "joined"
    REQUESTED = "requested"
    MEMBER = "member"
    BANNED = "banned"
    NOT_REQUESTED = "not_requested"
    MISSING = "missing"


@dataclasses.dataclass(frozen=True)
class Standing:
    """Where a person stands in a community."""

    member: bool = False
    admin: bool = False
    banned: bool = False
    requested: bool = False
    invited: bool = False
    in_home: bool = True  # a member gets its statuses in their home


NOBODY = Standing()


def _now_ms():
    return int(time.time() * 1000)


def decode(data, members=None):
    """A community as a dict (id, slug, name, description, kind, owner, created,
    members, suspended, deleted), or None for no hash."""
    if not data or "kind" not in data:
        return None
    found = dict(data)
    found["id"] = int(found["id"])
    found["owner"] = int(found["owner"])
    found["created"] = int(found["created"])
    if members is not None:
        found["members"] = int(members)
    return found


def is_live(community):
    """Whether ``community`` is there for people: not deleted, not suspended."""
    return community is not None and not community.get("deleted") and not community.get("suspended")


def create(r, owner, slug, name, description, kind, now_ms=None):
    """Make a community owned by ``owner`` (its first member and admin) with the URL
    name ``slug``; its id, or None when the slug is taken (case-insensitively).
    Two round trips: a new id (INCR) and the slug claimed (HSETNX); then the
    community's keys and the owner's membership."""
    now = _now_ms() if now_ms is None else int(now_ms)
    cid = int(r.incr(keys.COMMUNITY_IDS))
    if not r.hsetnx(keys.COMMUNITY_SLUGS, slug.lower(), cid):
        return None
    fields = {"id": cid, "slug": slug, "name": name, "description": description,
              "kind": kind, "owner": int(owner), "created": now}  # fmt: skip

    def fill(pipe):
        pipe.hset(keys.community(cid), mapping=fields)
        pipe.zadd(keys.community_members(cid), {int(owner): now})
        pipe.zadd(keys.community_admins(cid), {int(owner): now})
        pipe.zadd(keys.memberships(owner), {cid: now})
        pipe.zadd(keys.COMMUNITIES_ACTIVE, {cid: now})

    scripts.run_pipeline(r, fill)
    return cid


def community_id(r, slug):
    """The id of the community whose URL name is ``slug`` (any case), or None."""
    cid = r.hget(keys.COMMUNITY_SLUGS, str(slug).lower())
    return int(cid) if cid else None


def _queue_standing(pipe, cid, uid):
    pipe.zscore(keys.community_members(cid), uid)
    pipe.zscore(keys.community_admins(cid), uid)
    pipe.zscore(keys.community_banned(cid), uid)
    pipe.zscore(keys.community_requests(cid), uid)
    pipe.zscore(keys.community_invites(cid), uid)
    pipe.sismember(keys.community_quiet(cid), uid)


def _standing(replies):
    member, admin, banned, requested, invited, quiet = replies
    return Standing(
        member=member is not None,
        admin=admin is not None,
        banned=banned is not None,
        requested=requested is not None,
        invited=invited is not None,
        in_home=not quiet,
    )


def get(r, cid, viewer_id=None):
    """Community ``cid`` (None if there is none) with its member count, and where
    ``viewer_id`` stands in it (NOBODY for a visitor): one round trip, one slot."""
    pipe = r.pipeline(transaction=False)
    pipe.hgetall(keys.community(cid))
    pipe.zcard(keys.community_members(cid))
    if viewer_id is not None:
        _queue_standing(pipe, cid, viewer_id)
    data, members, *standing = pipe.execute()
    community = decode(data, members)
    return community, (_standing(standing) if viewer_id is not None else NOBODY)


def by_slug(r, slug, viewer_id=None):
    """get() of the community named ``slug``: (None, NOBODY) if there is none. Two
    round trips."""
    cid = community_id(r, slug)
    if cid is None:
        return None, NOBODY
    return get(r, cid, viewer_id)


# --- A group's page and /groups/ read with the session (timeline/groups.py) ------------

# The community ids of slugs (lowercased), as this process last read them. A slug names
# one community from its making until the community is deleted (edit changes no slug),
# when it is freed and may be claimed by a new one: so a remembered id is a guess,
# checked against the slug's own entry (keys.COMMUNITY_SLUGS) read in the same round
# trip, and used only when that entry names it.
_slug_ids: dict[str, int] = {}
SLUG_IDS_REMEMBERED = 10_000


def _remember_slug(slug, cid):
    if cid is None:
        _slug_ids.pop(slug, None)
        return
    if len(_slug_ids) >= SLUG_IDS_REMEMBERED and slug not in _slug_ids:
        _slug_ids.clear()
    _slug_ids[slug] = int(cid)


def _queue_page_reads(pipe, cid, uid, before, count):
    """Queue the community ``cid`` with its member count, where ``uid`` (None: a
    visitor) stands in it, and its page of ids below ``before``; how many replies."""
    pipe.hgetall(keys.community(cid))
    pipe.zcard(keys.community_members(cid))
    if uid is not None:
        _queue_standing(pipe, cid, uid)
    paging.queue_read_ids(pipe, keys.community_timeline(cid), before, count)
    return 3 + (6 if uid is not None else 0)


class GroupPageRead:
    """What a group's page reads before its statuses, in one round trip: the slug's
    entry and, for the community id this process remembers for the slug, the community
    with its member count, where the viewer stands in it and the page's ids (one slot).
    Read along with the session (sessions.load_with_user's ``read_along``: ``queue``,
    ``take``, ``replies``), or by ``run``, which also reads what is missing: the page
    of a slug this process knows no id for, or a wrong one for (one round trip more).

    Once ``run``: ``cid`` (None: no community has the slug), ``community`` (decode's,
    None for no hash), ``standing`` (NOBODY for a visitor), ``pairs`` and
    ``next_cursor`` (the page's ids, as paging.read_ids)."""

    def __init__(self, slug, before=None, count=30):
        self.slug = str(slug).lower()
        self.before, self.count = before, count
        self.guess = None
        self.uid = None
        self.done = False
        self.cid = None
        self.page_read = False
        self.community, self.standing = None, NOBODY
        self.pairs, self.next_cursor = [], None
        self.replies = 1

    def queue(self, pipe, uid):
        self.uid, self.done, self.page_read = uid, False, False
        self.guess = _slug_ids.get(self.slug)
        pipe.hget(keys.COMMUNITY_SLUGS, self.slug)
        self.replies = 1
        if self.guess is not None:
            self.replies += _queue_page_reads(pipe, self.guess, uid, self.before, self.count)

    def take(self, uid, replies):
        self.done = True
        self.cid = int(replies[0]) if replies[0] else None
        _remember_slug(self.slug, self.cid)
        if self.cid is not None and self.cid == self.guess:
            self._take_page(replies[1:])

    def _take_page(self, replies):
        data, members, *rest = replies
        self.community = decode(data, members)
        if self.uid is not None:
            self.standing, rest = _standing(rest[:6]), rest[6:]
        self.pairs, self.next_cursor = paging.ids_read(rest[0], self.count)
        self.page_read = True

    def run(self, r, uid=None):
        """Read for viewer ``uid`` (None: a visitor) what was not read along for them:
        one round trip when this process knows the slug's id, two when it does not (or
        knew a wrong one), none when all was read along. Returns self."""
        if not self.done or self.uid != uid:
            replies = client.round_trip(r, lambda pipe: self.queue(pipe, uid))
            for reply in replies:
                if isinstance(reply, Exception):
                    raise reply
            self.take(uid, replies)
        if self.cid is not None and not self.page_read:
            cid = self.cid

            def fill(pipe):
                _queue_page_reads(pipe, cid, uid, self.before, self.count)

            replies = scripts.run_pipeline(r, fill)
            self._take_page(replies)
        return self


def join(r, cid, uid, now_ms=None, approve=False):
    """``uid`` joins community ``cid`` (a public or announcement one, or a private one
    they are invited to), or asks to join a private one; with ``approve``, an admin
    lets a requester in. A JoinResult. The member's keys.memberships entry follows the
    community's side (one more round trip when joined)."""
    now = _now_ms() if now_ms is None else int(now_ms)
    result = JoinResult(scripts.community_join(r, cid=cid, uid=uid, now_ms=now, approve=approve))
    if result in (JoinResult.JOINED, JoinResult.MEMBER):
        # Again for a member: mends a join cut short between its two steps.
        r.zadd(keys.memberships(uid), {int(cid): now}, nx=True)
    if result is JoinResult.JOINED:
        # The member's open live pages read their groups again (streaming/home.py).
        events.publish_relations_changed(r, [uid])
    return result


def reject(r, cid, uid):
    """Take ``uid``'s request to join ``cid`` away; whether there was one."""
    return bool(r.zrem(keys.community_requests(cid), uid))


def invite(r, cid, uid, now_ms=None):
    """Invite ``uid`` to ``cid``: their join is then let in at once, and a request they
    made is approved. Whether they were not invited before."""
    now = _now_ms() if now_ms is None else int(now_ms)
    return bool(r.zadd(keys.community_invites(cid), {int(uid): now}, nx=True))


def leave(r, cid, uid, ban=False, now_ms=None):
    """``uid`` is no longer a member of ``cid`` (they left, or were removed; with
    ``ban``, banned: they cannot join again). Their membership goes first (the
    visibility path reads it), then the community's side; a private community's newest
    statuses leave their home, and the community their open live pages and streams
    (events.publish_relations_changed's ``left``: at once, before any later status).
    Whether they were a member. Three or four round trips."""
    pipe = r.pipeline(transaction=False)  # the member's slot
    pipe.zrem(keys.memberships(uid), cid)
    pipe.srem(keys.communities_out_of_home(uid), cid)
    removed = bool(pipe.execute()[0])
    events.publish_relations_changed(r, [uid], left=[(uid, cid)])
    now = _now_ms() if now_ms is None else int(now_ms)

    def fill(pipe):
        pipe.zrem(keys.community_members(cid), uid)
        pipe.zrem(keys.community_admins(cid), uid)
        pipe.srem(keys.community_quiet(cid), uid)
        pipe.zrem(keys.community_requests(cid), uid)
        pipe.zrem(keys.community_invites(cid), uid)
        if ban:
            pipe.zadd(keys.community_banned(cid), {int(uid): now})
        pipe.hget(keys.community(cid), "kind")
        pipe.zrevrange(keys.community_timeline(cid), 0, LEFT_STATUSES_SWEPT - 1)

    written = scripts.run_pipeline(r, fill)
    kind, ids = written[-2], written[-1]
    if kind == "private" and ids:
        r.srem(keys.home(uid), *ids)
    return removed or bool(written[0])


def unban(r, cid, uid):
    """Lift ``uid``'s ban from ``cid``; whether there was one."""
    return bool(r.zrem(keys.community_banned(cid), uid))


def set_admin(r, cid, uid, admin, now_ms=None):
    """Make member ``uid`` an admin of ``cid`` (``admin``) or no longer one; whether
    it changed anything."""
    if admin:
        now = _now_ms() if now_ms is None else int(now_ms)
        return bool(r.zadd(keys.community_admins(cid), {int(uid): now}, nx=True))
    return bool(r.zrem(keys.community_admins(cid), uid))


def set_in_home(r, cid, uid, in_home):
    """Whether member ``uid`` gets ``cid``'s statuses in their home from now on: noted
    on the community's side (deliveries skip them) and the member's (a pulled
    community's merge and a rebuilt home leave it out), and the member's open live
    pages read their groups again. Two round trips."""

    def fill(pipe):
        if in_home:
            pipe.srem(keys.community_quiet(cid), uid)
            pipe.srem(keys.communities_out_of_home(uid), cid)
        else:
            pipe.sadd(keys.community_quiet(cid), uid)
            pipe.sadd(keys.communities_out_of_home(uid), cid)

    scripts.run_pipeline(r, fill)
    events.publish_relations_changed(r, [uid])


def edit(r, cid, name, description, kind):
    """Change ``cid``'s name, description and kind."""
    r.hset(keys.community(cid), mapping={"name": name, "description": description, "kind": kind})


def set_suspended(r, cid, suspended, now_ms=None):
    """Suspend ``cid`` (its page, timeline and joining closed to all but site
    moderators; off the directory) or lift its suspension."""
    now = _now_ms() if now_ms is None else int(now_ms)
    if suspended:
        pipe = r.pipeline(transaction=False)
        pipe.hset(keys.community(cid), "suspended", now)
        pipe.zrem(keys.COMMUNITIES_ACTIVE, cid)
        pipe.execute()
    else:
        r.hdel(keys.community(cid), "suspended")
        r.zadd(keys.COMMUNITIES_ACTIVE, {int(cid): now})


def delete(r, cid, slug, batch=1000):
    """Delete community ``cid``: marked deleted, its slug freed, off the directory, and
    every member's membership gone (a batch of ``batch`` a round trip). Its statuses
    stay their authors'; a private community's stay members-only, so that nobody but
    their authors sees them any more."""
    pipe = r.pipeline(transaction=False)
    pipe.hset(keys.community(cid), "deleted", _now_ms())
    pipe.hdel(keys.COMMUNITY_SLUGS, str(slug).lower())
    pipe.zrem(keys.COMMUNITIES_ACTIVE, cid)
    pipe.hget(keys.community(cid), keys.COMMUNITY_PULLED_FIELD)
    pulled = pipe.execute()[-1]
    if pulled:
        # Its pulled statuses and their copies: nobody merges them any more.

        def forget(pipe):
            pipe.delete(keys.community_pulled(cid))
            for key in keys.all_pulled_copies(-int(cid)):
                pipe.delete(key)

        scripts.run_pipeline(r, forget)
    while True:
        members = r.zrange(keys.community_members(cid), 0, batch - 1)
        if not members:
            break

        def fill(pipe, members=members):
            for member in members:
                pipe.zrem(keys.memberships(member), cid)
            pipe.zrem(keys.community_members(cid), *members)

        scripts.run_pipeline(r, fill)
    r.delete(keys.community_admins(cid), keys.community_requests(cid),
             keys.community_invites(cid), keys.community_quiet(cid))  # fmt: skip


def record(r, cid, action, by, target="", sid=""):
    """Add an entry to ``cid``'s audit log (keys.community_log, the newest LOG_KEPT):
    ``action`` done ``by`` (a user id) to ``target`` (a user id) or status ``sid``."""
    r.xadd(
        keys.community_log(cid),
        {"action": action, "by": by, "target": target or "", "status": sid or ""},
        maxlen=LOG_KEPT,
        approximate=True,
    )


def log_page(r, cid, count=100):
    """The newest ``count`` entries of ``cid``'s audit log, newest first: dicts with
    ``action``, ``by`` and ``target`` (user dicts or None), ``status`` and ``at``
    (seconds)."""
    entries = r.xrevrange(keys.community_log(cid), count=count)
    wanted = {int(f[name]) for _, f in entries for name in ("by", "target") if f.get(name)}
    authors = users.get_authors(r, wanted)
    made = []
    for entry_id, fields in entries:
        made.append({
            "action": fields.get("action", ""),
            "by": authors.get(int(fields["by"])) if fields.get("by") else None,
            "target": authors.get(int(fields["target"])) if fields.get("target") else None,
            "status": fields.get("status") or "",
            "at": int(str(entry_id).split("-")[0]) / 1000,
        })  # fmt: skip
    return made


def add_status(r, cid, sid, author, replied_to=None, inline_limit=1000, pull_members=100_000):
    """Put status ``sid`` (by ``author``) on ``cid``'s timeline and deliver it to the
    members' homes: the first ``inline_limit`` members by joining time now, but those
    who keep it out (keys.community_quiet) and the author, through fanout.deliver
    (blocks, mutes and the reply rule apply); the members past them, up to the newest
    at posting time, by a "community_deliver" job of the fan-out workers
    (deliver_job). A community of ``pull_members`` members or more (0: none) is
    delivered to nobody: it is pulled (add_pulled), merged into its members' home pages
    when read, as a pulled account's statuses are into its followers'. Returns how many
    homes got it now. Three round trips for a pulled community (six the first time),
    three for another (four with a job)."""
    now = _now_ms()

    def fill(pipe):
        pipe.zadd(keys.community_timeline(cid), {int(sid): int(sid)})
        pipe.zadd(keys.COMMUNITIES_ACTIVE, {int(cid): now}, xx=True)
        pipe.zcard(keys.community_members(cid))

    size = int(scripts.run_pipeline(r, fill)[-1])
    if pull_members and size >= pull_members:
        add_pulled(r, cid, sid, author, replied_to)
        return 0  # pulled: merged into its members' home pages when read

    def read(pipe):
        pipe.zrange(keys.community_members(cid), 0, max(inline_limit, 1) - 1, withscores=True)
        pipe.smembers(keys.community_quiet(cid))

    members, quiet = scripts.run_pipeline(r, read) if inline_limit > 0 else ([], set())
    skipped = {int(uid) for uid in quiet} | {int(author)}
    wanted = [int(uid) for uid, _ in members if int(uid) not in skipped]
    if int(size) > len(members):
        # The rest by the workers, from the last inline member's joining time on
        # (inclusive: a member delivered twice gets it once, homes being sets).
        start = str(int(members[-1][1])) if members else "-inf"
        jobs.enqueue(r, deliver_job(cid, sid, author, replied_to, start, now))
    return fanout.deliver(r, int(author), int(sid), wanted, replied_to)


def add_pulled(r, cid, sid, author, replied_to=None):
    """Status ``sid`` (by ``author``; a reply to ``replied_to``, or None) of pulled
    community ``cid``: into keys.community_pulled and its copy in every shard
    (keys.pulled_copy(uid, -cid)), where home_page.lua merges it for the members who
    keep the community in their home (fanout.py). The community is registered in
    every shard's keys.pulled_communities first, once (keys.COMMUNITY_PULLED_FIELD), so
    that no reader misses a copy for not knowing the community yet, and the members
    who keep it out of their home noted on their side too (keys.communities_out_of_home).
    Two round trips (one per node on a cluster), three more the first time."""
    if not r.hget(keys.community(cid), keys.COMMUNITY_PULLED_FIELD):
        quiet = r.smembers(keys.community_quiet(cid))

        def register(pipe):
            for key in keys.all_pulled_communities():
                pipe.sadd(key, int(cid))
            for uid in quiet:  # their side, which the merge reads (set_in_home writes both)
                pipe.sadd(keys.communities_out_of_home(uid), int(cid))

        scripts.run_pipeline(r, register)
        r.hset(keys.community(cid), keys.COMMUNITY_PULLED_FIELD, "1")
    member = fanout.pulled_member(sid, author, replied_to)

    def fill(pipe):
        pipe.zadd(keys.community_pulled(cid), {member: int(sid)})
        pipe.zremrangebyrank(keys.community_pulled(cid), 0, -(HOME_TIMELINE_SIZE + 1))
        fanout.queue_copy(pipe, -int(cid), int(sid), member)

    scripts.run_pipeline(r, fill)


def forget_pulled(r, cid, sid):
    """Take status ``sid`` out of community ``cid``'s pulled statuses and their copies
    (it left the community, or was deleted): fanout.forget_community_status."""
    fanout.forget_community_status(r, cid, sid)


def deliver_job(cid, sid, author, replied_to, start, upto):
    """A job delivering status ``sid`` to the members of ``cid`` who joined from
    ``start`` (a score bound: "123" inclusive, "(123" exclusive, "-inf") up to
    ``upto`` (ms), a batch at a time (deliver_batch)."""
    return {"kind": "community_deliver", "cid": int(cid), "sid": int(sid),
            "author": int(author), "replied_to": replied_to, "start": start,
            "upto": int(upto)}  # fmt: skip


def deliver_batch(r, job, batch=FANOUT_BATCH_SIZE):
    """The workers' step of a "community_deliver" job: deliver to the next ``batch``
    members of its range (those keeping the community out of their home skipped);
    returns the job for the rest, if any. Nothing for a status deleted meanwhile, or
    a community gone."""
    cid, sid, author = job["cid"], job["sid"], job["author"]
    pipe = r.pipeline(transaction=False)
    pipe.exists(keys.status(sid))
    pipe.smembers(keys.community_quiet(cid))
    pipe.exists(keys.community(cid))
    exists, quiet, there = pipe.execute()
    if not exists or not there:
        return []
    key, start, upto = keys.community_members(cid), job["start"], job["upto"]
    found = r.zrangebyscore(key, start, upto, start=0, num=batch + 1, withscores=True)
    more = len(found) > batch
    if more:
        last = int(found[batch - 1][1])
        if int(found[0][1]) == last:
            # A whole batch joined in one ms: all of that ms now, then past it.
            found = r.zrangebyscore(key, last, last, withscores=True)
            follow = f"({last}"
        else:
            found = [pair for pair in found[:batch] if int(pair[1]) < last]
            follow = str(last)
    skipped = {int(uid) for uid in quiet} | {int(author)}
    wanted = [int(uid) for uid, _ in found if int(uid) not in skipped]
    fanout.deliver(r, int(author), int(sid), wanted, job.get("replied_to"))
    return [{**job, "start": follow}] if more else []


def remove_status(r, cid, sid):
    """Take status ``sid`` off ``cid``'s timeline (and its pulled statuses, merged into
    homes: forget_pulled); whether it was on it."""
    removed = bool(r.zrem(keys.community_timeline(cid), sid))
    forget_pulled(r, cid, sid)
    return removed


def timeline_page(
    r, cid, before=None, count=30, viewer_id=None, member=False, since=None, above=None
):
    """A page of ``cid``'s statuses, newest first, as ``viewer_id`` may see them (the
    one visibility path; ``member``: the caller read that the viewer belongs to it, so
    its members-only statuses are not asked about again). ``since``, ``above``: as
    paging.read_ids."""
    pairs, next_cursor = paging.read_ids(
        r, keys.community_timeline(cid), before, count, since, above
    )
    return page_of(r, cid, pairs, next_cursor, viewer_id=viewer_id, member=member)


def page_of(r, cid, pairs, next_cursor, viewer_id=None, member=False):
    """The page of ``cid``'s statuses whose ids were read (``pairs``, ``next_cursor``:
    timeline_page, GroupPageRead), as ``viewer_id`` may see them; ``member``: as
    timeline_page's. One round trip (the statuses not remembered, an EXISTS of each
    remembered one, whether the viewer may see their authors)."""
    status_ids = [sid for sid, _ in pairs]
    viewer_likes = statuses.ViewerLikes(viewer_id)
    # As a tag page (timelines._page_of_statuses): the authors of statuses this process
    # remembers are asked about with the statuses.
    seen = visibility.Seen(viewer_id, statuses.remembered_authors(status_ids).values())
    found = statuses.get_statuses(
        r, status_ids, viewer_likes=viewer_likes, seen=seen, notes_of=viewer_id or 0
    )
    member_of = {int(cid)} if member else ()
    shown = visibility.shown_statuses(r, viewer_id, found, seen=seen, member_of=member_of)
    page = paging.Page(shown, next_cursor)
    page.liked = frozenset(viewer_likes.ids)
    page.prev_cursor = paging.top_cursor(pairs)
    return page


def read_many(r, cids):
    """The communities ``cids`` (those there), with their member counts: one round
    trip (none for no ids)."""
    return _read_many(r, cids)


def _read_many(r, cids):
    cids = [int(cid) for cid in cids]
    if not cids:
        return []

    def fill(pipe):
        for cid in cids:
            pipe.hgetall(keys.community(cid))
            pipe.zcard(keys.community_members(cid))

    replies = scripts.run_pipeline(r, fill)
    found = [decode(replies[i], replies[i + 1]) for i in range(0, len(replies), 2)]
    return [community for community in found if community is not None]


class GroupsRead:
    """What /groups/ reads first, read along with the session (sessions.load_with_user's
    ``read_along``) or by ``page``: the ids of the reader's communities (latest joined
    first, the newest ``mine``) and of the directory's (most active first: the newest
    ``count``, DIRECTORY_SEARCHED with a ``query``). ``page`` then reads the
    communities of both in one round trip."""

    replies = 2

    def __init__(self, query="", count=30, mine=200):
        self.query = query.casefold().strip()
        self.count, self.mine = count, mine
        self.uid = None
        self.mine_ids, self.directory_ids = [], []
        self.done = False

    def queue(self, pipe, uid):
        self.uid = uid
        if uid is not None:  # a visitor has no groups of their own
            pipe.zrevrange(keys.memberships(uid), 0, self.mine - 1)
        shown = DIRECTORY_SEARCHED if self.query else self.count
        pipe.zrevrange(keys.COMMUNITIES_ACTIVE, 0, shown - 1)

    def take(self, uid, replies):
        self.done = True
        self.mine_ids = [int(cid) for cid in replies[0]] if uid is not None else []
        self.directory_ids = [int(cid) for cid in replies[-1]]

    def page(self, r, uid=None):
        """(the reader's live communities, the directory's: as of_user and directory
        give them). The ids first unless read along for ``uid`` (one round trip), then
        the communities (one)."""
        if not self.done or self.uid != uid:
            replies = client.round_trip(r, lambda pipe: self.queue(pipe, uid))
            for reply in replies:
                if isinstance(reply, Exception):
                    raise reply
            self.take(uid, replies)
        wanted = list(dict.fromkeys([*self.mine_ids, *self.directory_ids]))
        found = {community["id"]: community for community in _read_many(r, wanted)}
        mine = [found[cid] for cid in self.mine_ids if is_live(found.get(cid))]
        listed = [found[cid] for cid in self.directory_ids if is_live(found.get(cid))]
        return mine, _found_in(listed, self.query, self.count)


def _found_in(found, wanted, count):
    if wanted:
        found = [
            c for c in found if wanted in c["name"].casefold() or wanted in c["slug"].casefold()
        ]
    return found[:count]


def of_user(r, uid, count=200):
    """The communities ``uid`` belongs to, latest joined first (two round trips)."""
    cids = r.zrevrange(keys.memberships(uid), 0, count - 1)
    return [community for community in _read_many(r, cids) if is_live(community)]


def in_home_ids(r, uid):
    """The ids of the communities ``uid`` belongs to and keeps in their home (their
    statuses reach it: delivered, or merged for a pulled one): one round trip, the
    user's slot."""
    pipe = r.pipeline(transaction=False)
    pipe.zrange(keys.memberships(uid), 0, -1)
    pipe.smembers(keys.communities_out_of_home(uid))
    member_of, out = pipe.execute()
    return {int(cid) for cid in member_of} - {int(cid) for cid in out}


def member_ids(r, uid):
    """The ids of the communities ``uid`` belongs to."""
    return {int(cid) for cid in r.zrange(keys.memberships(uid), 0, -1)}


def directory(r, query="", count=30):
    """Live communities, most active first (keys.COMMUNITIES_ACTIVE); with ``query``,
    those whose name or slug holds it (case-folded), among the DIRECTORY_SEARCHED most
    active. A private community shows its name and description only (the caller's
    page shows no more). Two round trips."""
    wanted = query.casefold().strip()
    cids = r.zrevrange(keys.COMMUNITIES_ACTIVE, 0, (DIRECTORY_SEARCHED if wanted else count) - 1)
    found = [community for community in _read_many(r, cids) if is_live(community)]
    return _found_in(found, wanted, count)


def people(r, cid, key, count=200):
    """The users of one of ``cid``'s lists (``key``: "members", "admins", "requests",
    "invites", "banned"), newest first, as users.get_authors gives them."""
    key_of = {"members": keys.community_members, "admins": keys.community_admins,
              "requests": keys.community_requests, "invites": keys.community_invites,
              "banned": keys.community_banned}  # fmt: skip
    uids = [int(uid) for uid in r.zrevrange(key_of[key](cid), 0, count - 1)]
    authors = users.get_authors(r, uids)
    return [authors[uid] for uid in uids if uid in authors]


def admin_ids(r, cid):
    """The ids of ``cid``'s admins."""
    return [int(uid) for uid in r.zrange(keys.community_admins(cid), 0, -1)]


def notify(r, uids, kind, actor, cid, keep, sid=0):
    """Notify ``uids`` of ``kind`` (notifications.GROUP_KINDS) by ``actor`` about
    community ``cid`` (and status ``sid``: a report), each keeping their newest
    ``keep``: one round trip."""
    now = _now_ms()
    event = notifications.member(kind, actor, sid, cid)

    def fill(pipe):
        for uid in uids:
            notifications.queue_notify(pipe, uid, event, now, keep)

    if uids:
        scripts.run_pipeline(r, fill)


def status_community(r, sid):
    """The community id of status ``sid`` (None: not a community's status)."""
    return status_place(r, sid)[0]


def status_place(r, sid):
    """The community id of status ``sid`` (None: not a community's status) and its
    author's id (None: no such status)."""
    cid, uid = r.hmget(keys.status(sid), [keys.STATUS_COMMUNITY_FIELD, "uid"])
    return (int(cid) if cid else None), (int(uid) if uid else None)


def member_ids_of_community(r, cid, uids):
    """Those of ``uids`` who are members of ``cid``."""
    uids = [int(uid) for uid in uids]
    if not uids:
        return set()
    scores = r.zmscore(keys.community_members(cid), uids)
    return {uid for uid, score in zip(uids, scores, strict=True) if score is not None}


def has_requested(r, cid, uid):
    """Whether ``uid`` asks to join ``cid``."""
    return r.zscore(keys.community_requests(cid), uid) is not None


def forget_user(r, uid, budget):
    """A deletion step (leaving.py): ``uid`` leaves every community (up to ``budget``
    of them a run); the units of work done."""
    cids = [int(cid) for cid in r.zrange(keys.memberships(uid), 0, budget - 1)]
    for cid in cids:
        leave(r, cid, uid)
    return len(cids)

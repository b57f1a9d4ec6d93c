"""Whether a viewer may see a user's statuses: the one rule, for every page.

A viewer sees an author's statuses unless
- the author's account is suspended or being deleted (users.is_hidden): nobody does;
- the author blocks the viewer (blocks.py): the pages say "You are blocked";
- the author's account is private (privacy.py) and the viewer is not an approved
  follower: the statuses are "protected";
the author always sees their own. A block the viewer made, or a mute, does not hide
statuses the viewer goes to look at (a profile, a status page); it keeps them out of
the viewer's home timeline (blocks.py, home_page.lua) and out of lists put before
them.

Every list of statuses shown to someone goes through shown_statuses, the one path
that applies this rule to status ids turned into pages (docs/decisions/0041).

Home timelines need no check at read: a status enters one only through the author's
followers (fan-out, backfill, refill), every one of them approved, and never for a
follower who is in a block with the author or mutes them (deliver.lua, backfill.lua).
The streaming API never sends a status posted while its author was private, and the
live pages send a user only what their home timeline would get (streaming/).

Everything here reads the account's privacy fresh from its user hash, never from a
process's memory of authors: an account that turns private is private at once.
"""

import dataclasses
import enum
import time

from . import keys, users


class Visibility(enum.Enum):
    VISIBLE = "visible"
    BLOCKED = "blocked"  # the author blocks the viewer
    PROTECTED = "protected"  # a private account, and the viewer does not follow it


@dataclasses.dataclass(frozen=True)
class Relationship:
    """What stands between a viewer and another user, as the viewer's pages need it."""

    following: bool = False  # the viewer follows the other user
    requested: bool = False  # the viewer asks to follow them (a private account)
    blocking: bool = False  # the viewer blocks them
    blocked: bool = False  # they block the viewer
    mute_ends: int | None = None  # the viewer mutes them until then (ms; 0: no end)


NONE = Relationship()


def relationship(r, viewer_id, other_id, now_ms=None):
    """The Relationship of ``viewer_id`` to ``other_id`` (NONE for an anonymous viewer
    or oneself), in one round trip: all but the request are in the viewer's slot."""
    if viewer_id is None or int(viewer_id) == int(other_id):
        return NONE
    pipe = r.pipeline(transaction=False)
    _queue_relationship(pipe, viewer_id, other_id)
    return _relationship(pipe.execute(), now_ms)


def _queue_relationship(pipe, viewer_id, other_id):
    pipe.zscore(keys.following(viewer_id), other_id)
    pipe.zscore(keys.blocks(viewer_id), other_id)
    pipe.zscore(keys.blocked_by(viewer_id), other_id)
    pipe.hget(keys.mute_ends(viewer_id), other_id)
    pipe.zscore(keys.follow_requests(other_id), viewer_id)


def _relationship(replies, now_ms):
    following, blocking, blocked, mute_end, requested = replies
    now = int(time.time() * 1000) if now_ms is None else int(now_ms)
    if mute_end is not None and 0 < int(mute_end) <= now:
        mute_end = None  # ended; the sweep has yet to remove it
    return Relationship(
        following=following is not None,
        requested=requested is not None,
        blocking=blocking is not None,
        blocked=blocked is not None,
        mute_ends=None if mute_end is None else int(mute_end),
    )


def author_and_relationship(r, viewer_id, author_id, now_ms=None):
    """The user hash of ``author_id`` read fresh (None if there is none) and the
    Relationship of ``viewer_id`` to them, in one round trip (a pipeline: on one server
    one round trip, on a cluster one per node)."""
    if viewer_id is None or int(viewer_id) == int(author_id):
        return users.get_user(r, author_id), NONE
    pipe = r.pipeline(transaction=False)
    pipe.hgetall(keys.user(author_id))
    _queue_relationship(pipe, viewer_id, author_id)
    data, *replies = pipe.execute()
    return users.decode_user(data), _relationship(replies, now_ms)


def author_relationship_and_repost(r, viewer_id, author_id, sid, now_ms=None):
    """author_and_relationship, and whether ``viewer_id`` reposted status ``sid``
    (keys.reposted, in the viewer's slot), in the same round trip: a status page
    marks its Repost button without one more."""
    if viewer_id is None:
        return users.get_user(r, author_id), NONE, False
    pipe = r.pipeline(transaction=False)
    pipe.hgetall(keys.user(author_id))
    pipe.zscore(keys.reposted(viewer_id), sid)
    own = int(viewer_id) == int(author_id)
    if not own:
        _queue_relationship(pipe, viewer_id, author_id)
    data, reposted, *replies = pipe.execute()
    rel = NONE if own else _relationship(replies, now_ms)
    return users.decode_user(data), rel, reposted is not None


def statuses_visibility(viewer_id, author, rel):
    """Whether ``viewer_id`` (None: a visitor) may see the statuses of ``author`` (a
    user dict, read fresh), given their Relationship ``rel``: a Visibility."""
    if viewer_id is not None and int(viewer_id) == author["id"]:
        return Visibility.VISIBLE
    if rel.blocked:
        return Visibility.BLOCKED
    if author.get("private") == "1" and not rel.following:
        return Visibility.PROTECTED
    return Visibility.VISIBLE


def sees_statuses_of(viewer_id, author, rel):
    """Whether ``viewer_id`` may see the statuses of ``author`` (a user dict read fresh,
    None if there is none), given their Relationship ``rel``: there is such an
    account, shown (users.is_hidden: not suspended, not being deleted), and
    statuses_visibility says VISIBLE. What a door asks of a status id before answering
    anything but "not found"."""
    return (
        author is not None
        and not users.is_hidden(author)
        and statuses_visibility(viewer_id, author, rel) is Visibility.VISIBLE
    )


def is_public(r, status):
    """Whether ``status`` is for everyone: its author's account is not private now.
    What reposting and anything else that shows a status beyond its author's
    followers must check (one command)."""
    return r.hget(keys.user(status["uid"]), "private") != "1"


class Seen:
    """What shown_statuses reads fresh about some authors for ``viewer_id`` (their
    privacy, suspension, leaving; the viewer's follows of them and keys.hides), asked
    in a round trip the page makes anyway (statuses.get_statuses' ``seen``) when the
    authors are known before their statuses are read: a notification's actor, a
    repost's original author, a status this process remembers."""

    def __init__(self, viewer_id, authors, now_ms=None):
        self.viewer_id = viewer_id
        own = {int(viewer_id)} if viewer_id is not None else set()
        self.wanted = list({int(author) for author in authors} - own)
        self.now_ms = now_ms
        self.unseen = None  # the authors not to show, once read

    @property
    def replies(self):
        return len(self.wanted) + (2 if self.viewer_id is not None else 0)

    def queue(self, pipe):
        for author in self.wanted:
            pipe.hmget(keys.user(author), ["private", keys.SUSPENDED_FIELD, keys.LEAVING_FIELD])
        if self.viewer_id is not None:
            now = int(time.time() * 1000) if self.now_ms is None else int(self.now_ms)
            pipe.zmscore(keys.following(self.viewer_id), self.wanted)
            pipe.zrangebyscore(keys.hides(self.viewer_id), f"({now}", "+inf")

    def take(self, replies):
        wanted = self.wanted
        followed, hides = set(), set()
        if self.viewer_id is not None:
            scores, hidden = replies[len(wanted) :]
            followed = {author for author, score in zip(wanted, scores, strict=True) if score}
            hides = {int(author) for author in hidden}
        self.unseen = set()
        for author, (private, suspended, leaving) in zip(wanted, replies, strict=False):
            protected = private == "1" and author not in followed
            if suspended or leaving or author in hides or protected:
                self.unseen.add(author)


def shown_statuses(
    r, viewer_id, found, *, checked=(), delivered_hidden=None, seen=None, member_of=None,
    member_of_whole=False,
):  # fmt: skip
    """``found`` (statuses as statuses.get_statuses reads them: deleted ones already
    missing) as ``viewer_id`` (None: a visitor) may be shown them, in their order, each
    with its ``author`` (id, login, name: users.get_authors).

    One visibility path: every page, notification, list, report form, live-page
    replay and streaming catch-up that turns status ids into something shown or sent
    passes them here, and nothing shows a status read another way
    (tests/test_one_visibility_path.py keeps it so; docs/decisions/0041).

    Left out: statuses whose author is gone, suspended or being deleted; those of a
    private account the viewer does not follow; those of an author in a block with
    the viewer either way, or muted by them (keys.hides: a list of many authors'
    statuses leaves a muted author out; a profile or a status page the viewer goes to
    look at is decided by statuses_visibility instead). The viewer's own statuses are
    always shown.

    What the caller already knows is not asked again:
    - ``delivered_hidden``: the ids came through the viewer's own deliveries (a home
      timeline, a list's timeline: only approved followers, never across a block or a
      mute, get them: fanout.py), read together with the authors the viewer does not
      get (this set, from home_page.lua); those are left out, nothing more is read.
    - ``checked``: authors whose statuses the caller has just found the viewer may see
      (statuses_visibility: a profile's owner).
    - ``seen``: a Seen read with the statuses (its authors are not asked again).
    - ``member_of``: communities the caller knows the viewer belongs to (a group's
      page): their members-only statuses are not asked about (members_only_shown);
      with ``member_of_whole``, all of them, read in this request (a home page reads
      them with the session: timelines.HomeIdsRead), so nothing is asked at all.
    Every other author is read fresh (privacy, suspension, leaving: never a process's
    memory; docs/decisions/0032), with the viewer's follows and keys.hides, in one
    pipeline. Round trips: the authors not shown lately (users.get_authors, often
    none) and that check (none when every author is the viewer, checked, delivered
    or in ``seen``).
    """
    found = list(found)
    authors = users.get_authors(r, [status["uid"] for status in found])
    named = []
    for status in found:
        author = authors.get(status["uid"])
        if author is not None:
            status["author"] = author
            named.append(status)
    if delivered_hidden is not None:
        named = [status for status in named if status["uid"] not in delivered_hidden]
        return members_only_shown(r, viewer_id, named, member_of, member_of_whole)
    skip = {int(uid) for uid in checked}
    unseen = set()
    if seen is not None and seen.unseen is not None:
        skip.update(seen.wanted)
        unseen = set(seen.unseen)
    rest = Seen(viewer_id, {status["uid"] for status in named} - skip)
    if rest.wanted:
        pipe = r.pipeline(transaction=False)
        rest.queue(pipe)
        rest.take(pipe.execute())
        unseen |= rest.unseen
    shown = [status for status in named if status["uid"] not in unseen]
    return members_only_shown(r, viewer_id, shown, member_of, member_of_whole)


# --- Groups: a private community's statuses, for its members alone --------


def members_only_shown(r, viewer_id, found, member_of=None, member_of_whole=False):
    """``found`` without the members-only statuses (keys.STATUS_MEMBERS_ONLY_FIELD:
    posted in a private community) of communities ``viewer_id`` does not belong to now
    (keys.memberships, read fresh: leaving, removal or a ban hides them at once); the
    viewer's own statuses are always shown. A visitor sees none. One round trip (a
    ZMSCORE in the viewer's slot) only when the list holds members-only statuses of
    communities other than ``member_of``; none otherwise, nor with ``member_of_whole``
    (``member_of`` is every community the viewer belongs to, read in this request)."""
    own = None if viewer_id is None else int(viewer_id)
    wanted = {
        str(status.get(keys.STATUS_COMMUNITY_FIELD))
        for status in found
        if status.get(keys.STATUS_MEMBERS_ONLY_FIELD) == "1" and status["uid"] != own
    }
    if not wanted:
        return found
    allowed = {str(int(cid)) for cid in member_of or ()}
    asked = sorted(wanted - allowed)
    if asked and own is not None and not member_of_whole:
        scores = r.zmscore(keys.memberships(own), asked)
        allowed |= {cid for cid, score in zip(asked, scores, strict=True) if score is not None}
    return [
        status
        for status in found
        if status.get(keys.STATUS_MEMBERS_ONLY_FIELD) != "1"
        or status["uid"] == own
        or str(status.get(keys.STATUS_COMMUNITY_FIELD)) in allowed
    ]

"""Reading home, profile and tag timelines: a page of statuses with their authors.

Status ids come from INCR, so they are unique and in posting order: ordering by id is
ordering by time, with no ties, which makes cursor paging exact (see paging.py).
- A profile timeline is a ZSET of the author's status ids scored by the id itself.
- A home timeline is a SET of status ids (keys.home says why): its newest
  HOME_TIMELINE_SIZE ids, by number, are the timeline. home_page.lua reads them in
  order (SORT ... DESC LIMIT) inside Redis.

Reading one page costs one to three round trips whatever its length: the ids; the
status hashes (one pipeline) of statuses this process has not read before, or for a
profile, an EXISTS of those it has (statuses.get_statuses); and the hashes of authors
this process has not shown in the last minute (one pipeline, often none:
users.get_authors). A home page of statuses this process has shown lately is the one
round trip: home_page.lua leaves deleted statuses out (keys.deleted_statuses), and
returns the authors the user does not get (keys.hides: blocks, mutes) with the ids.
Entries that stand for an original shown through reposts come back with it too (the
original's id, the first reposter, how many others: lua/_reposts.lua), still the one
round trip; the page shows the original under its "reposted" header (reposts.py).

Pulled accounts (fanout.py) are merged in when read: home_page.lua reads the copies of
their newest statuses kept in every shard, in the reader's slot, in the same call, by
the rules a delivery applies. A page deeper than those copies reach reads the accounts'
own lists: at most two more round trips whatever their number (fanout.merge_pulled).
"""

import time

from . import (
    affinity,
    eviction,
    fanout,
    keys,
    paging,
    reposts,
    scripts,
    statuses,
    users,
    visibility,
)
from .limits import HOME_TIMELINE_SIZE


def _page_of_statuses(r, status_ids, next_cursor, viewer_id=None):
    """A page of the statuses ``status_ids`` as ``viewer_id`` may see them (statuses
    from many authors: visibility.shown_statuses checks each)."""
    viewer_likes = statuses.ViewerLikes(viewer_id)
    # The authors of statuses this process remembers are asked about with the statuses.
    seen = visibility.Seen(viewer_id, statuses.remembered_authors(status_ids).values())
    # The deletion notes asked about the ids with the statuses: those remembered are
    # trusted, no EXISTS each (statuses.get_statuses, notes_of).
    found = statuses.get_statuses(
        r, status_ids, viewer_likes=viewer_likes, seen=seen, notes_of=viewer_id or 0
    )
    shown = visibility.shown_statuses(r, viewer_id, found, seen=seen)
    page = paging.Page(shown, next_cursor)
    page.liked = frozenset(viewer_likes.ids)
    return page


def _home_page_call(uid, before, count, skip_deleted, with_likes=False, merge=False, above=None):
    """scripts.home_page's parameters; ``with_likes``: a page's call, which also returns
    which of its ids the user likes and whether they liked or unliked lately; ``merge``:
    and the pulled accounts the user follows; ``above``: read upward from that id."""
    return {"uid": uid, "before": before, "count": count, "skip_deleted": skip_deleted,
            "with_likes": with_likes, "now_ms": int(time.time() * 1000),
            "merge": merge, "above": above}  # fmt: skip


def _home_ids_and_hidden(r, uid, before, count, skip_deleted=False):
    """Up to ``count`` ids of the home timeline of ``uid`` below ``before``, newest
    first; with ``skip_deleted``, not those of statuses deleted lately (home_page.lua);
    and the authors ``uid`` does not get statuses of (a set, most often empty). Only the
    ids delivered: not those of pulled accounts (fanout.merge_pulled)."""
    ids, hidden, *_ = scripts.home_page(r, **_home_page_call(uid, before, count, skip_deleted))
    return [int(sid) for sid in ids], {int(author) for author in hidden}


def _home_page_read(reply):
    """home_page.lua's whole answer for a page (with_likes, merge): (ids, hidden
    authors, {entry id: (original id, first reposter, how many others)}, originals the
    user reposted, originals the user likes, whether they liked or unliked lately, the
    pulled accounts the user follows)."""
    ids, hidden, shown_reposts, reposted, liked, changed, merged = reply
    through = {}
    for i in range(0, len(shown_reposts), 4):
        entry, orig, reposter, others = shown_reposts[i : i + 4]
        through[int(entry)] = (int(orig), int(reposter), int(others))
    return (
        [int(sid) for sid in ids],
        {int(author) for author in hidden} if hidden else set(),
        through,
        {int(sid) for sid in reposted} if reposted else set(),
        frozenset(int(sid) for sid in liked) if liked else frozenset(),
        bool(changed),
        merged,
    )


def _home_ids(r, uid, before, count, skip_deleted=False):
    return _home_ids_and_hidden(r, uid, before, count, skip_deleted)[0]


# How many of a reader's communities (keys.memberships) a home page reads along with its
# ids: all of them for nearly everyone, so that a page holding a private community's
# statuses asks nothing more (visibility.members_only_shown); past it, the others are
# asked about as without them.
MEMBERSHIPS_READ_ALONG = 1000


class HomeIdsRead:
    """The ids of a home page, read along with something else in the same round trip.

    A logged-in session's key names its user, so the session store can read this
    page's ids with the session and the user (sessions.load_with_user): the whole page
    is then one round trip. home_page uses them if they were read for its user. The
    reader's communities come with them (``memberships``; ``memberships_whole`` when
    that is all of them): a private community's statuses cost no more.
    """

    replies = 3

    def __init__(self, before=None, count=30):
        self.before, self.count = before, count
        self.uid, self.ids, self.hidden = None, None, None
        self.evicted = False
        self.through, self.reposted = {}, set()
        self.liked, self.likes_changed = frozenset(), False
        self.merged = ("none", "", [], [])
        self.memberships, self.memberships_whole = frozenset(), False

    def queue(self, pipe, uid):
        # One more than the page, as home_page reads: is there an older page?
        call = _home_page_call(uid, self.before, self.count + 1, True, with_likes=True, merge=True)
        scripts.home_page.queue(pipe, **call)
        eviction.queue_state(pipe, uid)
        pipe.zrange(keys.memberships(uid), 0, MEMBERSHIPS_READ_ALONG)

    def take(self, uid, replies):
        self.uid = uid
        (self.ids, self.hidden, self.through, self.reposted, self.liked,
         self.likes_changed, self.merged) = _home_page_read(replies[0])  # fmt: skip
        self.evicted = eviction.needs_rebuild(replies[1])
        member_of = replies[2] or []
        self.memberships = frozenset(int(cid) for cid in member_of[:MEMBERSHIPS_READ_ALONG])
        self.memberships_whole = len(member_of) <= MEMBERSHIPS_READ_ALONG

    def ids_for(self, uid, before, count):
        """The ids read, if they were read for this very page; else None. (The
        authors the user does not get, read with them, are ``hidden``.) None too for
        an evicted home: the page rebuilds it and reads again."""
        if self.ids is None or (self.uid, self.before, self.count) != (uid, before, count):
            return None
        if self.evicted:
            return None
        return self.ids


def home_page(r, uid, before=None, count=30, ids_read=None, since=None, above=None):
    """A page of the home timeline of ``uid``: statuses (newest first) and a cursor.

    ``ids_read``: a HomeIdsRead that may already hold the page's ids. The page's
    ``liked``: the ids of its statuses ``uid`` likes, read with the ids; its counts are
    read fresh if ``uid`` liked or unliked in the last COUNTS_TRUST_SECONDS
    (keys.likes_changed), else trusted that long (statuses.get_statuses).

    The client API's paging (no page of the site passes them): ``since``, only entries
    above it; ``above``, the ``count`` entries just above it (read upward:
    fanout.read_upward). A page read upward whose entries are all left out here (an
    original its pulled author brings at its own place, a hidden author's) is read on
    from its newest entry, as the client would (fanout.UPWARD_TRIES pages at most).
    """
    if above is None:
        return _home_page(r, uid, before, count, ids_read, since, None)
    for _ in range(fanout.UPWARD_TRIES):
        page = _home_page(r, uid, before, count, None, None, above)
        if page.items or page.prev_cursor is None:
            break
        above = page.prev_cursor
    return page


def _home_page(r, uid, before, count, ids_read, since, above):
    ids = ids_read.ids_for(uid, before, count) if ids_read and above is None else None
    member_of, member_of_whole = frozenset(), False  # read along with the ids: HomeIdsRead
    if above is not None:

        def read(before, above, merge):
            call = _home_page_call(uid, before, count, True, True, merge=merge, above=above)
            return eviction.page_read(r, uid, lambda p: scripts.home_page.queue(p, **call))[0]

        reply, found_merged, above = fanout.read_upward(
            r, uid, read, before, count, above, marks=True, with_reposts=True
        )
        _, hidden, through, reposted, liked, changed, merged = _home_page_read(reply)
    else:
        if ids is None:
            call = _home_page_call(uid, before, count + 1, True, with_likes=True, merge=True)
            (reply,) = eviction.page_read(r, uid, lambda p: scripts.home_page.queue(p, **call))
            ids, hidden, through, reposted, liked, changed, merged = _home_page_read(reply)
        else:
            hidden, through, reposted = ids_read.hidden, ids_read.through, ids_read.reposted
            liked, changed, merged = ids_read.liked, ids_read.likes_changed, ids_read.merged
            member_of = ids_read.memberships
            member_of_whole = ids_read.memberships_whole
        found_merged = fanout.merged_page(
            r, uid, ids, merged, before, count, marks=True, with_reposts=True
        )
    ids, next_cursor = paging.cut_to(found_merged.ids, found_merged.next_cursor, since, above)
    if found_merged.through:
        through = {**through, **found_merged.through}
    merged_authors = [int(author) for author in merged[2]]
    if found_merged.pulled:
        liked = liked | found_merged.liked
        reposted = reposted | found_merged.reposted
    ids_on_page = ids
    if through and found_merged.pulled:
        # An original a pulled account brings on this page is shown there, once.
        ids = [sid for sid in ids if through.get(sid, (None,))[0] not in found_merged.pulled]
    if through:
        # Entries that stand for an original shown through reposts: the original is
        # shown, under its "reposted" header (reposts.py).
        ids = [through[sid][0] if sid in through else sid for sid in ids]
    found = statuses.get_statuses(r, ids, deletions_skipped=True, counts_fresh=changed)
    if through and merged_authors:
        found = _without_pulled_through_reposts(
            r, found, through, merged_authors, found_merged.pulled
        )
    if through:
        # The reposters named in the headers are read with the authors (one pipeline).
        users.get_authors(r, [*(s["uid"] for s in found), *(t[1] for t in through.values())])
    # A status delivered before a block or mute and not yet taken out (blocks.py) is
    # left out: rare, and a page a status shorter for it; the cursor stays right. A
    # repost of a hidden author's status is left out the same way.
    found = visibility.shown_statuses(
        r, uid, found, delivered_hidden=hidden, member_of=member_of,
        member_of_whole=member_of_whole,
    )  # fmt: skip
    if not through and not reposted:
        page = paging.Page(found, next_cursor)
    else:
        page = reposts.with_headers(r, found, next_cursor, through, reposted, uid)
    page.liked = liked
    page.prev_cursor = ids_on_page[0] if ids_on_page else None
    return page


def _without_pulled_through_reposts(r, found, through, merged, pulled_here):
    """``found`` without the originals shown through a delivered repost that a merged
    pulled account's own status brings already, on another page (at its own place, as
    a home shows an original it has: decision 0033); one round trip, only when a page
    has such."""
    by_repost = {orig for entry, (orig, _, _) in through.items() if entry != orig}
    merged = set(merged)
    suspects = [
        s for s in found
        if s["id"] in by_repost and s["uid"] in merged and s["id"] not in pulled_here
    ]  # fmt: skip
    if not suspects:
        return found
    pipe = r.pipeline(transaction=False)
    for status in suspects:
        pipe.zcount(keys.pulled_statuses(status["uid"]), status["id"], status["id"])
    brought = {s["id"] for s, n in zip(suspects, pipe.execute(), strict=True) if n}
    return [status for status in found if status["id"] not in brought]


def profile_page(r, uid, before=None, count=30, viewer_id=None, since=None, above=None,
                 opened=False, with_pins=False):  # fmt: skip
    """A page of the statuses ``uid`` posted and reposted (newest first: a repost shows
    its original, under "reposted") and a cursor. With a ``viewer_id``, the statuses
    that viewer reposted are marked (``viewer_reposted``) and those they like are the
    page's ``liked``, asked in the round trips that read the statuses (a ZMSCORE each,
    riding along). ``since``, ``above``: as paging.read_ids. ``opened``: the viewer
    opened the profile (its page, first page): their affinity to ``uid`` (affinity.py,
    the Top timeline) rides along in the same round trip. ``with_pins`` (the first page
    only): the statuses ``uid`` pinned are the page's ``pinned`` (pins.py), read in the
    same round trips as the page's own."""
    # Pinned statuses: their ids with the first page's, their statuses with its.
    pins_wanted = with_pins and before is None and since is None and above is None
    pinned_ids = []
    if pins_wanted:
        pairs, next_cursor, pinned_ids = _first_profile_ids(r, uid, count)
    else:
        pairs, next_cursor = paging.read_ids(r, keys.profile(uid), before, count, since, above)
    ids = [sid for sid, _ in pairs]
    own_ids = set(ids)
    ids += [sid for sid in pinned_ids if sid not in own_ids]
    reposted = set()
    viewer_likes = statuses.ViewerLikes(viewer_id)
    if viewer_id is None or not ids:
        found = statuses.get_statuses(r, ids)
    else:

        def extra(pipe):
            pipe.zmscore(keys.reposted(viewer_id), ids)
            if opened:  # after the ZMSCORE: its reply is the one read back
                affinity.queue_bump(pipe, viewer_id, uid, "open")

        found, scores = statuses.get_statuses_and(r, ids, extra, viewer_likes=viewer_likes)
        reposted = {sid for sid, score in zip(ids, scores, strict=True) if score is not None}
    pinned = []
    if pinned_ids:
        by_id = {status["id"]: status for status in found}
        pinned = [dict(by_id[sid]) for sid in pinned_ids if sid in by_id]
        found = [status for status in found if status["id"] in own_ids]
    if any("repost_of" in status for status in found):
        page = reposts.with_originals(r, found, next_cursor, viewer_id, reposted, viewer_likes)
    else:
        # The caller decided that the viewer may see this profile's statuses
        # (visibility.statuses_visibility): its author is not asked about again.
        page = paging.Page(
            visibility.shown_statuses(r, viewer_id, found, checked={uid}), next_cursor
        )
    if reposted:
        reposts.mark_reposted(page.items, reposted)
    if pinned:
        page.pinned = visibility.shown_statuses(r, viewer_id, pinned, checked={uid})
        if reposted:
            reposts.mark_reposted(page.pinned, reposted)
    page.liked = frozenset(viewer_likes.ids)
    page.prev_cursor = paging.top_cursor(pairs)
    return page


def _first_profile_ids(r, uid, count):
    """paging.read_ids of a profile's first page, and the ids ``uid`` pinned (the latest
    pin first), in one round trip (one slot)."""
    pipe = r.pipeline(transaction=False)
    pipe.zrevrangebyscore(keys.profile(uid), "+inf", "-inf", start=0, num=count + 1,
                          withscores=True)  # fmt: skip
    pipe.zrevrange(keys.pinned(uid), 0, -1)
    scored, pinned = pipe.execute()
    next_cursor = int(scored[count - 1][1]) if len(scored) > count else None
    pairs = [(int(member), int(score)) for member, score in scored[:count]]
    return pairs, next_cursor, [int(sid) for sid in pinned]


def tag_page(r, tag, before=None, count=30, viewer_id=None, since=None, above=None,
             with_following=False):  # fmt: skip
    """A page of the statuses with hashtag ``tag`` (normalized: entities.normalize_tag),
    newest first, and a cursor: as profile_page, from the tag's timeline (keys.tag,
    written by tags.py); statuses deleted since are skipped (no hash). ``since``,
    ``above``: as paging.read_ids. ``with_following`` (a page, read down): whether
    ``viewer_id`` follows the tag is the page's ``following`` (followed hashtags),
    read with the ids (keys.tag_followers shares the tag's slot)."""
    following = None
    if with_following and viewer_id is not None and since is None and above is None:
        pairs, next_cursor, following = _ids_and_following(r, tag, before, count, viewer_id)
    else:
        pairs, next_cursor = paging.read_ids(r, keys.tag(tag), before, count, since, above)
    page = _page_of_statuses(r, [sid for sid, _ in pairs], next_cursor, viewer_id)
    page.prev_cursor = paging.top_cursor(pairs)
    page.following = bool(following)
    return page


def _ids_and_following(r, tag, before, count, viewer_id):
    """paging.read_ids of a tag page read down, and whether ``viewer_id`` follows the
    tag, in one round trip (one slot)."""
    top = f"({int(before)}" if before is not None else "+inf"
    pipe = r.pipeline(transaction=False)
    pipe.zrevrangebyscore(keys.tag(tag), top, "-inf", start=0, num=count + 1, withscores=True)
    pipe.zscore(keys.tag_followers(tag), str(viewer_id))
    scored, score = pipe.execute()
    next_cursor = int(scored[count - 1][1]) if len(scored) > count else None
    pairs = [(int(member), int(at)) for member, at in scored[:count]]
    return pairs, next_cursor, score is not None


def public_page(r, before=None, count=20, viewer_id=None, since=None, above=None):
    """A page of the recent public statuses (keys.RECENT_PUBLIC_STATUSES), newest first,
    and a cursor, as a tag page gives them: each with its counts, a repost as its
    original under "reposted" (reposts.with_originals), those ``viewer_id``
    reposted marked and those they like the page's ``liked``. Left out: statuses posted
    to followers only; those of accounts private, suspended or being deleted now, or in
    a block with the viewer or muted by them (visibility.shown_statuses, read fresh: the
    viewer's rules, then only what is public now). ``since``, ``above``: as
    paging.read_ids. Round trips: the ids; the statuses with the viewer's reposts and
    likes of them; the authors not shown lately; one or two more for the originals of
    reposts (when the page has any)."""
    pairs, next_cursor = paging.read_ids(
        r, keys.RECENT_PUBLIC_STATUSES, before, count, since, above
    )
    ids = [sid for sid, _ in pairs]
    reposted = set()
    viewer_likes = statuses.ViewerLikes(viewer_id)
    if viewer_id is None or not ids:
        found = statuses.get_statuses(r, ids)
    else:
        found, scores = statuses.get_statuses_and(
            r, ids, lambda pipe: pipe.zmscore(keys.reposted(viewer_id), ids),
            viewer_likes=viewer_likes,
        )  # fmt: skip
        reposted = {sid for sid, score in zip(ids, scores, strict=True) if score is not None}
    found = [status for status in found if status.get("private") != "1"]
    visible = [
        status for status in visibility.shown_statuses(r, viewer_id, found)
        if "private" not in status["author"]
    ]  # fmt: skip
    if any("repost_of" in status for status in visible):
        page = reposts.with_originals(r, visible, next_cursor, viewer_id, reposted, viewer_likes)
    else:
        page = paging.Page(visible, next_cursor)
    if reposted:
        reposts.mark_reposted(page.items, reposted)
    page.liked = frozenset(viewer_likes.ids)
    page.prev_cursor = paging.top_cursor(pairs)
    return page


def home_ids(r, uid):
    """The home timeline of ``uid`` as ids, newest first (tests, maintenance)."""
    return _home_ids(r, uid, None, HOME_TIMELINE_SIZE)


def in_home(r, uid, sid):
    """Whether status ``sid`` is in the home timeline of ``uid`` (tests, maintenance)."""
    return bool(r.sismember(keys.home(uid), sid))


def profile_ids(r, uid, count=None):
    """Ids of the statuses ``uid`` posted, newest first; the newest ``count`` if given."""
    stop = -1 if count is None else count - 1
    return [int(sid) for sid in r.zrevrange(keys.profile(uid), 0, stop)]


# --- what a stream missed (streaming/replay.py) ----------------------------------


def home_newer(r, uid, after, count):
    """The statuses of the home timeline of ``uid`` with ids above ``after``, as a home
    page shows them (deleted ones, and those of authors the user does not get or who are
    hidden, left out; with their authors), oldest first: the newest ``count`` of them.
    Returns (statuses, more): ``more`` when more than ``count`` ids are above ``after``
    (the oldest of them are not returned). For a live page reconnecting: what arrived
    while it was away. Costs what a home page costs (one to three round trips)."""
    call = _home_page_call(uid, None, count + 1, True, merge=True)
    (reply,) = eviction.page_read(r, uid, lambda pipe: scripts.home_page.queue(pipe, **call))
    ids, hidden = [int(sid) for sid in reply[0]], {int(author) for author in reply[1]}
    ids = fanout.merged_page(r, uid, ids, reply[-1], None, count + 1, with_reposts=True).ids
    newer = [sid for sid in ids if sid > after]
    more = len(newer) > count
    found = statuses.get_statuses(r, newer[:count], deletions_skipped=True)
    found = [status for status in found if status["uid"] not in hidden]
    if any("repost_of" in status for status in found):
        found = _with_originals(r, found, hidden)
    shown = visibility.shown_statuses(r, uid, found, delivered_hidden=hidden)
    return shown[::-1], more


def _with_originals(r, found, hidden):
    """``found`` with each repost given its original (with its author) as
    ``retweeted_status``, as the live page's events carry it (a repost shows its
    original under "reposted"); reposts of originals deleted, hidden from the user or
    no longer public are left out, as home pages leave them out (reposts.with_headers).
    One or two round trips: the originals with their authors' visibility, their authors
    not shown lately."""
    wanted = [int(status["repost_of"]) for status in found if "repost_of" in status]
    # Shown through someone else's repost: as to a visitor (public now, its author
    # shown), asked with the originals (each repost names its original's author).
    seen = visibility.Seen(None, {int(s["repost_of_uid"]) for s in found if "repost_of_uid" in s})
    read = statuses.get_statuses(r, wanted, seen=seen)
    originals = {s["id"]: s for s in visibility.shown_statuses(r, None, read, seen=seen)}
    kept = []
    for status in found:
        if "repost_of" in status:
            original = originals.get(int(status["repost_of"]))
            if original is None or original["uid"] in hidden:
                continue
            status = {**status, "retweeted_status": original}
        kept.append(status)
    return kept


# get_statuses' counts: read with pages, not fields of a status as its event has it.
COUNT_FIELDS = frozenset(("replies", "likes", "reposts"))


def recent_public(r, after, below=None, count=500, withheld=None):
    """A batch of the recent public statuses (keys.RECENT_PUBLIC_STATUSES) with ids above
    ``after`` and below ``below`` (None: the newest), newest first: those whose author's
    account is public and shown now (read fresh from the user hashes: not private, not
    suspended, not being deleted), deleted ones left out. Each has its author as its
    event carries it (``author``: users.event_author, read now).

    Returns (statuses, lowest, full): ``lowest`` the lowest id read (the next batch's
    ``below``; None when none was), ``full`` whether ``count`` ids were read (there may be
    more below). Reposts come with their originals, as their events do (``retweeted_status``),
    those of originals gone or no longer public left out; each status, and each original,
    with its ``author`` as its event carries it (users.event_author). ``withheld``: a set,
    given the ids read and left out (a catch-up does not send their late events either).
    Four round trips: the ids, the hashes, the authors (visibility.shown_statuses: one more
    for those this process has not shown lately), the authors' counts; one or two more for
    the originals of reposts.
    """
    top = "+inf" if below is None else f"({int(below)}"
    ids = [
        int(sid)
        for sid in r.zrevrangebyscore(
            keys.RECENT_PUBLIC_STATUSES, top, f"({int(after)}", start=0, num=count
        )
    ]
    if not ids:
        return [], None, False
    found = [status for status in statuses.get_statuses(r, ids) if status.get("private") != "1"]
    # What a visitor may see: the streaming API has no viewer (the authors' accounts
    # read fresh: not private, not suspended, not being deleted).
    visible = visibility.shown_statuses(r, None, found)
    if any("repost_of" in status for status in visible):
        # A repost as it was published: its original (public now) as retweeted_status.
        visible = _with_originals(r, visible, hidden=())
    if withheld is not None:
        withheld.update(set(ids) - {status["id"] for status in visible})
    return _as_events(r, visible), ids[-1], len(ids) == count


def _as_events(r, found):
    """``found`` (shown statuses, reposts with their ``retweeted_status``) as their
    events carry them: without get_statuses' counts, each ``author`` as
    users.event_author gives it (read now: the catch-up's counts are current). One
    round trip; none for no status."""
    originals = [status["retweeted_status"] for status in found if "retweeted_status" in status]
    uids = list({status["uid"] for status in (*found, *originals)})
    if not uids:
        return []
    pipe = r.pipeline(transaction=False)
    for uid in uids:
        pipe.hmget(keys.user(uid), users.EVENT_AUTHOR_FIELDS)
    authors = {
        uid: users.event_author(uid, values)
        for uid, values in zip(uids, pipe.execute(), strict=True)
    }

    def as_event(status):
        event = {name: value for name, value in status.items() if name not in COUNT_FIELDS}
        event["author"] = authors[status["uid"]]
        return event

    events = []
    for status in found:
        event = as_event(status)
        if "retweeted_status" in status:
            event["retweeted_status"] = as_event(status["retweeted_status"])
        events.append(event)
    return events


def recent_public_span(r):
    """(how many ids keys.RECENT_PUBLIC_STATUSES holds, its lowest id or None): whether a
    catch-up from an id reaches back far enough (streaming/replay.py)."""
    pipe = r.pipeline(transaction=False)
    pipe.zcard(keys.RECENT_PUBLIC_STATUSES)
    pipe.zrange(keys.RECENT_PUBLIC_STATUSES, 0, 0)
    size, lowest = pipe.execute()
    return size, int(lowest[0]) if lowest else None

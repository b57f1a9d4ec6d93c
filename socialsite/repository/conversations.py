"""Reading conversations: a status's thread, and a user's page of notifications.

A thread page (``thread``) shows a status, the statuses above it (its ancestors, up to
limits.THREAD_ANCESTORS, oldest first) and its replies below: the direct ones oldest
first, limits.THREAD_PAGE_SIZE a page, each with its first THREAD_NESTED_REPLIES
replies nested, down to THREAD_DEPTH levels. Status keys are in different slots, so no
script can walk a thread; instead each reply stores its ancestors' ids, and each status
the ids of its replies (keys.replies, in its own slot). So the page costs a fixed number
of round trips whatever the thread's size:
1. the status, its reply count and its page of direct replies' ids;
2. the ancestors, and the direct replies with their counts and first replies' ids;
3. the second level, with its counts and first replies' ids;
4. the third level, with its counts;
5. the authors not shown in the last minute (users.get_authors; often none).
Statuses this process has read before cost an EXISTS instead of their hash.

The notifications page (``notifications_page``) groups a user's notifications
(notifications.group) and reads, in one round trip each, the statuses they are about
and the users they name (a few per entry, whatever it holds). A notification whose
status or actor is found gone disappears, and is returned in ``gone`` for the caller
to take out (notifications.mark_read). A status the user may not see (a private
account they do not follow, an author suspended or in a block with them) is not quoted:
its entry says it is not available (visibility.shown_statuses).
"""

from dataclasses import dataclass, field

from . import communities, notifications, statuses, users, visibility
from .limits import THREAD_DEPTH, THREAD_NESTED_REPLIES, THREAD_PAGE_SIZE

# --- threads ---------------------------------------------------------------------------------


@dataclass
class Reply:
    """A reply on a thread page: its status (with ``author`` and ``replies``, its count),
    the replies shown below it (Reply objects, oldest first), and ``more``: whether it
    has replies not shown here (its own page shows them)."""

    status: dict
    replies: list = field(default_factory=list)
    more: bool = False


@dataclass
class Thread:
    """A thread page: the status (with ``author`` and ``replies``), its ``ancestors``
    oldest first (a deleted one as ``{"id": ID, "deleted": True}``), its direct
    ``replies`` (Reply objects, oldest first) and the cursor of the next page of them
    (``after``), or None."""

    status: dict
    ancestors: list
    replies: list
    next_cursor: int | None = None
    liked: frozenset = frozenset()  # the ids of the statuses shown that the viewer likes


def thread(r, sid, viewer_id=None, after=None, count=THREAD_PAGE_SIZE):
    """The Thread of status ``sid`` with its direct replies after id ``after`` (None:
    from the first), or None if there is no such status (or its author is gone).

    Replies and ancestors ``viewer_id`` (None: a visitor) may not see (a private
    account's they do not follow, an author in a block with them or muted) are left
    out, an ancestor as "not available" (visibility.shown_statuses: one round trip
    more when the page shows any status of another author). Whether the viewer may see
    the status itself is the caller's question."""
    viewer_likes = statuses.ViewerLikes(viewer_id)  # read with each level's statuses
    found, first_ids = statuses.get_statuses_with_replies(
        r, [sid], {int(sid): (count + 1, after)}, viewer_likes
    )
    if not found:
        return None
    status = found[0]
    if not visibility.members_only_shown(r, viewer_id, [status]):
        return None  # Groups: a private community's status, to a non-member
    page = first_ids.get(status["id"], [])
    next_cursor = page[count - 1] if len(page) > count else None
    page = page[:count]
    ancestors = statuses.ancestor_ids(status)
    by_id, children = {status["id"]: status}, {}
    # One round trip per level; the ancestors ride along with the first.
    level, ids, extra = 1, page, ancestors
    while (ids or extra) and level <= THREAD_DEPTH:
        wanted = {i: (THREAD_NESTED_REPLIES, None) for i in ids} if level < THREAD_DEPTH else {}
        read, reply_ids = statuses.get_statuses_with_replies(
            r, [*extra, *ids], wanted, viewer_likes
        )
        by_id.update((s["id"], s) for s in read)
        children.update(reply_ids)
        ids = [reply for i in ids for reply in reply_ids.get(i, ())]
        extra = []
        level += 1
    authors = users.get_authors(r, [s["uid"] for s in by_id.values()])
    for shown in by_id.values():
        shown["author"] = authors.get(shown["uid"])
    if status["author"] is None:
        return None
    # Whether the viewer may see the status itself is the caller's question (its
    # author: visibility.statuses_visibility); the others are checked here.
    others = [shown for shown in by_id.values() if shown["id"] != status["id"]]
    named = [shown for shown in others if shown["author"] is not None]
    seen = {shown["id"] for shown in visibility.shown_statuses(r, viewer_id, named)}
    unavailable = {shown["id"] for shown in named if shown["id"] not in seen}
    for hidden in unavailable:
        by_id[hidden]["author"] = None

    def replies_of(ids, level):
        made = []
        for reply_id in ids:
            reply = by_id.get(reply_id)
            if reply is None or reply["author"] is None:
                continue  # deleted meanwhile, or its author is gone
            below = (
                replies_of(children.get(reply_id, ()), level + 1) if level < THREAD_DEPTH else []
            )
            made.append(Reply(reply, below, reply["replies"] > len(below)))
        return made

    above = []
    for ancestor_id in ancestors:
        ancestor = by_id.get(ancestor_id)
        if ancestor_id in unavailable:
            ancestor = {"id": ancestor_id, "unavailable": True}
        elif ancestor is None or ancestor["author"] is None:
            ancestor = {"id": ancestor_id, "deleted": True}
        above.append(ancestor)
    return Thread(status, above, replies_of(page, 1), next_cursor, frozenset(viewer_likes.ids))


# --- notifications -----------------------------------------------------------------------------

# Events of one entry whose statuses are read (the newest): the entry shows the newest
# one's. The rest are trusted: deleting a status takes its notifications back. Likewise
# the actors whose names are read: an entry names two, however many it holds.
STATUSES_READ_PER_ENTRY = 3
ACTORS_READ_PER_ENTRY = 3


@dataclass
class Entry:
    """One line of the notifications page: ``kind``; ``actors``, the users it names
    (the newest two, each once), and how many ``others`` did it too; ``status``, the
    newest event's status (a reply, the status that mentions) with its author, or None
    (a follow); ``subject``, for a reply the status replied to, or None (also when
    deleted); ``count``, the events in the entry; ``newest``, its newest event's score
    (time in ms); ``unread``; ``unavailable``: the status exists but the user may not
    see it (visibility.shown_statuses), so ``status`` is None and the page says so."""

    kind: str
    actors: list
    others: int
    status: dict | None
    subject: dict | None
    count: int
    newest: int
    unread: bool
    unavailable: bool = False  # its status exists but is not for the user to see
    # Groups: a group notification's group (communities.decode), if it is
    # still there.
    group: dict | None = None


@dataclass
class NotificationsPage:
    """``entries``, newest first; ``next_cursor`` (``before`` for the next page) or
    None; ``newest``, the score of the user's newest notification (of any kind or
    actor; None without any); ``gone``, the events found to be about a deleted status
    or user; ``unread``, the user's notifications.Unread after the page was seen."""

    entries: list
    next_cursor: int | None
    newest: int | None
    gone: list
    unread: notifications.Unread | None = None


def notifications_page(
    r, uid, before=None, count=30, kind=None, hidden=frozenset(), events=None, unread=None,
    mark_seen=True,
):  # fmt: skip
    """A page of user ``uid``'s notifications, grouped (notifications.group), the entries
    whose newest event scores below ``before`` (None: the newest), as the user sees it:
    the first page of all kinds marks every notification seen, and events found gone
    are taken out (notifications.mark_read: one round trip, only if either is needed).

    ``kind``: only that kind (notifications.KINDS). ``hidden``: ids of users whose
    notifications are left out (such as those the user blocks or mutes). ``events``:
    the user's notifications if already read (notifications.EventsRead), and
    ``unread`` their notifications.Unread (notifications.UnreadRead); else they are
    read here. Entries newer than the read mark are ``unread``. ``mark_seen`` False:
    the page marks nothing seen (a HEAD request).
    """
    if events is None:
        events = notifications.events(r, uid)
    if unread is None:
        unread = notifications.unread(r, uid)
    page = _page_of_notifications(r, uid, before, count, kind, hidden, events, unread.read)
    seen = page.newest if before is None and kind is None and mark_seen else None
    page.unread = unread
    if (seen is not None and seen > unread.read) or page.gone:
        count_now, version = notifications.mark_read(r, uid, seen, page.gone)
        page.unread = notifications.Unread(count_now, version, max(unread.read, seen or 0))
    return page


def _page_of_notifications(r, uid, before, count, kind, hidden, events, read_mark):
    newest = events[0].score if events else None
    shown = [
        event
        for event in events
        if (kind is None or event.kind == kind) and event.actor not in hidden
    ]
    groups = notifications.group(shown)
    if before is not None:
        groups = [group for group in groups if group.newest < before]
    next_cursor = groups[count - 1].newest if len(groups) > count else None
    groups = groups[:count]

    # Read for each entry: the statuses of its newest events, the status replied to,
    # and its newest actors (the page names two; a third stands in for a gone one).
    to_read, to_name = [], [uid]  # the user: the author of the statuses replied to
    for group in groups:
        newest_events = group.events[:STATUSES_READ_PER_ENTRY]
        to_read += [event.status for event in newest_events if event.status]
        if group.kind == "reply":
            to_read.append(group.subject)
        to_name += list(dict.fromkeys(event.actor for event in group.events))[
            :ACTORS_READ_PER_ENTRY
        ]
    # A mention's or a reply's status is its actor's: whether the user may see their
    # statuses is asked with the statuses (the others are the user's own).
    seen = visibility.Seen(
        uid,
        {
            event.actor
            for group in groups
            if group.kind in ("mention", "reply")
            for event in group.events[:STATUSES_READ_PER_ENTRY]
        },
    )
    found = statuses.get_statuses(r, dict.fromkeys(to_read), seen=seen)
    named = users.get_authors(r, to_name)  # the statuses' authors are among them
    # Statuses the user may not see (a private account they do not follow, a
    # suspended author...) are not quoted: their entry says so (Entry.unavailable).
    read = {s["id"]: s for s in visibility.shown_statuses(r, uid, found, seen=seen)}
    existing = {s["id"] for s in found}
    looked_up, checked = set(to_read), set(to_name)
    # Groups: the groups named, one round trip when there are any.
    group_ids = {g.subject for g in groups if g.kind in notifications.GROUP_KINDS}
    named_groups = {c["id"]: c for c in communities.read_many(r, group_ids)}

    entries, gone = [], []
    for group in groups:
        kept = []
        for event in group.events:
            status_gone = event.status in looked_up and event.status not in existing
            if (event.actor in checked and event.actor not in named) or status_gone:
                gone.append(event.member)
            else:
                kept.append(event)
        if not kept:
            continue
        actors = list(dict.fromkeys(event.actor for event in kept))
        # A suspended or leaving actor (None) is not named.
        shown = [named[actor] for actor in actors if named.get(actor)][:2]
        if not shown:
            continue  # none of its actors could be named: it waits for a later look
        subject = read.get(group.subject) if group.kind == "reply" else None
        status = read.get(kept[0].status) if kept[0].status else None
        entries.append(
            Entry(
                kind=group.kind,
                actors=shown,
                others=len(actors) - len(shown),
                status=status,
                subject=subject,
                count=len(kept),
                newest=group.newest,
                unread=group.newest > read_mark,
                unavailable=bool(kept[0].status) and status is None,
                group=named_groups.get(group.subject)
                if group.kind in notifications.GROUP_KINDS
                else None,
            )
        )
    return NotificationsPage(entries, next_cursor, newest, gone)


# --- notifications one by one (the client API) ------------------------------------------------


@dataclass
class ListedNotice:
    """One notification, not grouped (Mastodon's, for the client API's list): its ``event``
    (notifications.Event: ``score`` is its id), ``actor`` (an author dict) and
    ``status`` (the status it is about, with its ``author``; None for a follow)."""

    event: notifications.Event
    actor: dict
    status: dict | None


def notices(r, uid, kinds=None, before=None, after=None, count=20, score=None, upward=False):
    """Up to ``count`` of ``uid``'s notifications one by one, newest first, with scores
    below ``before`` and above ``after`` (None: no bound), of ``kinds`` (a set of
    notifications.KINDS; None: every kind); with ``score``, that one notification only.
    The newest such; ``upward``, the oldest such (those just above ``after``: the
    client API's min_id), still newest first.
    Returns (ListedNotices, next_cursor). Left out as the notifications page leaves them out:
    actors the user blocks, is blocked by or mutes, actors suspended or gone, statuses
    deleted or the user may not see (visibility.shown_statuses). Round trips: the events
    with the hidden actors; the statuses (with their authors' visibility); the actors
    not shown lately (users.get_authors). A constant, whatever ``count``."""
    read = notifications.EventsRead()
    pipe = r.pipeline(transaction=False)
    read.queue(pipe, uid)
    read.take(uid, pipe.execute())
    wanted = [
        event
        for event in read.found
        if (kinds is None or event.kind in kinds)
        and event.actor not in read.hidden
        and (before is None or event.score < before)
        and (after is None or event.score > after)
        and (score is None or event.score == score)
    ]
    if upward:
        wanted.reverse()
    # A few more than asked for: some may be left out below.
    chosen = wanted[: count + count // 2 + 2]
    with_status = [event for event in chosen if event.status]
    seen = visibility.Seen(uid, {event.actor for event in with_status})
    found = statuses.get_statuses(r, dict.fromkeys(e.status for e in with_status), seen=seen)
    named = users.get_authors(r, [event.actor for event in chosen])
    shown = {s["id"]: s for s in visibility.shown_statuses(r, uid, found, seen=seen)}
    made = []
    for event in chosen:
        actor = named.get(event.actor)
        status = shown.get(event.status) if event.status else None
        if actor is None or (event.status and status is None):
            continue
        made.append(ListedNotice(event, actor, status))
        if len(made) == count:
            break
    if upward:
        # The next (older) page is below the oldest shown, when there is one.
        made.reverse()
        more = bool(made) and any(e.score < made[-1].event.score for e in read.found)
        return made, made[-1].event.score if more else None
    more = len(made) == count and wanted[-1].score < made[-1].event.score
    return made, made[-1].event.score if more else None


@dataclass
class Notice:
    """One notification as a stream sends it: ``event`` (a notifications.Event), its
    ``actor`` (a user dict), ``status`` (the status it is about, as the user may see
    it; None for a follow) and ``status_author`` (its author's user dict: the actor's,
    or the user's own)."""

    event: notifications.Event
    actor: dict
    status: dict | None = None
    status_author: dict | None = None


def notifications_after(r, uid, score, count=20):
    """User ``uid``'s notifications scored above ``score``, oldest first (at most the
    newest ``count``), as Notices. Left out, as the notifications page leaves them out:
    those by actors the user blocks, is blocked by or mutes, or who are suspended or
    gone, and those about a status the user may not see (visibility.shown_statuses) or
    that is deleted. Three round trips at most (events, actors, statuses and their rule)."""
    found, hidden = notifications.events_after(r, uid, score, count)
    found = [event for event in found if event.actor not in hidden]
    if not found:
        return []
    # The actors, and the user: the author of the statuses liked or reposted.
    people = users.get_users(r, {uid, *(event.actor for event in found)})
    about = [_notice_status_id(event) for event in found]
    read = statuses.get_statuses(r, dict.fromkeys(sid for sid in about if sid))
    shown = {status["id"]: status for status in visibility.shown_statuses(r, uid, read)}
    notices = []
    for event, sid in zip(found, about, strict=True):
        actor = people.get(event.actor)
        if actor is None or users.is_hidden(actor):
            continue
        if not sid:
            notices.append(Notice(event, actor))
            continue
        status = shown.get(sid)
        author = people.get(status["uid"]) if status is not None else None
        if author is not None:
            notices.append(Notice(event, actor, status, author))
    return notices


def _notice_status_id(event):
    """The status a notification is about, as Mastodon names it: the mention or reply
    itself, the status liked or reposted; none for a follow."""
    if event.kind in ("mention", "reply"):
        return event.status
    if event.kind in ("like", "repost"):
        return event.subject or event.status
    return 0

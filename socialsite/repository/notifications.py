"""Notifications: who followed a user, mentioned them or replied to them.

A user's notifications live in their own slot, so one script changes them and their
unread count together:
- keys.notifications: a ZSET of events. An event is one member,
  ``"<kind>:<actor>:<status>:<subject>"``: what happened (a name of KINDS), who did it,
  the status that did it (the reply, the status that mentions; 0 for a follow) and the
  *subject* events are grouped by (the status replied to; a mention's own status; 0
  for a follow). The same event written again is the same member: a retried post or
  follow changes nothing. Scored by time in ms, made unique and above the read mark
  (notify.lua), so a page's cursor never repeats or skips one. At most ``keep`` (the
  newest; limits.NOTIFICATIONS_KEPT, Django's NOTIFICATIONS_KEPT setting).
- keys.notifications_state: a HASH: ``read``, the score of the newest notification the
  user has seen; ``unread``, how many score above it (not counting hidden actors, see
  keys.hidden_actors); ``version``, raised by each change. Every script that changes the
  list works ``unread`` out again in the same step (_notifications.lua), so the count
  is exact under any concurrency, and a page reads it with one HMGET (UnreadRead, read
  along with the session: no round trip of its own).

Each change publishes ``{"unread": uid, "count": N, "version": V}`` on
keys.NOTIFICATION_CHANNEL from inside its script; the stream servers pass it to that
user's live pages, which keep the highest version they have seen.

Events are written with the action (statuses.post_status, graph.follow) and taken back
with its undoing (statuses.delete_status, graph.unfollow). Several of one kind on one
subject within limits.NOTIFICATION_GROUP_MS are one entry on the page (group).

A kind is a name in KINDS, its wording in templates/timeline/notifications.html, and a
``queue_notify`` / ``queue_unnotify`` where it is done and undone: a like is
``member("like", liker, liked_status, liked_status)`` (likes.py), grouping the likes of a
status.
"""

import time
from collections.abc import Iterable
from dataclasses import dataclass, field

from . import keys, scripts
from .client import Client, Pipe
from .ids import stored_id
from .limits import NOTIFICATION_GROUP_MS, NOTIFICATIONS_KEPT

# What a notification can say happened. The page's ?type= takes one of them.
_PLAIN_KINDS = ("follow", "mention", "reply", "follow_request", "follow_approved", "like", "repost")
# Groups: someone asks to join a group (to its admins), an admin approves
# the request or invites someone (to that person), a status of the group is reported
# (to its admins: the actor is the status's author); the subject is the group's id
# (communities.py), the status 0 but for a report.
GROUP_KINDS = ("group_request", "group_approved", "group_invite", "group_report")
# Polls: a poll has ended, to its author and its voters (polls.end_due); the actor is
# the poll's author, the status and the subject the poll's status.
POLL_KINDS = ("poll",)
# Edits: a status one reposted was edited (statuses.edit_status); the actor is its
# author, the status and the subject the edited status.
EDIT_KINDS = ("update",)
KINDS: tuple[str, ...] = _PLAIN_KINDS + GROUP_KINDS + POLL_KINDS + EDIT_KINDS


@dataclass(frozen=True)
class Event:
    """One notification: ``kind`` by ``actor`` through ``status`` (0: none) about
    ``subject`` (0: none), at ``score`` (its time in ms, unique in the user's list)."""

    kind: str
    actor: int
    status: int
    subject: int
    score: int

    @property
    def member(self):
        return member(self.kind, self.actor, self.status, self.subject)


def member(kind: str, actor: int, status: int = 0, subject: int = 0) -> str:
    """The ZSET member of an event (see the module's docstring)."""
    return f"{kind}:{int(actor)}:{int(status)}:{int(subject)}"


def _event(text, score):
    """The Event a member stands for, or None for one this code cannot read."""
    try:
        kind, actor, status, subject = text.split(":")
        return Event(kind, int(actor), int(status), int(subject), int(score))
    except ValueError:
        return None


# --- writing: queued on a pipeline, in the user's slot -----------------------------------


def queue_notify(
    pipe: Pipe, uid: int, event_member: str, now_ms: int, keep: int = NOTIFICATIONS_KEPT
) -> None:
    """Queue notify.lua: add ``event_member`` to user ``uid``'s notifications (nothing if
    it is there, or the user is gone), keeping the newest ``keep``. Its reply: 1 if added."""
    scripts.notify.queue(pipe, uid=uid, event=event_member, now_ms=now_ms, keep=keep)


def queue_unnotify(pipe: Pipe, uid: int, members: Iterable[str], seen: int | str = "") -> None:
    """Queue unnotify.lua: take ``members`` out of user ``uid``'s notifications and, with
    ``seen`` (a score), mark those up to it as seen. Its reply: [taken out, unread count,
    version]."""
    scripts.unnotify.queue(pipe, uid=uid, events=members, seen=seen)


def unnotify(r: Client, uid: int, members: Iterable[str]) -> int:
    """Take ``members`` out of user ``uid``'s notifications; how many were there."""
    return scripts.run_pipeline(r, lambda pipe: queue_unnotify(pipe, uid, members))[0][0]


def mark_read(
    r: Client, uid: int, seen_score: int | None, gone: Iterable[str] = ()
) -> tuple[int, int]:
    """The user has seen their notifications up to ``seen_score``; ``gone``: events found
    to be about a deleted status or user, taken out at the same time. Returns the unread
    count and version after it."""
    seen = "" if seen_score is None else int(seen_score)

    def fill(pipe):
        queue_unnotify(pipe, uid, gone, seen)
        if seen != "":  # the notifications marker moved: when, for /api/v1/markers
            pipe.hset(keys.markers(uid), "notifications_updated", int(time.time() * 1000))

    _, unread, version = scripts.run_pipeline(r, fill)[0]
    return unread, version


def recount(r: Client, uid: int) -> tuple[int, int]:
    """Work user ``uid``'s unread count out again (after their hidden-actor keys changed:
    a block or mute); returns the unread count and version."""
    _, unread, version = scripts.run_pipeline(r, lambda pipe: queue_unnotify(pipe, uid, (), "*"))[0]
    return unread, version


# --- reading -------------------------------------------------------------------------------


@dataclass
class Unread:
    """A user's unread count, the version it belongs to and their read mark."""

    count: int = 0
    version: int = 0
    read: int = 0


def _unread(reply):
    count, version, read = reply
    # The read mark is an id a client may have sent: one the code cannot read (a float
    # stored by an older version) counts as no mark, as read_mark in Lua takes it.
    return Unread(int(count or 0), int(version or 0), stored_id(read) or 0)


class UnreadRead:
    """The unread count of the user a session names, read along with the session and
    user (sessions.load_with_user): one HMGET more in the round trip every logged-in
    page makes anyway. ``found`` holds it, for the user in ``uid``."""

    replies = 1

    def __init__(self):
        self.uid, self.found = None, None

    def queue(self, pipe, uid):
        pipe.hmget(keys.notifications_state(uid), ["unread", "version", "read"])

    def take(self, uid, replies):
        self.uid, self.found = uid, _unread(replies[0])

    def for_user(self, uid):
        """What was read, if it was read for user ``uid``; else None."""
        return self.found if self.uid == uid else None


def unread(r: Client, uid: int) -> Unread:
    """User ``uid``'s Unread, in one round trip (a page whose session did not read it)."""
    return _unread(r.hmget(keys.notifications_state(uid), ["unread", "version", "read"]))


def _events(pairs):
    return [event for text, score in pairs if (event := _event(text, score)) is not None]


class EventsRead:
    """Every notification of the user a session names, newest first, read along with
    the session (the notifications page): at most the ``keep`` a user has. With them,
    the actors the user does not see (``hidden``: blocked either way, muted until a
    time to come; keys.hides, in the same slot)."""

    replies = 2

    def __init__(self, now_ms=None):
        self.uid, self.found, self.hidden = None, None, frozenset()
        self.now_ms = now_ms

    def queue(self, pipe, uid):
        # Scores are whole milliseconds, which Redis writes out in full.
        pipe.zrevrange(keys.notifications(uid), 0, -1, withscores=True, score_cast_func=int)
        now = int(time.time() * 1000) if self.now_ms is None else int(self.now_ms)
        pipe.zrangebyscore(keys.hides(uid), f"({now}", "+inf")

    def take(self, uid, replies):
        self.uid, self.found = uid, _events(replies[0])
        self.hidden = frozenset(int(actor) for actor in replies[1])

    def for_user(self, uid):
        return self.found if self.uid == uid else None

    def hidden_for(self, uid):
        return self.hidden if self.uid == uid else frozenset()


def events(r: Client, uid: int) -> list[Event]:
    """Every notification of user ``uid`` as Events, newest first; one round trip."""
    return _events(
        r.zrevrange(keys.notifications(uid), 0, -1, withscores=True, score_cast_func=int)
    )


def events_after(
    r: Client, uid: int, score: int, count: int = NOTIFICATIONS_KEPT, now_ms: int | None = None
) -> tuple[list[Event], frozenset[int]]:
    """(user ``uid``'s notifications scored above ``score``, oldest first, at most
    ``count`` of the newest; the actors the user does not see: blocked either way, or
    muted). One round trip, in the user's slot: what a stream sends as the user's
    notifications change."""
    now = int(time.time() * 1000) if now_ms is None else int(now_ms)
    pipe = r.pipeline(transaction=False)
    pipe.zrevrangebyscore(
        keys.notifications(uid), "+inf", f"({int(score)}", start=0, num=int(count),
        withscores=True, score_cast_func=int,
    )  # fmt: skip
    pipe.zrangebyscore(keys.hides(uid), f"({now}", "+inf")
    found, hidden = pipe.execute()
    return _events(reversed(found)), frozenset(int(actor) for actor in hidden)


def newest_score(r, uid):
    """The score of user ``uid``'s newest notification (0 without any): where a stream
    that starts now begins."""
    newest = r.zrevrange(keys.notifications(uid), 0, 0, withscores=True, score_cast_func=int)
    return newest[0][1] if newest else 0


@dataclass
class Group:
    """Notifications of one kind on one subject within a window: one entry on the page.
    ``events`` newest first."""

    kind: str
    subject: int
    events: list = field(default_factory=list)

    @property
    def newest(self):
        """The newest event's score: the entry's place in the list, and its cursor."""
        return self.events[0].score


def group(events: Iterable[Event], window_ms: int = NOTIFICATION_GROUP_MS) -> list[Group]:
    """``events`` (newest first) as Groups, newest first: an event joins the latest
    group of its kind and subject if that group's newest event is less than
    ``window_ms`` newer; otherwise it starts a group of its own. Deterministic: the
    same list always gives the same entries, so pages of them do not shift."""
    groups: list[Group] = []
    latest: dict[tuple[str, int], Group] = {}
    for event in events:
        key = (event.kind, event.subject)
        current = latest.get(key)
        if current is None or current.newest - event.score >= window_ms:
            current = latest[key] = Group(event.kind, event.subject)
            groups.append(current)
        current.events.append(event)
    return groups

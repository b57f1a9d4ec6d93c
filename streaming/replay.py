"""What a stream missed: a live page's replay (Last-Event-ID) and an API client's
catch-up (``since_id``), joined to the live stream without a gap or a duplicate.

Both go in the same order, which is what makes them exact:

1. The connection joins the hub first, held (ReplayingClient): the live events its
   filter matches wait, in order, instead of going out.
2. Then what it missed is read from Redis: the user's home timeline (a live page), or
   the recent public statuses (keys.RECENT_PUBLIC_STATUSES, an API client). A status
   is written there before it is published, so every status published before the
   subscription is in what is read, and any published after it is held.
3. The replay goes out, then the held events that are not in it (a status both held
   and read is sent once), then the stream goes on as any other, passing over the
   replayed statuses whose publication comes after the read (written, not yet
   published when read).

A live page's events are numbered (LiveClient): each carries ``id: S.V``, S the highest
status id the connection has sent, V the highest unread-count version. The browser
sends the last one back as Last-Event-ID when it reconnects (static/js/live.js also
passes the page's own on its first connection, ``?last_event_id=``), which is the whole
cursor: S for the home timeline's replay, V to tell whether the unread count changed.
"""

import asyncio
import logging
import re
import time

from socialsite.repository import notifications, timelines
from socialsite.repository.ids import parse_id
from socialsite.repository.limits import RECENT_PUBLIC_STATUSES

from .filters import RequestError, StatusEvent, UnreadEvent
from .hub import Client

log = logging.getLogger(__name__)

# Statuses a reconnecting live page is sent at most (the newest of those it missed);
# past them a "load newer" event tells the page to offer a reload.
LIVE_REPLAY_MAX = 200
# Statuses an API client catching up is sent at most (the newest that match).
CATCH_UP_MAX = 1000
# Recent public statuses read per round trip while catching up.
CATCH_UP_BATCH = 500
# How long after a replay its statuses are not sent again when published: a posting
# request publishes its status milliseconds after writing it (statuses.post_status).
REPLAYED_MEMORY_SECONDS = 30.0

# A live page's cursor: "S.V", "S" or ".V" (S a status id, V an unread-count version).
EVENT_ID = re.compile(r"([0-9]{0,19})(?:\.([0-9]{0,19}))?")


class ReplayingClient(Client):
    """A Client whose live events are held back until what it missed is queued
    (``release``), and which then passes over the live statuses it was replayed.
    Keep-alives are not held: they carry no event."""

    __slots__ = ("held", "replayed", "floor", "replayed_until", "withheld")

    def __init__(self, *args, floor=None, **kwargs):
        super().__init__(*args, **kwargs)
        # The ids of statuses the replay read and left out (catch_up: an author
        # suspended, private or hidden when read): their events, held or published
        # after the release, are not sent either. The read is fresher than an event
        # published before the change that hid it and delivered late.
        self.withheld = set()
        # (event, data) of the live events matched while the replay is read; None
        # once released.
        self.held = []
        # Not to be sent again when published, until REPLAYED_MEMORY_SECONDS after the
        # release: the ids of the statuses replayed, and those up to ``floor`` (the
        # client's cursor: it had them, from a replay of its previous connection if
        # not live). None: none (or past that).
        self.replayed = set() if floor is not None else None
        self.floor = floor if floor is not None else -1
        self.replayed_until = time.monotonic() + REPLAYED_MEMORY_SECONDS

    def offer(self, data, event=None):
        if event is not None and self.held is not None and not self.closing:
            if len(self.held) >= self.limit:
                return False  # as a full queue: the client is dropped
            self.held.append((event, data))
            return True
        if self.replayed is not None:
            if time.monotonic() > self.replayed_until:
                # (checked on keep-alives too: memory given back)
                self.replayed, self.withheld = None, set()
            elif is_post(event) and event.id in self.withheld:
                return True  # read and left out by the replay (its event came late)
            elif is_post(event) and (event.id <= self.floor or event.id in self.replayed):
                self.replayed.discard(event.id)
                return True  # sent already: with this replay, or before the cursor
        return super().offer(data, event)

    def release(self, replayed):
        """Queue ``replayed`` ((event, data) pairs, in order) as one batch, then the held
        events but the statuses already in it, and stop holding. False when the queue
        cannot take them (the caller drops the client).

        A status is written (to timelines, to the recent statuses) before it is
        published: one read by the replay may be published only after the release.
        It is passed over then too, for REPLAYED_MEMORY_SECONDS; so is one the replay
        read and left out (``withheld``)."""
        held, self.held = self.held, None
        sent = {event.id for event, _ in replayed if is_post(event)}
        if sent or self.replayed is not None or self.withheld:
            self.replayed = sent
            self.replayed_until = time.monotonic() + REPLAYED_MEMORY_SECONDS
        if replayed and not self.offer_batch(replayed):
            return False
        for event, data in held:
            if not self.offer(data, event):
                return False
        return True

    def offer_batch(self, items):
        """Queue several (event, data) pairs as one item of the queue."""
        return super().offer(b"".join(data for _, data in items))


def is_post(event):
    # A changed status (a poll's end, an edit: decision 0074) is no post: sent whatever
    # the cursor, never moving it.
    return (
        event is not None
        and event.kind == "status"
        and not event.deleted
        and not getattr(event, "changed", False)
    )


class LiveClient(ReplayingClient):
    """A live page's connection: each event it is sent carries ``id: S.V`` (the module's
    docstring), so that the browser's Last-Event-ID is the page's whole cursor.

    The id is added as an event is queued, one line per connection; the event's own
    bytes stay the same for every connection (made once per variant)."""

    __slots__ = ("cursor", "version")

    def __init__(self, *args, cursor=None, version=None, **kwargs):
        super().__init__(*args, floor=cursor, **kwargs)
        self.cursor = cursor
        self.version = version

    def offer(self, data, event=None):
        if self.held is None and event is not None:
            data = self.numbered(data, event)
        return super().offer(data, event)

    def offer_batch(self, items):
        return Client.offer(self, b"".join(self.numbered(data, event) for event, data in items))

    def numbered(self, data, event):
        """``data`` with the id line of the connection's cursor once ``event`` is sent
        (as it is for a comment: event None)."""
        if event is None:
            return data
        if is_post(event):
            self.cursor = event.id if self.cursor is None else max(self.cursor, event.id)
        elif event.kind == "unread":
            version = event.version
            self.version = version if self.version is None else max(self.version, version)
        return f"id: {self.event_id()}\n".encode() + data

    def event_id(self):
        cursor = "" if self.cursor is None else self.cursor
        version = "" if self.version is None else self.version
        return f"{cursor}.{version}"


class Marker:
    """An event of the replay that is neither a status nor an unread count (the "load
    newer" marker): numbered like the others, held like none."""

    kind = "marker"
    deleted = False
    id = None


def parse_event_id(value):
    """(S, V) of a Last-Event-ID (either None where absent); ValueError if malformed."""
    if value is None:
        return None, None
    match = EVENT_ID.fullmatch(value.strip())
    if not match:
        raise ValueError(f"{value[:40]!r} is not an id this server sent")
    cursor, version = match.groups()
    return (int(cursor) if cursor else None, int(version) if version else None)


def parse_since_id(value):
    """The status id of ``since_id`` (None if absent); 400 when it is not one."""
    if value is None:
        return None
    cursor = parse_id(value.strip(), lowest=0)
    if cursor is None:
        raise RequestError(
            400, f"since_id must be a status id (a whole number), not {value[:40]!r}."
        )
    return cursor


# --- a live page's replay -----------------------------------------------------------------


async def live_replay(live, hub, user, client, format):
    """The (event, data) pairs a reconnecting live page missed: its new unread count if
    its version changed, then the statuses of its home timeline above its cursor (the
    newest LIVE_REPLAY_MAX, each through the live filter and the hub's hidden authors,
    rendered as live events are), then a "load newer" marker if there were more."""
    cursor, version = client.cursor, client.version
    if cursor is None and version is None:
        return []
    redis = live.redis

    def read():
        found, more = [], False
        if cursor is not None:
            found, more = timelines.home_newer(redis, user.id, cursor, LIVE_REPLAY_MAX)
        unread = notifications.unread(redis, user.id)
        items = []
        if unread.version != version:
            event = UnreadEvent(
                {"unread": user.id, "count": unread.count, "version": unread.version}
            )
            items.append((event, format.bytes_for(event)))
        hidden = hub.hidden
        for status in found:
            event = StatusEvent(status)
            event.author = status["author"]
            if event.uid in hidden or not client.match(event):
                continue
            items.append((event, format.bytes_for(event)))
        if more:
            data = format.load_newer(cursor)
            items.append((Marker(), data))
        return items

    try:
        return await asyncio.to_thread(read)
    except Exception:
        # Redis away for a moment: the page goes on live; its next reload shows the rest.
        log.exception("Could not read what the live page of @%s missed", user.login)
        return []


# --- an API client's catch-up ---------------------------------------------------------------


async def catch_up(redis, hub, since_id, match, format, client=None):
    """The (event, data) pairs of an API client's catch-up from ``since_id``: the newest
    CATCH_UP_MAX recent public statuses above it that ``match`` accepts (not those of
    hidden authors), oldest first, then one line saying what was sent:
    ``{"catch_up": {"since_id": S, "sent": N, "complete": true}}``; ``complete`` is false
    when statuses may be missing (more matched than were sent, the recent statuses do
    not reach back to ``since_id``, or Redis could not be read).

    The statuses it reads and leaves out (their authors read fresh: private,
    suspended, leaving; or hidden by the hub) go to ``client``'s ``withheld``: an event
    of one of them held meanwhile, or published late, is not sent after the catch-up
    (ReplayingClient.release)."""
    withheld = client.withheld if client is not None else set()

    def read():
        matched, below, more = [], None, False
        hidden = hub.hidden
        while not more:
            batch, below, full = timelines.recent_public(
                redis, since_id, below, CATCH_UP_BATCH, withheld=withheld
            )
            for status in batch:
                event = StatusEvent(status)
                if event.uid in hidden:
                    withheld.add(event.id)
                    continue
                if not match(event):
                    continue
                if len(matched) == CATCH_UP_MAX:
                    more = True
                    break
                matched.append(event)
            if not full:
                break
        complete = not more
        if complete:
            size, lowest = timelines.recent_public_span(redis)
            # Ids trimmed off the recent statuses may lie between since_id and the oldest.
            complete = not (size >= RECENT_PUBLIC_STATUSES and lowest > since_id + 1)
        return [(event, format.bytes_for(event)) for event in reversed(matched)], complete

    try:
        items, complete = await asyncio.to_thread(read)
    except Exception:
        log.exception("Could not read the catch-up from status %s", since_id)
        items, complete = [], False
    summary = {"since_id": since_id, "sent": len(items), "complete": complete}
    return [*items, (Marker(), format.catch_up_line(summary))]

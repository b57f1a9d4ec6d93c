"""The fan-out hub: one Redis subscription per process, shared by all its clients.

The book gives every streaming client its own SUBSCRIBE (listing 8.15): a thousand
clients are a thousand Redis connections, and every event is sent, decoded and
filtered a thousand times. Here a process subscribes once (Hub), decodes each event
once, finds the clients it can match through an index (index.py: by author, mention,
tracked word, location cell, sample bucket), confirms each with its full filter, and
queues the matching events' bytes to the clients that want them. The per-event cost
grows with the clients an event can match, not with all clients; ``matching="scan"``
runs every client's filter instead (the reference the index is tested and benchmarked
against).

Each client's queue is bounded (Client.limit events): a client that cannot keep up
is disconnected rather than allowed to hold an ever-growing backlog, and since the
hub never waits on a client, the others do not notice. Pub/sub is at-most-once: what
is published while the subscription is down (a Redis restart) is lost, and the hub
only subscribes again as soon as it can; the clients stay connected meanwhile.

No client is sent the events of a hidden author (a suspended account): the hub holds
their ids, read from Redis every HIDDEN_REFRESH_SECONDS and changed at once by the
account events published on the same channel (repository.events.publish_account).
"""

import asyncio
import collections
import gc
import logging
import random
import time
from time import monotonic
from urllib.parse import urlsplit, urlunsplit

from redis.exceptions import RedisError

from socialsite.repository import client as redis_client
from socialsite.repository import events

from .filters import AccountEvent, RelationsEvent, event_from_json
from .index import ClientIndex

log = logging.getLogger(__name__)

# Waits between attempts to subscribe again: quick at first (a restart takes a
# moment), then backing off so that a long outage costs little.
RECONNECT_FIRST_DELAY = 0.1
RECONNECT_MAX_DELAY = 5.0
# Events handed out at most before the clients' queues are written (Hub.flush):
# well under any client's buffer (--client-buffer).
EVENTS_PER_WRITE = 32
# Keep-alives written at most in one turn of the event loop (Hub._send_keepalives): 10,000
# at once would hold every event back for the 0.2 s their writes take.
KEEPALIVES_PER_TURN = 200
# After subscribing again, the live pages read their follows and sessions again within
# this long (Hub._refresh_live_pages_soon), spread out rather than all at once.
RESUBSCRIBED_REFRESH_SECONDS = 30.0
# How often the hub reads the ids of the hidden authors again: the account events that
# change them at once may be lost (pub/sub), this bounds how long that matters.
HIDDEN_REFRESH_SECONDS = 10.0


def redacted(url):
    """``url`` without its password, for the logs."""
    parts = urlsplit(url)
    if parts.password is None:
        return url
    host = parts.netloc.rpartition("@")[2]
    return urlunsplit(parts._replace(netloc=f"{parts.username or ''}:***@{host}"))


class Format:
    """How one kind of client wants events written: the streaming API's JSON lines
    (app.JSON_LINES) or the live pages' Server-Sent Events (live.ServerSentEvents).

    ``needs_author_name``: rendering a post needs ``event.author`` (its author's login
    and name), which the hub's ``prepare`` hook fills in (once per event, whatever the
    number of clients).

    ``shows_private``: clients of this format may get statuses posted while their
    author's account was private (and their deletions). Only a format whose filters
    are the viewer's own home timeline (live pages: the author's followers) may.
    """

    content_type = b"application/octet-stream"
    shows_private = False
    # Sent once when the stream starts (Server-Sent Events: the reconnection delay).
    opening = b""
    keepalive = b"\n"
    needs_author_name = False
    # Whether a user's unread counts (filters.UnreadEvent) are sent as they are (live
    # pages), or only tell the client that the notifications changed
    # (Client.unread_changed: Mastodon's streams send the notifications themselves).
    tells_unread = True
    # Whether a changed status (filters.StatusEvent.changed: an edit, a poll's end) is
    # sent: Mastodon's status.update, a live page's redraw. Other formats (Twitter's
    # streams have no such notice) never get one.
    tells_changes = False

    def render(self, event):
        """The bytes to send for ``event``."""
        raise NotImplementedError

    def bytes_for(self, event):
        """``render(event)``, computed once per event and format."""
        data = event.rendered.get(self)
        if data is None:
            data = event.rendered[self] = self.render(event)
        return data


class Client:
    """One connected streaming client: its filter, format and bounded queue of bytes.

    The hub calls ``offer`` (never blocking); the connection's writer awaits
    ``next_batch`` and sends what it gets. Whatever has queued up while the writer
    was sending goes out as one batch: one write for many events when busy.

    Slots rather than an instance dictionary: a process holds 10,000 of them, and the
    hub reads several of their attributes for every line it delivers.
    """

    __slots__ = (
        "index", "_match", "format", "limit", "name", "user_id", "pending", "waiter",
        "last_offer", "closing", "dropped", "writer", "direct_writer", "hub", "_refresh",
        "_hidden_recently", "_left_recently",
    )  # fmt: skip

    def __init__(self, match, format, limit, name="", user_id=None):
        # The ClientIndex of the hub this client was added to (Hub.add), which its
        # filter's keys are kept in; None before and after.
        self.index = None
        self._match = match
        self.format = format
        self.limit = limit
        self.name = name
        # A live page's user: their unread counts come to it (Hub.tell_user).
        self.user_id = user_id
        # Chunks queued since the last write: a list (56 bytes empty), not a deque (600
        # bytes empty), since it is only appended to and emptied whole.
        self.pending = []
        # The future the writer awaits while nothing is queued (next_batch): a bare
        # future rather than an asyncio.Event, whose waiters' deque costs memory and
        # time on every event of every client.
        self.waiter = None
        self.last_offer = time.monotonic()
        self.closing = False
        self.dropped = False
        # The task that writes to the connection: cancelled when the client is
        # dropped, since it may be stuck in a send that a stalled reader never ends.
        self.writer = None
        # The connection written to directly (direct_writes.DirectWriter), once the writer
        # runs: what is offered while the writer is idle is written to it by the hub
        # (Hub.flush), as one chunk of the response. None: the writer sends everything
        # (before it runs, or on a server that does not give the connection).
        self.direct_writer = None
        # The hub this client was added to, while it is (Hub.add); None before and after.
        self.hub = None
        # Made on first use (refresh, hidden_recently): only live pages use them.
        self._refresh = self._hidden_recently = self._left_recently = None

    @property
    def refresh(self):
        """A live page's: an event set when its filter or session should be read again
        at once (app.live_home): a follow, block, mute or logout of its user."""
        if self._refresh is None:
            self._refresh = asyncio.Event()
        return self._refresh

    @property
    def hidden_recently(self):
        """Authors hidden by block or mute events since the filter's last refresh began."""
        if self._hidden_recently is None:
            self._hidden_recently = set()
        return self._hidden_recently

    @property
    def left_recently(self):
        """Groups left by the user (events' ``left``) since the filter's last refresh
        began: a filter read meanwhile may still hold them."""
        if self._left_recently is None:
            self._left_recently = set()
        return self._left_recently

    @property
    def match(self):
        """The client's filter: a callable taking a StatusEvent."""
        return self._match

    @match.setter
    def match(self, match):
        # A new filter (a live page's, read again) is indexed under its own keys at
        # once, so that the next event already finds the client by them.
        self._match = match
        if self.index is not None:
            self.index.update(self)

    def rematched(self):
        """Index the client again after its filter changed in place (HomeFilter.hide)."""
        if self.index is not None:
            self.index.update(self)

    def offer(self, data, event=None):
        """Queue ``data`` for sending; False when the queue is full (client too slow).
        ``event``: the event ``data`` was made of (None for a keep-alive), for clients
        that hold events back or number them (replay.ReplayingClient)."""
        if self.closing:
            return True
        pending = self.pending
        if len(pending) >= self.limit:
            return False
        pending.append(data)
        self.last_offer = monotonic()
        hub = self.hub
        if self.waiter is not None and self.direct_writer is not None and hub is not None:
            # The writer is idle: the hub writes what is queued once it has handed out
            # every event it has read (Hub.flush), so that a client that several of them
            # match gets them in one write, without waking its writer's task.
            if len(pending) == 1:
                hub.due.append(self)
                if not hub.flush_scheduled:
                    hub.schedule_flush()
        else:
            self._wake()
        return True

    def _wake(self):
        waiter = self.waiter
        if waiter is not None:
            self.waiter = None
            if not waiter.done():
                waiter.set_result(None)

    async def next_batch(self):
        """Everything queued, as one bytes object; None once the stream should end.
        The chunks queued since the last batch are joined: one write for them all."""
        while not self.pending:
            if self.closing:
                return None
            self.waiter = asyncio.get_running_loop().create_future()
            await self.waiter
        data = b"".join(self.pending)
        self.pending.clear()
        return data

    async def next_chunks(self):
        """Everything queued, as the list of chunks offered (a WebSocket sends each as a
        message of its own); None once the stream should end."""
        while not self.pending:
            if self.closing:
                return None
            self.waiter = asyncio.get_running_loop().create_future()
            await self.waiter
        chunks, self.pending = self.pending, []
        return chunks

    def unread_changed(self, event):
        """The user's notifications changed (``event``, a filters.UnreadEvent), for a
        client whose format does not send the count itself (Format.tells_unread)."""

    def close(self):
        """End the stream politely: send what is queued, then the end of the response."""
        self.closing = True
        self._wake()

    def drop(self):
        """Cut the connection now: the client fell ``limit`` events behind."""
        self.closing = self.dropped = True
        self.pending.clear()
        if self.writer is not None:
            self.writer.cancel()


class CollectorPauses:
    """The garbage collector's pauses in this process, for /health (a gc callback).

    Every stream waits while the collector runs. Its full passes walk every object the
    process tracks, and a stream server holds many per client (its connection, tasks,
    filter and index entries): the longest pause says what that costs at this size."""

    def __init__(self):
        self.started = None
        self.longest = 0.0
        self.full_passes = 0

    def __call__(self, phase, info):
        now = time.perf_counter()
        if phase == "start":
            self.started = now
            return
        if self.started is not None:
            self.longest = max(self.longest, now - self.started)
            self.started = None
        if info["generation"] == 2:
            self.full_passes += 1


class Hub:
    """The clients of one process: one subscription for them all, events fanned out
    in memory, keep-alives, and stopping them."""

    # Whether the subscription also takes the users' unread counts (the live pages').
    listens_to_notifications = True

    def __init__(
        self,
        urls,
        *,
        client_buffer=1000,
        keepalive=30.0,
        prepare=None,
        hidden_authors=None,
        matching="index",
    ):
        if matching not in ("index", "scan"):
            raise ValueError(f"matching is index or scan, not {matching!r}")
        self.urls = list(urls)
        # "index": the clients an event can match are looked up (ClientIndex);
        # "scan": every client's filter runs on every event (the reference).
        self.matching = matching
        self.index = ClientIndex() if matching == "index" else None
        self.client_buffer = client_buffer
        self.keepalive = keepalive
        # An async function the hub awaits before rendering an event for a format
        # that needs_author_name (live.LiveHome.prepare).
        self.prepare = prepare
        # A function (run in a thread) giving the ids of the authors whose events no
        # client is sent (moderation.suspended_ids); None: every author is shown.
        self.hidden_authors = hidden_authors
        self.hidden = frozenset()
        self.clients = set()
        # How many clients' formats need the author's name (live pages): with none,
        # no event looks for one among its targets.
        self.naming = 0
        # {user id: their live pages' clients}: where a user's unread count goes.
        self.users = {}
        self.stopping = False
        # Clients whose queues are to be written at the end of this turn of the event
        # loop (Client.offer, flush).
        self.due = []
        self.flush_scheduled = False
        self.tasks = []
        self.stats = collections.Counter()
        self.collector_pauses = CollectorPauses()

    # --- the clients ---

    def client(self, match, format, name="", user_id=None):
        """A new Client with this hub's buffer size (not yet added); with ``user_id``, a
        live page of that user, which also gets their unread counts."""
        return Client(match, format, self.client_buffer, name, user_id)

    def add(self, client):
        """Start sending matching events to ``client``; False if the hub is stopping."""
        if self.stopping:
            return False
        self.clients.add(client)
        client.hub = self
        self.naming += client.format.needs_author_name
        if self.index is not None:
            self.index.add(client)
            client.index = self.index
        if client.user_id is not None:
            self.users.setdefault(client.user_id, set()).add(client)
        return True

    def remove(self, client):
        """Forget ``client`` (it went away, was dropped or was closed)."""
        client.hub = None
        if client in self.clients:
            self.clients.discard(client)
            self.naming -= client.format.needs_author_name
        if client.index is not None:
            client.index = None
            self.index.remove(client)
        pages = self.users.get(client.user_id)
        if pages is not None:
            pages.discard(client)
            if not pages:
                del self.users[client.user_id]

    def schedule_flush(self):
        """Have the queues of the clients in ``due`` (Client.offer) written at the end of
        this turn of the event loop (flush): after every event read so far is handed out.
        When events come faster than they are handed out, they are read several at a
        time, and a client gets all of its share of them in one write: the cost of a
        delivered line falls as the load rises, instead of the hub falling behind."""
        self.flush_scheduled = True
        asyncio.get_running_loop().call_soon(self.flush)

    def flush(self):
        """Write what is queued for each client in ``due`` straight to its connection
        (direct_writes.DirectWriter), as one chunk of its response, if its writer is still
        idle and the connection's socket took everything written before;
        else leave it to the writer, which sends it through ASGI's ``send`` however long
        that takes (waiting while the socket is full: flow control).
        The hot loop of delivery: kept bare."""
        self.flush_scheduled = False
        due, self.due = self.due, []
        self.stats["writes"] += len(due)
        for client in due:
            pending = client.pending
            waiter = client.waiter
            if not pending or waiter is None or waiter.done():
                continue  # sent already, or the writer is awake and takes the queue
            data = pending[0] if len(pending) == 1 else b"".join(pending)
            try:
                written = client.direct_writer.write(data)
            except Exception:
                # One broken connection must not keep the others' events back.
                log.exception("Could not write to streaming client %r", client.name)
                written = False
            if written:
                pending.clear()
            else:
                client._wake()

    def deliver(self, client, data, event=None):
        """Queue ``data`` (made of ``event``) to ``client``, or drop the client if its
        queue is full."""
        if client.offer(data, event):
            self.stats["deliveries"] += 1
        else:
            self.drop_slow(client)

    def drop_slow(self, client):
        """Cut ``client``, whose queue is full: it fell ``client.limit`` events behind."""
        log.warning(
            "Dropped streaming client %r: it fell %d events behind.", client.name, client.limit
        )
        self.stats["clients_dropped"] += 1
        self.remove(client)
        client.drop()

    @property
    def subscribed(self):
        """Whether events can reach the clients now (for the health check)."""
        return self.stats["subscriptions"] > 0

    @property
    def subscriptions(self):
        """How many Redis subscriptions the process holds."""
        return self.stats["subscriptions"]

    # --- running ---

    async def start(self):
        """Start the background work: keep-alives, and the subscription."""
        gc.callbacks.append(self.collector_pauses)
        self.tasks.append(asyncio.create_task(self._send_keepalives()))
        self.tasks.append(asyncio.create_task(self._follow_channel(self.dispatch)))
        if self.hidden_authors is not None:
            self.tasks.append(asyncio.create_task(self._refresh_hidden()))

    def close_clients(self):
        """End every stream politely and accept no new ones (the server is stopping)."""
        self.stopping = True
        for client in list(self.clients):
            client.close()

    async def stop(self):
        """Stop the background work and close every stream."""
        self.close_clients()
        for task in self.tasks:
            task.cancel()
        await asyncio.gather(*self.tasks, return_exceptions=True)
        self.tasks = []
        if self.collector_pauses in gc.callbacks:
            gc.callbacks.remove(self.collector_pauses)

    async def _send_keepalives(self):
        """Give each client that has been sent nothing for ``keepalive`` seconds its
        format's keep-alive, so that it (and any proxy) can tell quiet from dead."""
        tick = min(1.0, self.keepalive / 4)
        while True:
            await asyncio.sleep(tick)
            now = time.monotonic()
            sent = 0
            for client in list(self.clients):
                if now - client.last_offer >= self.keepalive:
                    self.deliver(client, client.format.keepalive)
                    sent += 1
                    if sent % KEEPALIVES_PER_TURN == 0:
                        # Clients that connected together fall quiet together: their
                        # keep-alives (a write each) go out in turns, with the events.
                        await asyncio.sleep(0)

    async def _refresh_hidden(self):
        """Read the hidden authors' ids now and every HIDDEN_REFRESH_SECONDS."""
        while True:
            try:
                self.hidden = frozenset(await asyncio.to_thread(self.hidden_authors))
            except Exception:
                # Redis away: keep the ids known, try again later.
                log.exception("Could not read the hidden authors; trying again later.")
            await asyncio.sleep(HIDDEN_REFRESH_SECONDS)

    async def _follow_channel(self, on_event):
        """Subscribe to the status channel and pass each event's text to ``on_event``,
        for ever: when the connection is lost, subscribe again (trying the next URL
        of ``self.urls``, all of a cluster's nodes) after a growing pause."""
        attempt, delay = 0, RECONNECT_FIRST_DELAY
        while True:
            url = self.urls[attempt % len(self.urls)]
            redis = redis_client.connect_pubsub(url)
            pubsub = None
            try:
                pubsub = await events.subscribe(redis, self.listens_to_notifications)
                self._subscription_changed(+1, url, attempt)
                delay = RECONNECT_FIRST_DELAY
                try:
                    handed_out = 0
                    async for text in events.listen(pubsub):
                        try:
                            await on_event(text)
                        except Exception:
                            # One event that cannot be handed out (a bug, or Redis
                            # failing a name lookup) must not end the subscription.
                            log.exception("Could not hand out a status event: %.200s", text)
                        # Events already read are handed out without a pause, and the
                        # clients' queues written after them (Hub.flush), but at most
                        # EVENTS_PER_WRITE: a burst must not fill the queues of clients
                        # that are keeping up perfectly well.
                        handed_out += 1
                        if handed_out >= EVENTS_PER_WRITE:
                            handed_out = 0
                            await asyncio.sleep(0)
                finally:
                    self._subscription_changed(-1, url, attempt)
            except (RedisError, OSError) as exc:
                log.warning(
                    "Redis subscription on %s failed (%s); subscribing again in %.1f s.",
                    redacted(url),
                    exc,
                    delay,
                )
            except Exception:
                # Not a network failure: a bug or a bad setting. Loudly, but keep
                # trying: the clients are better served by a retry than by silence.
                log.exception(
                    "Redis subscription on %s broke; trying again in %.1f s.",
                    redacted(url),
                    delay,
                )
            finally:
                await _close_quietly(pubsub, redis)
            attempt += 1
            await asyncio.sleep(delay)
            delay = min(delay * 2, RECONNECT_MAX_DELAY)

    def _subscription_changed(self, change, url, attempt):
        self.stats["subscriptions"] += change
        if change > 0 and attempt:
            self.stats["resubscribed"] += 1
            log.info("Subscribed again on %s.", redacted(url))
            self._refresh_live_pages_soon()

    def _refresh_live_pages_soon(self):
        """Have every live page read its session and follows again within
        RESUBSCRIBED_REFRESH_SECONDS, spread over that time: the follows, blocks and
        logouts published while the subscription was down were lost."""
        loop = asyncio.get_running_loop()
        for pages in self.users.values():
            for client in pages:
                loop.call_later(random.uniform(0, RESUBSCRIBED_REFRESH_SECONDS), client.refresh.set)

    def decode(self, text):
        """The StatusEvent, RelationsEvent or UnreadEvent published as ``text``, or None
        (logged) if malformed."""
        try:
            return event_from_json(text)
        except ValueError as exc:
            log.warning("Ignored a malformed status event (%s): %.200s", exc, text)
            return None

    def matches(self, client, event):
        """``client.match(event)``, a failing filter counting as no match (logged)."""
        try:
            return client.match(event)
        except Exception:
            # A bug in one filter must not stop the events of every other client.
            log.exception("Streaming filter of client %r failed on event %s", client.name, event.id)
            return False

    def targets(self, event):
        """The clients whose filters match the status event ``event`` (not hidden)."""
        clients = self.clients if self.index is None else self.index.candidates(event)
        if event.private:
            # Never to the streaming API's sample and filter: only to formats that
            # may show it, whose filters then decide (the author's followers).
            clients = [client for client in clients if client.format.shows_private]
        try:
            # The hot loop: each candidate's full filter, so kept bare.
            return [client for client in clients if client._match(event)]
        except Exception:
            return [client for client in clients if self.matches(client, event)]

    async def dispatch(self, text):
        """Decode one event, and queue it to every client whose filter matches."""
        event = self.decode(text)
        if event is None:
            return
        if type(event) is AccountEvent:
            change = self.hidden.union if event.hidden else self.hidden.difference
            self.hidden = frozenset(change((event.uid,)))
            # A suspended account's own live pages check their session now (and end).
            for client in self.users.get(event.uid, ()):
                client.refresh.set()
            return
        if isinstance(event, RelationsEvent):
            # The users' own live pages, by a look-up: no scan of all clients.
            for uid in event.uids:
                for client in list(self.users.get(uid, ())):
                    hidden = event.hidden.get(client.user_id)
                    if hidden and hasattr(client.match, "hide"):
                        client.match.hide(hidden)  # now, before the next event
                        client.rematched()
                        client.hidden_recently.update(hidden)
                    left = event.left.get(client.user_id)
                    if left and hasattr(client.match, "leave"):
                        client.match.leave(left)  # groups left: now, as a block
                        client.rematched()
                        client.left_recently.update(left)
                    client.refresh.set()
            return
        if event.kind == "unread" or event.kind == "direct":
            self.tell_user(event)
            return
        self.stats["events"] += 1
        if event.uid in self.hidden:
            self.stats["hidden"] += 1
            return
        targets = self.targets(event)
        if getattr(event, "changed", False):  # a changed status: to those who tell it
            targets = [client for client in targets if client.format.tells_changes]
        if not targets:
            return
        if (
            self.prepare is not None
            and not event.deleted
            and self.naming
            and any(client.format.needs_author_name for client in targets)
        ):
            try:
                await self.prepare(event)
            except Exception:
                # The login stands in for the name; the event still goes out to all.
                log.exception("Could not look up the author of status %s", event.id)
        # The hot loop: one offer per matching client. The bytes are made once per format
        # (the API's clients all share one; a live page's is its viewer's).
        delivered, last_format, data = 0, None, b""
        for client in targets:
            if client.closing:
                continue
            if client.format is not last_format:
                last_format = client.format
                data = last_format.bytes_for(event)
            if client.offer(data, event):
                delivered += 1
            else:
                self.drop_slow(client)
        self.stats["deliveries"] += delivered

    def tell_user(self, event):
        """Queue a user's new unread count (an UnreadEvent) to their live pages on this
        process: a dictionary look-up, whatever the number of clients; no filter runs."""
        for client in list(self.users.get(event.uid, ())):
            if client.closing:
                continue
            if client.format.tells_unread:
                self.deliver(client, client.format.bytes_for(event), event)
            else:
                client.unread_changed(event)


async def _close_quietly(pubsub, redis):
    for resource in (pubsub, redis):
        if resource is None:
            continue
        try:
            await resource.aclose()
        except (RedisError, OSError):
            pass  # the connection is gone already, which is all we wanted

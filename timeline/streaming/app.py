"""The streaming server's ASGI application (section 8.5.2), without a web framework.

Endpoints (also under Twitter's paths, /1.1/statuses/...):
- ``GET /statuses/sample.json?percent=N&identifier=ID``: a sample of all statuses.
- ``POST /statuses/filter.json`` with form fields ``track``, ``follow`` and
  ``locations``: the statuses matching any of them.
Both send Twitter's v1.1 Tweet objects and delete notices (tweets.py); ``identifier`` is
optional (client_identifier).
- ``GET /live/home``: the logged-in user's home timeline as Server-Sent Events.
- ``since_id=ID`` on sample and filter, and Last-Event-ID (or ``?last_event_id=``) on
  /live/home: first what the client missed, then the live stream (replay.py).
- ``GET /health``: 200 while subscribed to Redis, 503 otherwise (for load balancers);
  ``HEAD /health`` the same without the body.

The API's responses are long-lived: chunked transfer encoding (the ASGI server's
default for a response without a length), one JSON object per line, a blank line
after KEEPALIVE seconds of silence. Each connection is a Client of the process's hub
(hub.py), which hands it the events its filter matches.

A framework would add little here: four routes, form parsing and plain-text errors,
while the streaming itself (one writer per connection, watching for disconnects,
cutting slow clients) is below what frameworks offer.
"""

import asyncio
import collections
import functools
import json
import logging
import os
import random
import re
from urllib.parse import parse_qs, unquote

from media import files
from socialsite import throttling
from socialsite.metrics_setup import may_read
from socialsite.repository import users
from socialsite.repository.ids import parse_id

from . import filters, replay, tweets
from .direct_writes import DirectWriter
from .filters import RequestError
from .hub import Format
from .limits import RETRY_AFTER_SECONDS

log = logging.getLogger(__name__)

# A filter request's body: 5,000 logins of up to 30 characters and 400 phrases of
# up to 60 bytes fit in well under this.
MAX_BODY_BYTES = 1024 * 1024
# Form fields per request: enough for every limit, and parse_qs's guard against
# requests made of nothing but separators.
MAX_FORM_FIELDS = 10_000

# Twitter's streaming API's paths began with its version.
TWITTER_PREFIX = "/1.1"
# One parameter of an OAuth Authorization header: name="value".
OAUTH_PARAMETER = re.compile(r'([A-Za-z0-9_.~%-]+)\s*=\s*"([^"]*)"')

# Every response of this server says what it is and forbids guessing otherwise: a
# browser must never take a stream that quotes what people wrote for HTML.
NOSNIFF = (b"x-content-type-options", b"nosniff")
JSON_TYPE = b"application/json; charset=utf-8"

# Mastodon's streaming API (mastodon.py): its WebSocket's path, and the Server-Sent
# Events paths under it with the stream each names.
MASTODON_WEBSOCKET = "/api/v1/streaming"
MASTODON_SSE_PATHS = {
    f"{MASTODON_WEBSOCKET}/user": "user",
    f"{MASTODON_WEBSOCKET}/user/notification": "user:notification",
    f"{MASTODON_WEBSOCKET}/public": "public",
    f"{MASTODON_WEBSOCKET}/public/local": "public:local",
    f"{MASTODON_WEBSOCKET}/hashtag": "hashtag",
    f"{MASTODON_WEBSOCKET}/hashtag/local": "hashtag:local",
    f"{MASTODON_WEBSOCKET}/list": "list",
    f"{MASTODON_WEBSOCKET}/direct": "direct",
}

STREAM_HEADERS = [
    (b"cache-control", b"no-store"),
    NOSNIFF,
    # nginx buffers proxied responses unless told not to; a stream must not wait.
    (b"x-accel-buffering", b"no"),
]


class JsonLines(Format):
    """The streaming API's format, Twitter's: a status as one line of JSON, a Tweet
    object with the book's fields beside Twitter's (tweets.tweet), a deletion as
    Twitter's notice (tweets.delete_notice); a blank line as keep-alive. One instance
    serves every API client, so an event's line is made once, whatever their number."""

    # One JSON document per line ("JSON Lines", also known as NDJSON).
    content_type = b"application/x-ndjson; charset=utf-8"
    keepalive = b"\n"

    def render(self, event):
        if event.deleted:
            return json.dumps(tweets.delete_notice(event.status)).encode() + b"\n"
        made = tweets.tweet(event.status, event.entities, files.absolute_url)
        return json.dumps(made).encode() + b"\n"

    def catch_up_line(self, summary):
        """The line that ends a catch-up (replay.catch_up): ``{"catch_up": {...}}``."""
        return json.dumps({"catch_up": summary}).encode() + b"\n"


JSON_LINES = JsonLines()


class ClientGone(Exception):
    """The client disconnected before its request was read."""


class StreamingApp:
    """The ASGI application. ``hub`` hands out events; ``redis`` (a synchronous
    repository client, used from threads) resolves follow's logins; ``live`` (a
    live.LiveHome) serves /live/home, which is absent when it is None;
    ``per_address`` (a limits.StreamsPerAddress) bounds the streams of one client
    address, which are not bounded when it is None."""

    def __init__(self, hub, redis, live=None, max_streams=None, per_address=None):
        self.hub = hub
        self.redis = redis
        self.live = live
        # Streams at a time; past it new ones get 429 (limits.ConnectionLimits).
        self.max_streams = max_streams
        self.per_address = per_address
        self.routes = {
            "/statuses/sample.json": ({"GET", "POST"}, self.sample),
            "/statuses/filter.json": ({"POST"}, self.filter),
            "/health": ({"GET", "HEAD"}, self.health),
            "/metrics": ({"GET", "HEAD"}, self.metrics_page),
        }
        # Twitter's paths too (https://stream.twitter.com/1.1/statuses/...): a client
        # written for Twitter whose base URL can be set needs nothing else changed.
        for path in ("/statuses/sample.json", "/statuses/filter.json"):
            self.routes[TWITTER_PREFIX + path] = self.routes[path]
        if live is not None:
            self.routes["/live/home"] = ({"GET", "OPTIONS"}, self.live_home)
            self.routes["/live/messages"] = ({"GET", "OPTIONS"}, self.live_messages)
        self.connection_count = 0
        # Streams refused with 429, by reason (metrics.REFUSAL_REASONS).
        self.refusals = collections.Counter()
        # A metrics.StreamMetrics, which serves /metrics; none: /metrics is a 404.
        self.metrics = None
        # Mastodon's streams (mastodon.MastodonStreams), once serve_mastodon is called.
        self.mastodon = None

    def serve_mastodon(self, streams):
        """Answer Mastodon's streaming API (mastodon.py) with ``streams``: its health
        check, its Server-Sent Events paths and (websocket) its WebSocket."""
        self.mastodon = streams
        self.routes[f"{MASTODON_WEBSOCKET}/health"] = ({"GET", "HEAD"}, streams.health)
        for path, stream in MASTODON_SSE_PATHS.items():
            handler = functools.partial(streams.sse, stream=stream)
            self.routes[path] = ({"GET", "OPTIONS"}, handler)

    async def __call__(self, scope, receive, send):
        if scope["type"] == "lifespan":
            await self.lifespan(receive, send)
            return
        if scope["type"] == "websocket":
            if self.mastodon is not None and scope["path"].rstrip("/") == MASTODON_WEBSOCKET:
                await self.mastodon.websocket(scope, receive, send)
            else:
                # Only Mastodon's streaming path speaks WebSocket: refused (403).
                await send({"type": "websocket.close"})
            return
        if scope["type"] != "http":
            return
        route = self.routes.get(scope["path"])
        try:
            if route is None:
                raise RequestError(404, f"Not found: {scope['path']}")
            methods, handler = route
            if scope["method"] not in methods:
                allowed = ", ".join(sorted(methods))
                raise RequestError(405, f"{scope['method']} is not allowed here; use {allowed}.")
            await handler(scope, receive, send)
        except RequestError as error:
            extra = []
            if error.status == 405:
                extra.append((b"allow", ", ".join(sorted(route[0])).encode()))
            if error.status == 429:
                extra.append((b"retry-after", str(RETRY_AFTER_SECONDS).encode()))
            if scope["path"].startswith(MASTODON_WEBSOCKET):
                # Mastodon's API: its errors as {"error": ...}, readable by browser apps.
                extra.append((b"access-control-allow-origin", b"*"))
                body = json.dumps({"error": error.message})
                await send_text(send, error.status, body, extra, content_type=JSON_TYPE)
                return
            await send_text(send, error.status, error.message, extra)
        except ClientGone:
            pass

    async def lifespan(self, receive, send):
        """Start the hub with the server, stop it (closing every stream) with it."""
        while True:
            message = await receive()
            if message["type"] == "lifespan.startup":
                if self.per_address is not None:
                    await self.per_address.start()
                await self.hub.start()
                if self.metrics is not None:
                    self.metrics.start()
                await send({"type": "lifespan.startup.complete"})
            elif message["type"] == "lifespan.shutdown":
                await self.hub.stop()
                if self.metrics is not None:
                    await self.metrics.stop()
                if self.per_address is not None:
                    await self.per_address.stop()
                await send({"type": "lifespan.shutdown.complete"})
                return

    def close_streams(self):
        """End every stream politely and refuse new ones: the server is stopping."""
        self.hub.close_clients()

    # --- the endpoints ---

    async def health(self, scope, receive, send):
        """GET /health: 200 while subscribed to Redis, else 503; counters as JSON.
        HEAD /health: the same without the body."""
        subscribed = self.hub.subscribed
        counters = ("events", "deliveries", "writes", "clients_dropped", "resubscribed", "hidden")
        body = {
            "subscribed": subscribed,
            # Which process answered (manage.py stream --processes N shares the port).
            "pid": os.getpid(),
            "clients": len(self.hub.clients),
            "subscriptions": self.hub.subscriptions,
            "hidden_authors": len(self.hub.hidden),
            **{name: self.hub.stats[name] for name in counters},
            # The garbage collector's full passes, and its longest pause so far.
            "gc_full_passes": self.hub.collector_pauses.full_passes,
            "gc_longest_pause_ms": round(self.hub.collector_pauses.longest * 1000, 1),
        }
        await send_text(
            send,
            200 if subscribed else 503,
            json.dumps(body),
            content_type=b"application/json",
            head=scope["method"] == "HEAD",
        )

    async def metrics_page(self, scope, receive, send):
        """GET /metrics: the server's metrics (all its processes') in the Prometheus
        text format, to the addresses of METRICS_ALLOWED (the client address as the
        pages read it) or with METRICS_TOKEN; 404 to anyone else."""
        peer = scope.get("client")
        headers = request_headers(scope)
        address = throttling.address_from(
            peer[0] if peer else "", headers.get("x-forwarded-for", "")
        )
        if self.metrics is None or not may_read(address, headers.get("authorization")):
            raise RequestError(404, f"Not found: {scope['path']}")
        body, content_type = self.metrics.render()
        await send_bytes(
            send, 200, body, content_type, [(b"cache-control", b"no-store")],
            head=scope["method"] == "HEAD",
        )  # fmt: skip

    async def sample(self, scope, receive, send):
        """GET /statuses/sample.json?percent=N&identifier=ID (both optional), or a POST
        with them in its query string or form body."""
        fields = parse_query(scope)
        if scope["method"] == "POST":
            fields = {**await read_form(scope, receive), **fields}  # the query string's win
        identifier = client_identifier(scope, fields)
        percent = filters.parse_percent(first(fields, "percent"))
        since_id = replay.parse_since_id(first(fields, "since_id"))
        match = filters.SampleFilter(identifier, percent)
        await self.stream(scope, receive, send, match, identifier, **self.catching_up(since_id))

    async def filter(self, scope, receive, send):
        """POST /statuses/filter.json with track, follow, locations in its form body
        (``identifier``, optional, and ``since_id`` in its query string)."""
        query = parse_query(scope)
        identifier = client_identifier(scope, query)
        since_id = replay.parse_since_id(first(query, "since_id"))
        form = await read_form(scope, receive)
        match = await self.build_filter(form)
        await self.stream(scope, receive, send, match, identifier, **self.catching_up(since_id))

    def catching_up(self, since_id):
        """stream()'s arguments for an API client asking to catch up from ``since_id``
        (none when it does not): a held client, and the catch-up (replay.catch_up)."""
        if since_id is None:
            return {}

        async def catch_up(client):
            return await replay.catch_up(
                self.redis, self.hub, since_id, client.match, client.format, client
            )

        def held_client(*args):
            return replay.ReplayingClient(*args, floor=since_id)

        return {"client_class": held_client, "replay": catch_up}

    async def build_filter(self, form):
        """The filter for a filter request's fields; RequestError if none or bad."""
        track = form.get("track")
        follow = form.get("follow")
        # "location" is the book's name for Twitter's "locations"; both are accepted.
        locations = form.get("locations", []) + form.get("location", [])
        if track is None and follow is None and not locations:
            raise RequestError(
                401, "no filter given: post at least one of track, follow or locations."
            )
        # Every field's form is checked before any of them costs a Redis lookup.
        phrases = filters.parse_track(track) if track is not None else None
        boxes = filters.parse_locations(locations) if locations else None
        names = filters.parse_follow(follow) if follow is not None else None
        predicates = []
        if phrases is not None:
            predicates.append(filters.TrackFilter(phrases))
        if boxes is not None:
            predicates.append(filters.LocationFilter(boxes))
        if names is not None:
            uids, logins = await asyncio.to_thread(resolve_users, self.redis, names)
            predicates.append(filters.FollowFilter(uids, logins))
        return filters.any_of(predicates)

    async def _live_user(self, scope, send):
        """(user, session key, request headers, CORS headers) of a live page's stream
        request, or None when it is answered here: a preflight (EventSource sends none,
        but a browser may for a reconnection carrying Last-Event-ID: answered rather than
        failed), or a request without a logged-in session (401)."""
        headers = request_headers(scope)
        cors = self.live.cors_headers(headers.get("origin"))
        if scope["method"] == "OPTIONS":
            await send_preflight(send, cors, b"Last-Event-ID, Cache-Control")
            return None
        session_key = self.live.session_key(headers.get("cookie"))
        user = await self.live.authenticate(session_key)
        if user is None:
            await send_text(send, 401, "Log in to the site first: no logged-in session.", cors)
            return None
        return user, session_key, headers, cors

    async def live_home(self, scope, receive, send):
        """GET /live/home: the logged-in user's home timeline as Server-Sent Events."""
        logged_in = await self._live_user(scope, send)
        if logged_in is None:
            return
        user, session_key, headers, cors = logged_in
        home = await self.live.filter_for(user)
        # Where the page is: the browser's Last-Event-ID when it reconnects, else what
        # live.js passes from the page itself (?last_event_id=). A malformed one is
        # ignored (the stream starts from now), and said so in a comment.
        given = headers.get("last-event-id")
        if given is None:
            given = first(parse_query(scope), "last_event_id")
        ignored = None
        try:
            cursor, version = replay.parse_event_id(given)
        except ValueError as error:
            cursor, version, ignored = None, None, str(error)
        format = self.live.format_for(user)

        def live_client(*args):
            return replay.LiveClient(*args, cursor=cursor, version=version)

        async def catch_up(client):
            if ignored is not None:
                note = f": Last-Event-ID ignored: {ignored}\n\n".encode()
                return [(None, note)]  # a comment: no event, no id
            return await replay.live_replay(self.live, self.hub, user, client, format)

        async def keep_up_to_date(client):
            # Whom the user follows changes; so may the session (a logout elsewhere).
            # A follow, unfollow, block, mute, logout or password change says so at once
            # (client.refresh, Hub.dispatch); the periodic read is for events lost (pub/sub
            # is at most once) and sessions that expire. Spread out (randomly 0.8 to 1.2
            # of the period) so that pages opened together do not read together ever after.
            while True:
                period = self.live.refresh_seconds * random.uniform(0.8, 1.2)
                try:
                    await asyncio.wait_for(client.refresh.wait(), period)
                except TimeoutError:
                    pass
                client.refresh.clear()
                client.hidden_recently.clear()
                try:
                    if await self.live.authenticate(session_key) is None:
                        client.close()  # the writer ends the response
                        return
                    fresh = await self.live.filter_for(user)
                    # A block or mute that came while reading may be missing from
                    # what was read: it stays applied (and the loop reads again).
                    fresh.hide(client.hidden_recently)
                    client.match = fresh
                except Exception:
                    # Redis away for a moment: keep the old list, try again later.
                    log.exception("Could not refresh the live feed of @%s", user.login)

        await self.stream(
            scope,
            receive,
            send,
            home,
            f"@{user.login}",
            format=format,
            headers=cors,
            background=keep_up_to_date,
            user_id=user.id,
            client_class=live_client,
            replay=catch_up,
        )

    async def live_messages(self, scope, receive, send):
        """GET /live/messages: the logged-in user's own events as Server-Sent Events (a
        new direct message in one of their conversations, their unread counts) and no
        statuses: a conversation's page (static/js/messages.js). No replay: the page
        fetches what it missed when it connects again."""
        logged_in = await self._live_user(scope, send)
        if logged_in is None:
            return
        user, session_key, headers, cors = logged_in

        async def keep_logged_in(client):
            # A logout, a password change or a suspension says so at once (client.refresh);
            # the periodic check is for events lost and sessions that expire.
            while True:
                period = self.live.refresh_seconds * random.uniform(0.8, 1.2)
                try:
                    await asyncio.wait_for(client.refresh.wait(), period)
                except TimeoutError:
                    pass
                client.refresh.clear()
                try:
                    if await self.live.authenticate(session_key) is None:
                        client.close()
                        return
                except Exception:
                    log.exception("Could not check the session of @%s", user.login)

        await self.stream(
            scope,
            receive,
            send,
            filters.NothingFilter(),
            f"@{user.login} messages",
            format=self.live.format_for(user),
            headers=cors,
            background=keep_logged_in,
            user_id=user.id,
        )

    # --- streaming a response ---

    async def stream(
        self,
        scope,
        receive,
        send,
        match,
        name,
        format=JSON_LINES,
        headers=(),
        background=None,
        user_id=None,
        client_class=None,
        replay=None,
    ):
        """Answer 200 and send the events ``match`` accepts until the client goes
        away, falls too far behind, or the server stops; with ``user_id`` (a live page:
        the logged-in user it is for), also that user's unread counts.

        ``replay``: an async function of the client giving what it missed, as (event,
        bytes) pairs sent before any live event; the client (made by ``client_class``,
        a replay.ReplayingClient) holds the live events back meanwhile (replay.py)."""
        if self.max_streams is not None and len(self.hub.clients) >= self.max_streams:
            self.refusals["server_full"] += 1
            raise RequestError(
                429, f"This server streams to as many clients as it can ({self.max_streams}); "
                "try again in a few seconds."
            )  # fmt: skip
        # Counted once the request is read: the address is the one the pages count.
        held = await self.hold_address(scope)
        self.connection_count += 1
        name = f"{name} #{self.connection_count}"
        if client_class is None:
            client = self.hub.client(match, format, name, user_id)
        else:
            client = client_class(match, format, self.hub.client_buffer, name, user_id)
        if not self.hub.add(client):
            self.release_address(held)
            raise RequestError(503, "The server is shutting down; connect again.")
        try:
            await send(
                {
                    "type": "http.response.start",
                    "status": 200,
                    "headers": [(b"content-type", format.content_type), *STREAM_HEADERS, *headers],
                }
            )
            if format.opening:
                client.offer(format.opening)
            client.writer = asyncio.create_task(self.write(client, send))
            if replay is not None:
                # Joined the hub first, then read: nothing published in between is lost.
                missed = await replay(client)
                if not client.release(missed):
                    self.hub.stats["clients_dropped"] += 1
                    self.hub.remove(client)
                    client.drop()
            # The stream ends when the writer does (closed or dropped) or the client
            # goes away; the background work (if any) just stops with it.
            watchers = {client.writer, asyncio.create_task(wait_for_disconnect(receive))}
            tasks = set(watchers)
            if background is not None:
                tasks.add(asyncio.create_task(background(client)))
            try:
                await asyncio.wait(watchers, return_when=asyncio.FIRST_COMPLETED)
            finally:
                for task in tasks:
                    task.cancel()
                await asyncio.gather(*tasks, return_exceptions=True)
        finally:
            # Whatever ended the stream, the client is forgotten at once.
            self.hub.remove(client)
            self.release_address(held)
        # A dropped client's response stays unfinished on purpose: returning now makes
        # the server close the connection (logged, see QuietIncompleteResponses).

    async def hold_address(self, scope):
        """Count a stream of the request's client address (limits.StreamsPerAddress):
        what release_address takes when it ends. RequestError 429 if the address holds
        as many streams as it may."""
        if self.per_address is None:
            return None
        held = await self.per_address.hold(client_address(scope))
        if held is None:
            self.refusals["address_full"] += 1
            raise RequestError(
                429, f"Too many streams from your address (at most {self.per_address.limit}). "
                "Close some, then try again."
            )  # fmt: skip
        return held

    def release_address(self, held):
        if held is not None:
            self.per_address.release(held)

    async def write(self, client, send):
        """Send the client's queued events as they come; end the response when the
        client is closed (the server is stopping, or its session ended)."""
        # For the events offered while this waits (Client.offer, Hub.flush).
        client.direct_writer = DirectWriter.of(send)
        while (data := await client.next_batch()) is not None:
            await send({"type": "http.response.body", "body": data, "more_body": True})
        await send({"type": "http.response.body", "body": b"", "more_body": False})


# --- small HTTP helpers ----------------------------------------------------------------


async def send_preflight(send, cors, allowed_headers):
    """Answer a CORS preflight of a GET stream: 204 with ``cors`` and the request
    headers ``allowed_headers`` (bytes) a browser may send with it."""
    preflight = [
        (b"access-control-allow-methods", b"GET"),
        (b"access-control-allow-headers", allowed_headers),
        (b"access-control-max-age", b"600"),
        NOSNIFF,
    ]
    await send({"type": "http.response.start", "status": 204, "headers": cors + preflight})
    await send({"type": "http.response.body", "body": b""})


async def send_text(
    send, status, text, headers=(), content_type=b"text/plain; charset=utf-8", head=False
):
    """A whole response with a readable body (errors, the health check); with ``head``
    (a HEAD request), its headers only."""
    await send_bytes(send, status, text.encode() + b"\n", content_type, headers, head)


async def send_bytes(send, status, body, content_type, headers=(), head=False):
    """A whole response of ``body`` (bytes); with ``head``, its headers only."""
    await send(
        {
            "type": "http.response.start",
            "status": status,
            "headers": [
                (b"content-type", content_type),
                (b"content-length", str(len(body)).encode()),
                # Error texts may quote the request: never let a browser sniff HTML.
                NOSNIFF,
                *headers,
            ],
        }
    )
    await send({"type": "http.response.body", "body": b"" if head else body})


async def wait_for_disconnect(receive):
    """Return when the client goes away (ASGI's http.disconnect)."""
    while (await receive())["type"] != "http.disconnect":
        pass


def client_address(scope):
    """The client's address as the site's pages count it (throttling.address_from:
    behind a proxy, the last address of X-Forwarded-For), an IPv6 address as its /64."""
    peer = scope.get("client")
    forwarded = request_headers(scope).get("x-forwarded-for", "")
    address = throttling.address_from(peer[0] if peer else "", forwarded)
    return throttling.address_bucket(address)


def request_headers(scope):
    """The request's headers as {lowercased name: value} (the last of repeats)."""
    return {name.decode("latin-1"): value.decode("latin-1") for name, value in scope["headers"]}


def parse_query(scope):
    return parse_qs(
        scope["query_string"].decode("latin-1"),
        keep_blank_values=True,
        max_num_fields=MAX_FORM_FIELDS,
    )


def first(fields, name):
    values = fields.get(name)
    return values[0] if values else None


def client_identifier(scope, fields):
    """Who a streaming API client is, for its sample (filters.SampleFilter) and its name
    in the logs: its ``identifier`` field; without one, the OAuth consumer key its request
    is signed with, as Twitter's clients sign every request (the signature is not
    checked: the public stream is public); else its address (client_address, as the
    pages and the limits count it). 406 for one too long."""
    identifier = filters.parse_identifier(first(fields, "identifier"))
    if identifier is not None:
        return identifier
    key = oauth_consumer_key(request_headers(scope).get("authorization"))
    if key is None:
        key = first(fields, "oauth_consumer_key")  # OAuth 1.0 allows the query string too
    key = filters.parse_identifier(key, "oauth_consumer_key")
    if key is not None:
        return key
    return client_address(scope)


def oauth_consumer_key(authorization):
    """The ``oauth_consumer_key`` of an ``Authorization: OAuth ...`` header (RFC 5849,
    3.5.1: comma-separated ``name="value"``, percent-encoded), or None."""
    scheme, _, parameters = (authorization or "").strip().partition(" ")
    if scheme.lower() != "oauth":
        return None
    for name, value in OAUTH_PARAMETER.findall(parameters):
        if unquote(name) == "oauth_consumer_key":
            return unquote(value)
    return None


async def read_form(scope, receive):
    """The request body's form fields, {name: [values]} (application/x-www-form-urlencoded)."""
    content_type = request_headers(scope).get("content-type", "")
    media_type = content_type.partition(";")[0].strip().lower()
    if media_type not in ("", "application/x-www-form-urlencoded"):
        raise RequestError(
            415, f"Send the filter as application/x-www-form-urlencoded, not {media_type}."
        )
    body = bytearray()
    more = True
    while more:
        message = await receive()
        if message["type"] == "http.disconnect":
            raise ClientGone
        body += message.get("body", b"")
        more = message.get("more_body", False)
        if len(body) > MAX_BODY_BYTES:
            raise RequestError(413, f"The request body is over {MAX_BODY_BYTES} bytes.")
    try:
        return parse_qs(
            body.decode("utf-8"),
            keep_blank_values=True,
            strict_parsing=False,
            max_num_fields=MAX_FORM_FIELDS,
        )
    except UnicodeDecodeError:
        raise RequestError(400, "The request body is not valid UTF-8.") from None
    except ValueError:
        raise RequestError(413, f"More than {MAX_FORM_FIELDS} form fields.") from None


def resolve_users(redis, names):
    """(user ids, logins) of follow's names: logins (any case) or user ids.

    A name is first looked up as a login, then, if it is all digits, as a user id:
    a login made of digits wins over the id it looks like. RequestError 406 names
    those that are neither. Two round trips, whatever the number of names.
    """
    ids_by_login = users.get_user_ids(redis, names)
    rest = [name for name in names if name.lower() not in ids_by_login]
    numeric = [uid for uid in map(parse_id, rest) if uid is not None]
    by_id = users.get_users(redis, numeric) if numeric else {}
    unknown = [name for name in rest if parse_id(name) not in by_id]
    if unknown:
        listed = ", ".join(unknown[:5]) + (", ..." if len(unknown) > 5 else "")
        raise filters.malformed(f"follow: there is no user {listed}.")
    uids = set(ids_by_login.values()) | set(by_id)
    logins = set(ids_by_login) | {user["login"].lower() for user in by_id.values()}
    return uids, logins


class QuietIncompleteResponses(logging.Filter):
    """Keeps uvicorn from logging an error each time a slow client is dropped.

    Dropping one means closing its connection in the middle of the response (it
    would never read the end of it), which uvicorn reports as "ASGI callable
    returned without completing response". The hub logs the drop itself, with the
    client's name; nothing else in this app returns from an unfinished response.
    """

    def filter(self, record):
        return "returned without completing response" not in record.getMessage()


class RedactedTokens(logging.Filter):
    """Keeps access tokens out of uvicorn's logs: Mastodon's clients may send theirs in
    the query string (``access_token=``), which uvicorn logs with the path (a WebSocket
    accepted, and every request with ``--access-log``)."""

    TOKEN = re.compile(r"(access_token=)[^&\s\"]+")

    def filter(self, record):
        if record.args:
            record.args = tuple(
                self.TOKEN.sub(r"\1[redacted]", arg) if isinstance(arg, str) else arg
                for arg in record.args
            )
        elif isinstance(record.msg, str):
            record.msg = self.TOKEN.sub(r"\1[redacted]", record.msg)
        return True

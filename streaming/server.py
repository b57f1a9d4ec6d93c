"""The stream server's ASGI application (section 8.5.2), without a web framework.

It serves what the products it is given register (``add_route``, ``add_websocket``):
Twitter's v1.1 streaming API (twitter.py), the live pages' feeds (timeline/live.py)
and Mastodon's streaming API (api/streaming.py); ``manage.py stream`` puts them
together. Its own endpoints:

- ``GET /health``: 200 while subscribed to Redis, 503 otherwise (for load balancers);
  ``HEAD /health`` the same without the body.
- ``GET /metrics``: the server's metrics, to the addresses allowed to read them.

Every stream is a Client of the process's hub (hub.py), which hands it the events its
filter matches; ``stream`` answers one request with one, until the client goes away,
falls behind or the server stops. The responses are long-lived: chunked transfer
encoding (the ASGI server's default for a response without a length).

A framework would add little here: a few routes and plain-text errors, while the
streaming itself (one writer per connection, watching for disconnects, cutting slow
clients) is below what frameworks offer.
"""

import asyncio
import collections
import json
import logging
import os
import re

from socialsite import throttling
from socialsite.metrics_setup import may_read

from .asgi import (
    JSON_TYPE,
    NOSNIFF,
    ClientGone,
    client_address,
    request_headers,
    send_bytes,
    send_text,
    wait_for_disconnect,
)
from .direct_writes import DirectWriter
from .filters import RequestError
from .limits import RETRY_AFTER_SECONDS

log = logging.getLogger(__name__)

STREAM_HEADERS = [
    (b"cache-control", b"no-store"),
    NOSNIFF,
    # nginx buffers proxied responses unless told not to; a stream must not wait.
    (b"x-accel-buffering", b"no"),
]


class StreamingApp:
    """The ASGI application. ``hub`` hands out events; ``redis`` is a synchronous
    repository client, used from threads; ``per_address`` (a limits.StreamsPerAddress)
    bounds the streams of one client address, which are not bounded when it is None."""

    def __init__(self, hub, redis, max_streams=None, per_address=None):
        self.hub = hub
        self.redis = redis
        # Streams at a time; past it new ones get 429 (limits.ConnectionLimits).
        self.max_streams = max_streams
        self.per_address = per_address
        # {path: (methods, handler)}; a handler is an ASGI callable.
        self.routes = {
            "/health": ({"GET", "HEAD"}, self.health),
            "/metrics": ({"GET", "HEAD"}, self.metrics_page),
        }
        # {path: handler} of the paths that speak WebSocket.
        self.websockets = {}
        # Path prefixes whose errors are JSON, {"error": ...}, readable by browser apps.
        self.json_errors_under = []
        self.connection_count = 0
        # Streams refused with 429, by reason (metrics.REFUSAL_REASONS).
        self.refusals = collections.Counter()
        # A metrics.StreamMetrics, which serves /metrics; none: /metrics is a 404.
        self.metrics = None

    def add_route(self, path, methods, handler):
        """Answer ``methods`` on ``path`` with ``handler(scope, receive, send)``."""
        self.routes[path] = (set(methods), handler)

    def add_websocket(self, path, handler):
        """Accept WebSocket connections on ``path`` (with or without a trailing slash)."""
        self.websockets[path] = handler

    def answer_json_errors_under(self, prefix):
        """Answer the errors of every path under ``prefix`` as JSON, found or not."""
        self.json_errors_under.append(prefix)

    async def __call__(self, scope, receive, send):
        if scope["type"] == "lifespan":
            await self.lifespan(receive, send)
            return
        if scope["type"] == "websocket":
            handler = self.websockets.get(scope["path"].rstrip("/"))
            if handler is not None:
                await handler(scope, receive, send)
            else:
                # Only the paths registered speak WebSocket: refused (403).
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
            if any(scope["path"].startswith(prefix) for prefix in self.json_errors_under):
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

    # --- the server's own endpoints ---

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

    # --- streaming a response ---

    async def stream(
        self,
        scope,
        receive,
        send,
        match,
        name,
        format,
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

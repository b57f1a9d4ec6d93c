"""Connection limits of the streaming server, where uvicorn has none.

A stream is a connection held open for hours, so connections are what runs out: each
is a file descriptor. Three limits keep one client, or idle sockets, from taking the
server down:
- a connection must send its request within ``request_timeout`` seconds, or it is
  closed (uvicorn itself waits for ever for a first request);
- one client address holds at most STREAM_MAX_PER_ADDRESS streams over all the
  processes of the server (StreamsPerAddress): the next is answered 429. The address is the one the
  site's pages count (socialsite.throttling: behind a proxy, the last address of
  X-Forwarded-For), so it is known once the request is read, not when the connection
  opens;
- at most ``max_streams`` streams at a time (StreamingApp answers 429 past that), and
  at most ``max_streams + HEALTH_RESERVE`` connections, so that a health check still
  gets through when the streams are full.
"""

import asyncio
import logging
import resource
import secrets

from redis.exceptions import RedisError
from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol
from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol

from socialsite.repository import limits as repository_limits
from socialsite.repository import stream_addresses

log = logging.getLogger(__name__)

# Connections accepted beyond the stream limit: room for /health and for requests
# that are answered 429.
HEALTH_RESERVE = 100
# Seconds a client is asked to wait before trying again, on a 429.
RETRY_AFTER_SECONDS = 10


def too_many_requests(text):
    """A whole HTTP/1.1 429 response, for a connection refused before its request."""
    body = text.encode()
    head = (
        "HTTP/1.1 429 Too Many Requests\r\n"
        f"Retry-After: {RETRY_AFTER_SECONDS}\r\n"
        "Content-Type: text/plain; charset=utf-8\r\n"
        "X-Content-Type-Options: nosniff\r\n"
        f"Content-Length: {len(body)}\r\n"
        "Connection: close\r\n\r\n"
    )
    return head.encode() + body


class StreamsPerAddress:
    """At most ``limit`` streams per client address over the ``processes`` processes
    of stream server ``server`` (a name its supervisor gives them all; a random one for
    a server of one process), counted in Redis (repository.stream_addresses) by the
    process numbered ``process``. ``redis``: a synchronous repository client, used
    from threads.

    A stream is counted once its request is read (``hold``) and forgotten when it
    ends (``release``): a round trip each. The process renews its counts while it
    runs, so that they expire soon after it dies, and clears them when it starts (in
    the place of one that died) and stops."""

    def __init__(self, redis, limit, server=None, process=0, processes=1):
        self.redis = redis
        self.limit = limit
        self.server = server or secrets.token_hex(8)
        self.process = process
        self.processes = processes
        # This process's counted streams, token -> address: what it counts in Redis.
        self.held = {}
        # Streams that ended while their release could not reach Redis.
        self.unreleased = set()
        # The releases under way (release): a task is kept until it is done.
        self.releasing = set()
        self.renewal = None
        # Whether the counts of a process that ran in this one's place are cleared.
        self.predecessor_forgotten = False

    async def start(self):
        """Clear what a process that died in this one's place counted, and keep this
        one's counts alive from now on."""
        try:
            await asyncio.to_thread(self._forget_predecessor)
        except (RedisError, OSError) as error:
            log.warning("Could not clear the streams counted per address (%s).", error)
        self.renewal = asyncio.create_task(self._keep_counts())

    def _forget_predecessor(self):
        stream_addresses.forget_process(self.redis, self.server, self.process)
        self.predecessor_forgotten = True

    async def stop(self):
        if self.renewal is not None:
            self.renewal.cancel()
            await asyncio.gather(self.renewal, return_exceptions=True)
        await asyncio.gather(*self.releasing, return_exceptions=True)
        try:
            await asyncio.to_thread(
                stream_addresses.forget_process, self.redis, self.server, self.process
            )
        except (RedisError, OSError):
            pass  # they expire

    async def hold(self, address):
        """Count a new stream of client ``address``: its token, or None if the address
        holds ``limit`` streams on the server already. Redis out of reach: the stream
        is let in uncounted (it cannot get events then anyway), and said so in the log."""
        token = secrets.token_hex(8)
        try:
            held, _ = await asyncio.to_thread(
                stream_addresses.hold,
                self.redis, self.server, self.process, self.processes, token, address, self.limit,
            )  # fmt: skip
        except (RedisError, OSError) as error:
            log.warning("Could not count a stream of %s (%s): let in uncounted.", address, error)
            return token
        if not held:
            return None
        self.held[token] = address
        return token

    def release(self, token):
        """Forget the stream ``hold`` counted as ``token``: at once in this process, in
        Redis in the background (the stream ending does not wait for it, and a stream
        cancelled meanwhile cannot leave it counted)."""
        if self.held.pop(token, None) is None:
            return
        task = asyncio.create_task(self._release(token))
        self.releasing.add(task)
        task.add_done_callback(self.releasing.discard)

    async def _release(self, token):
        try:
            await asyncio.to_thread(
                stream_addresses.release, self.redis, self.server, self.process, token
            )
        except (RedisError, OSError):
            self.unreleased.add(token)  # released by the next renewal

    async def _keep_counts(self):
        """Renew this process's counts three times per their lifetime; release what
        could not be released; count again what Redis lost (a restart without its data)."""
        period = repository_limits.STREAM_ADDRESSES_TTL_MS / 1000 / 3
        while True:
            await asyncio.sleep(period)
            # Copies: the streams come and go while the thread works.
            held, unreleased = dict(self.held), set(self.unreleased)
            try:
                await asyncio.to_thread(self._renew, held, unreleased)
            except (RedisError, OSError) as error:
                log.warning("Could not renew the streams counted per address (%s).", error)
                continue
            self.unreleased -= unreleased
            for token in held.keys() - self.held.keys():
                # Ended while counted again: released once more, after it.
                self.held[token] = held[token]
                self.release(token)

    def _renew(self, held, unreleased):
        if not self.predecessor_forgotten:
            self._forget_predecessor()  # Redis was out of reach at start
            unreleased.clear()
        for token in unreleased:
            stream_addresses.release(self.redis, self.server, self.process, token)
        if stream_addresses.renew(self.redis, self.server, self.process) or not held:
            held.clear()
            return
        for token, address in held.items():
            stream_addresses.hold(
                self.redis, self.server, self.process, self.processes, token, address, 0
            )


class ConnectionLimits:
    """The connection limits and the open connections of one server process."""

    def __init__(self, *, max_streams, request_timeout=10.0):
        self.max_streams = max_streams
        self.max_connections = max_streams + HEALTH_RESERVE
        self.request_timeout = request_timeout
        self.open = 0

    def admit(self):
        """Count a new connection; the reason to refuse it, or None."""
        if self.open >= self.max_connections:
            return "The server holds as many connections as it can. Try again shortly.\n"
        self.open += 1
        return None

    def release(self):
        self.open -= 1

    def raise_open_files_limit(self):
        """Ask the kernel for enough file descriptors for every connection allowed
        (the soft limit is often 1,024), up to the hard limit; warn if that is short."""
        soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
        wanted = self.max_connections + 256  # Redis, logs, the listening socket
        if hard != resource.RLIM_INFINITY:
            wanted = min(wanted, hard)
        if soft != resource.RLIM_INFINITY and soft < wanted:
            resource.setrlimit(resource.RLIMIT_NOFILE, (wanted, hard))
            soft = wanted
        if soft != resource.RLIM_INFINITY and soft < self.max_connections + 256:
            log.warning(
                "Only %d open files allowed (ulimit -n): fewer than the %d connections "
                "the limits allow. Raise the hard limit or lower STREAM_MAX_CLIENTS.",
                soft,
                self.max_connections,
            )

    def protocol_class(self):
        """uvicorn's HTTP protocol (httptools) with these limits applied to it."""
        return type("LimitedHttpToolsProtocol", (_LimitedProtocol,), {"limits": self})

    def websocket_protocol_class(self):
        """uvicorn's WebSocket protocol (websockets' sans-I/O), which takes over a
        connection the HTTP protocol counted when it upgrades, and releases it."""
        return type("LimitedWebSocketProtocol", (_LimitedWebSocket,), {"limits": self})


class _LimitedProtocol(HttpToolsProtocol):
    limits: ConnectionLimits  # set by ConnectionLimits.protocol_class

    def connection_made(self, transport):
        super().connection_made(transport)
        refusal = self.limits.admit()
        self._counted = refusal is None
        if refusal is not None:
            transport.write(too_many_requests(refusal))
            transport.close()
            return
        self._first_request_timer = self.loop.call_later(
            self.limits.request_timeout, self._no_request_in_time
        )

    def on_message_begin(self):
        timer = getattr(self, "_first_request_timer", None)
        if timer is not None:
            timer.cancel()
            self._first_request_timer = None
        super().on_message_begin()

    def _no_request_in_time(self):
        self._first_request_timer = None
        if not self.transport.is_closing():
            self.transport.close()

    def handle_websocket_upgrade(self):
        # The connection goes on under the WebSocket protocol, whose connection_lost
        # is the one asyncio calls: the count goes with it.
        self._counted = False
        super().handle_websocket_upgrade()

    def connection_lost(self, exc):
        timer = getattr(self, "_first_request_timer", None)
        if timer is not None:
            timer.cancel()
        if getattr(self, "_counted", False):
            self._counted = False
            self.limits.release()
        super().connection_lost(exc)


class _LimitedWebSocket(WebSocketsSansIOProtocol):
    """A WebSocket connection, counted by the HTTP connection it was upgraded from
    (_LimitedProtocol.handle_websocket_upgrade), released when it ends."""

    limits: ConnectionLimits  # set by ConnectionLimits.websocket_protocol_class
    _counted = False

    def connection_made(self, transport):
        # Made by the HTTP protocol of a counted connection: the count is this one's now.
        self._counted = True
        super().connection_made(transport)

    def connection_lost(self, exc):
        if self._counted:
            self._counted = False
            self.limits.release()
        super().connection_lost(exc)

"""Connection limits of the streaming server, where uvicorn has none.

A stream is a connection held open for hours, so connections are what runs out: each
is a file descriptor. Three limits keep one client, or idle sockets, from taking the
server down:
- a connection must send its request within ``request_timeout`` seconds, or it is
  closed (uvicorn itself waits for ever for a first request);
- one client address holds at most ``per_address`` connections: the next is answered
  429 at once and closed;
- at most ``max_streams`` streams at a time (StreamingApp answers 429 past that), and
  at most ``max_streams + HEALTH_RESERVE`` connections, so that a health check still
  gets through when the streams are full.
"""

import logging
import resource

from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

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


class ConnectionLimits:
    """The limits and the open connections of one server process."""

    def __init__(self, *, max_streams, per_address=100, request_timeout=10.0):
        self.max_streams = max_streams
        self.max_connections = max_streams + HEALTH_RESERVE
        self.per_address = per_address
        self.request_timeout = request_timeout
        self.open = 0
        self.by_address = {}

    def admit(self, address):
        """Count a new connection from ``address``; the reason to refuse it, or None."""
        if self.by_address.get(address, 0) >= self.per_address:
            return (
                f"Too many connections from your address (at most {self.per_address}). "
                f"Close some, then try again.\n"
            )
        if self.open >= self.max_connections:
            return "The server holds as many connections as it can. Try again shortly.\n"
        self.open += 1
        self.by_address[address] = self.by_address.get(address, 0) + 1
        return None

    def release(self, address):
        self.open -= 1
        left = self.by_address.get(address, 1) - 1
        if left:
            self.by_address[address] = left
        else:
            self.by_address.pop(address, None)

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


class _LimitedProtocol(HttpToolsProtocol):
    limits: ConnectionLimits  # set by ConnectionLimits.protocol_class

    def connection_made(self, transport):
        super().connection_made(transport)
        self._address = self.client[0] if self.client else ""
        refusal = self.limits.admit(self._address)
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

    def connection_lost(self, exc):
        timer = getattr(self, "_first_request_timer", None)
        if timer is not None:
            timer.cancel()
        if getattr(self, "_counted", False):
            self._counted = False
            self.limits.release(self._address)
        super().connection_lost(exc)

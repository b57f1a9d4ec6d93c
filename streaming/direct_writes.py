"""Writing a stream's events straight to its connection, past ASGI's ``send``.

The one place that relies on an ASGI server's private internals: uvicorn's
httptools_impl.RequestResponseCycle, whose ``send`` is a bound method of an object that
holds the connection's asyncio transport (``transport``) and whether the response is
sent with chunked transfer encoding (``chunked_encoding``), guarded by
tests/test_library_internals.py. On another server ``DirectWriter.of(send)`` is None
and the connection's writer task sends everything through ``send``.

Why: at 10,000 clients, ``send`` per write (a message, a coroutine, and the writer task
woken for it) cost the stream server 35% to 80% more CPU per delivered line than writing
the chunk here, and its garbage brought full passes of the collector, which hold every
stream up (decisions 0040 and 0043, measured with ``manage.py bench_stream``).
"""


class DirectWriter:
    """The connection of one started chunked response, written to as chunks of it
    (Hub.flush)."""

    __slots__ = ("transport",)

    def __init__(self, transport):
        self.transport = transport

    @classmethod
    def of(cls, send):
        """A DirectWriter for the response ``send`` (an ASGI ``send`` whose
        ``http.response.start`` is sent) streams, if it is uvicorn's httptools ``send``
        of a chunked response; else None."""
        cycle = getattr(send, "__self__", None)
        if getattr(cycle, "chunked_encoding", None) is not True:
            return None
        transport = getattr(cycle, "transport", None)
        return None if transport is None else cls(transport)

    def write(self, data):
        """Write ``data`` now as one chunk of the response, framed as uvicorn's own
        ``send`` frames it; False (nothing written) if the socket has not taken
        everything written before, or the connection is closing: ``send`` then writes
        it, waiting for the socket as uvicorn's flow control does."""
        transport = self.transport
        if transport.get_write_buffer_size() or transport.is_closing():
            return False
        transport.write(b"%x\r\n%b\r\n" % (len(data), data))
        return True

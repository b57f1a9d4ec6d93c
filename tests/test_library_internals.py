"""The private internals of libraries that the code relies on, one test each.

requirements.txt allows compatible releases (``~=``); a new release may change what is
not part of a library's public API. Each test here names the code that relies on an
internal and fails if the library no longer provides it as that code uses it, so an
upgrade that breaks one is caught here rather than in production.
"""

import inspect
import logging

import jinja2
import pytest
import redis
import uvicorn
from django.contrib.sessions.backends.base import VALID_KEY_CHARS, SessionBase
from django.utils.functional import SimpleLazyObject
from redis.commands import CoreCommands
from redis.connection import AbstractConnection

# --- redis-py: socialsite.repository.client.round_trip -------------------------------


def test_redis_py_packs_commands_sends_them_and_parses_each_reply(r, redis_backend):
    """round_trip packs a batch with ``connection.pack_commands``, sends it with
    ``send_packed_command`` and reads each reply with ``Redis.parse_response(connection,
    command_name, **options)``, on a connection it makes from the pool's
    ``connection_class`` and ``connection_kwargs``."""
    if redis_backend.cluster:
        pytest.skip("on a cluster round_trip uses redis-py's public pipeline")
    pool = r.connection_pool
    connection = pool.connection_class(**pool.connection_kwargs)
    try:
        packed = connection.pack_commands([("SET", "{t}:k", "v"), ("ZADD", "{t}:z", 1.5, "m"),
                                           ("ZRANGE", "{t}:z", 0, -1, "WITHSCORES")])  # fmt: skip
        connection.send_packed_command(packed)
        assert r.parse_response(connection, "SET") is True
        assert r.parse_response(connection, "ZADD") == 1
        assert r.parse_response(connection, "ZRANGE", withscores=True) == [("m", 1.5)]
    finally:
        connection.disconnect()


def test_redis_py_command_methods_go_through_execute_command():
    """client._Batch subclasses CoreCommands and records what its command methods
    pass to ``execute_command`` (the arguments, and options such as withscores)."""
    calls = []

    class Recorder(CoreCommands):
        def execute_command(self, *args, **options):
            calls.append((args, options))

    Recorder().zrange("z", 0, -1, withscores=True)
    Recorder().hgetall("h")
    assert calls[0][0][:4] == ("ZRANGE", "z", 0, -1) and calls[0][1].get("withscores")
    assert calls[1][0] == ("HGETALL", "h")


def test_redis_py_sends_every_packed_command_through_send_packed_command():
    """The round trip counter (repository.client.round_trips) wraps
    ``AbstractConnection.send_packed_command(self, command, check_health=True)``."""
    parameters = list(inspect.signature(AbstractConnection.send_packed_command).parameters)
    assert parameters[:3] == ["self", "command", "check_health"]
    assert issubclass(redis.Connection, AbstractConnection)


def test_a_prometheus_histogram_keeps_its_buckets_and_sum_as_values_with_inc(monkeypatch):
    """socialsite/metrics.py adds a second's requests to ``Histogram._buckets`` (one
    value per upper bound, +Inf last, each counting only its own range) and ``_sum``,
    as ``observe`` does one at a time."""
    from prometheus_client import CollectorRegistry, Histogram, values

    # Values in memory, not in the multiprocess files the metrics tests read (the shape
    # of _buckets and _sum is the same for both kinds of value).
    monkeypatch.setattr(values, "ValueClass", values.MutexValue)

    registry = CollectorRegistry()
    histogram = Histogram("internals_check", "x", buckets=(1, 2), registry=registry)
    histogram._buckets[1].inc(2)
    histogram._sum.inc(3.0)
    histogram.observe(0.5)
    assert len(histogram._buckets) == 3
    assert registry.get_sample_value("internals_check_bucket", {"le": "1.0"}) == 1
    assert registry.get_sample_value("internals_check_bucket", {"le": "2.0"}) == 3
    assert registry.get_sample_value("internals_check_count") == 3
    assert registry.get_sample_value("internals_check_sum") == 3.5


# --- Django sessions: accounts.session_store.SessionStore ----------------------------


def test_django_session_base_keeps_the_internals_the_redis_store_uses(r):
    """SessionStore reads ``_session_cache`` (loaded or not), calls
    ``_get_or_create_session_key()``, ``_get_session(no_load=...)``, overrides
    ``_get_new_session_key()`` and sets ``_session_key``; keys use VALID_KEY_CHARS."""
    from accounts.session_store import SessionStore

    store = SessionStore()
    assert not hasattr(store, "_session_cache")  # not loaded yet: read_along relies on it
    store["x"] = 1
    assert store._session_cache == {"x": 1}
    assert store._get_session(no_load=True) == {"x": 1}
    assert "no_load" in inspect.signature(SessionBase._get_session).parameters
    key = store._get_or_create_session_key()
    assert key and set(key) <= set(VALID_KEY_CHARS)
    store._session_key = None  # the property's setter accepts None (an unknown key)
    assert store.session_key is None
    assert SessionBase._get_new_session_key is not SessionStore._get_new_session_key


# --- Django's lazy objects: socialsite.jinja2.viewer -----------------------------------


def test_django_lazy_objects_keep_what_they_wrap_in_wrapped():
    """viewer() unwraps request.user, a SimpleLazyObject, through ``_wrapped``."""
    lazy = SimpleLazyObject(lambda: {"id": 1})
    assert lazy["id"] == 1
    assert lazy._wrapped == {"id": 1}


# --- Jinja2: socialsite.jinja2._Environment ------------------------------------------------


def test_jinja2_builds_a_templates_globals_with_make_globals():
    """_Environment overrides ``Environment.make_globals(d)`` to give each template one
    plain dict of globals."""
    calls = []

    class Recording(jinja2.Environment):
        def make_globals(self, d):
            calls.append(d)
            return super().make_globals(d)

    env = Recording(loader=jinja2.DictLoader({"t.html": "{{ x }}"}))
    env.globals["x"] = "global"
    assert env.get_template("t.html").render() == "global"
    assert calls
    assert list(inspect.signature(jinja2.Environment.make_globals).parameters) == ["self", "d"]


# --- uvicorn: socialsite.management.commands.stream and streaming.server ----------


def test_uvicorn_server_shuts_down_through_an_overridable_coroutine():
    """StreamServer overrides ``uvicorn.Server.shutdown(self, sockets=None)`` to end the
    streams before uvicorn waits for connections; Config takes
    ``timeout_graceful_shutdown``."""
    shutdown = uvicorn.Server.shutdown
    assert inspect.iscoroutinefunction(shutdown)
    assert list(inspect.signature(shutdown).parameters) == ["self", "sockets"]
    assert "timeout_graceful_shutdown" in inspect.signature(uvicorn.Config).parameters


def test_uvicorn_reports_an_unfinished_response_with_the_message_the_app_filters():
    """QuietIncompleteResponses drops uvicorn's "ASGI callable returned without
    completing response" error, logged when a slow client is cut off."""
    from uvicorn.protocols.http import h11_impl, httptools_impl

    from streaming.server import QuietIncompleteResponses

    for module in (httptools_impl, h11_impl):
        assert "ASGI callable returned without completing response" in inspect.getsource(module)
    record = logging.LogRecord(
        "uvicorn.error", logging.ERROR, __file__, 1,
        "ASGI callable returned without completing response.", None, None,
    )  # fmt: skip
    assert not QuietIncompleteResponses().filter(record)


def test_uvicorn_httptools_protocol_has_the_hooks_the_connection_limits_use():
    """streaming.limits subclasses uvicorn's HttpToolsProtocol: it overrides
    ``connection_made``, ``on_message_begin`` (httptools' callback for a request's first
    byte) and ``connection_lost``, reads ``loop`` and ``transport``, and is passed to
    Config(http=...) as a class."""
    from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

    for hook in ("connection_made", "on_message_begin", "connection_lost"):
        assert callable(getattr(HttpToolsProtocol, hook))
    source = inspect.getsource(HttpToolsProtocol)
    for attribute in ("self.loop =", "self.transport ="):
        assert attribute in source
    config = uvicorn.Config(app=None, http=HttpToolsProtocol)
    assert config.http is HttpToolsProtocol


def test_uvicorn_httptools_send_is_a_method_of_a_cycle_with_its_transport():
    """streaming.direct_writes.DirectWriter.of takes ``send.__self__``
    (httptools_impl.RequestResponseCycle) and reads its ``transport`` and
    ``chunked_encoding``; DirectWriter.write then frames each chunk as uvicorn's own
    ``send`` does, and leaves the writing to ``send`` while the transport holds unsent
    bytes, before uvicorn's flow control would make ``send`` wait."""
    from uvicorn.protocols.http.httptools_impl import RequestResponseCycle

    assert inspect.iscoroutinefunction(RequestResponseCycle.send)
    source = inspect.getsource(RequestResponseCycle)
    for attribute in ("self.transport =", "self.chunked_encoding =", "self.flow.write_paused"):
        assert attribute in source, attribute
    assert 'content = [b"%x\\r\\n" % len(body), body, b"\\r\\n"]' in source


def test_uvicorn_httptools_lets_a_direct_writer_write_chunks_of_a_streaming_response():
    """Over a real socket: DirectWriter.of finds the connection of a chunked response
    sent by uvicorn's httptools ``send``, and what it writes arrives as chunks of it."""
    import asyncio

    from socialsite_dev.ports import free_port
    from socialsite_dev.streams import StreamConnection
    from streaming.direct_writes import DirectWriter

    found = []

    async def app(scope, receive, send):
        if scope["type"] != "http":
            return
        await send({"type": "http.response.start", "status": 200, "headers": []})
        writer = DirectWriter.of(send)
        found.append(writer)
        if writer is not None:
            assert writer.write(b"first\n")
            assert writer.write(b"second\n")
        await send({"type": "http.response.body", "body": b"last\n", "more_body": False})

    port = free_port()
    config = uvicorn.Config(app, host="127.0.0.1", port=port, http="httptools",
                            lifespan="off", log_config=None)  # fmt: skip
    server = uvicorn.Server(config)

    def read():
        with StreamConnection(port, "GET", "/") as response:
            return [response.read_line(), response.read_line(), response.read_line()]

    async def main():
        serving = asyncio.create_task(server.serve())
        while not server.started:
            await asyncio.sleep(0.01)
        try:
            return await asyncio.to_thread(read)
        finally:
            server.should_exit = True
            await serving

    lines = asyncio.run(main())
    assert found and found[0] is not None
    assert lines == ["first", "second", "last"]

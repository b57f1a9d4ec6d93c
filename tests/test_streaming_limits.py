"""The stream server's connection limits: a request must come soon after connecting,
one address holds a bounded number of connections, streams are bounded, and /health
answers throughout."""

import socket
import time

import pytest

from socialsite_dev.streams import StreamConnection

MAX_STREAMS = 3
PER_ADDRESS = 5


@pytest.fixture(scope="module")
def stream_server_options():
    return {"max_clients": MAX_STREAMS, "max_per_address": PER_ADDRESS, "request_timeout": 1}


def idle_connection(port, source="127.0.0.1"):
    """A connection that sends nothing."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.bind((source, 0))
    sock.connect(("127.0.0.1", port))
    return sock


def closed_by_server(sock, within):
    sock.settimeout(within)
    try:
        return sock.recv(1024)
    except ConnectionResetError:
        return b""


def sample(port, source="127.0.0.1"):
    return StreamConnection(
        port, "GET", "/statuses/sample.json?identifier=limits&percent=100", source=source
    )


def health(port, source):
    with StreamConnection(port, "GET", "/health", source=source) as response:
        return response.status


def test_a_connection_that_sends_no_request_is_closed(stream_server):
    sock = idle_connection(stream_server.port)
    started = time.monotonic()
    assert closed_by_server(sock, within=10) == b""
    assert time.monotonic() - started < 10  # the 1 s request timeout, not never
    sock.close()


def test_one_address_holds_a_bounded_number_of_connections(stream_server):
    held = [idle_connection(stream_server.port, "127.0.0.2") for _ in range(PER_ADDRESS)]
    try:
        extra = idle_connection(stream_server.port, "127.0.0.2")
        answer = closed_by_server(extra, within=5)
        extra.close()
        assert answer.startswith(b"HTTP/1.1 429 ")
        assert b"Retry-After: 10" in answer and b"Too many connections" in answer
        assert health(stream_server.port, "127.0.0.3") == 200  # another client is served
    finally:
        for sock in held:
            sock.close()


def test_streams_past_the_limit_get_429_while_health_answers(stream_server):
    streams = [sample(stream_server.port, f"127.0.1.{i}") for i in range(MAX_STREAMS)]
    try:
        assert [stream.status for stream in streams] == [200] * MAX_STREAMS
        with sample(stream_server.port, "127.0.1.99") as refused:
            assert refused.status == 429
            assert refused.headers["retry-after"] == "10"
            assert "as many clients as it can" in refused.read_body()
        assert health(stream_server.port, "127.0.1.100") == 200
    finally:
        for stream in streams:
            stream.close()
    stream_server.wait_until(lambda health: health["clients"] == 0, what="the streams to end")
    with sample(stream_server.port, "127.0.1.101") as again:
        assert again.status == 200

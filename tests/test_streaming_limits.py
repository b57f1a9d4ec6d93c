"""The stream server's limits: a request must come soon after connecting, one client
address holds a bounded number of streams over all the server's processes (the address
the site's pages count, also behind a proxy), streams are bounded, and /health answers
throughout (HEAD too)."""

import socket
import time

import pytest

from socialsite_dev.streams import StreamConnection, StreamServerProcess

MAX_STREAMS = 4
PER_ADDRESS = 2


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


def sample(port, source="127.0.0.1", forwarded_for=None):
    headers = {} if forwarded_for is None else {"X-Forwarded-For": forwarded_for}
    return StreamConnection(
        port,
        "GET",
        "/statuses/sample.json?identifier=limits&percent=100",
        source=source,
        headers=headers,
    )


def health(port, source):
    with StreamConnection(port, "GET", "/health", source=source) as response:
        return response.status


def statuses(streams):
    return [stream.status for stream in streams]


def close_all(streams):
    for stream in streams:
        stream.close()


def test_a_connection_that_sends_no_request_is_closed(stream_server):
    sock = idle_connection(stream_server.port)
    started = time.monotonic()
    assert closed_by_server(sock, within=10) == b""
    assert time.monotonic() - started < 10  # the 1 s request timeout, not never
    sock.close()


def test_one_address_holds_a_bounded_number_of_streams(stream_server):
    held = [sample(stream_server.port, "127.0.0.2") for _ in range(PER_ADDRESS)]
    try:
        assert statuses(held) == [200] * PER_ADDRESS
        with sample(stream_server.port, "127.0.0.2") as refused:
            assert refused.status == 429
            assert refused.headers["retry-after"] == "10"
            assert f"Too many streams from your address (at most {PER_ADDRESS})" in (
                refused.read_body()
            )
        assert health(stream_server.port, "127.0.0.2") == 200  # /health is no stream
        with sample(stream_server.port, "127.0.0.3") as other:
            assert other.status == 200  # another client is served
        # A closed stream frees its place.
        held.pop().close()
        deadline = time.monotonic() + 10
        while True:
            again = sample(stream_server.port, "127.0.0.2")
            if again.status == 200 or time.monotonic() > deadline:
                break
            again.close()
            time.sleep(0.1)
        held.append(again)
        assert again.status == 200
    finally:
        close_all(held)
    stream_server.wait_until(lambda health: health["clients"] == 0, what="the streams to end")


def test_connections_are_counted_once_their_request_is_read(stream_server):
    """Connections that send nothing (yet) are not an address's streams: they are
    closed by the request timeout instead."""
    idle = [idle_connection(stream_server.port, "127.0.0.4") for _ in range(PER_ADDRESS + 3)]
    try:
        with sample(stream_server.port, "127.0.0.4") as stream:
            assert stream.status == 200
    finally:
        for sock in idle:
            sock.close()
    stream_server.wait_until(lambda health: health["clients"] == 0, what="the streams to end")


def test_streams_past_the_limit_get_429_while_health_answers(stream_server):
    streams = [sample(stream_server.port, f"127.0.1.{i}") for i in range(MAX_STREAMS)]
    try:
        assert statuses(streams) == [200] * MAX_STREAMS
        with sample(stream_server.port, "127.0.1.99") as refused:
            assert refused.status == 429
            assert refused.headers["retry-after"] == "10"
            assert "as many clients as it can" in refused.read_body()
        assert health(stream_server.port, "127.0.1.100") == 200
    finally:
        close_all(streams)
    stream_server.wait_until(lambda health: health["clients"] == 0, what="the streams to end")
    with sample(stream_server.port, "127.0.1.101") as again:
        assert again.status == 200


def test_head_on_health_answers_as_get_without_a_body(stream_server):
    sock = socket.create_connection(("127.0.0.1", stream_server.port), timeout=5)
    sock.sendall(b"HEAD /health HTTP/1.1\r\nHost: stream\r\nConnection: close\r\n\r\n")
    answer = b""
    while data := sock.recv(65536):
        answer += data
    sock.close()
    head, _, body = answer.partition(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 200 ")
    assert b"content-type: application/json" in head.lower()
    assert int(head.lower().partition(b"content-length: ")[2].split(b"\r\n")[0]) > 0
    assert body == b""


# --- over a proxy, and over several processes ------------------------------------------


def test_behind_a_proxy_streams_are_counted_by_the_forwarded_address(redis_backend, tmp_path):
    """Every connection comes from the proxy (127.0.0.1); each client is the last
    address of X-Forwarded-For, as for the site's pages. The proxy is never limited."""
    server = StreamServerProcess(
        redis_backend.url,
        redis_backend.cluster,
        log_path=tmp_path / "stream.log",
        env={"BEHIND_PROXY": "true"},
        max_per_address=2,
        max_clients=50,
    ).start()
    streams = []
    try:
        for forwarded in ["198.51.100.1", "198.51.100.1", "203.0.113.9, 198.51.100.2"]:
            streams.append(sample(server.port, forwarded_for=forwarded))
        streams.append(sample(server.port, forwarded_for="198.51.100.1, 198.51.100.2"))
        assert statuses(streams) == [200] * 4
        # The third of each address is refused; what the client put first is not the
        # address counted.
        for forwarded in ["198.51.100.1", "198.51.100.2", "198.51.100.1, 198.51.100.2"]:
            with sample(server.port, forwarded_for=forwarded) as refused:
                assert refused.status == 429
                assert "Too many streams from your address" in refused.read_body()
        # The proxy, holding many streams, still brings in new clients.
        for n in range(3, 9):
            streams.append(sample(server.port, forwarded_for=f"198.51.100.{n}"))
        assert statuses(streams) == [200] * 10
    finally:
        close_all(streams)
        server.stop()


def test_one_address_gets_the_limit_over_all_processes(redis_backend, tmp_path):
    """--processes 2: the kernel spreads one address's connections over both processes,
    which count its streams together; a closed stream frees its place on either."""
    limit = 3
    server = StreamServerProcess(
        redis_backend.url,
        redis_backend.cluster,
        log_path=tmp_path / "stream.log",
        processes=2,
        max_per_address=limit,
        max_clients=50,
    ).start()
    streams = []
    try:
        # Both processes up (each answers /health with its own pid).
        answered = set()
        deadline = time.monotonic() + 30
        while len(answered) < 2 and time.monotonic() < deadline:
            health_now = server.health()
            if health_now and health_now["subscribed"]:
                answered.add(health_now["pid"])
        assert len(answered) == 2
        attempts = [sample(server.port, "127.0.0.5") for _ in range(12)]
        streams = [stream for stream in attempts if stream.status == 200]
        refused = [stream for stream in attempts if stream.status != 200]
        assert len(streams) == limit
        assert {stream.status for stream in refused} == {429}
        close_all(refused)

        streams.pop().close()
        deadline = time.monotonic() + 10
        while True:
            again = sample(server.port, "127.0.0.5")
            if again.status == 200 or time.monotonic() > deadline:
                break
            again.close()
            time.sleep(0.1)
        streams.append(again)
        assert again.status == 200
        more = [sample(server.port, "127.0.0.5") for _ in range(6)]
        close_all(more)
        assert statuses(more) == [429] * 6
    finally:
        close_all(streams)
        server.stop()

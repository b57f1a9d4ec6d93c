"""bench_stream's client reads what the streaming server sends: a live page's events,
each with the connection's ``id:`` line (streaming/replay.py), and JSON lines."""

import asyncio
import json

from benchmarks.stream import ID_AND_POSTED, BenchClient
from streaming import tweets


def chunked(body):
    return f"{len(body):x}\r\n".encode() + body + b"\r\n"


def received(events, *chunks):
    seen = []

    async def feed():
        client = BenchClient(b"", lambda sid, now, posted: seen.append(sid), events=events)
        client.data_received(b"HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n")
        for chunk in chunks:
            client.data_received(chunked(chunk))

    asyncio.run(feed())
    return seen


def test_a_live_pages_events_are_read_with_their_id_lines():
    status = json.dumps({"id": 7, "html": "<article></article>"}).encode()
    assert received(
        True,
        b"retry: 5000\n\n",
        b"id: 7.\nevent: status\ndata: " + status + b"\n\n",
        b"event: status\ndata: " + status.replace(b"7", b"8") + b"\n\n",
        b"id: 8.3\nevent: unread\ndata: {}\n\n",
    ) == [7, 8]


def test_the_apis_status_lines_are_read():
    line = json.dumps({"id": 9, "posted": 1.5, "text": "hi"}).encode()
    assert received(False, line + b"\n", b"\n") == [9]


def test_status_lines_in_the_servers_field_order_are_read_without_decoding():
    lines = [
        json.dumps(tweets.tweet({"id": 10 + n, "uid": 1, "login": "a", "posted": 1.5 + n,
                                 "message": f'say "posted": {n}, "id": 5}}'})).encode()
        for n in range(3)
    ]  # fmt: skip
    deletion = json.dumps(tweets.delete_notice({"id": 10, "uid": 1})).encode()
    assert received(False, lines[0] + b"\n" + lines[1] + b"\n", deletion + b"\n" + lines[2]
                    + b"\n") == [10, 11, 12]  # fmt: skip
    assert len(ID_AND_POSTED.findall(b"\n".join(lines))) == 3

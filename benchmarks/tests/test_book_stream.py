"""The book's streaming design, which ``manage.py bench_stream`` compares ours with:
``manage.py bench_stream_server`` (benchmarks/book_stream.py) holds one Redis
subscription per client, and serves each client as ``manage.py stream`` does."""

from urllib.parse import urlencode

from socialsite.repository import events, statuses
from socialsite_dev.streams import StreamConnection, StreamServerProcess


def sample(server, identifier):
    query = urlencode({"identifier": identifier, "percent": 100})
    return StreamConnection(server.port, "GET", f"/statuses/sample.json?{query}")


def test_the_books_design_holds_one_subscription_per_client(redis_backend, tmp_path, alice, r):
    others = events.subscriber_count(r)  # subscriptions held by anything else
    server = StreamServerProcess(
        redis_backend.url,
        redis_backend.cluster,
        log_path=tmp_path / "stream.log",
        command="bench_stream_server",
        env={"DJANGO_SETTINGS_MODULE": "benchmarks.settings"},
    ).start()
    streams = []
    try:
        streams = [sample(server, f"client {n}") for n in range(3)]
        server.wait_until(lambda health: health["subscriptions"] == 3)
        assert events.subscriber_count(r) == others + 3
        sid = statuses.post_status(r, alice["id"], "to each their own")
        assert [stream.read_json()["id"] for stream in streams] == [sid] * 3
    finally:
        for stream in streams:
            stream.close()
        server.stop()

"""A stream server's own GET /metrics (streaming/metrics.py): two processes on
one port, real sockets, the tests' Redis; whichever process answers reports both."""

import time

import pytest
from prometheus_client.parser import text_string_to_metric_families

from socialsite.repository import statuses
from socialsite_dev.streams import StreamConnection
from tests.support.helpers import make_user

TOKEN = "stream-metrics-token"
OUTSIDE = "203.0.113.9"


@pytest.fixture(scope="module")
def stream_server_options():
    return {
        "processes": 2,
        "max_per_address": 1,
        "env": {"BEHIND_PROXY": "true", "METRICS_TOKEN": TOKEN},
    }


def get_metrics(port, headers=None):
    with StreamConnection(port, "GET", "/metrics", headers=headers or {}) as response:
        return response.status, response.read_body()


def samples(port):
    status, body = get_metrics(port)
    assert status == 200, body
    return {
        (sample.name, tuple(sorted(sample.labels.items()))): sample.value
        for family in text_string_to_metric_families(body)
        for sample in family.samples
    }


def value(found, name, **labels):
    return found.get((name, tuple(sorted(labels.items()))), 0)


def eventually(port, condition, timeout=10):
    """The metrics once ``condition(metrics)`` holds (each process copies its figures
    every second)."""
    deadline = time.monotonic() + timeout
    while True:
        found = samples(port)
        if condition(found) or time.monotonic() > deadline:
            return found
        time.sleep(0.2)


def sample_stream(port, address):
    return StreamConnection(
        port,
        "GET",
        "/statuses/sample.json?identifier=metrics&percent=100",
        headers={"X-Forwarded-For": address},
    )


def test_who_may_read_them(stream_server):
    port = stream_server.port
    assert get_metrics(port)[0] == 200  # loopback, no forwarded address
    status, body = get_metrics(port, {"X-Forwarded-For": OUTSIDE})
    assert status == 404 and "socialsite_" not in body
    assert (
        get_metrics(port, {"X-Forwarded-For": OUTSIDE, "Authorization": f"Bearer {TOKEN}"})[0]
        == 200
    )
    assert get_metrics(port, {"X-Forwarded-For": OUTSIDE, "Authorization": "Bearer no"})[0] == 404


def both_processes_subscribed(port, r, author):
    """Post until a status reaches both processes: each subscribes to Redis as it starts,
    and one that is not subscribed yet misses what is posted meanwhile (pub/sub)."""
    received = "socialsite_stream_events_received_total"
    for _ in range(20):
        start = samples(port)
        statuses.post_status(r, author["id"], "are you both listening?")
        found = eventually(port, lambda m, s=start: value(m, received) - value(s, received) >= 2, 3)
        if value(found, received) - value(start, received) >= 2:
            return
    raise AssertionError("a process of the stream server never subscribed")


def test_clients_deliveries_and_refusals_over_both_processes(stream_server, r):
    port = stream_server.port
    author = make_user(r, "metricsauthor")
    both_processes_subscribed(port, r, author)
    before = samples(port)
    streams = [sample_stream(port, f"198.51.100.{i}") for i in range(1, 5)]
    try:
        assert [stream.status for stream in streams] == [200] * 4
        with sample_stream(port, "198.51.100.1") as refused:
            assert refused.status == 429  # one stream per address here
        statuses.post_status(r, author["id"], "counted on its way out")
        for stream in streams:
            assert stream.read_json()["text"] == "counted on its way out"
        found = eventually(
            port,
            lambda m: (
                value(m, "socialsite_stream_clients") == 4
                and value(m, "socialsite_stream_deliveries_total")
                - value(before, "socialsite_stream_deliveries_total")
                >= 4
                and value(m, "socialsite_stream_events_received_total")
                - value(before, "socialsite_stream_events_received_total")
                >= 2
            ),
        )
        assert value(found, "socialsite_stream_clients") == 4
        assert (
            value(found, "socialsite_stream_deliveries_total")
            - value(before, "socialsite_stream_deliveries_total")
            == 4
        )
        assert (
            value(found, "socialsite_stream_refusals_total", reason="address_full")
            - value(before, "socialsite_stream_refusals_total", reason="address_full")
            == 1
        )
        # Each of the two processes received the status once.
        assert (
            value(found, "socialsite_stream_events_received_total")
            - value(before, "socialsite_stream_events_received_total")
            == 2
        )
        assert value(found, "socialsite_stream_subscribed") == 1
        assert not [name for name, _ in found if not name.startswith("socialsite_stream_")]
    finally:
        for stream in streams:
            stream.close()
    found = eventually(port, lambda m: value(m, "socialsite_stream_clients") == 0)
    assert value(found, "socialsite_stream_clients") == 0

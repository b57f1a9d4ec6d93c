"""A live page's periodic check of its session and follows (--live-refresh), over real
sockets: what it catches when the event that should have told it was lost (pub/sub is at
most once) or never comes (a session that expires)."""

import time

import pytest

from socialsite.repository import keys, sessions
from tests.support.helpers import post
from tests.test_streaming_live import live, session_cookie

REFRESH_SECONDS = 1


@pytest.fixture(scope="module")
def stream_server_options():
    return {"live_refresh": REFRESH_SECONDS, "keepalive": 1}


def test_a_follow_whose_event_was_lost_counts_at_the_next_periodic_check(
    client, settings, stream_server, r, alice, bob
):
    with live(stream_server, session_cookie(client, settings, "alice")) as stream:
        assert stream.status == 200
        # Written as graph.follow writes it, but not published: as if the event were lost.
        r.zadd(keys.following(alice["id"]), {bob["id"]: time.time()})
        deadline = time.monotonic() + 20 * REFRESH_SECONDS
        while time.monotonic() < deadline:
            probe = post(r, bob, "probe")
            try:
                kind, data = stream.read_event(timeout=REFRESH_SECONDS / 2)
            except TimeoutError:
                continue
            assert kind == "status" and f'"id": {probe}' in data
            return
        raise AssertionError("the periodic check never picked up the follow")


def test_a_session_gone_without_a_logout_ends_the_stream_at_the_next_periodic_check(
    client, settings, stream_server, r, alice
):
    cookie = session_cookie(client, settings, "alice")
    with live(stream_server, cookie) as stream:
        assert stream.status == 200
        # Expired (or removed by an operator): no event tells the stream server.
        sessions.delete(r, client.cookies[settings.SESSION_COOKIE_NAME].value)
        assert stream.read_event(timeout=20 * REFRESH_SECONDS) is None
        assert stream.ended

"""Blocks, mutes and private accounts on the streaming server, over real sockets: the
streaming API never sends a private account's statuses, and a live page sends what
its user's home timeline gets, also right after a block or mute.

A stream never says "that was all", so a test that expects a status NOT to be sent
posts it before one that is: the next event the client reads must be the latter.
"""

import json
import time
from urllib.parse import urlencode

import pytest
from django.test import Client

from socialsite.repository import blocks, client, graph, keys, privacy, reposts, statuses
from socialsite_dev.streams import StreamConnection
from tests.support.helpers import log_in, post

# The live pages' periodic refresh, out of the way: a change seen during a test came
# by the block or mute's own event (events.publish_relations_changed).
REFRESH_SECONDS = 3600


@pytest.fixture(scope="module")
def stream_server_options():
    return {"live_refresh": REFRESH_SECONDS, "keepalive": 1}


def sample(server):
    query = urlencode({"identifier": "tester", "percent": 100})
    return StreamConnection(server.port, "GET", f"/statuses/sample.json?{query}")


def filtered(server, **fields):
    return StreamConnection(
        server.port,
        "POST",
        "/statuses/filter.json?identifier=tester",
        body=urlencode(fields),
        headers={"Content-Type": "application/x-www-form-urlencoded"},
    )


def live(server, settings, login):
    """``login``'s live page, logged in through the site with a client of its own."""
    client = log_in(Client(), login)
    cookie = f"{settings.SESSION_COOKIE_NAME}={client.cookies[settings.SESSION_COOKIE_NAME].value}"
    stream = StreamConnection(
        server.port, "GET", "/live/home", headers={"Accept": "text/event-stream", "Cookie": cookie}
    )
    assert stream.status == 200
    return stream


def next_status(stream):
    """The id of the next status event (deletions and keep-alives read past)."""
    while True:
        kind, data = stream.read_event()
        if kind == "status":
            return json.loads(data)["id"]


def test_sample_and_filter_never_send_a_private_accounts_statuses(r, stream_server, alice, bob):
    privacy.set_private(r, alice["id"], True)
    with (
        sample(stream_server) as firehose,
        filtered(stream_server, follow="alice,bob", track="secret") as matching,
    ):
        hidden = post(r, alice, "a secret for followers")
        statuses.delete_status(r, alice["id"], hidden)  # nor its deletion
        shown = post(r, bob, "no secret here")
        assert firehose.read_json()["id"] == shown
        assert matching.read_json()["id"] == shown


def test_a_private_accounts_reposts_reach_its_followers_live_pages_only(
    r, stream_server, settings, alice, bob, carol
):
    """A repost is a status of the reposter's: made while their account is private, the
    streaming API never sends it (nor its undoing), whoever the original's author is."""
    original = post(r, carol, "carol's public news")
    privacy.set_private(r, alice["id"], True)
    graph.follow(r, bob["id"], alice["id"])
    privacy.approve(r, alice["id"], bob["id"])
    with (
        sample(stream_server) as firehose,
        filtered(stream_server, follow="alice") as following_alice,
        live(stream_server, settings, "bob") as follower,
    ):
        reposts.repost(r, alice["id"], original)
        repost_id = next_status(follower)  # her approved follower's live page has it
        reposts.unrepost(r, alice["id"], original)
        mentioned = post(r, carol, "hello @alice")
        # Neither the repost nor the notice of its undoing came before.
        assert firehose.read_json()["id"] == mentioned
        assert following_alice.read_json()["id"] == mentioned
    assert repost_id > original


def test_a_status_posted_while_public_is_streamed_and_so_is_its_deletion(r, stream_server, alice):
    with sample(stream_server) as firehose:
        sid = post(r, alice, "public at the time")
        privacy.set_private(r, alice["id"], True)
        statuses.delete_status(r, alice["id"], sid)
        assert firehose.read_json()["id"] == sid
        assert firehose.read_json() == {"id": sid, "deleted": True}


def test_live_pages_send_a_private_accounts_statuses_to_its_followers_only(
    r, stream_server, settings, alice, bob, carol
):
    privacy.set_private(r, alice["id"], True)
    graph.follow(r, bob["id"], alice["id"])
    privacy.approve(r, alice["id"], bob["id"])
    graph.follow(r, carol["id"], alice["id"])  # a request, not approved
    with live(stream_server, settings, "bob") as follower:
        with live(stream_server, settings, "carol") as asking:
            sid = post(r, alice, "for my followers")
            own = post(r, carol, "carol's own")
            assert next_status(follower) == sid
            assert next_status(asking) == own


def test_a_block_while_a_live_page_is_open_stops_the_others_statuses_at_once(
    r, stream_server, settings, alice, bob
):
    graph.follow(r, alice["id"], bob["id"])
    with live(stream_server, settings, "alice") as page:
        first = post(r, bob, "before")
        assert next_status(page) == first
        blocks.block(r, bob["id"], alice["id"])
        post(r, bob, "after the block")
        own = post(r, alice, "alice's own")
        assert next_status(page) == own


def test_a_mute_while_a_live_page_is_open_stops_and_an_unmute_restarts(
    r, stream_server, settings, alice, bob
):
    graph.follow(r, alice["id"], bob["id"])
    with live(stream_server, settings, "alice") as page:
        blocks.mute(r, alice["id"], bob["id"])
        post(r, bob, "muted")
        own = post(r, alice, "alice's own")
        assert next_status(page) == own
        # The unmute's event makes the page read its filter again: bob's statuses
        # come back long before the periodic refresh.
        blocks.unmute(r, alice["id"], bob["id"])
        deadline = time.monotonic() + 30
        probes = set()
        while time.monotonic() < deadline:
            probes.add(post(r, bob, "probe"))
            try:
                kind, data = page.read_event(timeout=0.5)
                while kind == "unread":  # the unmute's recount of alice's notifications
                    kind, data = page.read_event(timeout=0.5)
            except TimeoutError:
                continue
            assert kind == "status" and json.loads(data)["id"] in probes
            return
        raise AssertionError("the live page never took the unmute")


def test_a_block_event_takes_effect_before_the_very_next_status(
    r, stream_server, settings, alice, bob
):
    # The two events in one write, so that nothing but the hub's handling of the
    # first can keep the second from the page: not even a refresh of its filter
    # (Redis still says alice follows bob).
    graph.follow(r, alice["id"], bob["id"])
    with live(stream_server, settings, "alice") as page:
        first = post(r, bob, "before")
        assert next_status(page) == first
        status = {"id": first + 1000, "uid": bob["id"], "login": "bob", "message": "after",
                  "posted": time.time()}  # fmt: skip
        # On a cluster, one node's connection (cluster pipelines refuse PUBLISH).
        node = r.get_default_node().redis_connection if client.is_cluster(r) else r
        pipe = node.pipeline(transaction=False)
        pipe.publish(keys.STATUS_CHANNEL, json.dumps(
            {"relations_changed": [alice["id"]], "hidden": [[alice["id"], bob["id"]]]}
        ))  # fmt: skip
        pipe.publish(keys.STATUS_CHANNEL, json.dumps(status))
        pipe.execute()
        own = post(r, alice, "alice's own")
        assert next_status(page) == own

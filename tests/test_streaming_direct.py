"""GET /live/messages on the streaming server, over real sockets: a member's own events
(a new direct message, by its ids only; the count of conversations with unread
messages) and nothing else: no status, no message text, nothing after leaving."""

import json

import pytest
from django.test import Client

from socialsite.repository import direct, graph, users
from socialsite_dev.streams import StreamConnection
from tests.support.helpers import log_in, post

SITE_PORT = 8123


@pytest.fixture(scope="module")
def stream_server_options():
    return {"site_port": SITE_PORT, "keepalive": 1}


def cookie_of(settings, login):
    client = log_in(Client(), login)
    return f"{settings.SESSION_COOKIE_NAME}={client.cookies[settings.SESSION_COOKIE_NAME].value}"


def live_messages(server, cookie=None):
    headers = {"Accept": "text/event-stream"}
    if cookie:
        headers["Cookie"] = cookie
    return StreamConnection(server.port, "GET", "/live/messages", headers=headers)


def next_event(stream, seen, kinds=("direct", "unread", "status", "delete")):
    """The next event of ``stream`` (not a comment), its data noted in ``seen``."""
    while True:
        kind, data = stream.read_event(timeout=10)
        seen.append(data)
        if kind in kinds:
            return kind, json.loads(data)


def test_it_refuses_a_visitor(stream_server):
    with live_messages(stream_server) as stream:
        assert stream.status == 401


def test_a_member_is_told_of_a_new_message_and_nothing_else(
    r, settings, stream_server, alice, bob, carol
):
    graph.follow(r, bob["id"], alice["id"])
    graph.follow(r, carol["id"], alice["id"])
    graph.follow(r, bob["id"], carol["id"])
    with live_messages(stream_server, cookie_of(settings, "bob")) as stream:
        assert stream.status == 200
        seen = []
        post(r, alice, "a status bob's home would get")
        sent = direct.start(
            r, alice["id"], [users.get_user(r, bob["id"]), users.get_user(r, carol["id"])],
            "secret words", "k" * 22,
        )  # fmt: skip
        kind, data = next_event(stream, seen)
        assert kind == "direct"
        assert (data["conversation"], data["message"], data["count"]) == (sent.cid, 1, 1)
        # bob leaves; carol's next message reaches him no more.
        direct.leave(r, bob["id"], sent.cid)
        kind, data = next_event(stream, seen)  # the badge going down
        assert (kind, data["message"], data["count"]) == ("direct", 0, 0)
        direct.reply(r, sent.cid, carol["id"], "after bob left", "c" * 22)
        direct.start(r, alice["id"], [users.get_user(r, bob["id"])], "the last one", "z" * 22)
        kind, data = next_event(stream, seen)
        assert data["conversation"] != sent.cid  # the next event is the new conversation's
    assert not any("secret" in data or "after bob left" in data for data in seen)

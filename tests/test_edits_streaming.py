"""Edits on the streams (decision 0074): Mastodon's streaming API sends an edited status
as ``status.update`` (SSE and WebSocket format), a live page as a ``change`` event with
the status's new markup, to those the post went to."""

import json

import pytest

from api.streaming import SSE_HOME, websocket_format
from socialsite.actions import statuses as statuses_actions
from socialsite.actions.core import Actor
from socialsite.repository import graph, oauth
from socialsite_dev.streams import StreamConnection
from streaming.filters import StatusEvent
from tests.support.helpers import log_in, post


@pytest.fixture
def app(r):
    return oauth.create_app(r, "Stream app", ["urn:ietf:wg:oauth:2.0:oob"], ["read", "write"])


def edit(user, sid, text):
    statuses_actions.edit(
        Actor(uid=user["id"], login=user["login"]), sid, statuses_actions.StatusEdit(text=text)
    )


def test_the_user_stream_sends_status_update(r, app, stream_server, alice, bob):
    graph.follow(r, alice["id"], bob["id"])
    token = oauth.issue_token(r, app[0], ["read"], uid=alice["id"])
    headers = {"Accept": "text/event-stream", "Authorization": f"Bearer {token}"}
    with StreamConnection(
        stream_server.port, "GET", "/api/v1/streaming/user", headers=headers
    ) as stream:
        assert stream.status == 200
        sid = post(r, bob, "before the edit")
        kind, data = stream.read_event(timeout=10)
        assert kind == "update" and json.loads(data)["id"] == str(sid)
        edit(bob, sid, "after the edit")
        kind, data = stream.read_event(timeout=10)
        entity = json.loads(data)
        assert kind == "status.update" and entity["id"] == str(sid)
        assert "after the edit" in entity["content"] and entity["edited_at"]


def test_the_formats_name_an_edit():
    event = StatusEvent({"id": 5, "uid": 1, "login": "a", "message": "m", "posted": 1.0,
                         "edited": "2000", "changed": True})  # fmt: skip
    assert SSE_HOME.render(event).startswith(b"event: status.update\ndata: ")
    message = json.loads(websocket_format(("user",)).render(event))
    assert message["event"] == "status.update" and json.loads(message["payload"])["edited_at"]


def test_a_live_page_gets_the_new_markup(r, client, settings, stream_server, alice, bob):
    graph.follow(r, alice["id"], bob["id"])
    log_in(client, "alice")
    cookie = f"{settings.SESSION_COOKIE_NAME}={client.cookies[settings.SESSION_COOKIE_NAME].value}"
    headers = {"Accept": "text/event-stream", "Cookie": cookie}
    with StreamConnection(stream_server.port, "GET", "/live/home", headers=headers) as stream:
        assert stream.status == 200
        sid = post(r, bob, "live before")
        kind, data = stream.read_event(timeout=10)
        while kind != "status":
            kind, data = stream.read_event(timeout=10)
        edit(bob, sid, "live after")
        kind, data = stream.read_event(timeout=10)
        while kind not in ("status", "change"):
            kind, data = stream.read_event(timeout=10)
        payload = json.loads(data)
        assert kind == "change" and payload["id"] == sid
        assert "live after" in payload["html"] and "Edited</a>" in payload["html"]


def test_the_twitter_style_stream_sends_no_line_for_an_edit(r, stream_server, bob):
    # Twitter's streams have no edit notice (hub.Format.tells_changes): the edit is
    # not sent, and the next line is the next post.
    path = "/statuses/sample.json?identifier=edits&percent=100"
    with StreamConnection(stream_server.port, "GET", path) as stream:
        assert stream.status == 200
        sid = post(r, bob, "posted")
        assert stream.read_json()["id"] == sid
        edit(bob, sid, "edited")
        later = post(r, bob, "posted later")
        assert stream.read_json()["id"] == later

"""Keyword filters on live updates: the live home page's feed (/live/home: a hide filter's
status never sent, a warn filter's collapsed behind its title) and Mastodon's streaming
API (a hide filter's status never sent on the user and public streams), over real
sockets. A stream never says "that was all": a status that must NOT come is posted
before one that must, which must then be the next event."""

import json
import time

import pytest

from socialsite.actions import Actor
from socialsite.actions import filters as filter_actions
from socialsite.repository import graph, keys, oauth
from socialsite_dev.streams import StreamConnection
from tests.support.helpers import log_in, post


@pytest.fixture(scope="module")
def stream_server_options():
    return {"live_refresh": 600, "keepalive": 1}


def make_filter(user, action, context, words=("dragon",), title="Beasts"):
    changes = [filter_actions.KeywordChange(w, True) for w in words]
    actor = Actor(uid=user["id"], login=user["login"])
    return filter_actions.create_filter(actor, title, context, action, changes)


def live_home(server, client, settings, login):
    log_in(client, login)
    cookie = f"{settings.SESSION_COOKIE_NAME}={client.cookies[settings.SESSION_COOKIE_NAME].value}"
    headers = {"Accept": "text/event-stream", "Cookie": cookie}
    return StreamConnection(server.port, "GET", "/live/home", headers=headers)


def mastodon_stream(server, r, user, path):
    app = oauth.create_app(r, "Stream app", ["urn:ietf:wg:oauth:2.0:oob"], ["read"])
    token = oauth.issue_token(r, app[0], ["read"], uid=user["id"])
    headers = {"Accept": "text/event-stream", "Authorization": f"Bearer {token}"}
    return StreamConnection(server.port, "GET", f"/api/v1/streaming/{path}", headers=headers)


def next_status(stream):
    kind, data = stream.read_event(timeout=10)
    assert kind in ("status", "update"), (kind, data)
    return json.loads(data)


def test_the_live_home_page_leaves_out_hidden_and_collapses_warned_statuses(
    r, client, settings, stream_server, alice, bob
):
    graph.follow(r, bob["id"], alice["id"])
    make_filter(bob, "hide", ("home",), words=("dragon",), title="Gone")
    make_filter(bob, "warn", ("home",), words=("cat",), title="Pets")
    with live_home(stream_server, client, settings, "bob") as stream:
        assert stream.status == 200
        post(r, alice, "the dragon is back")
        cat = post(r, alice, "a cat story")
        event = next_status(stream)
        assert event["id"] == cat
        assert event["html"].startswith('<details class="filtered">')
        assert "Filtered: <bdi>Pets</bdi>" in event["html"] and "a cat story" in event["html"]
        tea = post(r, alice, "tea time")
        event = next_status(stream)
        assert event["id"] == tea and event["html"].startswith("<article")


@pytest.mark.parametrize("path, context", [("user", "home"), ("public", "public")])
def test_mastodon_streams_leave_out_a_hide_filters_statuses(
    r, stream_server, alice, bob, path, context
):
    graph.follow(r, bob["id"], alice["id"])
    make_filter(bob, "hide", (context,))
    with mastodon_stream(stream_server, r, bob, path) as stream:
        assert stream.status == 200
        post(r, alice, "the dragon is back")
        tea = post(r, alice, "tea time")
        assert next_status(stream)["id"] == str(tea)


def test_a_filter_made_while_the_live_page_is_open_applies_at_once(
    r, client, settings, stream_server, alice, bob
):
    graph.follow(r, bob["id"], alice["id"])
    with live_home(stream_server, client, settings, "bob") as stream:
        assert stream.status == 200
        first = post(r, alice, "a dragon before the filter")
        assert next_status(stream)["id"] == first
        make_filter(bob, "hide", ("home",))  # the stream reads the filters again at once
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:  # probes until the filter is seen applied
            dragon = post(r, alice, "the dragon again")
            probe = post(r, alice, "a probe")
            came = set()
            while probe not in came:
                came.add(next_status(stream)["id"])
            if dragon not in came:
                return
        raise AssertionError("the live page never applied the new filter")


def test_a_groups_live_page_applies_the_public_filters(r, stream_server, settings, alice, bob):
    from socialsite.actions import statuses as statuses_actions
    from socialsite.repository import communities

    cats = communities.create(r, alice["id"], "cats", "Cats", "", "public")
    assert cats
    make_filter(bob, "hide", ("public",), words=("dragon",), title="Gone")
    make_filter(bob, "warn", ("public",), words=("dog",), title="Dogs")
    actor = Actor(uid=alice["id"], login="alice")

    def in_group(text):
        return statuses_actions.post(actor, statuses_actions.NewStatus(text=text), group="cats")

    from django.test import Client

    name = settings.SESSION_COOKIE_NAME
    cookie = f"{name}={log_in(Client(), 'bob').cookies[name].value}"
    headers = {"Accept": "text/event-stream", "Cookie": cookie}
    with StreamConnection(stream_server.port, "GET", "/live/group?slug=cats",
                          headers=headers) as stream:  # fmt: skip
        assert stream.status == 200
        in_group("a dragon in the group")
        dog = in_group("a dog in the group")
        event = next_status(stream)
        assert event["id"] == dog and "Filtered: <bdi>Dogs</bdi>" in event["html"]


def test_the_user_streams_notifications_apply_the_notifications_filters(
    r, stream_server, alice, bob
):
    from socialsite.actions import statuses as statuses_actions

    # Ids this module's stream server has not seen (it remembers statuses by id).
    r.set(keys.STATUS_IDS, 10_000)
    make_filter(bob, "hide", ("notifications",), words=("dragon",), title="Gone")
    make_filter(bob, "warn", ("notifications",), words=("dog",), title="Dogs")
    actor = Actor(uid=alice["id"], login="alice")
    with mastodon_stream(stream_server, r, bob, "user/notification") as stream:
        assert stream.status == 200
        statuses_actions.post(actor, statuses_actions.NewStatus("@bob a dragon"))
        statuses_actions.post(actor, statuses_actions.NewStatus("@bob a dog"))
        kind, data = stream.read_event(timeout=10)
        assert kind == "notification"
        status = json.loads(data)["status"]
        assert "a dog" in status["content"]
        assert status["filtered"][0]["filter"]["title"] == "Dogs"


@pytest.mark.parametrize("path, context", [("user", "home"), ("public", "public")])
def test_mastodon_streams_mark_a_warn_filters_statuses(
    r, stream_server, alice, bob, carol, path, context
):
    graph.follow(r, bob["id"], alice["id"])
    r.set(keys.STATUS_IDS, 20_000)  # ids this module's stream server has not seen
    make_filter(bob, "warn", (context,), words=("cat",), title="Pets")
    with (
        mastodon_stream(stream_server, r, bob, path) as warned,
        mastodon_stream(stream_server, r, carol, path) as plain,
    ):
        assert warned.status == 200 and plain.status == 200
        cat = post(r, alice, "a cat story")
        status = next_status(warned)
        while int(status["id"]) < 20_000:  # a late event of an earlier test (a cluster's)
            status = next_status(warned)
        assert status["id"] == str(cat)
        (result,) = status["filtered"]
        assert result["filter"]["title"] == "Pets" and result["keyword_matches"] == ["cat"]
        if path == "public":  # carol follows nobody: the public stream alone reaches her
            other = next_status(plain)
            while int(other["id"]) < 20_000:
                other = next_status(plain)
            assert other["id"] == str(cat) and other["filtered"] == []
        tea = post(r, alice, "tea time")
        status = next_status(warned)
        assert status["id"] == str(tea) and status["filtered"] == []


def test_a_websocket_marks_a_warn_filters_statuses(r, stream_server, alice, bob):
    from websockets.sync.client import connect

    graph.follow(r, bob["id"], alice["id"])
    r.set(keys.STATUS_IDS, 30_000)  # ids this module's stream server has not seen
    make_filter(bob, "warn", ("home",), words=("cat",), title="Pets")
    app = oauth.create_app(r, "Stream app", ["urn:ietf:wg:oauth:2.0:oob"], ["read"])
    token = oauth.issue_token(r, app[0], ["read"], uid=bob["id"])
    url = f"ws://127.0.0.1:{stream_server.port}/api/v1/streaming?stream=user&access_token={token}"
    with connect(url) as ws:
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:  # probes until the subscription is made
            probe = post(r, alice, "a cat probe")
            try:
                message = json.loads(ws.recv(timeout=0.5))
            except TimeoutError:
                continue
            payload = json.loads(message["payload"])
            while payload["id"] != str(probe):
                payload = json.loads(json.loads(ws.recv(timeout=5))["payload"])
            assert message["event"] == "update"
            assert payload["filtered"][0]["filter"]["title"] == "Pets"
            return
        raise AssertionError("the subscription was never made")

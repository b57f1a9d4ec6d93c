"""A poll's end on live updates, over real sockets: the workers' sweep publishes the
status again, which Mastodon's streams send as ``status.update`` (the Poll entity now
expired, its results) and the live home page as a ``change`` event (the markup with the
results, which the page puts in place of the one it shows)."""

import json
import time

import pytest

from socialsite.actions import Actor
from socialsite.actions import polls as poll_actions
from socialsite.actions import statuses as statuses_actions
from socialsite.repository import graph, keys, oauth, polls, statuses
from socialsite_dev.streams import StreamConnection
from tests.support.helpers import log_in, post


@pytest.fixture(scope="module")
def stream_server_options():
    return {"live_refresh": 600, "keepalive": 1}


def post_poll(user):
    new = poll_actions.NewPoll(("Tea", "Coffee"), 300, False, False)
    actor = Actor(uid=user["id"], login=user["login"])
    return statuses_actions.post(actor, statuses_actions.NewStatus("Which?"), poll=new)


def end_now(r, sid):
    status = statuses.get_status(r, sid)
    past = int(time.time() * 1000) - 1000
    r.hset(keys.status(sid), keys.STATUS_POLL_EXPIRES_FIELD, past)
    r.zadd(keys.poll_endings(status["uid"]), {str(sid): past})
    statuses._known.forget(int(sid))


def test_mastodon_streams_send_status_update_when_a_poll_ends(r, stream_server, alice, bob, carol):
    graph.follow(r, bob["id"], alice["id"])
    app = oauth.create_app(r, "Stream app", ["urn:ietf:wg:oauth:2.0:oob"], ["read"])
    token = oauth.issue_token(r, app[0], ["read:statuses"], uid=bob["id"])
    headers = {"Accept": "text/event-stream", "Authorization": f"Bearer {token}"}
    with StreamConnection(stream_server.port, "GET", "/api/v1/streaming/user",
                          headers=headers) as stream:  # fmt: skip
        assert stream.status == 200
        sid = post_poll(alice)
        kind, data = stream.read_event(timeout=10)
        assert kind == "update" and json.loads(data)["poll"]["expired"] is False
        poll_actions.vote(Actor(uid=carol["id"], login="carol"), sid, [1])
        end_now(r, sid)
        assert polls.end_due(r) == [sid]
        kind, data = stream.read_event(timeout=10)
        assert kind == "status.update"
        poll = json.loads(data)["poll"]
        assert poll["expired"] is True and [o["votes_count"] for o in poll["options"]] == [0, 1]


def test_the_live_home_page_gets_the_ended_polls_markup(
    r, client, settings, stream_server, alice, bob
):
    graph.follow(r, bob["id"], alice["id"])
    log_in(client, "bob")
    cookie = f"{settings.SESSION_COOKIE_NAME}={client.cookies[settings.SESSION_COOKIE_NAME].value}"
    headers = {"Accept": "text/event-stream", "Cookie": cookie}
    with StreamConnection(stream_server.port, "GET", "/live/home", headers=headers) as stream:
        assert stream.status == 200
        sid = post_poll(alice)
        kind, data = stream.read_event(timeout=10)
        assert kind == "status"
        end_now(r, sid)
        polls.end_due(r)
        kind, data = stream.read_event(timeout=10)
        event = json.loads(data)
        assert kind == "change" and event["id"] == sid
        assert "Ended" in event["html"] and 'name="choice_' not in event["html"]
        # A status posted next is a post again (the update moved no cursor back).
        later = post(r, alice, "later")
        kind, data = stream.read_event(timeout=10)
        assert json.loads(data)["id"] == later

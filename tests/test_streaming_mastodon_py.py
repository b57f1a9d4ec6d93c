"""Mastodon.py, a client library nobody here wrote, reading the stream server's
Mastodon streams (Server-Sent Events) with a StreamListener, as a bot would.

The client's ``api_base_url`` is the stream server itself: Mastodon.py takes the
streaming host from ``/api/v1/instance``'s ``urls.streaming_api`` when it finds one, and
otherwise streams from its API base. Run once (the data layer is not what this tests).
"""

import threading
import time
import warnings

import pytest
from mastodon import Mastodon, StreamListener

from socialsite.repository import direct, graph, oauth, statuses
from tests.support.helpers import bearer, post

pytestmark = pytest.mark.pages_once


@pytest.fixture(scope="module")
def stream_server_options():
    # A keep-alive each second: a closed handle's reading thread notices at the next.
    return {"keepalive": 1}


class Collector(StreamListener):
    """What a listener is told, and a way to wait for it."""

    def __init__(self):
        self.events = []
        self.changed = threading.Condition()

    def _note(self, kind, payload):
        with self.changed:
            self.events.append((kind, payload))
            self.changed.notify_all()

    def on_update(self, status):
        self._note("update", status)

    def on_delete(self, status_id):
        self._note("delete", status_id)

    def on_notification(self, notification):
        self._note("notification", notification)

    def on_conversation(self, conversation):
        self._note("conversation", conversation)

    def wait_for(self, test, timeout=10.0):
        """The first event for which ``test(kind, payload)`` holds."""
        deadline = time.monotonic() + timeout
        with self.changed:
            while True:
                for kind, payload in self.events:
                    if test(kind, payload):
                        return kind, payload
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    raise AssertionError(f"not told in time; told {self.events!r}")
                self.changed.wait(remaining)


def same_id(found, expected):
    """Mastodon.py's ids are its own type (string or int, as the server's): compared as text."""
    return str(found) == str(expected)


def client_for(r, server, user):
    app = oauth.create_app(r, "Mastodon.py", ["urn:ietf:wg:oauth:2.0:oob"], ["read"])
    token = oauth.issue_token(r, app[0], ["read"], uid=user["id"])
    return Mastodon(access_token=token, api_base_url=server.url, version_check_mode="none")


def opened(r, user, handle, listener):
    """Wait until ``handle``'s stream is open and getting events: ``user`` posts probes
    until the listener is told of one (the connection is made in a thread)."""
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        probe = post(r, user, "probe #probe")
        try:
            listener.wait_for(
                lambda kind, payload, probe=probe: same_id(payload.get("id"), probe), timeout=0.5
            )
            return
        except AssertionError:
            continue
    raise AssertionError("the stream never opened")


def stream(method, *args):
    with warnings.catch_warnings():
        # Mastodon.py warns that it could not read the (absent) instance's timelines.
        warnings.simplefilter("ignore")
        return method(*args, run_async=True)


def test_stream_user_with_a_listener(r, stream_server, alice, bob):
    graph.follow(r, alice["id"], bob["id"])
    mastodon = client_for(r, stream_server, alice)
    listener = Collector()
    handle = stream(mastodon.stream_user, listener)
    try:
        opened(r, alice, handle, listener)
        sid = post(r, bob, "Hello, Mastodon.py")
        _, status = listener.wait_for(lambda kind, s: kind == "update" and same_id(s.id, sid))
        assert status.account.acct == "bob"
        assert "Hello, Mastodon.py" in status.content
        assert status.created_at.tzinfo is not None  # parsed as a time by the library
        statuses.delete_status(r, bob["id"], sid)
        listener.wait_for(lambda kind, payload: kind == "delete" and same_id(payload, sid))
        graph.follow(r, bob["id"], alice["id"])
        _, notification = listener.wait_for(lambda kind, _: kind == "notification")
        assert notification.type == "follow" and notification.account.acct == "bob"
    finally:
        handle.close()


def test_stream_hashtag_with_a_listener(r, stream_server, alice, bob):
    mastodon = client_for(r, stream_server, alice)
    listener = Collector()
    handle = stream(mastodon.stream_hashtag, "probe", listener)
    try:
        opened(r, alice, handle, listener)
        post(r, bob, "no tag here")
        sid = post(r, bob, "now #Probe")
        kind, status = listener.wait_for(lambda kind, s: kind == "update" and same_id(s.id, sid))
        assert status.account.acct == "bob"
        assert not any(
            "no tag here" in payload.content
            for kind, payload in listener.events
            if kind == "update"
        )
    finally:
        handle.close()


def test_stream_direct_with_a_listener(r, client, stream_server, alice, bob, carol):
    """A message sent through the client API (POST /api/v1/statuses, visibility direct)
    comes to its recipient's direct stream as a conversation, as the API lists it."""
    graph.follow(r, bob["id"], alice["id"])
    graph.follow(r, bob["id"], carol["id"])
    mastodon = client_for(r, stream_server, bob)
    listener = Collector()
    handle = stream(mastodon.stream_direct, listener)
    try:
        # Open once a probe's conversation (carol's) comes: the connection is a thread's.
        deadline, probes = time.monotonic() + 10, 0
        while True:
            assert time.monotonic() < deadline, "the stream never opened"
            probes += 1
            probe = direct.start(r, carol["id"], [bob], "probe", f"probe{probes}")
            try:
                listener.wait_for(lambda _, c, cid=probe.cid: same_id(c.id, cid), timeout=0.5)
                break
            except AssertionError:
                continue
        app = oauth.create_app(r, "Poster", ["urn:ietf:wg:oauth:2.0:oob"], ["write"])
        token = oauth.issue_token(r, app[0], ["write"], uid=alice["id"])
        sent = client.post(
            "/api/v1/statuses",
            {"status": "@bob zqdm through the API", "visibility": "direct"},
            **bearer(token),
        ).json()
        _, conversation = listener.wait_for(
            lambda kind, c: (
                kind == "conversation"
                and c.last_status is not None
                and same_id(c.last_status.id, sent["id"])
            )
        )
        assert conversation.unread is True
        assert [account.acct for account in conversation.accounts] == ["alice"]
        assert "zqdm through the API" in conversation.last_status.content
        assert conversation.last_status.visibility == "direct"
    finally:
        handle.close()

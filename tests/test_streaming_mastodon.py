"""Mastodon's streaming API on the stream server (api/streaming.py), over
real sockets: Server-Sent Events, the WebSocket, tokens and scopes, the visibility rules
and the connection limits.

A stream never says "that was all", so a test that expects a status NOT to be sent
posts it before one that is: the next event the client reads must be the latter.
"""

import contextlib
import json
import socket
import time

import pytest

from socialsite.repository import (
    blocks,
    direct,
    graph,
    keys,
    lists,
    moderation,
    oauth,
    privacy,
    reposts,
    statuses,
    users,
)
from socialsite_dev.streams import StreamConnection
from tests.support.helpers import bearer, make_user, post

# How often an open stream checks its token by itself: short, so that a revoked
# token's stream is seen to end.
REFRESH_SECONDS = 2


@pytest.fixture(scope="module")
def stream_server_options():
    return {
        "live_refresh": REFRESH_SECONDS,
        "keepalive": 1,
        "max_per_address": 6,
        "access_log": True,  # uvicorn's access log on: tokens must stay out of it
    }


@pytest.fixture
def app(r):
    return oauth.create_app(r, "Stream app", ["urn:ietf:wg:oauth:2.0:oob"], ["read", "write"])


def token_of(r, app, user, scopes=("read",)):
    return oauth.issue_token(r, app[0], list(scopes), uid=user["id"])


def sse(server, path, token=None, query=None):
    headers = {"Accept": "text/event-stream"}
    if token is not None:
        headers["Authorization"] = f"Bearer {token}"
    target = f"/api/v1/streaming/{path}"
    if query:
        target += "?" + query
    return StreamConnection(server.port, "GET", target, headers=headers)


def next_event(stream, timeout=10.0):
    """The next (event, payload) of a Mastodon SSE stream: update and notification
    decoded from JSON, delete as the id's text."""
    kind, data = stream.read_event(timeout=timeout)
    return kind, (data if kind == "delete" else json.loads(data))


def next_update(stream):
    kind, payload = next_event(stream)
    assert kind == "update", (kind, payload)
    return payload


# --- Server-Sent Events ------------------------------------------------------------------


def test_health_says_ok(stream_server):
    with StreamConnection(stream_server.port, "GET", "/api/v1/streaming/health") as response:
        assert response.status == 200
        assert response.read_body().strip() == "OK"


def test_the_user_stream_sends_the_home_as_status_entities(
    r, app, stream_server, alice, bob, carol
):
    graph.follow(r, alice["id"], bob["id"])
    with sse(stream_server, "user", token_of(r, app, alice)) as stream:
        assert stream.status == 200
        assert stream.headers["content-type"].startswith("text/event-stream")
        post(r, carol, "not followed: never here")
        sid = post(r, bob, "Hello from #bob's world")
        status = next_update(stream)
        assert status["id"] == str(sid)
        assert status["account"]["username"] == "bob"
        assert status["account"]["id"] == str(bob["id"])
        assert "Hello from" in status["content"] and status["visibility"] == "public"
        assert status["created_at"].endswith("Z") and status["reblog"] is None
        own = post(r, alice, "my own")
        assert next_update(stream)["id"] == str(own)
        statuses.delete_status(r, bob["id"], sid)
        assert next_event(stream) == ("delete", str(sid))


def test_the_authors_avatar_comes_with_the_status(r, app, stream_server, alice):
    # A user id no other test of this module uses: the server remembers authors by id.
    for n in range(6):
        make_user(r, f"filler{n}")
    painter = make_user(r, "painter")
    r.hset(keys.user(painter["id"]), keys.AVATAR_SMALL_FIELD, "ab/painter.jpg")
    with sse(stream_server, "public", token_of(r, app, alice)) as stream:
        post(r, painter, "with my face")
        avatar = next_update(stream)["account"]["avatar"]
        assert avatar.startswith("http") and avatar.endswith("ab/painter.jpg")


def test_a_repost_is_an_update_with_its_original_as_reblog(
    r, app, stream_server, alice, bob, carol
):
    graph.follow(r, alice["id"], bob["id"])
    original = post(r, carol, "worth repeating")
    with sse(stream_server, "user", token_of(r, app, alice)) as stream:
        reposts.repost(r, bob["id"], original)
        status = next_update(stream)
        assert status["account"]["username"] == "bob"
        assert status["reblog"]["id"] == str(original)
        assert status["reblog"]["account"]["username"] == "carol"


def test_the_user_stream_sends_notifications(r, app, stream_server, alice, bob):
    with sse(stream_server, "user", token_of(r, app, alice)) as stream:
        graph.follow(r, bob["id"], alice["id"])
        kind, notification = next_event(stream)
        assert kind == "notification"
        assert notification["type"] == "follow"
        assert notification["account"]["username"] == "bob"
        assert notification["status"] is None
        mention = post(r, bob, "@alice look")
        # alice does not follow bob: the mention is a notification, not an update.
        kind, notification = next_event(stream)
        assert (kind, notification["type"]) == ("notification", "mention")
        assert notification["status"]["id"] == str(mention)


def test_notifications_need_their_scope(r, app, stream_server, alice, bob):
    token = token_of(r, app, alice, ["read:statuses"])
    with sse(stream_server, "user", token) as stream:
        assert stream.status == 200
        graph.follow(r, bob["id"], alice["id"])  # a notification that is not sent
        own = post(r, alice, "after the follow")
        assert next_update(stream)["id"] == str(own)
    with sse(stream_server, "user/notification", token) as refused:
        assert refused.status == 403


def test_the_notification_stream_sends_notifications_alone(r, app, stream_server, alice, bob):
    with sse(stream_server, "user/notification", token_of(r, app, alice)) as stream:
        post(r, alice, "not sent here")
        graph.follow(r, bob["id"], alice["id"])
        kind, notification = next_event(stream)
        assert (kind, notification["type"]) == ("notification", "follow")


@pytest.mark.parametrize("path", ["public", "public/local"])
def test_the_public_stream(r, app, stream_server, alice, bob, carol, path):
    privacy.set_private(r, carol["id"], True)
    with sse(stream_server, path, token_of(r, app, alice)) as stream:
        post(r, carol, "a private account's status")
        sid = post(r, bob, "public")
        assert next_update(stream)["id"] == str(sid)
        reposts.repost(r, alice["id"], sid)  # Mastodon's public timelines have no reposts
        later = post(r, bob, "later")
        assert next_update(stream)["id"] == str(later)


def test_the_hashtag_stream(r, app, stream_server, alice, bob):
    with sse(stream_server, "hashtag", token_of(r, app, alice), "tag=Redis") as stream:
        post(r, bob, "about nothing")
        post(r, bob, "about redis, but no tag")
        sid = post(r, bob, "about #redis")
        assert next_update(stream)["id"] == str(sid)


def test_the_list_stream(r, app, stream_server, alice, bob, carol):
    graph.follow(r, alice["id"], bob["id"])
    graph.follow(r, alice["id"], carol["id"])
    lid = lists.create_list(r, alice["id"], "friends")[1]
    lists.add_member(r, alice["id"], lid, bob["id"])
    with sse(stream_server, "list", token_of(r, app, alice), f"list={lid}") as stream:
        post(r, carol, "followed, not on the list")
        sid = post(r, bob, "on the list")
        assert next_update(stream)["id"] == str(sid)
    with sse(stream_server, "list", token_of(r, app, bob), f"list={lid}") as other:
        assert other.status == 404  # another user's list id names nothing of theirs
        assert json.loads(other.read_body()) == {"error": "Record not found"}


def test_a_private_account_reaches_its_followers_home_only(r, app, stream_server, alice, bob):
    graph.follow(r, alice["id"], bob["id"])
    privacy.set_private(r, bob["id"], True)  # alice follows already
    token = token_of(r, app, alice)
    with sse(stream_server, "user", token) as home, sse(stream_server, "public", token) as public:
        sid = post(r, bob, "for my followers")
        status = next_update(home)
        assert status["id"] == str(sid) and status["visibility"] == "private"
        marker = post(r, alice, "public marker")
        assert next_update(public)["id"] == str(marker)


def test_blocks_and_mutes_hold_on_every_stream(r, app, stream_server, alice, bob, carol):
    graph.follow(r, alice["id"], bob["id"])
    token = token_of(r, app, alice)
    with sse(stream_server, "user", token) as home, sse(stream_server, "public", token) as public:
        blocks.block(r, bob["id"], alice["id"])  # bob blocks alice, while connected
        blocks.mute(r, alice["id"], carol["id"])
        post(r, bob, "not for alice")
        post(r, carol, "muted")
        marker = post(r, alice, "marker")
        assert next_update(home)["id"] == str(marker)
        assert next_update(public)["id"] == str(marker)


def test_a_suspended_author_is_left_out_and_a_suspended_user_stream_ends(
    r, app, stream_server, alice, bob
):
    graph.follow(r, alice["id"], bob["id"])
    try:
        with sse(stream_server, "user", token_of(r, app, alice)) as home:
            with sse(stream_server, "user", token_of(r, app, bob)) as bobs:
                moderation.suspend(r, bob["id"])
                post(r, bob, "suspended")
                marker = post(r, alice, "marker")
                assert next_update(home)["id"] == str(marker)
                # bob's own stream ends (his account event makes it check at once).
                deadline = time.monotonic() + 10
                while bobs.read_event(timeout=max(0.1, deadline - time.monotonic())):
                    pass
        with sse(stream_server, "user", token_of(r, app, bob)) as refused:
            assert refused.status == 403
    finally:
        # The server's processes keep the suspended ids (and the next test's bob has
        # this one's id): shown again at once.
        moderation.unsuspend(r, bob["id"])


def test_a_revoked_tokens_stream_ends_within_the_recheck(r, app, stream_server, alice):
    token = token_of(r, app, alice)
    with sse(stream_server, "user", token) as stream:
        assert stream.status == 200
        oauth.revoke_token(r, token)
        started = time.monotonic()
        while stream.read_event(timeout=REFRESH_SECONDS * 3) is not None:
            pass
        assert stream.ended
        assert time.monotonic() - started < REFRESH_SECONDS * 1.2 + 1


@pytest.mark.parametrize(
    ("path", "scopes", "status", "error"),
    [
        ("user", None, 401, "The access token is invalid"),
        ("user", "nonsense", 401, "The access token is invalid"),
        ("user", ("write",), 403, "This action is outside the authorized scopes"),
        ("list?list=1", ("read:statuses",), 403, "This action is outside the authorized scopes"),
        ("hashtag", ("read",), 400, "Missing or malformed tag parameter"),
        ("list?list=x", ("read",), 400, "Missing or malformed list parameter"),
        ("list?list=99", ("read",), 404, "Record not found"),
        ("direct", ("read:notifications",), 403, "This action is outside the authorized scopes"),
        ("direct", None, 401, "The access token is invalid"),
    ],
)
def test_refusals_are_json(r, app, stream_server, alice, path, scopes, status, error):
    if scopes is None:
        token = None
    elif scopes == "nonsense":
        token = f"{alice['id']}.made-up"
    else:
        token = token_of(r, app, alice, scopes)
    path, _, query = path.partition("?")
    with sse(stream_server, path, token, query) as response:
        assert response.status == status
        assert response.headers["content-type"].startswith("application/json")
        assert response.headers["access-control-allow-origin"] == "*"
        assert json.loads(response.read_body()) == {"error": error}


def test_an_apps_own_token_and_the_access_token_parameter(r, app, stream_server, alice):
    own = oauth.issue_token(r, app[0], ["read"])
    with sse(stream_server, "public", own) as refused:
        assert refused.status == 422
    with sse(stream_server, "user", query=f"access_token={token_of(r, app, alice)}") as stream:
        assert stream.status == 200


def test_streams_count_against_the_limit_per_address(r, app, stream_server, alice):
    token = token_of(r, app, alice)
    opened = [sse(stream_server, "public", token) for _ in range(6)]
    try:
        assert [stream.status for stream in opened] == [200] * 6
        with sse(stream_server, "public", token) as refused:
            assert refused.status == 429
            assert "Too many streams" in json.loads(refused.read_body())["error"]
    finally:
        for stream in opened:
            stream.close()


# --- the direct stream: conversations ---------------------------------------------------


_conversation_ids = iter(range(1_000, 10**9, 1_000))


@pytest.fixture
def fresh_conversation_ids(r):
    """Conversation ids no other test of this module uses: the stream server, shared by
    them, remembers a conversation's members and messages by its id (direct.py), and ids
    start again from 1 after each test's FLUSHALL, which empties only this process's
    memories."""
    r.set(keys.CONVERSATION_IDS, next(_conversation_ids))


# An Account's counts and sign-up time come from the authors each process remembers for a
# minute (users.get_authors): the stream server, shared by this module's tests, may still
# hold those of an earlier test's user of the same id (ids start again after FLUSHALL).
REMEMBERED_FIELDS = ("followers_count", "following_count", "statuses_count", "created_at")


def _without_remembered(conversation):
    def account(entity):
        return {k: v for k, v in entity.items() if k not in REMEMBERED_FIELDS}

    shown = dict(conversation, accounts=[account(a) for a in conversation["accounts"]])
    if shown.get("last_status"):
        shown["last_status"] = dict(
            shown["last_status"], account=account(shown["last_status"]["account"])
        )
    return shown


def next_conversation(stream):
    kind, payload = next_event(stream)
    assert kind == "conversation", (kind, payload)
    return _without_remembered(payload)


def listed_conversation(client, token, cid):
    """The Conversation entity of ``cid`` as GET /api/v1/conversations gives it."""
    listed = client.get("/api/v1/conversations?limit=40", **bearer(token)).json()
    (found,) = [conversation for conversation in listed if conversation["id"] == str(cid)]
    return _without_remembered(found)


def test_the_direct_stream_sends_the_conversation_the_api_lists(
    r, fresh_conversation_ids, client, app, stream_server, alice, bob, carol
):
    graph.follow(r, bob["id"], alice["id"])  # bob takes alice's messages in his inbox
    graph.follow(r, alice["id"], carol["id"])
    tokens = {user["login"]: token_of(r, app, user) for user in (alice, bob, carol)}
    with (
        sse(stream_server, "direct", tokens["bob"]) as bobs,
        sse(stream_server, "direct", tokens["alice"]) as alices,
        sse(stream_server, "direct", tokens["carol"]) as carols,
    ):
        assert bobs.status == 200 and bobs.headers["content-type"].startswith("text/event-stream")
        sent = direct.start(r, alice["id"], [bob], "zqdm hello bob", "k1")
        conversation = next_conversation(bobs)
        assert conversation == listed_conversation(client, tokens["bob"], sent.cid)
        assert conversation["id"] == str(sent.cid) and conversation["unread"] is True
        assert [account["acct"] for account in conversation["accounts"]] == ["alice"]
        assert conversation["last_status"]["id"] == f"dm-{sent.cid}-{sent.mid}"
        assert "zqdm hello bob" in conversation["last_status"]["content"]
        # The sender's own side: their message reached it too, read.
        own = next_conversation(alices)
        assert own == listed_conversation(client, tokens["alice"], sent.cid)
        assert own["unread"] is False and own["accounts"][0]["acct"] == "bob"
        # A muted conversation is still sent (the app's list follows it), its unread flag set.
        direct.mark_read(r, bob["id"], sent.cid)
        direct.mute(r, bob["id"], sent.cid)
        again = direct.reply(r, sent.cid, alice["id"], "zqdm muted", "k2")
        conversation = next_conversation(bobs)
        assert conversation["last_status"]["id"] == f"dm-{sent.cid}-{again.mid}"
        assert conversation["unread"] is True
        # carol is no member: the first conversation her stream sends is her own.
        mine = direct.start(r, carol["id"], [alice], "zqdm carol's own", "k3")
        conversation = next_conversation(carols)
        assert conversation["id"] == str(mine.cid) and "zqdm hello" not in json.dumps(conversation)


def test_a_request_makes_no_conversation_until_accepted(
    r, fresh_conversation_ids, app, stream_server, alice, bob, carol
):
    graph.follow(r, bob["id"], alice["id"])
    direct.set_messages_from(r, bob["id"], "everyone")
    with sse(stream_server, "direct", token_of(r, app, bob)) as bobs:
        bob = users.get_user(r, bob["id"])  # as he takes messages now
        request = direct.start(r, carol["id"], [bob], "zqdm a stranger's request", "k1")
        marker = direct.start(r, alice["id"], [bob], "zqdm from a friend", "k2")
        assert next_conversation(bobs)["id"] == str(marker.cid)  # not the request
        direct.accept(r, bob["id"], request.cid)
        direct.reply(r, request.cid, carol["id"], "zqdm accepted now", "k3")
        conversation = next_conversation(bobs)
        assert conversation["id"] == str(request.cid)
        assert "zqdm accepted now" in conversation["last_status"]["content"]


def test_a_member_who_left_or_blocks_the_sender_gets_no_conversation(
    r, fresh_conversation_ids, app, stream_server, alice, bob, carol
):
    for member in (bob, carol):
        graph.follow(r, member["id"], alice["id"])
    graph.follow(r, carol["id"], bob["id"])
    with (
        sse(stream_server, "direct", token_of(r, app, bob)) as bobs,
        sse(stream_server, "direct", token_of(r, app, carol)) as carols,
    ):
        # Started with the streams open: its events cannot come after the others'.
        group = direct.start(r, alice["id"], [bob, carol], "zqdm the group", "k1")
        assert next_conversation(bobs)["id"] == next_conversation(carols)["id"] == str(group.cid)
        direct.leave(r, bob["id"], group.cid)
        blocks.block(r, carol["id"], alice["id"])
        direct.reply(r, group.cid, alice["id"], "zqdm after they went", "k2")
        # Each one's next conversation is one of their own, sent afterwards.
        bobs_own = direct.start(r, bob["id"], [carol], "zqdm bob's own", "k3")
        assert next_conversation(bobs)["id"] == str(bobs_own.cid)
        conversation = next_conversation(carols)
        assert conversation["id"] == str(bobs_own.cid)
        assert "zqdm after they went" not in json.dumps(conversation)


# --- the WebSocket ---------------------------------------------------------------------


def websocket(server, query="", **kwargs):
    from websockets.sync.client import connect

    return connect(f"ws://127.0.0.1:{server.port}/api/v1/streaming{query}", **kwargs)


def next_message(ws, timeout=10.0):
    message = json.loads(ws.recv(timeout=timeout))
    if "payload" in message and message["event"] != "delete":
        message["payload"] = json.loads(message["payload"])
    return message


def wait_for_subscriptions(r, ws, user, expected):
    """Once ``ws``'s subscriptions are made (they are after the handshake, or after their
    message), with the probes posted until then read: ``user`` posts probes until
    ``expected`` messages (one per stream that gets ``user``'s statuses) come for one."""
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        probe = post(r, user, "probe")
        got = 0
        try:
            while True:
                message = next_message(ws, timeout=0.5)
                got += message["payload"]["id"] == str(probe)
        except TimeoutError:
            pass
        if got == expected:
            return
    raise AssertionError("the subscriptions were never made")


def test_a_websocket_streams_and_subscribes(r, app, stream_server, alice, bob):
    graph.follow(r, alice["id"], bob["id"])
    token = token_of(r, app, alice)
    with websocket(stream_server, f"?stream=user&access_token={token}") as ws:
        wait_for_subscriptions(r, ws, alice, 1)
        sid = post(r, bob, "hello")
        message = next_message(ws)
        assert message["stream"] == ["user"] and message["event"] == "update"
        assert message["payload"]["id"] == str(sid)
        ws.send(json.dumps({"type": "subscribe", "stream": "hashtag", "tag": "redis"}))
        ws.send(json.dumps({"type": "subscribe", "stream": "public"}))
        wait_for_subscriptions(r, ws, alice, 2)  # user and public; the tag comes next
        tagged = post(r, alice, "#redis")
        got = {tuple(next_message(ws)["stream"]) for _ in range(3)}
        assert got == {("user",), ("hashtag", "redis"), ("public",)}
        ws.send(json.dumps({"type": "subscribe", "stream": "hashtag", "tag": "REDIS"}))  # the same
        ws.send(json.dumps({"type": "unsubscribe", "stream": "public"}))
        ws.send(json.dumps({"type": "unsubscribe", "stream": "user"}))
        time.sleep(0.3)
        statuses.delete_status(r, alice["id"], tagged)
        message = next_message(ws)
        assert message == {
            "stream": ["hashtag", "redis"],
            "event": "delete",
            "payload": str(tagged),
        }
        with pytest.raises(TimeoutError):
            ws.recv(timeout=0.5)  # once: "REDIS" was the same subscription


def test_a_websocket_tells_bad_messages_and_notifications(r, app, stream_server, alice, bob):
    headers = {"Authorization": f"Bearer {token_of(r, app, alice)}"}
    with websocket(stream_server, additional_headers=headers) as ws:
        for bad in [
            "not json",
            "[]",
            json.dumps({"type": "subscribe", "stream": "nope"}),
            "[" * 4000,
            '{"type": "subscribe", "stream": "hashtag", "tag": "\\ud800"}',
        ]:
            ws.send(bad)
            assert next_message(ws)["status"] == 400, bad
        ws.send(json.dumps({"type": "subscribe", "stream": "user:notification"}))
        time.sleep(0.3)
        graph.follow(r, bob["id"], alice["id"])
        message = next_message(ws)
        assert message["stream"] == ["user:notification"]
        assert message["event"] == "notification"
        assert message["payload"]["type"] == "follow"


def test_tokens_stay_out_of_the_log(r, app, stream_server, alice):
    token = token_of(r, app, alice)
    with websocket(stream_server, f"?stream=public&access_token={token}"):
        pass
    with sse(stream_server, "public", query=f"access_token={token}") as stream:
        assert stream.status == 200
    time.sleep(0.2)
    log = stream_server.log_path.read_text()
    assert "access_token=[redacted]" in log
    assert token not in log and token.partition(".")[2] not in log


def test_a_websocket_needs_a_valid_token(r, app, stream_server, alice):
    from websockets.exceptions import InvalidStatus

    for query in ["", "?access_token=1.made-up"]:
        with pytest.raises(InvalidStatus) as refused:
            websocket(stream_server, query)
        assert refused.value.response.status_code == 401
        assert json.loads(refused.value.response.body) == {"error": "The access token is invalid"}


def test_a_websocket_ends_when_its_token_is_revoked(r, app, stream_server, alice):
    from websockets.exceptions import ConnectionClosed

    token = token_of(r, app, alice)
    with websocket(stream_server, f"?stream=user&access_token={token}") as ws:
        oauth.revoke_token(r, token)
        with pytest.raises(ConnectionClosed):
            ws.recv(timeout=REFRESH_SECONDS * 3)


def test_other_paths_still_refuse_websocket_handshakes(stream_server):
    from websockets.exceptions import InvalidStatus
    from websockets.sync.client import connect

    for path in ["/statuses/sample.json", "/live/home", "/api/v1/streaming/user"]:
        with pytest.raises(InvalidStatus) as refused:
            connect(f"ws://127.0.0.1:{stream_server.port}{path}")
        assert refused.value.response.status_code == 403


def test_an_idle_websocket_counts_against_the_limit_per_address(r, app, stream_server, alice):
    from websockets.exceptions import InvalidStatus

    token = token_of(r, app, alice)
    with contextlib.ExitStack() as sockets:
        for _ in range(6):
            sockets.enter_context(websocket(stream_server, f"?access_token={token}"))
        with pytest.raises(InvalidStatus) as refused:
            websocket(stream_server, f"?access_token={token}")
        assert refused.value.response.status_code == 429
        with sse(stream_server, "public", token) as stream:
            assert stream.status == 429


def test_websocket_subscriptions_count_against_the_limit_per_address(r, app, stream_server, alice):
    token = token_of(r, app, alice)
    with websocket(stream_server, f"?access_token={token}") as ws:
        for tag in range(7):
            ws.send(json.dumps({"type": "subscribe", "stream": "hashtag", "tag": f"t{tag}"}))
        error = next_message(ws)
        assert error["status"] == 429 and "Too many streams" in error["error"]


@pytest.fixture(scope="module")
def small_server(redis_backend, tmp_path_factory):
    """A stream server allowing 1 stream (101 connections, with the health reserve)."""
    from django.conf import settings

    from socialsite_dev.streams import StreamServerProcess

    server = StreamServerProcess(
        redis_backend.url,
        redis_backend.cluster,
        log_path=tmp_path_factory.mktemp("stream") / "stream.log",
        env={"SECRET_KEY": settings.SECRET_KEY},
        max_clients=1,
    ).start()
    yield server
    server.stop()


def test_websocket_connections_are_released_when_they_end(r, app, small_server, alice):
    """Each connection counts against the connections a process holds; an upgraded one
    is released when its WebSocket ends, or 120 of them would leave no room."""
    token = token_of(r, app, alice)
    for _ in range(120):
        with websocket(small_server, f"?access_token={token}"):
            pass
    time.sleep(0.2)
    assert small_server.health() is not None
    with socket.create_connection(("127.0.0.1", small_server.port), timeout=5) as probe:
        probe.sendall(b"GET /api/v1/streaming/health HTTP/1.1\r\nHost: x\r\n\r\n")
        assert probe.recv(100).startswith(b"HTTP/1.1 200")


def test_an_event_no_entity_can_be_made_of_is_left_out_not_raised():
    """A malformed event (no time, no message) must not stop the hub from handing it to
    the other clients of other formats: the Mastodon formats leave it out."""
    from api.streaming import SSE_HOME, websocket_format
    from streaming.filters import StatusEvent

    event = StatusEvent({"id": 7, "uid": 1, "login": "alice"})
    assert SSE_HOME.bytes_for(event) == b": status 7 left out\n\n"
    assert websocket_format(("user",)).bytes_for(event) == b""


def test_a_delivery_tells_the_direct_stream_alone():
    """The hub tells each stream of a user of their direct events (Hub.tell_user): only the
    direct stream takes them, and only a message's (not a badge change's); a user stream
    reads its notifications for notification changes alone."""
    import asyncio

    from api.streaming import MastodonClient, Nothing, websocket_format
    from streaming.filters import DirectEvent, UnreadEvent

    user = MastodonClient(Nothing(), websocket_format(("user",)), 10)
    user.notices = asyncio.Event()
    inbox = MastodonClient(Nothing(), websocket_format(("direct",)), 10)
    inbox.conversations, inbox.conversations_changed = {}, asyncio.Event()
    fields = {"direct": 1, "conversation": 5, "count": 1, "version": 3}
    for event in (DirectEvent({**fields, "message": 0}), DirectEvent({**fields, "message": 2})):
        user.unread_changed(event)
        inbox.unread_changed(event)
    assert not user.notices.is_set()
    assert inbox.conversations == {5: None} and inbox.conversations_changed.is_set()
    notified = UnreadEvent({"unread": 1, "count": 1, "version": 4})
    user.unread_changed(notified)
    inbox.unread_changed(notified)
    assert user.notices.is_set() and inbox.conversations == {5: None}


def test_a_websocket_subscribes_to_the_direct_stream(
    r, fresh_conversation_ids, app, stream_server, alice, bob
):
    graph.follow(r, bob["id"], alice["id"])
    with websocket(stream_server, f"?access_token={token_of(r, app, bob)}") as ws:
        ws.send(json.dumps({"type": "subscribe", "stream": "direct"}))
        # The subscription is made after the message: messages until one is sent.
        deadline, probes = time.monotonic() + 10, 0
        while time.monotonic() < deadline:
            probes += 1
            sent = direct.start(r, alice["id"], [bob], "zqdm probe", f"probe{probes}")
            try:
                message = next_message(ws, timeout=0.5)
                break
            except TimeoutError:
                continue
        assert message["stream"] == ["direct"] and message["event"] == "conversation"
        assert message["payload"]["id"] == str(sent.cid)
        assert message["payload"]["accounts"][0]["acct"] == "alice"
        post(r, alice, "a status: never on the direct stream")
        last = direct.start(r, alice["id"], [bob], "zqdm the last", "last")
        while True:  # the probes' late events, then the last one's: conversations alone
            message = next_message(ws)
            assert message["event"] == "conversation", message
            if message["payload"]["last_status"]["id"] == f"dm-{last.cid}-{last.mid}":
                break


def test_a_websocket_subscription_needs_its_scope(r, app, stream_server, alice):
    token = token_of(r, app, alice, ["read:notifications"])
    with websocket(stream_server, f"?access_token={token}") as ws:
        ws.send(json.dumps({"type": "subscribe", "stream": "public"}))
        assert next_message(ws) == {
            "error": "This action is outside the authorized scopes",
            "status": 403,
        }
        ws.send(json.dumps({"type": "subscribe", "stream": "list", "list": "3"}))
        assert next_message(ws)["status"] == 403  # read:lists
        ws.send(json.dumps({"type": "subscribe", "stream": "direct"}))
        assert next_message(ws)["status"] == 403  # read:statuses


def test_a_websocket_with_a_revoked_token_subscribes_to_nothing(r, app, stream_server, alice):
    from websockets.exceptions import ConnectionClosed

    token = token_of(r, app, alice)
    with websocket(stream_server, f"?access_token={token}") as ws:
        oauth.revoke_token(r, token)
        ws.send(json.dumps({"type": "subscribe", "stream": "public"}))
        with pytest.raises(ConnectionClosed) as closed:
            ws.recv(timeout=5)
        assert closed.value.rcvd.code == 1008


def test_browser_apps_preflight_and_health_by_head(stream_server):
    headers = {"Origin": "https://app.example", "Access-Control-Request-Headers": "authorization"}
    with StreamConnection(
        stream_server.port, "OPTIONS", "/api/v1/streaming/user", headers=headers
    ) as preflight:
        assert preflight.status == 204
        assert preflight.headers["access-control-allow-origin"] == "*"
        assert "Authorization" in preflight.headers["access-control-allow-headers"]
    with StreamConnection(stream_server.port, "HEAD", "/api/v1/streaming/health") as head:
        assert head.status == 200

"""Nothing missed across a reconnection, over real sockets against ``manage.py stream``:
a live page's replay (Last-Event-ID, streaming/replay.py) and an API client's
catch-up (``since_id``), each joined to the live stream without a gap or a duplicate,
and neither sending what the live stream would not (blocked, muted, suspended, deleted,
private).

A stream never says "that was all", so a test that expects a status NOT to be sent
posts one that is after it: the next status the client reads must be the latter.
"""

import asyncio
import itertools
import json
import threading
import time
from urllib.parse import urlencode

import pytest
from django.test import Client

from socialsite.repository import (
    blocks,
    events,
    graph,
    keys,
    moderation,
    notifications,
    privacy,
    reposts,
    statuses,
)
from socialsite_dev.streams import StreamConnection
from streaming import filters, replay
from tests.support.helpers import log_in, make_user, post

# Far off: a change seen during a test came by its own event, not a periodic refresh.
REFRESH_SECONDS = 3600


@pytest.fixture(scope="module")
def stream_server_options():
    return {"live_refresh": REFRESH_SECONDS, "keepalive": 1}


@pytest.fixture(autouse=True)
def fresh_ids(r, stream_server):
    """Ids no earlier test of the module used, and no event of an earlier test still on
    its way. The stream server outlives each test's empty Redis, and remembers statuses
    and authors by id as the site's processes do (in production ids are never reused):
    a status 6 of an earlier test must not stand for this test's."""
    settle(r, stream_server)
    base = next(ID_BASES)
    r.set(keys.STATUS_IDS, base)
    r.set(keys.USER_IDS, base)


ID_BASES = itertools.count(1_000_000, 1_000_000)


def settle(r, server):
    """Return once the stream server has handed out every event published so far (on a
    busy machine its subscription can lag behind the test): a deletion notice of a
    status that never was, published now, read from the firehose. It changes nothing
    in Redis and matches no live page."""
    query = urlencode({"identifier": "settle", "percent": 100})
    sentinel = 999_999_999_999
    with StreamConnection(server.port, "GET", f"/statuses/sample.json?{query}") as firehose:
        events.publish_deleted(r, {"id": sentinel, "uid": 0})
        while "delete" not in (line := firehose.read_json()) or line["id"] != sentinel:
            pass


def cookie_of(settings, login):
    client = log_in(Client(), login)
    return f"{settings.SESSION_COOKIE_NAME}={client.cookies[settings.SESSION_COOKIE_NAME].value}"


def live(server, cookie, last_event_id=None, query_id=None):
    """A live page's stream; ``last_event_id`` as the browser's header, ``query_id`` as
    live.js's first connection passes the page's cursor."""
    headers = {"Accept": "text/event-stream", "Cookie": cookie}
    if last_event_id is not None:
        headers["Last-Event-ID"] = last_event_id
    path = "/live/home" + (f"?{urlencode({'last_event_id': query_id})}" if query_id else "")
    stream = StreamConnection(server.port, "GET", path, headers=headers)
    assert stream.status == 200
    return stream


def next_event(stream, kinds=("status", "delete", "unread", "load-newer")):
    """(kind, data, id) of the next event of one of ``kinds``."""
    while True:
        kind, data, event_id = stream.read_identified_event()
        if kind in kinds:
            return kind, json.loads(data), event_id


def statuses_until(stream, last):
    """The ids of the status events up to and including status ``last``, in order."""
    seen = []
    while not seen or seen[-1] != last:
        kind, data, _ = next_event(stream, ("status",))
        seen.append(data["id"])
    return seen


# --- ids --------------------------------------------------------------------------------------


def test_every_live_event_carries_the_connections_cursor(r, settings, stream_server, alice, bob):
    graph.follow(r, alice["id"], bob["id"])
    with live(stream_server, cookie_of(settings, "alice")) as stream:
        first = post(r, bob, "first")
        kind, data, event_id = next_event(stream)
        assert (kind, data["id"], event_id) == ("status", first, f"{first}.")
        mention = post(r, bob, "@alice look")
        # Her unread count (the mention) and the status, in either order, both numbered.
        got = {next_event(stream)[0:3:2] for _ in range(2)}
        version = notifications.unread(r, alice["id"]).version
        assert got == {("status", f"{mention}."), ("unread", f"{mention}.{version}")} or got == {
            ("unread", f"{first}.{version}"),
            ("status", f"{mention}.{version}"),
        }
        statuses.delete_status(r, bob["id"], first)
        kind, data, event_id = next_event(stream)
        # A deletion moves no cursor: the id stays the newest status sent.
        assert (kind, data, event_id) == ("delete", {"id": first}, f"{mention}.{version}")


def test_a_malformed_last_event_id_is_ignored_and_said_so(r, settings, stream_server, alice, bob):
    graph.follow(r, alice["id"], bob["id"])
    before = post(r, bob, "before the connection")
    settle(r, stream_server)
    with live(stream_server, cookie_of(settings, "alice"), last_event_id="x<y>") as stream:
        assert stream.read_line() == "retry: 5000"
        assert stream.read_line() == ""
        assert stream.read_line() == ": Last-Event-ID ignored: 'x<y>' is not an id this server sent"
        after = post(r, bob, "after")
        assert statuses_until(stream, after) == [after]  # no replay of ``before``
    assert before < after


# --- a live page's replay ---------------------------------------------------------------------


def test_a_reconnection_gets_what_came_in_between_once(r, settings, stream_server, alice, bob):
    graph.follow(r, alice["id"], bob["id"])
    cookie = cookie_of(settings, "alice")
    with live(stream_server, cookie) as stream:
        seen = post(r, bob, "seen live")
        _, _, cursor = next_event(stream)
    missed = [post(r, bob, f"missed {n}") for n in range(3)]
    with live(stream_server, cookie, last_event_id=cursor) as stream:
        after = post(r, bob, "live again")
        assert statuses_until(stream, after) == [*missed, after]
    assert cursor == f"{seen}."


def test_the_pages_own_cursor_brings_what_came_while_it_loaded(
    r, settings, stream_server, alice, bob
):
    graph.follow(r, alice["id"], bob["id"])
    on_page = post(r, bob, "on the page")
    version = notifications.unread(r, alice["id"]).version
    while_loading = post(r, bob, "@alice posted while the page loaded")
    with live(stream_server, cookie_of(settings, "alice"), query_id=f"{on_page}.{version}") as s:
        kind, data, _ = next_event(s)
        # The mention changed her unread count: that comes first, then the status.
        assert kind == "unread" and data["count"] == 1 and data["version"] > version
        assert next_event(s)[1]["id"] == while_loading


def test_the_replay_sends_the_newest_200_then_a_load_newer_marker(
    r, settings, stream_server, alice, bob
):
    graph.follow(r, alice["id"], bob["id"])
    cursor = post(r, bob, "the last one seen")
    missed = [post(r, bob, f"missed {n}") for n in range(replay.LIVE_REPLAY_MAX + 5)]
    settle(r, stream_server)
    with live(stream_server, cookie_of(settings, "alice"), last_event_id=f"{cursor}.") as stream:
        # Without a version in the cursor, her unread count comes first.
        assert next_event(stream)[0:3:2] == ("unread", f"{cursor}.0")
        replayed = [next_event(stream) for _ in range(replay.LIVE_REPLAY_MAX)]
        assert [data["id"] for _, data, _ in replayed] == missed[-replay.LIVE_REPLAY_MAX :]
        assert {kind for kind, _, _ in replayed} == {"status"}
        kind, data, event_id = next_event(stream)
        assert (kind, data, event_id) == ("load-newer", {"after": cursor}, f"{missed[-1]}.0")
        after = post(r, bob, "live")
        assert statuses_until(stream, after) == [after]


def test_the_replay_leaves_out_what_the_home_page_does(r, settings, stream_server, alice, bob):
    carol, dave, eve = (make_user(r, login) for login in ("carol", "dave", "eve"))
    for other in (bob, carol, dave, eve):
        graph.follow(r, alice["id"], other["id"])
    cookie = cookie_of(settings, "alice")
    cursor = post(r, bob, "seen")
    deleted = post(r, bob, "deleted while she was away")
    by_carol = post(r, carol, "carol, blocked by alice since")
    by_dave = post(r, dave, "dave, who blocked alice since")
    by_eve = post(r, eve, "eve, muted since")
    suspended = make_user(r, "mallory")
    graph.follow(r, alice["id"], suspended["id"])
    by_suspended = post(r, suspended, "mallory, suspended since")
    kept = post(r, bob, "still there")
    statuses.delete_status(r, bob["id"], deleted)
    blocks.block(r, alice["id"], carol["id"])
    blocks.block(r, dave["id"], alice["id"])
    blocks.mute(r, alice["id"], eve["id"])
    moderation.suspend(r, suspended["id"])
    settle(r, stream_server)
    with live(stream_server, cookie, last_event_id=f"{cursor}.") as stream:
        after = post(r, bob, "live")
        assert statuses_until(stream, after) == [kept, after]
    assert {deleted, by_carol, by_dave, by_eve, by_suspended}.isdisjoint({kept, after})


def test_a_private_accounts_statuses_are_replayed_to_its_followers_alone(
    r, settings, stream_server, alice, bob, carol
):
    graph.follow(r, alice["id"], bob["id"])  # before: an approved follower
    privacy.set_private(r, bob["id"], True)
    graph.follow(r, carol["id"], alice["id"])
    cursor = post(r, alice, "seen")
    secret = post(r, bob, "for my followers")
    settle(r, stream_server)
    with live(stream_server, cookie_of(settings, "alice"), last_event_id=f"{cursor}.") as stream:
        assert next_event(stream, ("status",))[1]["id"] == secret
    with live(stream_server, cookie_of(settings, "carol"), last_event_id=f"{cursor}.") as stream:
        after = post(r, alice, "live")
        assert statuses_until(stream, after) == [after]


def test_the_unread_count_is_right_after_a_reconnection(r, settings, stream_server, alice, bob):
    cookie = cookie_of(settings, "alice")
    version = notifications.unread(r, alice["id"]).version
    cursor = post(r, alice, "mine")
    settle(r, stream_server)
    with live(stream_server, cookie, last_event_id=f"{cursor}.{version}") as stream:
        own = post(r, alice, "unchanged count: none sent")
        kind, data, _ = next_event(stream)
        assert (kind, data["id"]) == ("status", own)
    # While she is away bob mentions her twice.
    post(r, bob, "@alice one")
    post(r, bob, "@alice two")
    unread = notifications.unread(r, alice["id"])
    settle(r, stream_server)
    with live(stream_server, cookie, last_event_id=f"{own}.{version}") as stream:
        kind, data, event_id = next_event(stream)
        assert kind == "unread"
        assert data == {"count": 2, "version": unread.version}
        assert event_id == f"{own}.{unread.version}"


def test_reconnecting_during_a_burst_loses_nothing_and_repeats_nothing(
    r, settings, stream_server, alice, bob
):
    graph.follow(r, alice["id"], bob["id"])
    cookie = cookie_of(settings, "alice")
    posted, stop = [], threading.Event()

    def burst():
        while not stop.is_set():
            posted.append(post(r, bob, f"burst {len(posted)}"))
            time.sleep(0.002)

    received, cursor = [], None
    poster = threading.Thread(target=burst)
    poster.start()
    try:
        for _ in range(8):  # connect, read a few, drop the connection mid-burst
            with live(stream_server, cookie, last_event_id=cursor) as stream:
                for _ in range(5):
                    kind, data, cursor = next_event(stream, ("status",))
                    received.append(data["id"])
    finally:
        stop.set()
        poster.join()
    last = post(r, bob, "the end")
    with live(stream_server, cookie, last_event_id=cursor) as stream:
        received += statuses_until(stream, last)
    first = received[0]
    expected = [sid for sid in [*posted, last] if sid >= first]
    assert len(received) == len(set(received)), f"a status came twice: {received}"
    assert sorted(received) == expected, "a status was lost"


# --- an API client's catch-up -------------------------------------------------------------------


def sample(server, since_id, percent=100):
    query = urlencode({"identifier": "tester", "percent": percent, "since_id": since_id})
    return StreamConnection(server.port, "GET", f"/statuses/sample.json?{query}")


def filtered(server, since_id, **fields):
    return StreamConnection(
        server.port,
        "POST",
        f"/statuses/filter.json?{urlencode({'identifier': 'tester', 'since_id': since_id})}",
        body=urlencode(fields),
        headers={"Content-Type": "application/x-www-form-urlencoded"},
    )


def caught_up(stream):
    """The JSON lines of the catch-up, up to and including the line that ends it."""
    lines = [stream.read_json()]
    while "catch_up" not in lines[-1]:
        lines.append(stream.read_json())
    return lines


def lines_until(stream, last):
    """The JSON lines up to and including status ``last``'s."""
    lines = []
    while not lines or lines[-1].get("id") != last:
        lines.append(stream.read_json())
    return lines


def test_since_id_sends_what_the_client_missed_then_goes_on_live(r, stream_server, alice, bob):
    since = post(r, alice, "the last one the client saw")
    missed = [post(r, bob, f"missed {n}") for n in range(3)]
    settle(r, stream_server)
    with sample(stream_server, since) as stream:
        lines = caught_up(stream)
        after = post(r, alice, "live")
        lines += lines_until(stream, after)
    assert [line["id"] for line in lines[:3]] == missed
    assert lines[3] == {"catch_up": {"since_id": since, "sent": 3, "complete": True}}
    assert [line["id"] for line in lines[4:]] == [after]
    # A status caught up with is written as a live one is.
    assert set(lines[0]) == set(lines[4])


def test_the_catch_up_goes_through_the_clients_filter(r, stream_server, alice, bob):
    since = post(r, alice, "start")
    tracked = post(r, bob, "about #redis")
    post(r, bob, "about something else")
    by_alice = post(r, alice, "anything")
    settle(r, stream_server)
    with filtered(stream_server, since, track="redis", follow="alice") as stream:
        lines = caught_up(stream)
        after = post(r, alice, "live")
        lines += lines_until(stream, after)
    assert [line.get("id") for line in lines] == [tracked, by_alice, None, after]


def test_the_catch_up_sends_reposts_as_they_were_streamed(r, stream_server, alice, bob, carol):
    since = post(r, alice, "start")
    original = post(r, alice, "worth reposting #redis")
    reposts.repost(r, bob["id"], original)
    privacy.set_private(r, carol["id"], True)
    reposts.repost(r, carol["id"], original)  # by a private account: never to the API
    settle(r, stream_server)
    with sample(stream_server, since) as stream:
        lines = caught_up(stream)
    assert [line.get("id") for line in lines[:1]] == [original]
    first, repost = lines[:2]
    # As streamed: Tweets, the repost a retweet whose original has its entities as an
    # object and its author's user (their counts as read now: the catch-up reads them).
    assert repost["user"]["id"] == bob["id"] and repost["user"]["screen_name"] == "bob"
    assert repost["text"] == "RT @alice: worth reposting #redis"
    retweeted = repost["retweeted_status"]
    assert retweeted["id"] == original and retweeted["text"] == "worth reposting #redis"
    tags = [{"text": "redis", "indices": [16, 22]}]
    assert retweeted["entities"] == {"hashtags": tags, "user_mentions": [], "urls": []}
    assert retweeted["user"]["screen_name"] == "alice" and retweeted["user"]["statuses_count"] == 2
    assert first["user"] == retweeted["user"]
    assert first["created_at"].endswith(time.strftime("+0000 %Y", time.gmtime(first["posted"])))
    assert lines[2] == {"catch_up": {"since_id": since, "sent": 2, "complete": True}}


def test_the_catch_up_never_sends_private_suspended_or_deleted_statuses(
    r, stream_server, alice, bob, carol
):
    since = post(r, bob, "start")
    mallory = make_user(r, "mallory")
    privacy.set_private(r, alice["id"], True)
    private = post(r, alice, "for followers only")
    turned_private = post(r, carol, "public when posted, private now")
    privacy.set_private(r, carol["id"], True)
    by_mallory = post(r, mallory, "suspended since")
    moderation.suspend(r, mallory["id"])
    deleted = post(r, bob, "deleted since")
    statuses.delete_status(r, bob["id"], deleted)
    kept = post(r, bob, "kept")
    settle(r, stream_server)
    with sample(stream_server, since) as stream:
        lines = caught_up(stream)
        after = post(r, bob, "live")
        ids = [line.get("id") for line in lines + lines_until(stream, after)]
    assert ids == [kept, None, after]
    assert {private, turned_private, by_mallory, deleted}.isdisjoint(ids)


def test_the_catch_up_joins_the_live_stream_without_gap_or_duplicate(r, stream_server, alice, bob):
    since = post(r, alice, "start")
    posted, stop = [], threading.Event()

    def burst():
        while not stop.is_set():
            posted.append(post(r, bob, f"burst {len(posted)}"))
            time.sleep(0.002)

    poster = threading.Thread(target=burst)
    poster.start()
    try:
        while len(posted) < 20:
            time.sleep(0.01)
        with sample(stream_server, since) as stream:
            # Posts go on during the catch-up's read, and after it.
            lines = caught_up(stream)
            enough = len(posted) + 40
            while len(posted) < enough:
                time.sleep(0.01)
            stop.set()
            poster.join()
            last = post(r, alice, "the end")
            lines += lines_until(stream, last)
    finally:
        stop.set()
        poster.join()
    ids = [line["id"] for line in lines if "id" in line]
    assert len(ids) == len(set(ids)), "a status came twice"
    assert sorted(ids) == [*posted, last], "a status was lost"
    assert sum("catch_up" in line for line in lines) == 1


def test_the_catch_up_sends_the_newest_1000_and_says_it_is_incomplete(r, stream_server, alice, bob):
    since = post(r, alice, "start")
    posted = [post(r, bob, f"n{n}") for n in range(replay.CATCH_UP_MAX + 3)]
    settle(r, stream_server)
    with sample(stream_server, since) as stream:
        lines = caught_up(stream)
        after = post(r, alice, "live")
        lines += lines_until(stream, after)
    assert [line.get("id") for line in lines[:-2]] == posted[-replay.CATCH_UP_MAX :]
    assert lines[-2] == {
        "catch_up": {"since_id": since, "sent": replay.CATCH_UP_MAX, "complete": False}
    }


@pytest.mark.parametrize("value", ["", "abc", "-1", "1.5", "9" * 30])
def test_a_bad_since_id_is_refused_with_a_reason(stream_server, value):
    for stream in (sample(stream_server, value), filtered(stream_server, value, track="x")):
        with stream:
            assert stream.status == 400
            assert "since_id must be a status id" in stream.read_body()


def test_the_recent_public_statuses_are_capped_and_public_only(r, alice, bob):
    for sid in range(1, 6):
        pipe = r.pipeline(transaction=False)
        events.queue_note_recent(pipe, sid, kept=3)
        pipe.execute()
    assert r.zrange(keys.RECENT_PUBLIC_STATUSES, 0, -1) == ["3", "4", "5"]
    r.delete(keys.RECENT_PUBLIC_STATUSES)
    privacy.set_private(r, alice["id"], True)
    post(r, alice, "private")
    public = post(r, bob, "public")
    assert r.zrange(keys.RECENT_PUBLIC_STATUSES, 0, -1) == [str(public)]


# --- holding live events while the replay is read (in process) -------------------------------


def queued(client):
    return b"".join(client.pending).decode()


def status_event(sid, uid=1, deleted=False):
    return filters.StatusEvent({"id": sid, "uid": uid, "deleted": deleted})


def test_held_events_follow_the_replay_and_those_in_it_are_not_sent_again():
    async def scenario():
        client = replay.ReplayingClient(None, None, 10)
        # Matched while the replay was read: 11 is also in the replay, 12 is not.
        for event in (status_event(11), status_event(12), status_event(11, deleted=True)):
            assert client.offer(f"live {event.id}{'d' * event.deleted};".encode(), event)
        client.offer(b"keep-alive;")  # not an event: not held
        assert queued(client) == "keep-alive;"
        replayed = [(status_event(sid), f"replay {sid};".encode()) for sid in (10, 11)]
        assert client.release(replayed)
        assert queued(client) == "keep-alive;replay 10;replay 11;live 12;live 11d;"
        assert client.offer(b"live 13;", status_event(13))  # no longer held
        assert queued(client).endswith("live 13;")

    asyncio.run(scenario())


def test_a_live_connection_numbers_each_event_with_its_cursor():
    async def scenario():
        client = replay.LiveClient(None, None, 10, cursor=5, version=2)
        unread = filters.UnreadEvent({"unread": 1, "count": 3, "version": 7})
        client.offer(b"u;", unread)
        replayed = [(status_event(9), b"s9;"), (status_event(8), b"s8;")]
        assert client.release(replayed)
        assert client.offer(b"d;", status_event(3, deleted=True))
        assert queued(client) == "id: 9.2\ns9;id: 9.2\ns8;id: 9.7\nu;id: 9.7\nd;"

    asyncio.run(scenario())


def test_holding_more_than_the_buffer_drops_the_client():
    async def scenario():
        client = replay.ReplayingClient(None, None, 2)
        assert client.offer(b"1", status_event(1)) and client.offer(b"2", status_event(2))
        assert not client.offer(b"3", status_event(3))

    asyncio.run(scenario())


@pytest.mark.parametrize(
    ("given", "cursor"),
    [
        ("12.3", (12, 3)),
        ("12", (12, None)),
        ("12.", (12, None)),
        (".3", (None, 3)),
        ("", (None, None)),
    ],
)
def test_a_cursor_is_read_from_what_the_server_sent(given, cursor):
    assert replay.parse_event_id(given) == cursor


@pytest.mark.parametrize("given", ["a", "1.2.3", "-1", "1e3", "9" * 20])
def test_a_cursor_the_server_never_sent_is_refused(given):
    with pytest.raises(ValueError):
        replay.parse_event_id(given)


def test_statuses_up_to_the_cursor_are_not_sent_again():
    # Replayed by the previous connection before they were published, or handed out
    # late by a hub behind: the client has them.
    async def scenario():
        client = replay.ReplayingClient(None, None, 10, floor=10)
        assert client.offer(b"9;", status_event(9))
        assert client.release([])
        assert client.offer(b"8;", status_event(8))
        assert client.offer(b"8d;", status_event(8, deleted=True))
        assert client.offer(b"11;", status_event(11))
        assert queued(client) == "8d;11;"

    asyncio.run(scenario())


def test_a_repost_missed_is_replayed_as_its_original_under_its_header(
    r, settings, stream_server, alice, bob
):
    carol = make_user(r, "carol", "Carol Singer")
    graph.follow(r, alice["id"], carol["id"])
    cookie = cookie_of(settings, "alice")
    cursor = post(r, carol, "seen")
    original = post(r, bob, "worth passing on")  # alice does not follow bob
    reposts.repost(r, carol["id"], original)
    rid = int(r.zscore(keys.reposted(carol["id"]), original))
    settle(r, stream_server)
    with live(stream_server, cookie, last_event_id=f"{cursor}.") as stream:
        kind, data, _ = next_event(stream, ("status",))
        assert data["id"] == rid and data["shows"] == original
        assert "worth passing on" in data["html"] and "reposted" in data["html"]
        assert f'id="status-{original}"' in data["html"]


def test_a_pulled_accounts_statuses_come_live_and_in_the_replay_once(
    r, settings, stream_server, alice, bob, carol
):
    # bob is pulled (decision 0054): his statuses are in nobody's home, yet a live page
    # routes by author, and its replay reads the home as the page does, merged.
    graph.follow(r, alice["id"], bob["id"])
    graph.follow(r, carol["id"], bob["id"])
    post(r, bob, "registers bob as pulled", pull_followers=2)
    cookie = cookie_of(settings, "alice")
    with live(stream_server, cookie) as stream:
        seen = post(r, bob, "pulled, seen live", pull_followers=2)
        assert r.hget(keys.user(bob["id"]), keys.FANOUT_PATH_FIELD) == "pulled"
        data = {}
        while data.get("id") != seen:  # (the registering status may come first)
            _, data, cursor = next_event(stream, ("status",))
    missed = [post(r, bob, f"pulled, missed {n}", pull_followers=2) for n in range(3)]
    assert not r.sismember(keys.home(alice["id"]), missed[0])
    with live(stream_server, cookie, last_event_id=cursor) as stream:
        after = post(r, bob, "pulled, live again", pull_followers=2)
        assert statuses_until(stream, after) == [*missed, after]

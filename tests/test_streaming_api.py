"""The streaming API (section 8.5) over real sockets, against ``manage.py stream``.

The server runs as its own process, as in production, on the test's Redis (one
server, or the cluster with --redis=cluster). Statuses are posted and deleted through
the repository, which publishes them; the tests read the HTTP responses byte by byte
(StreamConnection decodes the chunked encoding itself).

A stream never says "that was all", so a test that expects a status NOT to be sent
posts it before one that is: the next line the client reads must be the latter.
"""

import json
import threading
import time
from urllib.parse import urlencode

import pytest

from socialsite.repository import client as redis_client
from socialsite.repository import events, keys, statuses, users
from socialsite_dev.redis_servers import RedisServer
from socialsite_dev.streams import StreamClosed, StreamConnection, StreamServerProcess
from streaming import filters
from tests.support.helpers import make_user, post

# Short enough for the tests to see keep-alives, long enough not to drown them.
KEEPALIVE_SECONDS = 1
# Small, so that a client that stops reading is dropped after little traffic.
CLIENT_BUFFER = 50


@pytest.fixture(scope="module")
def stream_server_options():
    """This module's stream_server (tests/conftest.py)."""
    return {"keepalive": KEEPALIVE_SECONDS, "client_buffer": CLIENT_BUFFER}


def sample(server, identifier="tester", percent=100, **options):
    """GET /statuses/sample.json (identifier or percent None: none given)."""
    fields = {}
    if identifier is not None:
        fields["identifier"] = identifier
    if percent is not None:
        fields["percent"] = percent
    query = urlencode(fields)
    return StreamConnection(server.port, "GET", f"/statuses/sample.json?{query}", **options)


def filtered(server, identifier="tester", **fields):
    """POST /statuses/filter.json with these form fields."""
    query = f"?{urlencode({'identifier': identifier})}" if identifier else ""
    return StreamConnection(
        server.port,
        "POST",
        f"/statuses/filter.json{query}",
        body=urlencode(fields),
        headers={"Content-Type": "application/x-www-form-urlencoded"},
    )


def delete(r, user, sid):
    assert statuses.delete_status(r, user["id"], sid) is statuses.DeleteResult.DELETED


def deleted(sid, uid):
    """Twitter's delete notice of status ``sid`` by user ``uid``, with the book's beside it."""
    return {
        "delete": {
            "status": {"id": sid, "id_str": str(sid), "user_id": uid, "user_id_str": str(uid)}
        },
        "id": sid,
        "deleted": True,
    }


def ids(stream, count):
    return [stream.read_json()["id"] for _ in range(count)]


# --- sample ---


def test_sample_streams_each_status_as_one_json_line_in_chunks(r, stream_server, alice):
    with sample(stream_server) as stream:
        assert stream.status == 200
        assert stream.headers["transfer-encoding"] == "chunked"
        assert stream.headers["content-type"].startswith("application/x-ndjson")
        sid = post(r, alice, "Hello, streaming world", location="48.8566,2.3522")
        line = stream.read_json()
    signup = float(r.hget(keys.user(alice["id"]), "signup"))
    posted = line["posted"]
    assert posted == pytest.approx(time.time(), abs=60)
    assert line == {
        # Twitter's v1.1 Tweet object.
        "created_at": time.strftime("%a %b %d %H:%M:%S +0000 %Y", time.gmtime(posted)),
        "id": sid,
        "id_str": str(sid),
        "text": "Hello, streaming world",
        "truncated": False,
        "entities": {"hashtags": [], "user_mentions": [], "urls": []},
        # Twitter's fields of a reply, null for a status that replies to nothing.
        "in_reply_to_status_id": None,
        "in_reply_to_status_id_str": None,
        "in_reply_to_user_id": None,
        "in_reply_to_user_id_str": None,
        "in_reply_to_screen_name": None,
        # The author as at posting time: this status counted.
        "user": {
            "id": alice["id"],
            "id_str": str(alice["id"]),
            "name": alice["name"],
            "screen_name": "alice",
            "protected": False,
            "followers_count": 0,
            "friends_count": 0,
            "statuses_count": 1,
            "created_at": time.strftime("%a %b %d %H:%M:%S +0000 %Y", time.gmtime(signup)),
        },
        # GeoJSON: longitude first ("geo", Twitter's older field: latitude first).
        "geo": {"type": "Point", "coordinates": [48.8566, 2.3522]},
        "coordinates": {"type": "Point", "coordinates": [2.3522, 48.8566]},
        "place": {
            "id": "48.8566,2.3522",
            "url": None,
            "place_type": "poi",
            "name": "48.8566,2.3522",
            "full_name": "48.8566,2.3522",
            "country_code": "",
            "country": "",
            "bounding_box": {"type": "Polygon", "coordinates": [[[2.3522, 48.8566]] * 4]},
            "attributes": {},
        },
        "is_quote_status": False,
        "timestamp_ms": str(int(posted * 1000)),
        # The book's fields.
        "message": "Hello, streaming world",
        "uid": alice["id"],
        "login": "alice",
        "location": "48.8566,2.3522",
        "posted": posted,
    }


def test_a_status_without_a_location_has_null_coordinates_and_place(r, stream_server, alice):
    with sample(stream_server) as stream:
        post(r, alice, "nowhere in particular")
        line = stream.read_json()
    assert (line["geo"], line["coordinates"], line["place"]) == (None, None, None)
    assert "location" not in line


def test_the_users_counts_are_those_at_posting_time(r, stream_server, alice, bob, carol):
    from socialsite.repository import graph

    graph.follow(r, bob["id"], alice["id"])
    graph.follow(r, carol["id"], alice["id"])
    graph.follow(r, alice["id"], bob["id"])
    with sample(stream_server) as stream:
        post(r, alice, "first")
        first = stream.read_json()["user"]
        graph.unfollow(r, carol["id"], alice["id"])
        post(r, alice, "second")
        second = stream.read_json()["user"]
    counts = ("followers_count", "friends_count", "statuses_count")
    assert [first[name] for name in counts] == [2, 1, 1]
    assert [second[name] for name in counts] == [1, 1, 2]


def test_events_read_together_go_to_a_client_in_one_write(r, stream_server, alice):
    """The hub hands out every event it has read before it writes (Hub.write_soon): a
    burst published in one round trip reaches a client in one write, or a few."""
    with sample(stream_server) as stream:
        assert stream.status == 200
        before = stream_server.health()
        burst = [
            {"id": 10**9 + n, "uid": alice["id"], "login": "alice", "message": f"burst {n}",
             "posted": time.time()}
            for n in range(20)
        ]  # fmt: skip
        # One node's connection: a cluster client refuses PUBLISH in a pipeline, and
        # classic PUBLISH reaches every node's subscribers from any node.
        node = r.get_redis_connection(r.get_default_node()) if redis_client.is_cluster(r) else r
        pipe = node.pipeline(transaction=False)
        for status in burst:
            pipe.publish(keys.STATUS_CHANNEL, json.dumps(status))
        pipe.execute()
        assert ids(stream, 20) == [status["id"] for status in burst]
        after = stream_server.health()
    assert after["deliveries"] - before["deliveries"] == 20
    assert after["writes"] - before["writes"] <= 4


def test_a_reply_carries_twitters_reply_fields_and_its_deletion_the_usual_notice(
    r, stream_server, alice, bob
):
    with sample(stream_server) as stream:
        parent = post(r, alice, "parent")
        sid = statuses.post_status(r, bob["id"], "@alice a reply", in_reply_to=parent)
        assert stream.read_json()["id"] == parent
        line = stream.read_json()
        delete(r, bob, sid)
        assert stream.read_json() == deleted(sid, bob["id"])
    assert line["id"] == sid
    assert line["in_reply_to_status_id"] == parent
    assert line["in_reply_to_status_id_str"] == str(parent)
    assert line["in_reply_to_user_id"] == alice["id"]
    assert line["in_reply_to_user_id_str"] == str(alice["id"])
    assert line["in_reply_to_screen_name"] == "alice"
    # The site's own bookkeeping stays out of the API.
    assert not {"in_reply_to", "in_reply_to_uid", "ancestors", "notified"} & set(line)


def test_sample_sends_a_deletion_notice(r, stream_server, alice):
    with sample(stream_server) as stream:
        sid = post(r, alice, "regret")
        delete(r, alice, sid)
        assert stream.read_json()["id"] == sid
        assert stream.read_json() == deleted(sid, alice["id"])


def test_sample_defaults_to_ten_percent_chosen_by_status_id(r, stream_server, alice):
    with sample(stream_server, "ten", percent=None) as default, sample(stream_server) as all_:
        posted = [post(r, alice, f"status {n}") for n in range(100)]
        assert ids(all_, 100) == posted
        received = ids(default, 10)
    keep = filters.SampleFilter("ten", 10).keep
    assert received == [sid for sid in posted if sid % 100 in keep]


def test_the_same_identifier_gets_the_same_sample_and_its_deletions(r, stream_server, alice):
    with (
        sample(stream_server, "same", 30) as first,
        sample(stream_server, "same", 30) as second,
        sample(stream_server, "other", 30) as other,
        sample(stream_server, "barrier", 100) as barrier,
    ):
        posted = [post(r, alice, f"status {n}") for n in range(100)]
        for sid in posted:
            delete(r, alice, sid)
        last = post(r, alice, "the end")
        # Every client got what it will get of the above once the firehose has it all.
        while barrier.read_json()["id"] != last:
            pass
        streams = [first, second, other]
        kept = {}
        for stream, identifier in zip(streams, ["same", "same", "other"], strict=True):
            keep = filters.SampleFilter(identifier, 30).keep
            expected = [sid for sid in posted if sid % 100 in keep]
            lines = [stream.read_json() for _ in range(2 * len(expected))]
            assert [line["id"] for line in lines[: len(expected)]] == expected
            assert lines[len(expected) :] == [deleted(sid, alice["id"]) for sid in expected]
            kept[identifier] = expected
    assert len(kept["same"]) == 30
    assert kept["same"] != kept["other"]


def test_sample_of_100_percent_is_the_firehose(r, stream_server, alice, bob):
    with sample(stream_server, "firehose", 100) as stream:
        posted = [post(r, user, "everything") for user in (alice, bob) * 10]
        assert ids(stream, 20) == posted


# --- filter: track, follow, locations ---


def test_track_matches_a_phrase_whose_words_all_occur_in_any_case(r, stream_server, alice):
    with filtered(stream_server, track="redis cluster,django") as stream:
        assert stream.status == 200
        post(r, alice, "redis on its own")
        post(r, alice, "a cluster without the other word")
        wanted = [
            post(r, alice, "Is the CLUSTER of Redis ready?"),
            post(r, alice, "#Django, at last!"),
        ]
        assert ids(stream, 2) == wanted


def test_each_status_carries_its_entities_in_twitters_format(r, stream_server, alice, bob):
    with sample(stream_server) as stream:
        message = "🙂 @bob @nobody #Redis https://redis.io/docs/latest/develop/data-types/"
        post(r, alice, message)
        line = stream.read_json()
    assert line["text"] == line["message"] == message
    assert line["entities"] == {
        "hashtags": [{"text": "Redis", "indices": [15, 21]}],
        "user_mentions": [
            {"screen_name": "bob", "id": bob["id"], "id_str": str(bob["id"]), "indices": [2, 6]}
        ],
        "urls": [
            {
                "url": "https://redis.io/docs/latest/develop/data-types/",
                "expanded_url": "https://redis.io/docs/latest/develop/data-types/",
                "display_url": "redis.io/docs/latest/develop/d…",
                "indices": [22, 70],
            }
        ],
    }


def test_track_matches_a_hashtag_with_or_without_its_sign(r, stream_server, alice):
    with (
        filtered(stream_server, "with sign", track="#redis") as with_sign,
        filtered(stream_server, "without", track="redis") as without,
    ):
        plain = post(r, alice, "redis, the word")  # a word: only for "redis"
        post(r, alice, "a#redis is no tag, #django is another")
        tagged = [post(r, alice, "#Redis's data types"), post(r, alice, "ＷＯＷ ＃ＲＥＤＩＳ")]
        assert ids(with_sign, 2) == tagged
        assert ids(without, 3) == [plain, *tagged]


def test_follow_matches_statuses_by_a_login_or_mentioning_it(r, stream_server, alice, bob, carol):
    with filtered(stream_server, follow="BOB") as stream:
        post(r, carol, "nothing to do with him")
        post(r, alice, "neither: bobby@example.com")
        wanted = [post(r, bob, "by bob"), post(r, alice, "hello @bob!")]
        assert ids(stream, 2) == wanted


def test_follow_accepts_user_ids_and_at_logins(r, stream_server, alice, bob, carol):
    with filtered(stream_server, follow=f"{bob['id']},@carol") as stream:
        post(r, alice, "not followed")
        wanted = [post(r, bob, "by id"), post(r, carol, "by @login")]
        assert ids(stream, 2) == wanted


def test_locations_match_statuses_inside_any_box(r, stream_server, alice):
    paris = "2.2,48.8,2.5,48.9"  # south-west lon,lat then north-east lon,lat
    new_york = "-74.1,40.6,-73.8,40.9"
    with filtered(stream_server, locations=f"{paris},{new_york}") as stream:
        post(r, alice, "no location")
        post(r, alice, "London", location="51.5074,-0.1278")
        post(r, alice, "lat and lon swapped", location="2.3522,48.8566")
        wanted = [
            post(r, alice, "Paris", location="48.8566,2.3522"),
            post(r, alice, "New York", location="40.7128,-74.006"),
        ]
        assert ids(stream, 2) == wanted


def test_location_is_accepted_for_locations_as_in_the_book(r, stream_server, alice):
    with filtered(stream_server, location="-1,-1,1,1") as stream:
        post(r, alice, "elsewhere", location="10,10")
        sid = post(r, alice, "null island", location="0,0")
        assert stream.read_json()["id"] == sid


def test_several_predicates_send_what_matches_any_of_them(r, stream_server, alice, bob, carol):
    with filtered(stream_server, track="redis", follow="bob", locations="0,0,1,1") as stream:
        post(r, carol, "matches nothing", location="5,5")
        wanted = [
            post(r, carol, "about redis"),
            post(r, bob, "by bob"),
            post(r, carol, "somewhere", location="0.5,0.5"),
            post(r, bob, "redis by bob, located", location="0.5,0.5"),  # sent once
        ]
        assert ids(stream, 4) == wanted


def test_a_filter_is_told_of_the_deletions_of_what_it_was_sent_only(r, stream_server, alice):
    with filtered(stream_server, track="keep") as stream:
        kept = post(r, alice, "keep this")
        other = post(r, alice, "not this")
        delete(r, alice, other)
        delete(r, alice, kept)
        assert stream.read_json()["id"] == kept
        assert stream.read_json() == deleted(kept, alice["id"])


# --- errors ---


def error(connection):
    """(status, body) of an error response; its body must be a readable sentence."""
    with connection:
        body = connection.read_body()
        assert connection.headers["content-type"].startswith("text/plain")
        assert len(body.strip()) > 10
        return connection.status, body


def test_without_an_identifier_the_sample_is_the_client_addresss(r, stream_server, alice):
    with (
        sample(stream_server, identifier=None, percent=30) as anonymous,
        sample(stream_server, identifier="127.0.0.1", percent=30) as same,
        sample(stream_server, "firehose") as firehose,
    ):
        assert anonymous.status == 200
        posted = [post(r, alice, f"status {n}") for n in range(100)]
        assert ids(firehose, 100) == posted
        keep = filters.SampleFilter("127.0.0.1", 30).keep
        expected = [sid for sid in posted if sid % 100 in keep]
        assert ids(anonymous, 30) == ids(same, 30) == expected


def test_without_an_identifier_an_oauth_signed_sample_is_its_consumer_keys(r, stream_server, alice):
    """Twitter's clients sign every request (OAuth 1.0a); the key names the client. The
    signature is not checked: the public stream is public."""
    authorization = (
        'OAuth oauth_consumer_key="key%2Fone", oauth_nonce="abc", oauth_signature="x%3D", '
        'oauth_signature_method="HMAC-SHA1", oauth_timestamp="1", oauth_version="1.0"'
    )
    signed = StreamConnection(
        stream_server.port,
        "GET",
        "/statuses/sample.json?percent=30",
        headers={"Authorization": authorization},
    )
    with signed, sample(stream_server, "firehose") as firehose:
        assert signed.status == 200
        posted = [post(r, alice, f"status {n}") for n in range(100)]
        assert ids(firehose, 100) == posted
        keep = filters.SampleFilter("key/one", 30).keep
        assert ids(signed, 30) == [sid for sid in posted if sid % 100 in keep]


def test_a_filter_needs_no_identifier(r, stream_server, alice):
    with filtered(stream_server, identifier=None, track="anonymous") as stream:
        assert stream.status == 200
        sid = post(r, alice, "anonymous yet filtered")
        assert stream.read_json()["id"] == sid


@pytest.mark.parametrize("body", [None, "percent=30"])
def test_a_sample_may_be_posted_with_percent_in_its_query_string_or_form(
    r, stream_server, alice, body
):
    query = "identifier=posted" + ("" if body else "&percent=30")
    posted_sample = StreamConnection(
        stream_server.port,
        "POST",
        f"/statuses/sample.json?{query}",
        body=body,
        headers={"Content-Type": "application/x-www-form-urlencoded"} if body else None,
    )
    with posted_sample, sample(stream_server, "firehose") as firehose:
        assert posted_sample.status == 200
        posted = [post(r, alice, f"status {n}") for n in range(100)]
        assert ids(firehose, 100) == posted
        keep = filters.SampleFilter("posted", 30).keep
        assert ids(posted_sample, 30) == [sid for sid in posted if sid % 100 in keep]


def test_twitters_paths_are_served_too(r, stream_server, alice):
    with StreamConnection(
        stream_server.port, "GET", "/1.1/statuses/sample.json?identifier=x&percent=100"
    ) as stream:
        assert stream.status == 200
        sid = post(r, alice, "as at stream.twitter.com")
        assert stream.read_json()["id_str"] == str(sid)


def test_it_requires_a_filter(stream_server):
    status, body = error(filtered(stream_server, language="en"))
    assert status == 401
    assert "no filter" in body


@pytest.mark.parametrize(
    "fields",
    [
        {"locations": "1,2,3"},  # not four numbers
        {"locations": "3,2,1,4"},  # corners the wrong way round
        {"locations": "west,2,3,4"},
        {"track": "redis,,django"},  # an empty phrase
        {"track": "x" * 61},  # over 60 bytes
        {"follow": "nobody_by_that_name"},
        {"follow": "bob,999999"},  # no user with that id
        {"follow": "not a login"},
    ],
)
def test_it_refuses_a_malformed_value_with_406(stream_server, bob, fields):
    assert error(filtered(stream_server, **fields))[0] == 406


@pytest.mark.parametrize("percent", ["0", "101", "lots"])
def test_it_refuses_a_bad_percent_with_406(stream_server, percent):
    connection = StreamConnection(
        stream_server.port, "GET", f"/statuses/sample.json?identifier=x&percent={percent}"
    )
    assert error(connection)[0] == 406


@pytest.mark.parametrize(
    "fields",
    [
        {"track": ",".join(["word"] * 401)},
        {"follow": ",".join(["someone"] * 5001)},
        {"locations": ",".join(["0,0,1,1"] * 26)},
    ],
)
def test_it_refuses_too_many_predicates_with_413(stream_server, fields):
    assert error(filtered(stream_server, **fields))[0] == 413


@pytest.mark.parametrize("path", ["/", "/statuses/firehose.json", "/statuses/sample"])
def test_other_paths_are_404(stream_server, path):
    assert error(StreamConnection(stream_server.port, "GET", path))[0] == 404


@pytest.mark.parametrize(
    ("method", "path", "allow"),
    [
        ("GET", "/statuses/filter.json?identifier=x", "POST"),
        ("PUT", "/statuses/sample.json?identifier=x", "GET, POST"),
        ("DELETE", "/statuses/sample.json?identifier=x", "GET, POST"),
    ],
)
def test_a_wrong_method_is_405(stream_server, method, path, allow):
    connection = StreamConnection(stream_server.port, method, path)
    assert error(connection)[0] == 405
    assert connection.headers["allow"] == allow


def test_it_only_reads_form_encoded_filters(stream_server):
    connection = StreamConnection(
        stream_server.port,
        "POST",
        "/statuses/filter.json?identifier=x",
        body='{"track": "x"}',
        headers={"Content-Type": "application/json"},
    )
    assert error(connection)[0] == 415


# --- keep-alives, one subscription, slow and vanished clients ---


def test_a_quiet_stream_gets_a_blank_line_as_keepalive(stream_server):
    with sample(stream_server) as stream:
        assert stream.read_line(timeout=10 * KEEPALIVE_SECONDS) == ""


def test_one_subscription_serves_every_client_of_the_process(r, stream_server, alice):
    streams = [sample(stream_server, f"client {n}") for n in range(5)]
    try:
        health = stream_server.wait_until(lambda health: health["clients"] == 5)
        assert health["subscriptions"] == 1
        assert events.subscriber_count(r) == 1
        sid = post(r, alice, "for everyone")
        assert [stream.read_json()["id"] for stream in streams] == [sid] * 5
    finally:
        for stream in streams:
            stream.close()


def test_a_client_that_goes_away_is_forgotten_at_once(stream_server):
    stream = sample(stream_server)
    stream_server.wait_until(lambda health: health["clients"] == 1)
    stream.close()
    stream_server.wait_until(lambda health: health["clients"] == 0, timeout=5)


def test_a_slow_client_is_dropped_and_a_fast_one_keeps_receiving(r, stream_server, alice):
    dropped_before = stream_server.health()["clients_dropped"]
    count = 300
    # The slow client never reads, with a small TCP window: the server's socket and
    # write buffers fill, then its queue of CLIENT_BUFFER events, then it is dropped.
    slow = sample(stream_server, "slow", receive_buffer=4096)
    fast = sample(stream_server, "fast")
    received = []

    def read_fast():
        while len(received) < count:
            received.append(fast.read_json(timeout=30)["id"])

    reader = threading.Thread(target=read_fast, daemon=True)
    reader.start()
    try:
        big = "x" * 20_000
        posted = [post(r, alice, f"{n} {big}") for n in range(count)]
        reader.join(timeout=60)
        assert received == posted
        health = stream_server.wait_until(
            lambda health: health["clients_dropped"] > dropped_before, timeout=10
        )
        assert health["clients"] == 1  # the fast one
        # The slow client reads what reached it, then finds the connection cut
        # without the end of the response.
        with pytest.raises(StreamClosed):
            while True:
                slow.read_line(timeout=10)
        sid = post(r, alice, "still streaming")
        assert fast.read_json()["id"] == sid
    finally:
        slow.close()
        fast.close()


def test_the_stream_survives_a_redis_restart(tmp_path, settings):
    """Its own Redis server (restartable, also on a cluster run) and stream server."""
    redis_server = RedisServer(tmp_path / "redis").start()
    own = redis_client.connect(redis_server.url)
    server = StreamServerProcess(
        redis_server.url, log_path=tmp_path / "stream.log", keepalive=KEEPALIVE_SECONDS
    ).start()
    try:
        with sample(server) as stream:
            alice = make_user(own, "alice")
            sid = post(own, alice, "before")
            assert stream.read_json()["id"] == sid

            redis_server.restart()  # killed as by a crash; its data is gone
            health = server.wait_until(
                lambda health: health["subscribed"] and health["resubscribed"] >= 1, timeout=30
            )
            assert health["clients"] == 1
            assert events.subscriber_count(own) == 1

            alice = make_user(own, "alice")
            sid = post(own, alice, "after")
            # The same connection: keep-alives may have arrived meanwhile, then this.
            assert stream.read_json()["id"] == sid
    finally:
        server.stop()
        redis_server.stop()


# --- the process ---


def test_sigterm_ends_every_stream_cleanly_then_the_process(redis_backend, tmp_path, alice, r):
    server = StreamServerProcess(
        redis_backend.url, redis_backend.cluster, log_path=tmp_path / "stream.log"
    ).start()
    try:
        stream = sample(server)
        sid = post(r, alice, "last words")
        assert stream.read_json()["id"] == sid
    finally:
        assert server.stop() == 0
    assert stream.read_json() is None  # the final chunk: a clean end of the response
    assert stream.ended
    stream.close()


def test_users_can_be_followed_by_the_thousand(r, stream_server):
    """follow's logins are resolved in bulk: thousands cost a couple of round trips."""
    logins = [f"user{n}" for n in range(1000)]
    for login in logins:
        users.create_user(r, login, login, "")
    with filtered(stream_server, follow=",".join(logins)) as stream:
        assert stream.status == 200
        last = users.get_user_by_login(r, logins[-1])
        sid = post(r, last, "the last one")
        assert stream.read_json()["id"] == sid


# --- reposts -------------------------------------------------------------------------------


def test_a_repost_is_sent_as_a_retweet_and_its_undo_as_the_usual_notice(
    r, stream_server, alice, bob, carol
):
    from socialsite.repository import keys, reposts

    with filtered(stream_server, follow="bob") as stream:
        sid = post(r, alice, "worth a retweet")  # by alice: not followed
        reposts.repost(r, carol["id"], sid)  # by carol: not followed either
        reposts.repost(r, bob["id"], sid)
        line = stream.read_json()
        rid = int(r.zscore(keys.reposted(bob["id"]), sid))
        reposts.unrepost(r, bob["id"], sid)
        assert stream.read_json() == deleted(rid, bob["id"])
    assert line["id"] == rid
    assert line["user"]["id"] == bob["id"] and line["user"]["screen_name"] == "bob"
    assert line["text"] == "RT @alice: worth a retweet"
    original = line["retweeted_status"]
    assert original["id"] == sid and original["text"] == original["message"] == "worth a retweet"
    assert original["user"]["id"] == alice["id"] and original["user"]["screen_name"] == "alice"
    assert original["user"]["statuses_count"] == 1


def test_a_retweets_original_has_its_entities_as_an_object(r, stream_server, alice, bob):
    """Not the packed string the status hash keeps (entities.pack)."""
    from socialsite.repository import reposts

    with sample(stream_server) as stream:
        sid = post(r, alice, "#Redis by @bob")
        assert stream.read_json()["id"] == sid
        reposts.repost(r, bob["id"], sid)
        line = stream.read_json()
    original = line["retweeted_status"]
    assert original["entities"] == {
        "hashtags": [{"text": "Redis", "indices": [0, 6]}],
        "user_mentions": [
            {"screen_name": "bob", "id": bob["id"], "id_str": str(bob["id"]), "indices": [10, 14]}
        ],
        "urls": [],
    }
    # The retweet's own text and entities are Twitter's: "RT @alice: " before the original's.
    assert line["text"] == "RT @alice: #Redis by @bob"
    assert line["entities"] == {
        "hashtags": [{"text": "Redis", "indices": [11, 17]}],
        "user_mentions": [
            {"screen_name": "alice", "id": alice["id"], "id_str": str(alice["id"]),
             "indices": [3, 9]},
            {"screen_name": "bob", "id": bob["id"], "id_str": str(bob["id"]), "indices": [21, 25]},
        ],
        "urls": [],
    }  # fmt: skip
    assert not any(isinstance(value, str) and value.startswith("{") for value in original.values())


def test_deleting_the_original_sends_the_notice_for_each_repost(r, stream_server, alice, bob):
    from socialsite.repository import keys, reposts, worker

    with filtered(stream_server, follow="bob") as stream:
        sid = post(r, alice, "soon gone")
        reposts.repost(r, bob["id"], sid)
        rid = stream.read_json()["id"]
        assert rid == int(r.zscore(keys.reposted(bob["id"]), sid))
        delete(r, alice, sid)
        worker.work_until_idle(r)  # the job that undoes its reposts
        assert stream.read_json() == deleted(rid, bob["id"])

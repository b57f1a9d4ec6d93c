"""A client nobody here wrote, on the streaming API: tweepy 4.12's v1.1 ``Stream`` (the
last tweepy with Twitter's v1.1 streaming client), against ``manage.py stream`` over
real sockets, as a Twitter client would use stream.twitter.com.

tweepy routes each line itself: a line with ``in_reply_to_status_id`` is a Tweet
(``on_status``, parsed into its Status model), one with ``delete`` a deletion notice
(``on_delete``); it signs every request with OAuth 1.0a and sends no ``identifier``.
"""

import datetime
import queue
import time

import pytest
import tweepy
from requests_oauthlib import OAuth1
from tweepy.streaming import BaseStream

from socialsite.repository import graph, reposts, statuses
from streaming import filters
from tests.support.helpers import post

# Short, so that a stream told to disconnect notices within a couple of seconds (tweepy
# checks between lines), long enough for a connection to be made well before the first.
KEEPALIVE_SECONDS = 2
CONSUMER_KEY = "tweepy-consumer-key"


@pytest.fixture(scope="module")
def stream_server_options():
    """This module's stream_server (tests/conftest.py)."""
    return {"keepalive": KEEPALIVE_SECONDS}


class TestServerStream(tweepy.Stream):
    """tweepy's v1.1 Stream pointed at the test server. ``Stream._connect`` builds
    https://stream.twitter.com/1.1/<endpoint>.json, signs it with OAuth1 and hands it to
    ``BaseStream._connect`` (the request, the reconnection loop, and the routing of each
    line to on_status, on_delete...). This override builds the same path on the test
    server, over plain http, and changes nothing else. What tweepy calls back is queued
    in ``received`` as (kind, value) pairs for the test to read."""

    __test__ = False  # not a test class, whatever its name

    def __init__(self, server):
        super().__init__(
            CONSUMER_KEY, "consumer-secret", "access-token", "access-token-secret", max_retries=0
        )
        self.base_url = server.url
        self.received = queue.Queue()

    def _connect(self, method, endpoint, **kwargs):
        auth = OAuth1(
            self.consumer_key, self.consumer_secret, self.access_token, self.access_token_secret
        )
        url = f"{self.base_url}/1.1/{endpoint}.json"
        BaseStream._connect(self, method, url, auth=auth, timeout=90, **kwargs)

    def on_connect(self):
        self.received.put(("connect", time.monotonic()))

    def on_keep_alive(self):
        self.received.put(("keep-alive", time.monotonic()))

    def on_status(self, status):
        self.received.put(("status", status))

    def on_delete(self, status_id, user_id):
        self.received.put(("delete", (status_id, user_id)))

    def on_request_error(self, status_code):
        self.received.put(("error", status_code))
        self.disconnect()

    def on_connection_error(self):
        self.received.put(("connection error", None))
        self.disconnect()

    def on_exception(self, exception):
        self.received.put(("exception", exception))

    def next(self, timeout=10):
        """The next callback but keep-alives, as (kind, value), within ``timeout`` seconds
        (queue.Empty if none)."""
        deadline = time.monotonic() + timeout
        while True:
            kind, value = self.received.get(timeout=max(0, deadline - time.monotonic()))
            if kind != "keep-alive":
                return kind, value

    def statuses(self, count):
        """The next ``count`` statuses (failing on anything else)."""
        found = []
        for _ in range(count):
            kind, value = self.next()
            assert kind == "status", (kind, value)
            found.append(value)
        return found


@pytest.fixture
def open_stream(stream_server):
    """``open_stream(method, **arguments)``: a TestServerStream running ``method``
    ("sample" or "filter") in its thread, connected; disconnected at the end."""
    running = []

    def start(method, **arguments):
        stream = TestServerStream(stream_server)
        thread = getattr(stream, method)(threaded=True, **arguments)
        running.append((stream, thread))
        assert stream.next()[0] == "connect"
        return stream

    yield start
    for stream, _ in running:
        stream.disconnect()
    for stream, thread in running:
        thread.join(timeout=3 * KEEPALIVE_SECONDS)
        assert not thread.is_alive()
        assert stream.received.empty() or all(
            kind in ("keep-alive", "status") for kind, _ in list(stream.received.queue)
        )


def test_sample_sends_tweets_tweepy_reads_without_an_identifier(r, open_stream, alice, bob):
    stream = open_stream("sample")  # 10%, chosen by its consumer key: no identifier
    posted = [post(r, alice, f"#Redis status {n} for @bob") for n in range(100)]
    keep = filters.SampleFilter(CONSUMER_KEY, filters.DEFAULT_SAMPLE_PERCENT).keep
    expected = [sid for sid in posted if sid % 100 in keep]
    received = stream.statuses(len(expected))
    assert [status.id for status in received] == expected
    status = received[0]
    stored = statuses.get_status(r, status.id)
    assert status.id_str == str(status.id)
    assert status.text == stored["message"]
    assert status.user.screen_name == status.author.screen_name == "alice"
    assert status.user.id_str == str(alice["id"])
    assert status.user.statuses_count == posted.index(status.id) + 1  # at posting time
    # tweepy parses created_at (email.utils.parsedate_to_datetime) to an aware datetime.
    posted_at = datetime.datetime.fromtimestamp(stored["posted"], datetime.UTC)
    assert status.created_at == posted_at.replace(microsecond=0)
    assert status.user.created_at.tzinfo is not None
    assert status.entities["hashtags"] == [{"text": "Redis", "indices": [0, 6]}]
    assert status.entities["user_mentions"][0]["screen_name"] == "bob"
    assert status.in_reply_to_status_id is None


def test_a_repost_arrives_as_a_retweet_whose_original_has_its_entities(
    r, open_stream, alice, bob, carol
):
    stream = open_stream("filter", follow=[bob["id"]])
    sid = post(r, alice, "#Redis streams, says @carol https://redis.io/docs")
    reposts.repost(r, bob["id"], sid)
    (retweet,) = stream.statuses(1)
    assert retweet.user.screen_name == "bob"
    assert retweet.text.startswith("RT @alice: #Redis streams")
    original = retweet.retweeted_status
    assert isinstance(original, tweepy.models.Status)
    assert original.id == sid and original.user.screen_name == "alice"
    assert original.text == "#Redis streams, says @carol https://redis.io/docs"
    assert original.entities["hashtags"] == [{"text": "Redis", "indices": [0, 6]}]
    assert [mention["id"] for mention in original.entities["user_mentions"]] == [carol["id"]]
    assert original.entities["urls"][0]["expanded_url"] == "https://redis.io/docs"


def test_a_deletion_calls_on_delete(r, open_stream, alice):
    stream = open_stream("filter", track=["regret"])
    sid = post(r, alice, "a regret")
    assert stream.statuses(1)[0].id == sid
    assert statuses.delete_status(r, alice["id"], sid) is statuses.DeleteResult.DELETED
    assert stream.next() == ("delete", (sid, alice["id"]))


def test_filter_track_delivers_the_match_and_only_it(r, open_stream, alice):
    stream = open_stream("filter", track=["redis cluster", "django"])
    post(r, alice, "redis alone")
    first = post(r, alice, "A Redis CLUSTER, at last")
    post(r, alice, "nothing of interest")
    second = post(r, alice, "#Django")
    # A stream never says "that was all": the second match coming next proves that
    # nothing between the two was sent.
    assert [status.id for status in stream.statuses(2)] == [first, second]


def test_filter_follow_and_locations_as_tweepy_sends_them(r, open_stream, alice, bob, carol):
    graph.follow(r, carol["id"], bob["id"])
    # tweepy writes each coordinate with four decimals: "2.2000,48.8000,2.5000,48.9000".
    stream = open_stream("filter", follow=[bob["id"]], locations=[2.2, 48.8, 2.5, 48.9])
    post(r, carol, "not followed, elsewhere", location="51.5074,-0.1278")
    by_bob = post(r, bob, "by bob")
    in_paris = post(r, carol, "in Paris", location="48.8566,2.3522")
    received = stream.statuses(2)
    assert [status.id for status in received] == [by_bob, in_paris]
    assert received[1].coordinates == {"type": "Point", "coordinates": [2.3522, 48.8566]}
    assert received[1].place.bounding_box.coordinates == [[[2.3522, 48.8566]] * 4]


def test_the_headers_arrive_before_any_event_on_a_quiet_stream(stream_server):
    """tweepy calls on_connect once it has the response's headers: on a stream that has
    nothing to send, before the first keep-alive, the first bytes of the body."""
    stream = TestServerStream(stream_server)
    started = time.monotonic()
    thread = stream.filter(track=["nobody says this"], threaded=True)
    try:
        kind, connected = stream.received.get(timeout=KEEPALIVE_SECONDS / 2)
        assert kind == "connect"
        assert connected - started < KEEPALIVE_SECONDS / 2
        kind, _ = stream.received.get(timeout=3 * KEEPALIVE_SECONDS)
        assert kind == "keep-alive"
    finally:
        stream.disconnect()
        thread.join(timeout=3 * KEEPALIVE_SECONDS)

"""Statuses as Twitter's v1.1 Tweet objects (streaming/tweets.py), in process:
the shapes, and that the hub makes an event's line once whatever the number of clients.
The same over real sockets: test_streaming_api.py and, with tweepy, test_streaming_tweepy.py.
"""

import asyncio
import json
from email.utils import parsedate_to_datetime

import pytest

from media import files
from socialsite.repository import entities
from streaming import filters, tweets, twitter
from streaming.filters import StatusEvent
from streaming.hub import Hub
from streaming.twitter import JSON_LINES

AUTHOR = {"id": 7, "login": "alice", "name": "Alice L.", "followers": 3, "following": 2,
          "posts": 10, "signup": 1_500_000_000.0}  # fmt: skip


def status(sid=41, message="Hi #rain @bob", **fields):
    found = entities.find(message)
    packed = entities.pack(entities.build(message, found, {"bob": 8}))
    return {"id": sid, "uid": 7, "login": "alice", "message": message,
            "posted": 1539202764.5, "entities": packed, "author": AUTHOR, **fields}  # fmt: skip


def test_created_at_is_twitters_format_which_email_utils_parses():
    assert tweets.twitter_time(1539202764.9) == "Wed Oct 10 20:19:24 +0000 2018"
    assert tweets.twitter_time(0) == "Thu Jan 01 00:00:00 +0000 1970"
    parsed = parsedate_to_datetime(tweets.twitter_time(1539202764))
    assert parsed.timestamp() == 1539202764 and parsed.utcoffset().total_seconds() == 0


def test_a_tweet_has_twitters_fields_and_the_books_beside_them():
    tweet = tweets.tweet(status())
    assert tweet["id_str"] == "41" and tweet["text"] == "Hi #rain @bob"
    assert tweet["entities"] == {
        "hashtags": [{"text": "rain", "indices": [3, 8]}],
        "user_mentions": [{"screen_name": "bob", "id": 8, "id_str": "8", "indices": [9, 13]}],
        "urls": [],
    }
    assert tweet["user"] == {
        "id": 7, "id_str": "7", "name": "Alice L.", "screen_name": "alice", "protected": False,
        "followers_count": 3, "friends_count": 2, "statuses_count": 10,
        "created_at": "Fri Jul 14 02:40:00 +0000 2017",
    }  # fmt: skip
    assert tweet["timestamp_ms"] == "1539202764500"
    assert {name: tweet[name] for name in ("message", "posted", "uid", "login")} == {
        "message": "Hi #rain @bob", "posted": 1539202764.5, "uid": 7, "login": "alice"
    }  # fmt: skip
    # Nothing of the stored form, nor of the site's bookkeeping.
    assert "author" not in tweet and not isinstance(tweet["entities"], str)


def test_the_reply_fields_are_always_there():
    plain = tweets.tweet(status())
    reply = tweets.tweet(
        status(in_reply_to=40, in_reply_to_uid=8, in_reply_to_login="bob", ancestors="40")
    )
    names = ("in_reply_to_status_id", "in_reply_to_status_id_str", "in_reply_to_user_id",
             "in_reply_to_user_id_str", "in_reply_to_screen_name")  # fmt: skip
    assert [plain[name] for name in names] == [None] * 5
    assert [reply[name] for name in names] == [40, "40", 8, "8", "bob"]
    assert not {"in_reply_to", "in_reply_to_uid", "in_reply_to_login", "ancestors"} & set(reply)


def test_a_retweets_text_and_entities_are_twitters_and_its_original_a_whole_tweet():
    original = status(message="🙂 #Redis by @bob")
    reposter = {**AUTHOR, "id": 9, "login": "carol", "name": "Carol"}
    repost = {"id": 50, "uid": 9, "login": "carol", "message": "", "posted": 1539202800.0,
              "repost_of": 41, "repost_of_uid": 7, "retweeted_status": original,
              "author": reposter}  # fmt: skip
    tweet = tweets.tweet(repost)
    assert tweet["text"] == "RT @alice: 🙂 #Redis by @bob"
    # Indices in code points of the text, as Twitter's: the emoji is one.
    assert tweet["entities"]["hashtags"] == [{"text": "Redis", "indices": [13, 19]}]
    assert tweet["entities"]["user_mentions"] == [
        {"screen_name": "alice", "id": 7, "id_str": "7", "indices": [3, 9]},
        {"screen_name": "bob", "id": 8, "id_str": "8", "indices": [23, 27]},
    ]
    assert tweet["user"]["screen_name"] == "carol"
    assert tweet["retweeted_status"] == tweets.tweet(original)
    original_tags = tweet["retweeted_status"]["entities"]["hashtags"]
    assert original_tags == [{"text": "Redis", "indices": [2, 8]}]
    for entity in tweet["entities"]["hashtags"] + tweet["entities"]["user_mentions"]:
        start, end = entity["indices"]
        assert tweet["text"][start] in "#@"
        assert tweet["text"][start + 1 : end] in (entity.get("text"), entity.get("screen_name"))


def test_a_located_status_has_geojson_coordinates_and_a_point_place():
    tweet = tweets.tweet(status(location="-33.8688,151.2093"))
    assert tweet["coordinates"] == {"type": "Point", "coordinates": [151.2093, -33.8688]}
    assert tweet["geo"] == {"type": "Point", "coordinates": [-33.8688, 151.2093]}
    assert tweet["place"]["place_type"] == "poi"
    assert tweet["place"]["bounding_box"]["coordinates"] == [[[151.2093, -33.8688]] * 4]
    assert tweet["location"] == "-33.8688,151.2093"
    for broken in ("", "north", "1,2,3", "nan,0"):
        assert tweets.tweet(status(location=broken))["coordinates"] is None


def test_an_event_without_its_author_gets_a_user_made_of_its_login():
    bare = {"id": 1, "uid": 3, "login": "dave", "message": "hi", "posted": 1.0}
    assert tweets.tweet(bare)["user"] == {
        "id": 3, "id_str": "3", "name": "dave", "screen_name": "dave", "protected": False
    }  # fmt: skip


def test_a_deletion_is_twitters_notice_with_the_books_beside_it():
    assert tweets.delete_notice({"id": 41, "uid": 7, "message": "gone", "deleted": True}) == {
        "delete": {"status": {"id": 41, "id_str": "41", "user_id": 7, "user_id_str": "7"}},
        "id": 41,
        "deleted": True,
    }


def test_the_hub_makes_each_events_line_once_for_all_its_clients(monkeypatch):
    made = []

    def counted(status, found=None, media_url=tweets.relative_media_url):
        made.append(status["id"])
        return tweet(status, found, media_url)

    tweet = tweets.tweet
    monkeypatch.setattr(tweets, "tweet", counted)

    async def scenario():
        hub = Hub([])
        clients = [
            hub.client(filters.SampleFilter(f"client {n}", 100), JSON_LINES, f"firehose {n}")
            for n in range(200)
        ]
        for client in clients:
            hub.add(client)
        for sid in (1, 2, 3):
            await hub.dispatch(json.dumps(status(sid=sid)))
        return [client.pending for client in clients]

    pending = asyncio.run(scenario())
    assert made == [1, 2, 3]
    # Every client was queued the very same bytes objects.
    assert all(len(queued) == 3 for queued in pending)
    for n in range(3):
        assert len({id(queued[n]) for queued in pending}) == 1
    assert json.loads(pending[0][0])["id_str"] == "1"


@pytest.mark.parametrize("deleted", [False, True])
def test_the_api_line_of_an_event_is_one_line_of_json(deleted):
    event = StatusEvent({**status(message="line\nbreak"), "deleted": deleted})
    line = JSON_LINES.bytes_for(event)
    assert line.endswith(b"\n") and line.count(b"\n") == 1
    assert json.loads(line)["id"] == 41


def test_the_consumer_key_is_read_from_an_oauth_authorization_header_only():
    header = 'OAuth realm="stream", oauth_consumer_key="my%20app", oauth_signature="a%3D"'
    assert twitter.oauth_consumer_key(header) == "my app"
    assert twitter.oauth_consumer_key('oauth oauth_consumer_key = "key"') == "key"
    assert twitter.oauth_consumer_key('OAuth oauth_token="t", oauth_nonce="n"') is None
    assert twitter.oauth_consumer_key("Bearer oauth_consumer_key") is None
    assert twitter.oauth_consumer_key("") is None and twitter.oauth_consumer_key(None) is None


MEDIA = json.dumps([
    {"o": "attachments/AAAA.jpg", "p": "attachments/BBBB.jpg", "w": 3840, "h": 2160,
     "pw": 640, "ph": 360, "a": "A heron", "c": "#445566"},
    {"o": "attachments/CCCC.webp", "p": "attachments/DDDD.webp", "w": 100, "h": 80,
     "pw": 100, "ph": 80, "a": "", "c": "#ffffff"},
])  # fmt: skip


def test_a_status_with_images_carries_twitters_photo_entities():
    tweet = tweets.tweet(status(media=MEDIA), media_url=lambda name: f"https://cdn.test/{name}")
    photos = tweet["extended_entities"]["media"]
    assert [photo["id_str"] for photo in photos] == ["410", "411"]
    first = photos[0]
    assert first["type"] == "photo"
    assert first["media_url_https"] == first["url"] == "https://cdn.test/attachments/AAAA.jpg"
    assert first["preview_url_https"] == "https://cdn.test/attachments/BBBB.jpg"
    assert first["sizes"] == {
        "large": {"w": 3840, "h": 2160, "resize": "fit"},
        "small": {"w": 640, "h": 360, "resize": "fit"},
    }
    assert first["ext_alt_text"] == "A heron" and photos[1]["ext_alt_text"] is None
    # As Twitter's v1.1: the first photo in entities, all of them in extended_entities.
    assert tweet["entities"]["media"] == [first]
    assert tweet["entities"]["hashtags"] == [{"text": "rain", "indices": [3, 8]}]
    assert "media" not in tweet  # the stored form is not sent


def test_media_urls_are_relative_by_default_and_a_status_without_images_has_none():
    tweet = tweets.tweet(status(media=MEDIA))
    assert tweet["entities"]["media"][0]["media_url_https"] == "/media/attachments/AAAA.jpg"
    plain = tweets.tweet(status())
    assert "media" not in plain["entities"] and "extended_entities" not in plain
    assert "extended_entities" not in tweets.tweet(status(media="not json"))


def test_a_retweet_carries_its_originals_images():
    original = status(media=MEDIA)
    repost = {"id": 50, "uid": 9, "login": "carol", "message": "", "posted": 1539202800.0,
              "repost_of": 41, "retweeted_status": original, "author": AUTHOR}  # fmt: skip
    tweet = tweets.tweet(repost)
    photos = tweet["retweeted_status"]["extended_entities"]["media"]
    assert len(photos) == 2 and tweet["extended_entities"]["media"] == photos


def test_the_api_line_of_a_status_with_images_names_full_urls_on_the_site(settings):
    settings.SITE_URL = "https://social.example.org"
    line = JSON_LINES.bytes_for(StatusEvent(status(media=MEDIA)))
    photo = json.loads(line)["extended_entities"]["media"][0]
    assert photo["media_url_https"] == "https://social.example.org/media/attachments/AAAA.jpg"
    assert photo["preview_url_https"] == "https://social.example.org/media/attachments/BBBB.jpg"


def test_media_on_another_origin_keep_its_urls(settings):
    settings.MEDIA_URL = "https://cdn.example.net/m/"
    assert files.absolute_url("attachments/A.jpg") == "https://cdn.example.net/m/attachments/A.jpg"

"""The streaming API's filters and parameter checks, in memory (no server, no Redis).

The same behaviour is tested over real sockets in test_streaming_api.py; here each
rule gets its edge cases cheaply.
"""

import pytest

from streaming import filters
from streaming.filters import RequestError, StatusEvent


def event(message="", uid=1, sid=1, location=None, deleted=False, login="alice"):
    status = {"id": sid, "uid": uid, "login": login, "message": message, "posted": 1.0}
    if location is not None:
        status["location"] = location
    if deleted:
        status["deleted"] = True
    return StatusEvent(status)


def refused(status, parse, *args):
    with pytest.raises(RequestError) as caught:
        parse(*args)
    assert caught.value.status == status
    assert caught.value.message  # a readable reason
    return caught.value.message


# --- events ---


def test_an_event_decodes_a_published_status():
    decoded = StatusEvent.from_json('{"id": "7", "uid": 3, "message": "hi", "deleted": true}')
    assert (decoded.id, decoded.uid, decoded.deleted) == (7, 3, True)


@pytest.mark.parametrize("text", ["[]", '{"uid": 1}', '{"id": "x", "uid": 1}', "not json"])
def test_a_malformed_event_is_refused(text):
    with pytest.raises(ValueError):
        StatusEvent.from_json(text)


def test_words_ignore_case_and_surrounding_punctuation():
    words = event("Hello, WORLD! #Django's (great)").words
    assert {"hello", "hello,", "world", "world!", "django's", "great"} <= words


def test_mentions_must_start_a_word():
    assert event("hi @Bob, and @carol_2! mail dave@example.com").mentions == {"bob", "carol_2"}


@pytest.mark.parametrize("location", ["", "1", "a,b", "1,2,3", "nan,1", "inf,2"])
def test_a_status_without_a_usable_location_has_no_point(location):
    assert event(location=location).point is None


# --- sample ---


def test_sample_keeps_percent_of_every_hundred_ids():
    sample = filters.SampleFilter("client-1", 10)
    kept = [sid for sid in range(1, 1001) if sample(event(sid=sid))]
    assert len(kept) == 100
    assert {sid % 100 for sid in kept} == sample.keep


def test_sample_is_the_same_for_the_same_identifier_and_differs_between_identifiers():
    assert filters.SampleFilter("a", 10).keep == filters.SampleFilter("a", 10).keep
    assert filters.SampleFilter("a", 10).keep != filters.SampleFilter("b", 10).keep


def test_a_bigger_sample_contains_the_smaller_one():
    # The identifier's shuffle is cut at percent: raising it only adds statuses.
    assert filters.SampleFilter("a", 5).keep < filters.SampleFilter("a", 50).keep


def test_sample_of_100_is_the_firehose():
    sample = filters.SampleFilter("a", 100)
    assert all(sample(event(sid=sid)) for sid in range(1, 201))


# --- track ---


def test_track_needs_every_word_of_a_phrase_in_any_order_and_case():
    track = filters.TrackFilter(["redis cluster"])
    assert track(event("A CLUSTER of Redis servers"))
    assert not track(event("redis alone"))


def test_track_matches_any_of_its_phrases():
    track = filters.TrackFilter(["redis", "django orm"])
    assert track(event("redis!"))
    assert track(event("the ORM of Django"))
    assert not track(event("django only"))


def test_track_matches_whole_words_only():
    assert not filters.TrackFilter(["red"])(event("redis"))


# --- follow ---


def test_follow_matches_the_author():
    follow = filters.FollowFilter({2}, {"bob"})
    assert follow(event("anything", uid=2, login="bob"))
    assert not follow(event("anything", uid=3, login="carol"))


def test_follow_matches_a_mention_in_any_case():
    assert filters.FollowFilter({2}, {"bob"})(event("thanks @BOB!", uid=3))


# --- locations ---


def test_location_matches_inside_a_box_and_on_its_edges():
    paris = filters.LocationFilter([(2.2, 48.8, 2.5, 48.9)])  # west, south, east, north
    assert paris(event(location="48.85,2.35"))  # "lat,lon"
    assert paris(event(location="48.8,2.2"))
    assert not paris(event(location="2.35,48.85"))  # swapped: not Paris
    assert not paris(event())


def test_location_matches_any_box():
    boxes = filters.LocationFilter([(0, 0, 1, 1), (10, 10, 11, 11)])
    assert boxes(event(location="10.5,10.5"))
    assert not boxes(event(location="5,5"))


def test_any_filter_matches_when_one_predicate_does():
    combined = filters.AnyFilter([filters.TrackFilter(["x"]), filters.FollowFilter({9}, set())])
    assert combined(event("x"))
    assert combined(event("y", uid=9))
    assert not combined(event("y"))


# --- parameter checks ---


def test_an_identifier_is_optional_and_bounded():
    assert filters.parse_identifier(None) is None
    assert filters.parse_identifier("  ") is None  # the client is then known otherwise
    refused(406, filters.parse_identifier, "x" * 201)
    assert filters.parse_identifier(" me ") == "me"


@pytest.mark.parametrize("value", ["0", "101", "ten", "-5", "5.5", "", "²"])
def test_it_rejects_a_bad_percent(value):
    refused(406, filters.parse_percent, value)


def test_percent_defaults_to_ten():
    assert filters.parse_percent(None) == 10
    assert filters.parse_percent("100") == 100


def test_track_phrases_come_from_commas_and_repeated_fields():
    assert filters.parse_track(["a b, c", "d"]) == ["a b", "c", "d"]


@pytest.mark.parametrize("value", ["", "a,,b", "a,", " , "])
def test_it_rejects_an_empty_phrase(value):
    refused(406, filters.parse_track, [value])


def test_a_phrase_is_at_most_60_bytes():
    assert filters.parse_track(["é" * 30]) == ["é" * 30]
    refused(406, filters.parse_track, ["é" * 31])  # 62 bytes in UTF-8


def test_at_most_400_phrases():
    assert len(filters.parse_track([",".join(["w"] * 400)])) == 400
    refused(413, filters.parse_track, [",".join(["w"] * 401)])


def test_follow_takes_logins_with_or_without_at_and_ids():
    assert filters.parse_follow(["@alice, bob", "42"]) == ["alice", "bob", "42"]


@pytest.mark.parametrize("value", ["", "alice,,bob", "not a login", "al-ice", "@"])
def test_it_rejects_a_malformed_follow(value):
    refused(406, filters.parse_follow, [value])


def test_at_most_5000_follows():
    refused(413, filters.parse_follow, [",".join(["u"] * 5001)])


def test_locations_are_groups_of_four_numbers():
    assert filters.parse_locations(["-122.75,36.8,-121.75,37.8", "1,2,3,4"]) == [
        (-122.75, 36.8, -121.75, 37.8),
        (1, 2, 3, 4),
    ]


@pytest.mark.parametrize(
    "value",
    [
        "1,2,3",  # not a group of four
        "a,2,3,4",  # not a number
        "nan,2,3,4",
        "1,2,inf,4",
        "3,2,1,4",  # west east of east
        "1,4,3,2",  # south north of north
        "-181,0,0,1",  # no such longitude
        "0,-91,1,0",  # no such latitude
        "",
    ],
)
def test_it_rejects_a_bad_box(value):
    refused(406, filters.parse_locations, [value])


def test_at_most_25_boxes():
    assert len(filters.parse_locations([",".join(["0,0,1,1"] * 25)])) == 25
    refused(413, filters.parse_locations, [",".join(["0,0,1,1"] * 26)])


# --- hashtags (entities stored with the status) ---


def tagged(message):
    """An event as published for ``message``: its entities packed as posting packs them."""
    from socialsite.repository import entities

    status = {"id": 1, "uid": 1, "login": "alice", "message": message, "posted": 1.0}
    packed = entities.pack(entities.parse(message, {}))
    if packed:
        status["entities"] = packed
    return StatusEvent(status)


@pytest.mark.parametrize(
    "message",
    ["#Redis's fast", "I ＃ＲＥＤＩＳ", "(#redis)", "#REDIS, then", "#redis"],
)
@pytest.mark.parametrize("phrase", ["#redis", "redis", "#Redis", "＃Ｒｅｄｉｓ", "REDIS"])
def test_track_matches_a_hashtag_with_or_without_its_sign(message, phrase):
    assert filters.TrackFilter([phrase])(tagged(message))


def test_track_with_a_sign_wants_the_hashtag_not_the_word():
    track = filters.TrackFilter(["#redis"])
    assert not track(tagged("redis without a sign"))
    assert not track(tagged("a#redis is no hashtag"))
    assert filters.TrackFilter(["redis"])(tagged("redis without a sign"))


def test_track_phrases_mix_hashtags_and_words():
    track = filters.TrackFilter(["#redis cluster"])
    assert track(tagged("a CLUSTER of #Redis's nodes"))
    assert not track(tagged("#redis alone"))


def test_an_event_gives_its_entities_in_twitters_format():
    assert tagged("#a https://b.io").entities == {
        "hashtags": [{"text": "a", "indices": [0, 2]}],
        "user_mentions": [],
        "urls": [
            {
                "url": "https://b.io",
                "expanded_url": "https://b.io",
                "display_url": "b.io",
                "indices": [3, 15],
            }
        ],
    }
    assert event("#old status, no field").entities == {
        "hashtags": [],
        "user_mentions": [],
        "urls": [],
    }


@pytest.mark.parametrize(("word", "tracked"), [("#Redis", "#redis"), ("＃ＲＥＤＩＳ", "#redis"),
                                               ("Straße", "strasse"), ("#", "#")])  # fmt: skip
def test_track_words_read_as_event_words_are(word, tracked):
    assert filters.track_word(word) == tracked


# --- replies and unread counts (the live pages) ---


def test_the_live_home_filter_applies_the_reply_rule():
    from streaming.home import HomeFilter

    home = HomeFilter(1, following={2, 3})  # user 1 follows 2 and 3, not 4

    def reply(uid, to):
        return StatusEvent({"id": 9, "uid": uid, "in_reply_to_uid": str(to), "message": ""})

    assert home(event(uid=2)) and not home(event(uid=4))
    assert home(reply(2, 3)) and home(reply(2, 1)) and home(reply(2, 2))
    assert not home(reply(2, 4))  # to someone user 1 does not follow
    assert home(reply(1, 4))  # their own, to anyone
    assert not home(reply(4, 1))  # by someone they do not follow


def test_an_unread_count_decodes_apart_from_statuses():
    unread = filters.event_from_json('{"unread": 5, "count": 2, "version": 9}')
    assert (unread.kind, unread.uid, unread.count, unread.version) == ("unread", 5, 2, 9)
    assert filters.event_from_json('{"id": 1, "uid": 2}').kind == "status"
    with pytest.raises(ValueError):
        filters.event_from_json('{"unread": "x", "count": 2, "version": 9}')

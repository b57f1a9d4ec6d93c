"""The entities parser (socialsite/repository/entities.py): the boundary rules of
mentions, hashtags and links, indices in code points, NFKC, the length that counts."""

import json

import pytest

from socialsite.repository import entities

KNOWN = {"alice": 1, "bob": 2, "a_b": 3, "x" * 30: 4}


def parse(message):
    return entities.parse(message, KNOWN)


def texts(message):
    """(hashtag texts, mentioned screen names, link urls) of ``message``."""
    found = parse(message)
    return (
        [tag["text"] for tag in found["hashtags"]],
        [mention["screen_name"] for mention in found["user_mentions"]],
        [url["url"] for url in found["urls"]],
    )


def sliced(message, entity):
    start, end = entity["indices"]
    return message[start:end]


# --- the format -------------------------------------------------------------------------


def test_it_gives_twitters_entities_object():
    message = "@bob see #Redis at https://redis.io/docs/latest/develop/data-types/ now"
    assert parse(message) == {
        "hashtags": [{"text": "Redis", "indices": [9, 15]}],
        "user_mentions": [{"screen_name": "bob", "id": 2, "indices": [0, 4]}],
        "urls": [
            {
                "url": "https://redis.io/docs/latest/develop/data-types/",
                "expanded_url": "https://redis.io/docs/latest/develop/data-types/",
                "display_url": "redis.io/docs/latest/develop/d…",
                "indices": [19, 67],
            }
        ],
    }


def test_a_message_without_entities_has_three_empty_lists():
    assert parse("just words, 100% plain") == entities.empty()
    assert entities.empty() == {"hashtags": [], "user_mentions": [], "urls": []}


@pytest.mark.parametrize(
    "prefix",
    ["", "🙂", "🙂🙂🙂 ", "👩‍👩‍👧 ", "é", "e\u0301 ", "𝕏 ", "\U0001f1eb\U0001f1f7 ", "中文 "],
)
def test_indices_count_code_points_whatever_comes_before(prefix):
    message = f"{prefix} @alice #tag https://example.org/ end"
    found = parse(message)
    every = found["hashtags"] + found["user_mentions"] + found["urls"]
    assert [sliced(message, e) for e in every] == ["#tag", "@alice", "https://example.org/"]
    # Code points: a character outside the BMP is one, as in Python and Twitter.
    assert found["user_mentions"][0]["indices"][0] == len(prefix) + 1


# --- mentions ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("message", "mentioned"),
    [
        ("@alice", ["alice"]),
        ("hi @alice!", ["alice"]),
        ("(@alice)", ["alice"]),
        ("@alice,@bob", ["alice", "bob"]),
        ("@ALICE", ["ALICE"]),  # shown as written, resolved in any case
        ("@alice's", ["alice"]),
        ("@aliceé", ["alice"]),  # ends at the first character a login cannot have
        ("@alice-bob", ["alice"]),
        ("@@alice", ["alice"]),
        ("#@alice", ["alice"]),
        ("@a_b.", ["a_b"]),
        ("@" + "x" * 30, ["x" * 30]),
        ("mail@alice", []),  # after a letter
        ("1@alice", []),  # after a digit
        ("_@alice", []),
        ("é@alice", []),  # after any letter
        ("a/@alice", []),
        ("x=@alice", []),
        ("@alice@example.org", []),  # someone elsewhere
        ("@" + "x" * 31, []),  # longer than any login
        ("@carol", []),  # nobody by that login: plain text
        ("@", []),
        ("@ alice", []),
    ],
)
def test_mention_boundaries(message, mentioned):
    assert texts(message)[1] == mentioned


def test_only_existing_users_are_mentioned_with_their_ids():
    found = entities.parse("@alice @nobody @BOB", {"alice": 1, "bob": 2})
    assert [(m["screen_name"], m["id"]) for m in found["user_mentions"]] == [
        ("alice", 1),
        ("BOB", 2),
    ]


def test_the_logins_to_resolve_are_lowercased_and_each_once():
    message = "@Alice @alice @nobody mail@bob"
    assert entities.find(message).mentioned_logins(message) == ["alice", "nobody"]


# --- hashtags ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("message", "tags"),
    [
        ("#redis", ["redis"]),
        ("I like #Redis.", ["Redis"]),
        ("#redis,#django", ["redis", "django"]),
        ("#redis_cluster", ["redis_cluster"]),
        ("#redis7", ["redis7"]),
        ("#7redis", ["7redis"]),
        ("#_x", ["_x"]),
        ("＃ｒｅｄｉｓ", ["ｒｅｄｉｓ"]),  # the full-width sign, full-width letters
        ("#café", ["café"]),
        ("#cafe\u0301!", ["cafe\u0301"]),  # a combining mark is part of the tag
        ("#東京", ["東京"]),
        ("#Straße", ["Straße"]),
        ("#redis's", ["redis"]),
        ("(#redis)", ["redis"]),
        ("#redis🙂", ["redis"]),
        ("#" + "a" * 64, ["a" * 64]),
        ("#123", []),  # at least one letter
        ("#_", []),
        ("#", []),
        ("# redis", []),
        ("a#redis", []),  # after a letter
        ("1#redis", []),
        ("_#redis", []),
        ("&#39;", []),  # a character reference, not a tag
        ("/#redis", []),
        ("##redis", []),
        ("#＃redis", []),
        ("#" + "a" * 65, []),  # longer than 64: no tag, rather than a cut one
        ("#redis-cluster", ["redis"]),
    ],
)
def test_hashtag_boundaries(message, tags):
    assert texts(message)[0] == tags


@pytest.mark.parametrize(
    ("written", "normalized"),
    [
        ("Redis", "redis"),
        ("REDIS", "redis"),
        ("ｒｅｄｉｓ", "redis"),  # NFKC: full-width to ASCII
        ("ＲＥＤＩＳ", "redis"),
        ("café", "café"),
        ("cafe\u0301", "café"),  # NFKC composes
        ("ﬁle", "file"),  # NFKC: the ligature
        ("Straße", "straße"),  # lower-casing, not case folding
    ],
)
def test_tags_compare_after_nfkc_and_lower_casing(written, normalized):
    assert entities.normalize_tag(written) == normalized
    assert entities.tags(parse(f"#{written}")) == [normalized]
    assert entities.is_tag(normalized)


def test_a_status_names_each_tag_once():
    assert entities.tags(parse("#Redis #redis ＃ＲＥＤＩＳ #django")) == ["redis", "django"]


@pytest.mark.parametrize(
    "text",
    ["", "123", "_", "a b", "a-b", "a/b", "a" * 65, "Redis", "ｒｅｄｉｓ", "<script>", "a%2Fb"],
)
def test_what_is_not_a_normalized_tag(text):
    assert not entities.is_tag(text)


# --- links ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("message", "urls"),
    [
        ("https://example.org", ["https://example.org"]),
        ("http://example.org/a?b=c&d=e#f", ["http://example.org/a?b=c&d=e#f"]),
        ("HTTPS://EXAMPLE.ORG/", ["HTTPS://EXAMPLE.ORG/"]),
        ("see https://example.org.", ["https://example.org"]),
        ("really? https://example.org/?!", ["https://example.org/"]),
        ("'https://example.org/x'", ["https://example.org/x"]),
        ("(https://example.org/a_(b))", ["https://example.org/a_(b)"]),
        ("(see https://example.org)", ["https://example.org"]),
        ("[https://example.org/]", ["https://example.org/"]),
        ("https://example.org:8080/x", ["https://example.org:8080/x"]),
        ("http://localhost", ["http://localhost"]),
        ("https://例え.jp/パス", ["https://例え.jp/パス"]),
        ("a https://a.org b https://b.org", ["https://a.org", "https://b.org"]),
        ('"https://example.org/"', ["https://example.org/"]),
        ("<https://example.org/>", ["https://example.org/"]),
        ("https://example.org/<script>", ["https://example.org/"]),
        ("🙂https://example.org", ["https://example.org"]),
        ("javascript:alert(1)", []),
        ("javascript://example.org/%0aalert(1)", []),
        ("ftp://example.org", []),
        ("xhttps://example.org", []),  # part of a word
        ("https://", []),
        ("https://.", []),
        ("https:///path", []),
        ("https://user@evil.example/", []),  # no user in a link we show
        ("https://[::1]/", []),
        ("https://-x.org", []),
        ("www.example.org", []),  # a scheme is needed
    ],
)
def test_link_boundaries(message, urls):
    assert texts(message)[2] == urls


def test_nothing_inside_a_link_is_a_mention_or_a_tag():
    message = "https://example.org/@alice/#redis?q=#x&u=@bob then #redis @alice"
    tags, mentioned, urls = texts(message)
    assert urls == ["https://example.org/@alice/#redis?q=#x&u=@bob"]
    assert tags == ["redis"]
    assert mentioned == ["alice"]
    found = parse(message)
    assert found["hashtags"][0]["indices"][0] > found["urls"][0]["indices"][1]


@pytest.mark.parametrize(
    ("url", "shown"),
    [
        ("https://example.org", "example.org"),
        ("http://example.org/", "example.org/"),
        ("HTTPS://Example.org", "Example.org"),
        ("https://" + "a" * 30, "a" * 30),
        ("https://" + "a" * 31, "a" * 30 + "…"),
        ("https://example.org/a/very/long/path/indeed", "example.org/a/very/long/path/i…"),
    ],
)
def test_display_url_drops_the_scheme_and_cuts_at_30(url, shown):
    assert entities.display_url(url) == shown
    assert parse(url)["urls"][0]["display_url"] == shown


# --- the length that counts -------------------------------------------------------------


@pytest.mark.parametrize(
    ("message", "length"),
    [
        ("", 0),
        ("hello", 5),
        ("🙂🙂", 2),  # code points
        ("https://a.io", 23),  # a short link counts 23 too
        ("https://example.org/" + "x" * 200, 23),
        ("see https://example.org/x.", 4 + 23 + 1),
        ("https://a.io https://b.io", 23 + 1 + 23),
        ("javascript://example.org", 24),  # no link: as written
        ("#tag @alice", 11),  # only links weigh otherwise
    ],
)
def test_weighted_length_counts_every_link_as_23(message, length):
    assert entities.weighted_length(message) == length


# --- stored with the status -------------------------------------------------------------


def test_packed_entities_are_small_and_unpack_to_the_same():
    message = "🙂 @alice #Redis https://example.org/a/long/path/to/somewhere/else"
    found = parse(message)
    packed = entities.pack(found)
    assert json.loads(packed) == {"h": [[9, 15]], "m": [[2, 8, 1]], "u": [[16, len(message)]]}
    assert entities.unpack(message, packed) == found


def test_no_entities_pack_to_nothing_and_nothing_unpacks_to_none():
    assert entities.pack(entities.empty()) == ""
    assert entities.unpack("#redis @alice", "") == entities.empty()
    assert entities.unpack("#redis @alice", None) == entities.empty()


@pytest.mark.parametrize(
    "packed",
    [
        "not json",
        "[1, 2]",
        '{"h": [[0, 99]]}',  # past the end
        '{"h": [[3, 1]]}',
        '{"h": [[1, 4]]}',  # does not start at a hash sign
        '{"m": [[0, 3]]}',  # no id
        '{"u": [[0, 6]]}',  # not a link
        '{"h": [["a", "b"]]}',
        '{"h": 5}',
    ],
)
def test_a_damaged_field_unpacks_to_what_fits_the_message(packed):
    # Shown as plain text rather than failing the page.
    assert entities.unpack("#redis", packed) == entities.empty()


def test_spans_that_fit_are_kept_beside_ones_that_do_not():
    packed = '{"h": [[0, 6], [2, 99]], "u": [[7, 9]]}'
    assert entities.unpack("#redis x", packed) == {
        "hashtags": [{"text": "redis", "indices": [0, 6]}],
        "user_mentions": [],
        "urls": [],
    }


def test_in_order_leaves_out_entities_that_overlap_one_before():
    found = {
        "hashtags": [{"text": "b", "indices": [3, 5]}],
        "user_mentions": [{"screen_name": "a", "id": 1, "indices": [0, 4]}],
        "urls": [{"url": "x", "expanded_url": "x", "display_url": "x", "indices": [6, 9]}],
    }
    assert [(start, end, kind) for start, end, kind, _ in entities.in_order(found)] == [
        (0, 4, "mention"),
        (6, 9, "url"),
    ]

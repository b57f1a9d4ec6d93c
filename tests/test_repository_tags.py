"""Entities stored at posting, and tag timelines (repository: statuses, tags, timelines)."""

import json

import pytest

from socialsite.repository import entities, keys, statuses, tags, timelines
from tests.support.helpers import post


def test_a_status_keeps_its_entities_packed_and_gives_them_in_twitters_format(r, alice, bob):
    message = "🙂 @bob @nobody #Redis https://redis.io/"
    sid = post(r, alice, message)
    stored = r.hget(keys.status(sid), "entities")
    assert json.loads(stored) == {"h": [[15, 21]], "m": [[2, 6, bob["id"]]], "u": [[22, 39]]}
    assert statuses.status_entities(statuses.get_status(r, sid)) == {
        "hashtags": [{"text": "Redis", "indices": [15, 21]}],
        "user_mentions": [{"screen_name": "bob", "id": bob["id"], "indices": [2, 6]}],
        "urls": [
            {
                "url": "https://redis.io/",
                "expanded_url": "https://redis.io/",
                "display_url": "redis.io/",
                "indices": [22, 39],
            }
        ],
    }


def test_a_status_without_entities_stores_no_field(r, alice):
    sid = post(r, alice, "nothing to see, @nobody")
    assert not r.hexists(keys.status(sid), "entities")
    assert statuses.status_entities(statuses.get_status(r, sid)) == entities.empty()


def test_a_status_posted_before_entities_existed_has_none(r, alice):
    sid = post(r, alice, "#old @alice https://example.org")
    r.hdel(keys.status(sid), "entities")  # as statuses written before entities were
    assert statuses.status_entities(statuses.get_status(r, sid)) == entities.empty()


def test_mentions_are_resolved_without_a_round_trip_more(r, alice, bob, round_trips, redis_backend):
    if redis_backend.cluster:
        pytest.skip("a cluster pipeline's round trips depend on where its keys fall")
    post(r, alice, "warm up: scripts loaded")

    def cost(message):
        round_trips["n"] = 0
        post(r, alice, message)
        return round_trips["n"]

    # One more round trip: a post that notifies someone clears its unfinished note
    # (statuses.post_status), which a post without mentions or a reply has no need of.
    assert cost("@bob @Bob @nobody hello #tag") == cost("hello") + 1
    assert cost("@nobody hello #tag") == cost("hello")


def test_a_mention_names_the_user_by_id_in_any_case(r, alice, bob):
    sid = post(r, alice, "hi @BOB")
    mention = statuses.status_entities(statuses.get_status(r, sid))["user_mentions"][0]
    assert (mention["screen_name"], mention["id"]) == ("BOB", bob["id"])


# --- tag timelines ----------------------------------------------------------------------


def test_a_status_is_on_the_timeline_of_each_of_its_tags(r, alice, bob):
    first = post(r, alice, "#Redis and #django")
    second = post(r, bob, "＃ＲＥＤＩＳ again, #redis twice")
    post(r, bob, "redis without a hash sign")
    assert tags.tag_ids(r, "redis") == [second, first]
    assert tags.tag_ids(r, "django") == [first]
    assert r.zscore(keys.tag("redis"), second) == second  # scored by id


def test_a_tag_timeline_keeps_its_newest_statuses(r, alice, monkeypatch):
    monkeypatch.setattr(tags, "TAG_TIMELINE_SIZE", 5)
    posted = [post(r, alice, f"#busy {n}") for n in range(8)]
    assert tags.tag_ids(r, "busy") == posted[::-1][:5]
    # Older ones fell off the tag, not off the profile.
    assert timelines.profile_ids(r, alice["id"]) == posted[::-1]


def test_deleting_takes_a_status_off_its_tags(r, alice):
    kept = post(r, alice, "#redis kept")
    gone = post(r, alice, "#redis #gone")
    assert statuses.delete_status(r, alice["id"], gone) is statuses.DeleteResult.DELETED
    assert tags.tag_ids(r, "redis") == [kept]
    assert tags.tag_ids(r, "gone") == []
    assert not r.exists(keys.tag("gone"))


def test_posting_again_with_the_same_key_adds_nothing_and_restores_lost_tag_entries(r, alice):
    sid = statuses.post_status(r, alice["id"], "#once", posting_key="k" * 22)
    assert statuses.post_status(r, alice["id"], "#once", posting_key="k" * 22) == sid
    assert tags.tag_ids(r, "once") == [sid]
    # The first request's tag write was lost (a node of a cluster failed under it):
    # the form sent again puts it back, and posts nothing new.
    r.delete(keys.tag("once"))
    assert statuses.post_status(r, alice["id"], "#once", posting_key="k" * 22) == sid
    assert tags.tag_ids(r, "once") == [sid]
    assert timelines.profile_ids(r, alice["id"]) == [sid]


def test_adding_and_removing_are_safe_to_repeat(r, alice):
    sid = post(r, alice, "#again")
    for _ in range(2):
        pipe = r.pipeline(transaction=False)
        tags.queue_add(pipe, sid, ["again"])
        pipe.execute()
    assert tags.tag_ids(r, "again") == [sid]
    for _ in range(2):
        pipe = r.pipeline(transaction=False)
        tags.queue_remove(pipe, sid, ["again"])
        pipe.execute()
    assert tags.tag_ids(r, "again") == []


def test_tag_keys_are_in_no_users_slot():
    assert keys.tag("s5") == "tag:{#s5}"  # not user shard 5's {s5}
    assert keys.tag("東京") == "tag:{#東京}"


def test_a_tag_page_pages_newest_first_with_a_cursor(r, alice):
    posted = [post(r, alice, f"#paged {n}") for n in range(7)]
    first = timelines.tag_page(r, "paged", count=3)
    assert [s["id"] for s in first.items] == posted[:-4:-1]
    assert first.items[0]["author"]["login"] == "alice"
    second = timelines.tag_page(r, "paged", before=first.next_cursor, count=3)
    third = timelines.tag_page(r, "paged", before=second.next_cursor, count=3)
    seen = [s["id"] for page in (first, second, third) for s in page.items]
    assert seen == posted[::-1]
    assert third.next_cursor is None


def test_a_tag_page_skips_a_status_whose_hash_is_gone(r, alice):
    kept = post(r, alice, "#skip kept")
    lost = post(r, alice, "#skip lost")
    r.delete(keys.status(lost))  # as a delete that died before taking it off the tag
    assert [s["id"] for s in timelines.tag_page(r, "skip").items] == [kept]


def test_demo_statuses_have_entities_and_tag_timelines(r):
    from io import StringIO

    from django.core.management import call_command

    call_command("seed_demo", users=20, follows=60, statuses=400, stdout=StringIO())
    redis_tagged = tags.tag_ids(r, "redis")
    assert redis_tagged  # 15% of demo statuses carry one of 7 tags
    for sid in redis_tagged:
        status = statuses.get_status(r, sid)
        assert "#redis" in status["message"]
        assert entities.tags(statuses.status_entities(status)) == ["redis"]
    mentioning = [
        status
        for status in statuses.get_statuses(r, range(1, 401))
        if status["message"].startswith("@")
    ]
    assert mentioning
    for status in mentioning:
        [mention] = statuses.status_entities(status)["user_mentions"]
        assert mention["screen_name"].lower() == r.hget(keys.user(mention["id"]), "login").lower()

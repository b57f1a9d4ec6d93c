"""Followed hashtags: following a tag, its public statuses delivered to the
follower's home like a followed account's (the reply rule and mutes applied, once even if
the author is followed too), the tag page's Follow button, and the client API (follow,
unfollow, GET /api/v1/tags/:name, /api/v1/followed_tags), Mastodon.py driving it."""

import re

import pytest
from django.test import Client
from mastodon import Mastodon

from socialsite.actions import relations as relation_actions
from socialsite.actions import statuses as statuses_actions
from socialsite.actions.core import Actor, NotFound
from socialsite.repository import (
    blocks,
    communities,
    followed_tags,
    graph,
    keys,
    leaving,
    privacy,
    timelines,
)
from tests.support.helpers import PASSWORD, bearer, log_in, make_user


def actor(user):
    return Actor(uid=user["id"], login=user["login"])


def posted(user, text, **options):
    """``user`` posts ``text`` through the posting action (which delivers to tags'
    followers); its id."""
    return statuses_actions.post(actor(user), statuses_actions.NewStatus(text=text), **options)


def home_ids(r, user):
    return [item["id"] for item in timelines.home_page(r, user["id"]).items]


def test_a_followed_tags_public_statuses_reach_the_home_once(r, alice, bob, carol):
    assert relation_actions.follow_tag(actor(bob), "#Python") is True
    assert relation_actions.follow_tag(actor(bob), "python") is False
    graph.follow(r, carol["id"], alice["id"])
    relation_actions.follow_tag(actor(carol), "python")
    sid = posted(alice, "hello #python")
    untagged = posted(alice, "no tag")
    assert home_ids(r, bob) == [sid]
    assert untagged not in home_ids(r, bob)
    # Carol follows alice and the tag: once.
    assert home_ids(r, carol).count(sid) == 1
    # Unfollowed: the next one does not come.
    assert relation_actions.unfollow_tag(actor(bob), "python") is True
    later = posted(alice, "again #python")
    assert later not in home_ids(r, bob)


def test_mutes_blocks_and_the_reply_rule_apply(r, alice, bob, carol):
    relation_actions.follow_tag(actor(bob), "news")
    blocks.mute(r, bob["id"], alice["id"])
    muted = posted(alice, "muted #news")
    assert muted not in home_ids(r, bob)
    blocks.unmute(r, bob["id"], alice["id"])
    blocks.block(r, carol["id"], bob["id"])
    blocked = posted(carol, "blocking #news")
    assert blocked not in home_ids(r, bob)
    # A reply to someone bob does not follow does not reach him.
    dave = make_user(r, "dave")
    parent = posted(dave, "a question")
    reply = statuses_actions.post(
        actor(alice), statuses_actions.NewStatus(text="@dave answer #news", in_reply_to=parent)
    )
    assert reply not in home_ids(r, bob)
    graph.follow(r, bob["id"], dave["id"])
    reply2 = statuses_actions.post(
        actor(alice), statuses_actions.NewStatus(text="@dave more #news", in_reply_to=parent)
    )
    assert reply2 in home_ids(r, bob)


def test_only_public_statuses_travel(r, alice, bob):
    relation_actions.follow_tag(actor(bob), "quiet")
    privacy.set_private(r, alice["id"], True)
    private = posted(alice, "followers only #quiet")
    assert private not in home_ids(r, bob)
    privacy.set_private(r, alice["id"], False)
    communities.create(r, alice["id"], "club", "Club", "", "private")
    members = posted(alice, "members only #quiet", group="club")
    assert members not in home_ids(r, bob)


def test_no_such_tag_and_leaving(r, alice, bob):
    with pytest.raises(NotFound):
        relation_actions.follow_tag(actor(bob), "no tag!")
    leaver = make_user(r, "leaver")
    followed_tags.follow(r, leaver["id"], "gone")
    leaving.delete_account(r, leaver["id"])
    assert r.zcard(keys.tag_followers("gone")) == 0


# --- the tag page ---------------------------------------------------------------------------


def test_the_tag_pages_follow_button(r, alice, bob):
    posted(alice, "on the page #launch")
    assert "Follow #launch" not in Client().get("/tags/launch/").content.decode()
    client = log_in(Client(), "bob")
    page = client.get("/tags/launch/").content.decode()
    assert re.search(r'action="/tags/launch/follow/"', page) and "Follow #launch" in page
    response = client.post("/tags/launch/follow/", {"next": "/tags/launch/"})
    assert response.status_code == 302 and response["Location"] == "/tags/launch/"
    page = client.get("/tags/launch/").content.decode()
    assert "You now follow #launch" in page and "Unfollow #launch" in page
    sid = posted(alice, "to bob's home #launch")
    assert f'id="status-{sid}"' in client.get("/").content.decode()
    client.post("/tags/launch/unfollow/", {"next": "/tags/launch/"})
    assert "Follow #launch" in client.get("/tags/launch/").content.decode()
    assert client.post("/tags/no%20tag/follow/").status_code == 404


TAG_PAGE_ROUND_TRIPS = 3  # tests/test_round_trips.py: the follow state rides along


def test_the_tag_page_costs_what_it_did(r, client, round_trips, redis_backend):
    from tests.test_round_trips import allowed, cost

    author = make_user(r, "author")
    reader = make_user(r, "reader")
    client.post("/accounts/login/", {"username": "reader", "password": PASSWORD})
    for n in range(3):
        posted(author, f"#costly {n}")
    without = cost(client, "/tags/costly/", round_trips)
    followed_tags.follow(r, reader["id"], "costly")
    following = cost(client, "/tags/costly/", round_trips)
    if not redis_backend.cluster:
        assert without == following == TAG_PAGE_ROUND_TRIPS
    assert following <= allowed(redis_backend, TAG_PAGE_ROUND_TRIPS, pipelines=2)


# --- the client API ---------------------------------------------------------------------------


def test_api_follow_a_tag_and_list_them(r, client, alice, bob, token):
    headers = bearer(token(bob))
    assert client.get("/api/v1/tags/Python", **headers).json()["following"] is False
    answer = client.post("/api/v1/tags/Python/follow", **headers)
    assert answer.status_code == 200 and answer.json()["following"] is True
    assert answer.json()["name"] == "python"
    assert client.get("/api/v1/tags/python", **headers).json()["following"] is True
    assert client.get("/api/v1/tags/python").json()["following"] is False  # a visitor
    client.post("/api/v1/tags/rust/follow", **headers)
    listed = client.get("/api/v1/followed_tags", **headers).json()
    assert [tag["name"] for tag in listed] == ["rust", "python"]
    first = client.get("/api/v1/followed_tags?limit=1", **headers)
    assert [tag["name"] for tag in first.json()] == ["rust"] and 'rel="next"' in first["Link"]
    sid = posted(alice, "via the API #python")
    home = client.get("/api/v1/timelines/home", **headers).json()
    assert str(sid) in [status["id"] for status in home]
    answer = client.post("/api/v1/tags/python/unfollow", **headers)
    assert answer.json()["following"] is False
    assert client.get("/api/v1/tags/not%20a%20tag", **headers).status_code == 404
    assert client.get("/api/v1/followed_tags").status_code == 401


def test_mastodon_py_follows_a_tag(r, live_server, settings, bob, token):
    settings.SITE_URL = live_server.url
    api = Mastodon(access_token=token(bob), api_base_url=live_server.url)
    assert api.tag_follow("python")["following"] is True
    assert [tag["name"] for tag in api.followed_tags()] == ["python"]
    assert api.tag("python")["following"] is True
    assert api.tag_unfollow("python")["following"] is False
    assert api.followed_tags() == []

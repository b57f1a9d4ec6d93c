"""The acts on statuses (socialsite/actions/statuses.py), called by the pages and the
client API alike: each door gets the same outcome from the same settings and rules.
Each door-parity test drives both doors with the same setting and asserts the same
result; the others call the actions directly."""

import pytest
from django.test import Client

from socialsite.actions import Actor, EmailUnverified, Invalid, NotAllowed, NotFound
from socialsite.actions import statuses as statuses_actions
from socialsite.repository import blocks, graph, notifications, privacy, statuses, timelines
from tests.support.helpers import bearer, log_in, make_user


def actor(user):
    return Actor(uid=user["id"], login=user["login"])


@pytest.fixture
def crowd(r):
    """Five users with an account each: likers, reposters, followers."""
    return [make_user(r, f"fan{number}") for number in range(5)]


def page_client(user):
    return log_in(Client(), user["login"])


# --- door parity ------------------------------------------------------------------------


@pytest.mark.parametrize("door", ["pages", "api"])
def test_likes_keep_as_many_notifications_as_the_setting_says_through_either_door(
    r, alice, crowd, token, settings, door
):
    settings.NOTIFICATIONS_KEPT = 3
    sid = statuses.post_status(r, alice["id"], "like me")
    for fan in crowd:
        if door == "pages":
            response = page_client(fan).post(f"/statuses/{sid}/like/")
            assert response.status_code == 302
        else:
            response = Client().post(f"/api/v1/statuses/{sid}/favourite", **bearer(token(fan)))
            assert response.status_code == 200, response.content
    assert len(notifications.events(r, alice["id"])) == 3


@pytest.mark.parametrize("door", ["pages", "api"])
def test_reposts_keep_as_many_notifications_as_the_setting_says_through_either_door(
    r, alice, crowd, token, settings, door
):
    settings.NOTIFICATIONS_KEPT = 2
    sid = statuses.post_status(r, alice["id"], "repost me")
    for fan in crowd:
        if door == "pages":
            assert page_client(fan).post(f"/statuses/{sid}/repost/").status_code == 302
        else:
            response = Client().post(f"/api/v1/statuses/{sid}/reblog", **bearer(token(fan)))
            assert response.status_code == 200, response.content
    assert len(notifications.events(r, alice["id"])) == 2


@pytest.mark.parametrize("door", ["pages", "api"])
def test_a_repost_reaches_inline_only_as_many_homes_as_the_setting_says(
    r, alice, bob, crowd, token, settings, door
):
    """INLINE_FANOUT_LIMIT bounds a repost's delivery in the request, as a post's: the
    rest is the workers' (none run here)."""
    settings.INLINE_FANOUT_LIMIT = 2
    for fan in crowd:
        graph.follow(r, fan["id"], bob["id"])
    sid = statuses.post_status(r, alice["id"], "worth a repost")
    if door == "pages":
        assert page_client(bob).post(f"/statuses/{sid}/repost/").status_code == 302
    else:
        response = Client().post(f"/api/v1/statuses/{sid}/reblog", **bearer(token(bob)))
        assert response.status_code == 200, response.content
    reached = [fan for fan in crowd if timelines.home_ids(r, fan["id"])]
    assert len(reached) == 2


@pytest.mark.parametrize("door", ["pages", "api"])
def test_a_post_reaches_inline_only_as_many_homes_as_the_setting_says(
    r, alice, crowd, token, settings, door
):
    settings.INLINE_FANOUT_LIMIT = 3
    for fan in crowd:
        graph.follow(r, fan["id"], alice["id"])
    if door == "pages":
        response = page_client(alice).post("/statuses/", {"message": "hello all"})
        assert response.status_code == 302
    else:
        response = Client().post(
            "/api/v1/statuses", {"status": "hello all"}, **bearer(token(alice))
        )
        assert response.status_code == 200, response.content
    reached = [fan for fan in crowd if timelines.home_ids(r, fan["id"])]
    assert len(reached) == 3


@pytest.mark.parametrize("door", ["pages", "api"])
def test_deleting_takes_the_status_off_its_followers_homes_through_either_door(
    r, alice, crowd, token, door
):
    for fan in crowd:
        graph.follow(r, fan["id"], alice["id"])
    sid = statuses.post_status(r, alice["id"], "soon gone")
    assert all(timelines.home_ids(r, fan["id"]) for fan in crowd)
    if door == "pages":
        assert page_client(alice).post(f"/statuses/{sid}/delete/").status_code == 302
    else:
        response = Client().delete(f"/api/v1/statuses/{sid}", **bearer(token(alice)))
        assert response.status_code == 200, response.content
    assert statuses.get_status(r, sid) is None
    # Gone from every page of theirs (a deletion is taken out, or noted and left out).
    assert not any(timelines.home_page(r, fan["id"]).items for fan in crowd)


def test_liking_the_status_of_someone_one_blocks_is_refused_alike_by_both_doors(
    r, alice, bob, token
):
    """The API answered 404 and the pages 403: one action, one refusal (NotAllowed:
    the blocker sees the status), each door's 403."""
    sid = statuses.post_status(r, alice["id"], "from someone bob blocks")
    blocks.block(r, bob["id"], alice["id"])
    page = page_client(bob).post(f"/statuses/{sid}/like/")
    api = Client().post(f"/api/v1/statuses/{sid}/favourite", **bearer(token(bob)))
    assert (page.status_code, api.status_code) == (403, 403)
    assert "you block its author" in page.content.decode()
    assert "you block its author" in api.json()["error"]


def test_who_liked_and_who_reposted_are_seen_by_the_same_readers(r, alice, bob, carol, client):
    """Both lists take the one path (likes.status_for_viewer): a private account's
    status is 404 to a stranger on both, and both show to a follower and to someone
    who blocks the author."""
    sid = statuses.post_status(r, alice["id"], "followers only")
    privacy.set_private(r, alice["id"], True)
    graph.follow(r, bob["id"], alice["id"])
    privacy.approve(r, alice["id"], bob["id"])
    lists = (f"/@alice/{sid}/likes/", f"/@alice/{sid}/reposts/")
    stranger = page_client(carol)
    follower = page_client(bob)
    assert [stranger.get(url).status_code for url in lists] == [404, 404]
    assert [client.get(url).status_code for url in lists] == [404, 404]
    assert [follower.get(url).status_code for url in lists] == [200, 200]
    blocks.block(r, bob["id"], alice["id"])
    privacy.set_private(r, alice["id"], False)
    assert [follower.get(url).status_code for url in lists] == [200, 200]


# --- the actions themselves --------------------------------------------------------------


def test_post_refuses_what_cannot_be_a_status(r, alice, settings):
    settings.STATUS_MAX_LENGTH = 10
    with pytest.raises(Invalid) as too_long:
        statuses_actions.post(actor(alice), statuses_actions.NewStatus("x" * 11))
    assert too_long.value.field == "message" and "at most 10" in too_long.value.message
    with pytest.raises(Invalid, match="Write something"):
        statuses_actions.post(actor(alice), statuses_actions.NewStatus("   "))
    with pytest.raises(Invalid, match="at most 4 images"):
        statuses_actions.post(
            actor(alice), statuses_actions.NewStatus("many"), upload_ids=["a"] * 5
        )
    with pytest.raises(NotFound):
        statuses_actions.post(
            actor(alice), statuses_actions.NewStatus("to nothing", in_reply_to=424242)
        )
    assert statuses.get_status(r, 1) is None  # nothing was posted


def test_post_keeps_the_text_without_its_surrounding_spaces(r, alice):
    sid = statuses_actions.post(actor(alice), statuses_actions.NewStatus("  hi\r\nthere  "))
    assert statuses.get_status(r, sid)["message"] == "hi\nthere"


def test_acts_that_need_a_verified_address_refuse_an_unverified_one(r, alice, bob):
    sid = statuses.post_status(r, bob["id"], "hello")
    unverified = Actor(uid=alice["id"], login="alice", must_verify_email=True)
    with pytest.raises(EmailUnverified):
        statuses_actions.post(unverified, statuses_actions.NewStatus("hi"))
    with pytest.raises(EmailUnverified):
        statuses_actions.like(unverified, sid)
    with pytest.raises(EmailUnverified):
        statuses_actions.repost(unverified, sid)
    # Taking back is never refused for it.
    assert statuses_actions.unlike(unverified, sid) is statuses_actions.likes.LikeResult.NOT_LIKED


def test_delete_is_only_of_ones_own(r, alice, bob):
    sid = statuses.post_status(r, alice["id"], "mine")
    with pytest.raises(NotFound):
        statuses_actions.delete(actor(bob), sid)
    statuses_actions.delete(actor(alice), sid)
    assert statuses.get_status(r, sid) is None
    with pytest.raises(NotFound):
        statuses_actions.delete(actor(alice), sid)


def test_repost_refuses_a_private_accounts_status_and_says_which_original(r, alice, bob):
    sid = statuses.post_status(r, alice["id"], "public")
    done = statuses_actions.repost(actor(bob), sid)
    assert done.outcome is statuses_actions.RepostOutcome.REPOSTED and done.original_id == sid
    again = statuses_actions.repost(actor(bob), sid)
    assert again.outcome is statuses_actions.RepostOutcome.ALREADY_REPOSTED
    undone = statuses_actions.unrepost(actor(bob), sid)
    assert undone.outcome is statuses_actions.RepostOutcome.UNREPOSTED
    private = statuses.post_status(r, alice["id"], "followers only")
    privacy.set_private(r, alice["id"], True)
    graph.follow(r, bob["id"], alice["id"])
    privacy.approve(r, alice["id"], bob["id"])
    with pytest.raises(NotAllowed, match="not public"):
        statuses_actions.repost(actor(bob), private)

"""socialsite/actions/relations.py: each act called directly with an Actor, and the
pages and the client API compared where they used to differ (door parity):
- NOTIFICATIONS_KEPT applies to follows through both doors (it applied through
  neither: graph.follow kept its default);
- a follow lock held (graph.LockBusy) is the action's Busy: the pages flash it, the API
  answers 409, both with the same words;
- the "follows" throttle counts a follow, through either door, against one budget, and
  an unfollow through neither;
- a refused follow (a block, oneself, an unverified address) is refused alike.
"""

import functools
import re
import time

import pytest
from django.test import Client

from socialsite import throttling
from socialsite.actions import (
    Actor,
    Busy,
    EmailUnverified,
    Invalid,
    NotAllowed,
    NotFound,
    Throttled,
    relations,
)
from socialsite.repository import (
    blocks,
    emails,
    graph,
    keys,
    locks,
    moderation,
    notifications,
    privacy,
    throttles,
    worker,
)
from tests.support.helpers import bearer, log_in, make_user

FollowResult = graph.FollowResult
ACCOUNTS = "/api/v1/accounts"


def actor(user, **options):
    return Actor(uid=user["id"], login=user["login"], **options)


def flash(response):
    """The flash messages a redirect's next page shows."""
    return re.findall(r'<li class="message[^"]*">([^<]*)</li>', response.content.decode())


def page_client(login):
    """A browser logged in as ``login``, its "Welcome back" message read."""
    browser = log_in(Client(), login)
    browser.get("/settings/")
    return browser


def api_post(client, token, path, data=None):
    return client.post(path, data or {}, **bearer(token))


# --- the actions, called directly ---------------------------------------------------------


def test_follow_and_unfollow_a_public_account(r, alice, bob):
    me = actor(alice)
    assert relations.follow(me, bob["id"]) is FollowResult.FOLLOWED
    assert relations.follow(me, bob["id"]) is FollowResult.ALREADY_FOLLOWING
    assert graph.is_following(r, alice["id"], bob["id"])
    assert relations.unfollow(me, bob["id"]) is FollowResult.UNFOLLOWED
    assert relations.unfollow(me, bob["id"]) is FollowResult.NOT_FOLLOWING


def test_a_private_account_is_asked_then_approved_or_rejected(r, alice, bob, carol):
    relations.set_private(actor(alice), True)
    assert relations.follow(actor(bob), alice["id"]) is FollowResult.REQUESTED
    assert relations.follow(actor(bob), alice["id"]) is FollowResult.ALREADY_REQUESTED
    assert relations.follow(actor(carol), alice["id"]) is FollowResult.REQUESTED
    assert relations.approve(actor(alice), bob["id"]) is FollowResult.FOLLOWED
    assert relations.approve(actor(alice), bob["id"]) is FollowResult.ALREADY_FOLLOWING
    assert graph.is_following(r, bob["id"], alice["id"])
    assert relations.reject(actor(alice), carol["id"]) is relations.RejectResult.REJECTED
    assert relations.reject(actor(alice), carol["id"]) is relations.RejectResult.NO_REQUEST
    assert relations.approve(actor(alice), carol["id"]) is FollowResult.NO_REQUEST
    assert relations.follow(actor(carol), alice["id"]) is FollowResult.REQUESTED
    assert relations.unfollow(actor(carol), alice["id"]) is FollowResult.REQUEST_WITHDRAWN


def test_turning_public_approves_the_requests_waiting(r, alice, bob):
    assert relations.set_private(actor(alice), True) == relations.PrivacyChange(True, 0)
    relations.follow(actor(bob), alice["id"])
    assert relations.set_private(actor(alice), False) == relations.PrivacyChange(False, 1)
    assert graph.is_following(r, bob["id"], alice["id"])


def test_an_account_not_shown_is_not_found_for_every_act(r, alice, carol):
    moderation.suspend(r, carol["id"])
    me = actor(alice)
    acts = [
        relations.follow, relations.unfollow, relations.approve, relations.reject,
        relations.block, relations.unblock, relations.mute, relations.unmute,
    ]  # fmt: skip
    for act in acts:
        for other in (carol["id"], 999_999):
            with pytest.raises(NotFound):
                act(me, other)
    assert graph.following_ids(r, alice["id"]) == set()


def test_acts_on_oneself_are_invalid(r, alice):
    me = actor(alice)
    refused = {
        relations.follow: "You cannot follow or unfollow yourself.",
        relations.unfollow: "You cannot follow or unfollow yourself.",
        relations.approve: "Nobody asks to follow themself: there is nothing to approve.",
        relations.block: "You cannot block or unblock yourself.",
        relations.unblock: "You cannot block or unblock yourself.",
        relations.mute: "You cannot mute or unmute yourself.",
        relations.unmute: "You cannot mute or unmute yourself.",
    }
    for act, message in refused.items():
        with pytest.raises(Invalid) as raised:
            act(me, alice["id"])
        assert raised.value.message == message
    assert blocks.hidden_authors(r, alice["id"]) == set()


def test_a_block_either_way_refuses_a_follow_and_an_approval(r, alice, bob, carol):
    relations.block(actor(alice), bob["id"])
    with pytest.raises(NotAllowed, match=r"^@alice has blocked you: you cannot follow them\.$"):
        relations.follow(actor(bob), alice["id"])
    with pytest.raises(NotAllowed, match=r"^You block @bob: unblock them before following"):
        relations.follow(actor(alice), bob["id"])
    relations.set_private(actor(carol), True)
    relations.follow(actor(alice), carol["id"])
    relations.block(actor(carol), alice["id"])
    with pytest.raises(NotAllowed, match=r"^You block @alice: unblock them first\.$"):
        relations.approve(actor(carol), alice["id"])
    assert not graph.is_following(r, bob["id"], alice["id"])


def test_block_unblock_mute_unmute(r, alice, bob):
    me = actor(alice)
    relations.follow(me, bob["id"])
    assert relations.block(me, bob["id"]) is blocks.BlockResult.BLOCKED
    assert relations.block(me, bob["id"]) is blocks.BlockResult.ALREADY_BLOCKED
    assert not graph.is_following(r, alice["id"], bob["id"])
    assert relations.unblock(me, bob["id"]) is blocks.BlockResult.UNBLOCKED
    assert relations.unblock(me, bob["id"]) is blocks.BlockResult.NOT_BLOCKED
    assert relations.mute(me, bob["id"], duration_ms=3_600_000) is blocks.MuteResult.MUTED
    assert relations.mute(me, bob["id"]) is blocks.MuteResult.MUTE_CHANGED
    assert blocks.mutes_page(r, alice["id"]).items[0]["mute_ends"] in (0, None)
    assert relations.unmute(me, bob["id"]) is blocks.MuteResult.UNMUTED
    assert relations.unmute(me, bob["id"]) is blocks.MuteResult.NOT_MUTED


@pytest.mark.parametrize("duration_ms", [0, -1, (relations.LONGEST_MUTE_SECONDS + 1) * 1000])
def test_a_mute_of_no_time_or_too_long_is_invalid(r, alice, bob, duration_ms):
    with pytest.raises(Invalid) as raised:
        relations.mute(actor(alice), bob["id"], duration_ms=duration_ms)
    assert raised.value.field == "duration"
    assert blocks.mutes_page(r, alice["id"]).items == []


def test_follow_needs_a_verified_address_and_its_throttle(r, alice, bob):
    with pytest.raises(EmailUnverified):
        relations.follow(actor(alice, must_verify_email=True), bob["id"])
    # Unfollowing and blocking need neither.
    assert relations.unfollow(actor(alice, must_verify_email=True), bob["id"]) is (
        FollowResult.NOT_FOLLOWING
    )
    now = int(time.time() * 1000)
    refused = throttling.Counted(
        "follows", throttles.Verdict(False, 2, 2, now, 60_000, "k", "t")
    )  # fmt: skip
    asked = []

    def count(name):
        asked.append(name)
        return refused

    with pytest.raises(Throttled):
        relations.follow(actor(alice, count=count), bob["id"])
    relations.unfollow(actor(alice, count=count), bob["id"])
    relations.block(actor(alice, count=count), bob["id"])
    assert asked == ["follows"]
    assert not graph.is_following(r, alice["id"], bob["id"])


@pytest.fixture
def short_lock_wait(monkeypatch):
    """A held follow lock is reported at once (not after locks.hold's 3 seconds)."""
    monkeypatch.setattr(locks, "hold", functools.partial(locks.hold, wait_seconds=0.05))


def hold_follow_lock(r, user):
    r.set(keys.follow_lock(user["id"]), "someone else", px=10_000)


def test_a_held_follow_lock_is_busy(r, alice, bob, short_lock_wait):
    hold_follow_lock(r, alice)
    for act in (relations.follow, relations.unfollow, relations.block):
        with pytest.raises(Busy, match="still in progress: try again"):
            act(actor(alice), bob["id"])


def test_requests_and_approvals_keep_notifications_kept(r, settings, alice, bob):
    settings.NOTIFICATIONS_KEPT = 3
    relations.set_private(actor(alice), True)
    askers = [make_user(r, f"asker{n}") for n in range(5)]
    for asker in askers:
        assert relations.follow(actor(asker), alice["id"]) is FollowResult.REQUESTED
    assert len(notifications.events(r, alice["id"])) == 3
    for owner in (make_user(r, f"owner{n}") for n in range(5)):
        relations.set_private(actor(owner), True)
        relations.follow(actor(bob), owner["id"])
        relations.approve(actor(owner), bob["id"])
    assert len(notifications.events(r, bob["id"])) == 3


def test_approvals_left_to_the_workers_keep_notifications_kept(r, settings, monkeypatch, alice):
    """Turning public approves INLINE_APPROVALS at once and the rest by a job: the job
    carries the act's NOTIFICATIONS_KEPT to the worker."""
    settings.NOTIFICATIONS_KEPT = 3
    monkeypatch.setattr(privacy, "INLINE_APPROVALS", 1)
    relations.set_private(actor(alice), True)
    askers = [make_user(r, f"asker{n}") for n in range(5)]
    for asker in askers:
        relations.follow(actor(asker), alice["id"])
    assert relations.set_private(actor(alice), False) == relations.PrivacyChange(False, 1)
    worker.work_until_idle(r)
    assert graph.follower_ids(r, alice["id"]) == {asker["id"] for asker in askers}
    assert len(notifications.events(r, alice["id"])) == 3


# --- door parity ----------------------------------------------------------------------------


def test_notifications_kept_applies_to_follows_through_pages_and_api(
    r, settings, client, alice, bob, token
):
    """Drift fixed: neither door passed NOTIFICATIONS_KEPT to graph.follow."""
    settings.NOTIFICATIONS_KEPT = 3
    for n in range(5):
        fan = make_user(r, f"pagefan{n}")
        assert page_client(fan["login"]).post("/@alice/follow/").status_code == 302
        assert graph.is_following(r, fan["id"], alice["id"])
    for n in range(5):
        fan = make_user(r, f"apifan{n}")
        answer = api_post(client, token(fan), f"{ACCOUNTS}/{bob['id']}/follow")
        assert answer.status_code == 200 and answer.json()["following"] is True
    assert len(notifications.events(r, alice["id"])) == 3
    assert len(notifications.events(r, bob["id"])) == 3


def test_a_held_follow_lock_is_the_same_busy_through_pages_and_api(
    r, client, alice, bob, token, short_lock_wait
):
    """Drift fixed: the pages said "... in progress. Try again.", the API "... in
    progress: try again"; both now say the action's Busy, each door answering it once."""
    browser = page_client("alice")
    hold_follow_lock(r, alice)
    for path in ("/@bob/follow/", "/@bob/unfollow/", "/@bob/block/"):
        response = browser.post(path, follow=True)
        assert flash(response) == [relations.BUSY], path
    mine = token(alice)
    for act in ("follow", "unfollow", "block"):
        answer = api_post(client, mine, f"{ACCOUNTS}/{bob['id']}/{act}")
        assert answer.status_code == 409, act
        assert answer.json() == {"error": relations.BUSY}
    assert not graph.is_following(r, alice["id"], bob["id"])


def test_the_follows_throttle_counts_follows_alone_through_either_door(
    r, client, settings, alice, bob, carol, token
):
    """Both doors count a follow, and only a follow, against the one "follows" budget."""
    settings.THROTTLES = {**settings.THROTTLES, "follows": (2, 3600)}
    browser, mine = page_client("alice"), token(alice)
    assert browser.post("/@bob/follow/").status_code == 302
    assert api_post(client, mine, f"{ACCOUNTS}/{carol['id']}/follow").status_code == 200
    dave = make_user(r, "dave")
    refused_page = browser.post("/@dave/follow/")
    refused_api = api_post(client, mine, f"{ACCOUNTS}/{dave['id']}/follow")
    assert refused_page.status_code == 429 and refused_api.status_code == 429
    assert "Too many follows: at most 2 in " in refused_api.json()["error"]
    assert int(refused_api["Retry-After"]) >= 1
    assert not graph.is_following(r, alice["id"], dave["id"])
    # Unfollowing (and blocking, muting) is counted by neither door.
    assert browser.post("/@bob/unfollow/").status_code == 302
    assert api_post(client, mine, f"{ACCOUNTS}/{carol['id']}/unfollow").status_code == 200
    assert graph.following_ids(r, alice["id"]) == set()


def test_a_refused_follow_says_the_same_through_pages_and_api(r, client, alice, bob, carol, token):
    """Wording unified: the API now says the pages' words (it had its own), after
    Mastodon's "This action is not allowed" for a 403 (responses.refusal_response)."""
    relations.block(actor(bob), alice["id"])
    browser, mine = page_client("alice"), token(alice)
    said = "@bob has blocked you: you cannot follow them."
    assert flash(browser.post("/@bob/follow/", follow=True)) == [said]
    answer = api_post(client, mine, f"{ACCOUNTS}/{bob['id']}/follow")
    assert answer.status_code == 403
    assert answer.json() == {"error": f"This action is not allowed: {said}"}
    said = "You cannot follow or unfollow yourself."
    assert flash(browser.post("/@alice/follow/", follow=True)) == [said]
    answer = api_post(client, mine, f"{ACCOUNTS}/{alice['id']}/follow")
    assert answer.status_code == 422
    assert answer.json() == {"error": f"Validation failed: {said}"}
    assert graph.following_ids(r, alice["id"]) == set()


def test_an_unverified_address_refuses_a_follow_through_pages_and_api(
    r, client, settings, alice, bob, token
):
    settings.EMAIL_VERIFICATION = "required"
    emails.set_address(r, alice["id"], "alice@example.com", verified=False)
    browser, mine = page_client("alice"), token(alice)
    refused = browser.post("/@bob/follow/")
    assert refused.status_code == 403
    assert "Until your email address is verified" in refused.content.decode()
    answer = api_post(client, mine, f"{ACCOUNTS}/{bob['id']}/follow")
    assert answer.status_code == 403 and "not verified" in answer.json()["error"]
    assert graph.following_ids(r, alice["id"]) == set()
    # Unfollowing needs no verified address, at either door.
    assert browser.post("/@bob/unfollow/").status_code == 302
    assert api_post(client, mine, f"{ACCOUNTS}/{bob['id']}/unfollow").status_code == 200

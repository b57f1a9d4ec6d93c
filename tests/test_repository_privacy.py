"""Private accounts in the repository: follow requests and their answers, switching to
public, and the visibility rule other features call."""

import pytest

from socialsite.repository import (
    blocks,
    graph,
    keys,
    notifications,
    privacy,
    statuses,
    timelines,
    users,
    visibility,
    worker,
)
from tests.support.helpers import make_user, post

F = graph.FollowResult


@pytest.fixture
def private_alice(r, alice):
    privacy.set_private(r, alice["id"], True)
    return users.get_user(r, alice["id"])


@pytest.fixture
def notified(monkeypatch):
    """The notification call points' calls, in order."""
    calls = []
    monkeypatch.setattr(
        graph,
        "notify_follow_requested",
        lambda r, owner, who, keep=None: calls.append(("asks", owner, who)),
    )
    monkeypatch.setattr(
        graph,
        "notify_follow_approved",
        lambda r, who, owner, keep=None: calls.append(("approved", who, owner)),
    )
    return calls


def counts(r, user):
    fresh = users.get_user(r, user["id"])
    return fresh["followers"], fresh["following"]


def requesters(r, user):
    return [u["id"] for u in privacy.requests_page(r, user["id"]).items]


def test_following_a_private_account_is_a_request(r, private_alice, bob, notified):
    post(r, private_alice, "for followers")
    assert graph.follow(r, bob["id"], private_alice["id"]) is F.REQUESTED
    assert graph.follow(r, bob["id"], private_alice["id"]) is F.ALREADY_REQUESTED
    assert requesters(r, private_alice) == [bob["id"]]
    assert privacy.has_requested(r, bob["id"], private_alice["id"])
    assert not graph.is_following(r, bob["id"], private_alice["id"])
    assert counts(r, private_alice) == counts(r, bob) == (0, 0)
    assert timelines.home_ids(r, bob["id"]) == []  # nothing copied in
    assert notified == [("asks", private_alice["id"], bob["id"])]  # once


def test_approving_a_request_follows_and_fills_the_home(r, private_alice, bob, notified):
    sid = post(r, private_alice, "for followers")
    graph.follow(r, bob["id"], private_alice["id"])
    assert privacy.approve(r, private_alice["id"], bob["id"]) is F.FOLLOWED
    assert graph.is_following(r, bob["id"], private_alice["id"])
    assert counts(r, private_alice) == (1, 0) and counts(r, bob) == (0, 1)
    assert timelines.home_ids(r, bob["id"]) == [sid]
    assert requesters(r, private_alice) == []
    assert notified[-1] == ("approved", bob["id"], private_alice["id"])
    # New statuses reach bob as for any follower; following again changes nothing.
    newer = post(r, private_alice, "newer")
    assert timelines.home_ids(r, bob["id"]) == [newer, sid]
    assert graph.follow(r, bob["id"], private_alice["id"]) is F.ALREADY_FOLLOWING


def test_approving_without_a_request_follows_nobody(r, private_alice, bob):
    assert privacy.approve(r, private_alice["id"], bob["id"]) is F.NO_REQUEST
    assert not graph.is_following(r, bob["id"], private_alice["id"])


def test_a_rejected_request_is_gone_and_may_be_made_again(r, private_alice, bob):
    graph.follow(r, bob["id"], private_alice["id"])
    assert privacy.reject(r, private_alice["id"], bob["id"])
    assert not privacy.reject(r, private_alice["id"], bob["id"])
    assert requesters(r, private_alice) == []
    assert not graph.is_following(r, bob["id"], private_alice["id"])
    assert privacy.approve(r, private_alice["id"], bob["id"]) is F.NO_REQUEST
    assert graph.follow(r, bob["id"], private_alice["id"]) is F.REQUESTED


def test_unfollowing_withdraws_a_request(r, private_alice, bob):
    graph.follow(r, bob["id"], private_alice["id"])
    assert graph.unfollow(r, bob["id"], private_alice["id"]) is F.REQUEST_WITHDRAWN
    assert requesters(r, private_alice) == []
    assert graph.unfollow(r, bob["id"], private_alice["id"]) is F.NOT_FOLLOWING
    assert privacy.approve(r, private_alice["id"], bob["id"]) is F.NO_REQUEST


def test_followers_from_before_stay_approved(r, alice, bob, carol):
    graph.follow(r, bob["id"], alice["id"])
    privacy.set_private(r, alice["id"], True)
    sid = post(r, alice, "still reaches bob")
    assert timelines.in_home(r, bob["id"], sid)
    assert graph.follow(r, carol["id"], alice["id"]) is F.REQUESTED


def test_switching_to_public_approves_every_request_waiting(
    r, private_alice, notified, monkeypatch
):
    monkeypatch.setattr(privacy, "INLINE_APPROVALS", 2)
    fans = [make_user(r, f"fan{n}") for n in range(5)]
    for fan in fans:
        graph.follow(r, fan["id"], private_alice["id"])
    sid = post(r, private_alice, "soon public")
    assert privacy.set_private(r, private_alice["id"], False) == 2
    assert not privacy.is_private(r, private_alice["id"])
    assert len(graph.follower_ids(r, private_alice["id"])) == 2
    worker.work_until_idle(r)  # the rest, by the fan-out workers
    assert graph.follower_ids(r, private_alice["id"]) == {fan["id"] for fan in fans}
    assert counts(r, private_alice) == (5, 0)
    assert requesters(r, private_alice) == []
    assert all(timelines.in_home(r, fan["id"], sid) for fan in fans)
    assert sorted(who for kind, who, _ in notified if kind == "approved") == [
        fan["id"] for fan in fans
    ]
    # Public now: a follow is a follow.
    assert graph.follow(r, make_user(r, "late")["id"], private_alice["id"]) is F.FOLLOWED


def test_a_request_of_someone_blocked_since_is_dropped_when_turning_public(
    r, private_alice, bob, carol
):
    graph.follow(r, bob["id"], private_alice["id"])
    graph.follow(r, carol["id"], private_alice["id"])
    r.zadd(keys.blocks(carol["id"]), {private_alice["id"]: 1})  # carol's side only
    assert privacy.set_private(r, private_alice["id"], False) == 1
    assert graph.follower_ids(r, private_alice["id"]) == {bob["id"]}
    assert requesters(r, private_alice) == []


def test_statuses_posted_while_private_are_marked_so(r, alice):
    public = statuses.get_status(r, post(r, alice, "public"))
    privacy.set_private(r, alice["id"], True)
    private = statuses.get_status(r, post(r, alice, "private"))
    assert "private" not in public
    assert private["private"] == "1"


def test_the_visibility_rule(r, private_alice, bob, carol):
    dave = make_user(r, "dave")
    graph.follow(r, bob["id"], private_alice["id"])
    privacy.approve(r, private_alice["id"], bob["id"])
    graph.follow(r, carol["id"], private_alice["id"])  # only asks
    blocks.block(r, dave["id"], carol["id"])
    seen = visibility.Visibility

    def rule(viewer, author):
        author = users.get_user(r, author["id"])
        viewer_id = viewer and viewer["id"]
        rel = visibility.relationship(r, viewer_id, author["id"])
        return visibility.statuses_visibility(viewer_id, author, rel)

    assert rule(private_alice, private_alice) is seen.VISIBLE
    assert rule(bob, private_alice) is seen.VISIBLE
    assert rule(carol, private_alice) is seen.PROTECTED
    assert rule(None, private_alice) is seen.PROTECTED
    assert rule(carol, dave) is seen.BLOCKED
    assert rule(dave, carol) is seen.VISIBLE  # the blocker may look
    assert rule(None, dave) is seen.VISIBLE
    rel = visibility.relationship(r, carol["id"], private_alice["id"])
    assert (rel.requested, rel.following) == (True, False)


def test_shown_statuses_and_is_public(r, private_alice, bob, carol):
    dave = make_user(r, "dave")
    by_alice = statuses.get_status(r, post(r, private_alice, "private"))
    by_carol = statuses.get_status(r, post(r, carol, "carol"))
    by_dave = statuses.get_status(r, post(r, dave, "dave"))
    listed = [by_alice, by_carol, by_dave]

    def shown(viewer):
        return [s["id"] for s in visibility.shown_statuses(r, viewer, [dict(s) for s in listed])]

    alice, carol_, dave_ = by_alice["id"], by_carol["id"], by_dave["id"]
    blocks.mute(r, bob["id"], dave["id"])
    assert shown(bob["id"]) == [carol_]
    assert shown(None) == [carol_, dave_]
    assert shown(private_alice["id"]) == [alice, carol_, dave_]
    graph.follow(r, bob["id"], private_alice["id"])
    privacy.approve(r, private_alice["id"], bob["id"])
    assert shown(bob["id"]) == [alice, carol_]
    assert not visibility.is_public(r, by_alice)
    assert visibility.is_public(r, by_carol)
    # Read from the account at display: public again, all of it is public.
    privacy.set_private(r, private_alice["id"], False)
    assert visibility.is_public(r, by_alice)
    assert shown(None) == [alice, carol_, dave_]
    # A block either way, and a suspension, read fresh.
    blocks.block(r, carol["id"], bob["id"])
    assert shown(bob["id"]) == [alice]
    users.flag(r, carol["id"], keys.SUSPENDED_FIELD, "1")
    assert shown(None) == [alice, dave_]


def test_a_request_of_an_account_deleted_since_is_dropped_when_turning_public(
    r, private_alice, bob, carol
):
    graph.follow(r, bob["id"], private_alice["id"])
    graph.follow(r, carol["id"], private_alice["id"])
    r.delete(keys.user(carol["id"]))  # as an account deletion leaves the request
    assert privacy.set_private(r, private_alice["id"], False) == 1
    assert graph.follower_ids(r, private_alice["id"]) == {bob["id"]}
    assert not r.exists(keys.user(carol["id"]))
    assert requesters(r, private_alice) == []


def kinds_of(r, user):
    return [(event.kind, event.actor) for event in notifications.events(r, user["id"])]


def test_a_request_notifies_the_owner_and_its_approval_the_requester(r, private_alice, bob):
    assert graph.follow(r, bob["id"], private_alice["id"]) is F.REQUESTED
    assert kinds_of(r, private_alice) == [("follow_request", bob["id"])]
    assert notifications.unread(r, private_alice["id"]).count == 1
    privacy.approve(r, private_alice["id"], bob["id"])
    # The request's notification gives way to the follow's; bob learns of the approval.
    assert kinds_of(r, private_alice) == [("follow", bob["id"])]
    assert kinds_of(r, bob) == [("follow_approved", private_alice["id"])]


def test_a_rejected_or_withdrawn_request_takes_its_notification_back(r, private_alice, bob, carol):
    graph.follow(r, bob["id"], private_alice["id"])
    graph.follow(r, carol["id"], private_alice["id"])
    assert privacy.reject(r, private_alice["id"], bob["id"]) is True
    assert graph.unfollow(r, carol["id"], private_alice["id"]) is F.REQUEST_WITHDRAWN
    assert kinds_of(r, private_alice) == []
    assert notifications.unread(r, private_alice["id"]).count == 0
    assert kinds_of(r, bob) == []


def test_a_blocked_users_notifications_are_neither_shown_nor_counted(r, alice, bob):
    graph.follow(r, bob["id"], alice["id"])
    statuses.post_status(r, bob["id"], "hi @alice")
    assert notifications.unread(r, alice["id"]).count == 2
    blocks.block(r, alice["id"], bob["id"])
    assert notifications.unread(r, alice["id"]).count == 0
    # A mention from the blocked user notifies nobody; nor may they reply: to them her
    # status is not there.
    parent = post(r, alice, "alice's")
    before = kinds_of(r, alice)
    statuses.post_status(r, bob["id"], "@alice again")
    assert kinds_of(r, alice) == before
    with pytest.raises(statuses.ParentGone):
        statuses.post_status(r, bob["id"], "@alice reply", in_reply_to=parent)

"""conversations.notifications_after: a user's new notifications as a stream sends them,
by the notifications page's rules (blocks, mutes, suspensions, the one visibility path)."""

from socialsite.repository import (
    blocks,
    conversations,
    graph,
    likes,
    moderation,
    notifications,
    privacy,
    statuses,
)
from tests.support.helpers import post


def kinds(notices):
    return [(n.event.kind, n.actor["login"], n.status and n.status["id"]) for n in notices]


def test_new_notifications_oldest_first_with_their_statuses(r, alice, bob):
    graph.follow(r, bob["id"], alice["id"])
    mention = post(r, bob, "@alice hello")
    own = post(r, alice, "mine")
    likes.like(r, bob["id"], own)
    notices = conversations.notifications_after(r, alice["id"], 0)
    assert kinds(notices) == [
        ("follow", "bob", None),
        ("mention", "bob", mention),
        ("like", "bob", own),
    ]
    assert notices[1].status_author["login"] == "bob"
    assert notices[2].status_author["login"] == "alice"  # the status liked is hers
    after = notices[1].event.score
    assert kinds(conversations.notifications_after(r, alice["id"], after)) == [("like", "bob", own)]
    assert notifications.newest_score(r, alice["id"]) == notices[2].event.score


def test_hidden_actors_and_statuses_are_left_out(r, alice, bob, carol):
    post(r, bob, "@alice from bob")
    graph.follow(r, carol["id"], alice["id"])
    blocks.block(r, alice["id"], bob["id"])
    assert kinds(conversations.notifications_after(r, alice["id"], 0)) == [
        ("follow", "carol", None)
    ]
    moderation.suspend(r, carol["id"])
    assert conversations.notifications_after(r, alice["id"], 0) == []


def test_a_deleted_or_unseen_status_is_left_out(r, alice, bob, carol):
    gone = post(r, bob, "@alice soon gone")
    statuses.delete_status(r, bob["id"], gone)
    privacy.set_private(r, carol["id"], True)
    post(r, carol, "@alice private, and alice does not follow carol")
    found, _ = notifications.events_after(r, alice["id"], 0)
    assert [event.kind for event in found] == ["mention"]  # notified, not shown
    assert conversations.notifications_after(r, alice["id"], 0) == []

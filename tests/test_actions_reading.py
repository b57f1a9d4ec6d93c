"""The reading actions (socialsite/actions/reading.py) called directly: the markers,
dismissing one notification and clearing them all; and the client API calling them.
(The pages move the same markers in the reads that show the home and notifications
pages: tests/test_api_lists_relations_reports.py shows both doors meet there.)"""

import pytest

from socialsite.actions import Actor, Invalid, NotFound, reading
from socialsite.repository import blocks, graph, markers, notifications, statuses
from socialsite.repository.ids import MAX_ID
from tests.support.helpers import bearer


def actor(user):
    return Actor(uid=user["id"], login=user["login"])


def test_the_home_marker_moves_and_a_retry_changes_nothing(r, alice):
    first = reading.set_home_marker(actor(alice), 10)
    assert first.last_read_id == 10 and first.version == 1
    assert reading.set_home_marker(actor(alice), 10) == first
    assert reading.set_home_marker(actor(alice), 12).version == 2
    assert markers.get_markers(r, alice["id"])["home"].last_read_id == 12


def test_the_home_marker_given_as_read_is_not_read_again(r, alice, round_trips):
    """The home page passes the marker it read with its session (``current``): the
    action writes in one round trip, and none when it would not move."""
    first = reading.set_home_marker(actor(alice), 10)
    round_trips["n"] = 0
    assert reading.set_home_marker(actor(alice), 10, current=first) == first
    assert round_trips["n"] == 0
    moved = reading.set_home_marker(actor(alice), 12, current=first)
    assert round_trips["n"] == 1 and moved.version == 2
    assert reading.set_home_marker(actor(alice), 14, current=None).last_read_id == 14


@pytest.mark.parametrize("bad", [0, -1, MAX_ID + 1])
def test_a_marker_that_is_no_id_is_invalid(r, alice, bad):
    with pytest.raises(Invalid):
        reading.set_home_marker(actor(alice), bad)
    with pytest.raises(Invalid):
        reading.mark_notifications_read(actor(alice), bad)
    assert markers.get_markers(r, alice["id"]) == {}


def test_marking_notifications_read_leaves_the_newer_unread(r, alice, bob, carol):
    graph.follow(r, bob["id"], alice["id"])
    (first,) = notifications.events(r, alice["id"])
    graph.follow(r, carol["id"], alice["id"])
    assert reading.mark_notifications_read(actor(alice), first.score) == 1
    assert markers.get_markers(r, alice["id"])["notifications"].last_read_id == first.score


def test_one_notification_is_dismissed(r, alice, bob, carol):
    graph.follow(r, bob["id"], alice["id"])
    graph.follow(r, carol["id"], alice["id"])
    newest, older = notifications.events(r, alice["id"])
    reading.dismiss_notification(actor(alice), older.score)
    assert [event.score for event in notifications.events(r, alice["id"])] == [newest.score]
    with pytest.raises(NotFound):
        reading.dismiss_notification(actor(alice), older.score)  # gone already
    with pytest.raises(NotFound):
        reading.dismiss_notification(actor(bob), newest.score)  # not bob's


def test_a_group_of_notifications_is_dismissed_together(r, alice, bob, carol):
    graph.follow(r, bob["id"], alice["id"])
    graph.follow(r, carol["id"], alice["id"])
    scores = [event.score for event in notifications.events(r, alice["id"])]
    with pytest.raises(NotFound):
        reading.dismiss_notifications(actor(bob), scores)  # not bob's
    assert reading.dismiss_notifications(actor(alice), [*scores, 12345]) == 2
    assert notifications.events(r, alice["id"]) == []
    with pytest.raises(NotFound):
        reading.dismiss_notifications(actor(alice), scores)  # gone already


def test_a_notification_not_shown_is_not_found(r, alice, bob):
    graph.follow(r, bob["id"], alice["id"])
    (event,) = notifications.events(r, alice["id"])
    with pytest.raises(NotFound):  # a kind the door does not show
        reading.dismiss_notification(actor(alice), event.score, kinds={"mention"})
    blocks.block(r, alice["id"], bob["id"])
    with pytest.raises(NotFound):  # of someone the user blocks: not shown
        reading.dismiss_notification(actor(alice), event.score)


def test_clearing_takes_every_notification_away(r, alice, bob, carol):
    assert reading.clear_notifications(actor(alice)) == 0
    graph.follow(r, bob["id"], alice["id"])
    statuses.post_status(r, carol["id"], "@alice hello")
    assert reading.clear_notifications(actor(alice)) == 2
    assert notifications.events(r, alice["id"]) == []
    assert notifications.unread(r, alice["id"]).count == 0


def test_the_api_dismisses_and_clears_through_the_actions(r, client, alice, bob, carol, token):
    graph.follow(r, bob["id"], alice["id"])
    graph.follow(r, carol["id"], alice["id"])
    newest, older = notifications.events(r, alice["id"])
    mine = bearer(token(alice))
    url = f"/api/v1/notifications/{older.score}/dismiss"
    assert client.post(url, **mine).json() == {}
    assert client.post(url, **mine).status_code == 404
    assert [event.score for event in notifications.events(r, alice["id"])] == [newest.score]
    assert client.post("/api/v1/notifications/clear", **mine).json() == {}
    assert notifications.events(r, alice["id"]) == []

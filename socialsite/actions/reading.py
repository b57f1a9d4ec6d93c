"""What a person has read: the home and notifications markers (the "new since you last
read" point, socialsite/repository/markers.py), and taking notifications away, one or
all. The client API (api/markers.py, api/notifications.py) calls these; the pages move
the same markers as they show the home page and the notifications page, in the reads
that show them (timeline/views.py: home, notifications_page).
"""

from collections.abc import Collection

from socialsite.connection import get_redis
from socialsite.repository import conversations, markers, notifications
from socialsite.repository.ids import MAX_ID

from .core import Actor, Invalid, NotFound


def _an_id(value: int, field: str) -> int:
    if not 1 <= value <= MAX_ID:
        raise Invalid(f"{field} must be an id (1 to {MAX_ID})", field=field)
    return value


# set_home_marker's ``current`` when the door has not read the marker.
_NOT_READ = object()


def set_home_marker(
    actor: Actor, last_read_id: int, current: markers.Marker | None | object = _NOT_READ
) -> markers.Marker:
    """Move the actor's home marker to status id ``last_read_id`` (its version raised
    only if it moved: a retry changes nothing more); the marker after it. Invalid for
    a number that is no id. ``current``: the marker as the door just read it (a Marker,
    or None for none; markers.HomeMarkerRead), which saves reading it again: the home
    page marks its newest status read in one round trip."""
    _an_id(last_read_id, "home[last_read_id]")
    if current is _NOT_READ:
        return markers.set_home(get_redis(), actor.uid, last_read_id)
    return markers.set_home(get_redis(), actor.uid, last_read_id, current=current)


def mark_notifications_read(actor: Actor, last_read_id: int) -> int:
    """The actor has read their notifications up to id (score) ``last_read_id``, as
    the notifications page marks them seen; the unread count after it. Invalid for a
    number that is no id."""
    _an_id(last_read_id, "notifications[last_read_id]")
    unread, _version = notifications.mark_read(get_redis(), actor.uid, last_read_id)
    return int(unread)


def dismiss_notification(
    actor: Actor, notification_id: int, kinds: Collection[str] | None = None
) -> None:
    """Take the actor's notification ``notification_id`` away. NotFound for none of
    theirs, or one they are not shown (of a hidden actor, about a status they may not
    see, or not of ``kinds``: the kinds the door shows; None, every kind)."""
    r = get_redis()
    found, _ = conversations.notices(r, actor.uid, kinds=kinds, score=notification_id, count=1)
    if not found:
        raise NotFound("There is no such notification.")
    notifications.unnotify(r, actor.uid, [found[0].event.member])


def dismiss_notifications(actor: Actor, notification_ids: Collection[int]) -> int:
    """Take the actor's notifications ``notification_ids`` away together (a group of
    them, as the client API's grouped notifications name one); how many were. NotFound
    when none of them is the actor's."""
    r = get_redis()
    wanted = {int(score) for score in notification_ids}
    members = [e.member for e in notifications.events(r, actor.uid) if e.score in wanted]
    if not members:
        raise NotFound("There is no such notification.")
    return int(notifications.unnotify(r, actor.uid, members))


def clear_notifications(actor: Actor) -> int:
    """Take every notification of the actor's away; how many there were."""
    r = get_redis()
    members = [event.member for event in notifications.events(r, actor.uid)]
    if not members:
        return 0
    return int(notifications.unnotify(r, actor.uid, members))

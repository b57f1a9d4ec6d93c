"""Read markers: where a user last stopped reading their home timeline and their
notifications (Mastodon's ``/api/v1/markers``), shown on the pages as the "new since
you last read" divider.

The home marker is the id of the newest status read, in keys.markers. The notifications
marker is the notifications' own read mark (keys.notifications_state ``read``, the
score of the newest one seen): the unread count and the marker never disagree, and
marking notifications read through the API is what the notifications page does
(notifications.mark_read). Its version is the notifications' version, which every change
of them raises: an app can tell an older marker from a newer one.
"""

import time
from dataclasses import dataclass
from typing import Any

from . import keys
from .client import Client
from .ids import stored_id

HOME = "home"
NOTIFICATIONS = "notifications"
TIMELINES = (HOME, NOTIFICATIONS)


@dataclass(frozen=True)
class Marker:
    last_read_id: int
    version: int
    updated_ms: int


def _home(fields):
    home_id, version, updated = fields
    home_id = stored_id(home_id)
    if not home_id:  # none, or a value that is not an id: no marker
        return None
    return Marker(home_id, int(version or 0), int(updated or 0))


def _notifications(state, updated):
    read, version = state
    read = stored_id(read)
    if not read:
        return None
    return Marker(read, int(version or 0), int(updated or 0))


HOME_FIELDS = ["home_id", "home_version", "home_updated"]


class HomeMarkerRead:
    """The home marker of the user a session names, read along with the session
    (sessions.load_with_user): one HMGET more in the round trip the home page makes
    anyway. ``for_user`` gives it (a Marker or None) for that user only."""

    replies = 1

    def __init__(self):
        self.uid, self.found = None, None

    def queue(self, pipe, uid):
        pipe.hmget(keys.markers(uid), HOME_FIELDS)

    def take(self, uid, replies):
        self.uid, self.found = uid, _home(replies[0])

    def for_user(self, uid):
        return self.found if self.uid == uid else None


def get_markers(r: Client, uid: int) -> dict[str, Marker]:
    """{timeline: Marker} of user ``uid`` for the timelines that have one; one round trip."""
    pipe = r.pipeline(transaction=False)
    pipe.hmget(keys.markers(uid), [*HOME_FIELDS, "notifications_updated"])
    pipe.hmget(keys.notifications_state(uid), ["read", "version"])
    fields, state = pipe.execute()
    found = {HOME: _home(fields[:3]), NOTIFICATIONS: _notifications(state, fields[3])}
    return {name: marker for name, marker in found.items() if marker is not None}


_UNREAD = object()


def set_home(
    r: Client, uid: int, last_read_id: int, now_ms: int | None = None, current: Any = _UNREAD
) -> Marker:
    """Move user ``uid``'s home marker to status id ``last_read_id``; its version is
    raised only if it moved, so a retried call changes nothing more. Returns the Marker.
    ``current``: the marker as just read (a Marker or None; HomeMarkerRead), which
    saves reading it again: the home page's write is then one round trip."""
    key = keys.markers(uid)
    now = int(time.time() * 1000) if now_ms is None else int(now_ms)
    if current is _UNREAD:
        current = _home(r.hmget(key, HOME_FIELDS))
    if current is not None and current.last_read_id == int(last_read_id):
        return current
    pipe = r.pipeline(transaction=True)  # one key: one slot
    pipe.hset(key, mapping={"home_id": int(last_read_id), "home_updated": now})
    pipe.hincrby(key, "home_version", 1)
    _, version = pipe.execute()
    return Marker(int(last_read_id), int(version), now)

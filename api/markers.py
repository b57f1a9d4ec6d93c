"""GET/POST /api/v1/markers: where the user last stopped reading their home timeline
and their notifications (socialsite/repository/markers.py), the same point the pages
show as "new since you last read"; moved by the reading actions
(socialsite/actions/reading.py)."""

from socialsite.acting import actor_of
from socialsite.actions import reading
from socialsite.connection import get_redis
from socialsite.repository import markers
from socialsite.repository.ids import MAX_ID, parse_id

from . import entities
from .auth import api_view
from .common import BadBody, body, get_list, scope_refused
from .responses import error, json_response


def _entity(marker):
    return {
        "last_read_id": str(marker.last_read_id),
        "version": marker.version,
        "updated_at": entities.iso_time(marker.updated_ms / 1000),
    }


_NAMES = [f"{name}[last_read_id]" for name in markers.TIMELINES]


def _posted(params, timeline):
    """The ``last_read_id`` sent for ``timeline``: ``home[last_read_id]`` in a form,
    ``{"home": {"last_read_id": ...}}`` in JSON; None if not sent."""
    value = params.get(f"{timeline}[last_read_id]")
    nested = params.get(timeline)
    if value is None and isinstance(nested, dict):
        value = nested.get("last_read_id")
    return value


@api_view(methods=("GET", "POST"))
def markers_view(request):
    """One URL, two methods: each checks its own scope (Mastodon's: read:statuses and
    write:statuses)."""
    refused = scope_refused(
        request, "write:statuses" if request.method == "POST" else "read:statuses"
    )
    if refused is not None:
        return refused
    if request.method == "POST":
        return _save(request)
    asked = [name for name in get_list(request.GET, "timeline") if name in markers.TIMELINES]
    found = markers.get_markers(get_redis(), request.user.id)
    return json_response({name: _entity(m) for name, m in found.items() if name in asked})


def _save(request):
    """POST: ``home[last_read_id]`` and/or ``notifications[last_read_id]``."""
    try:
        params = body(request)
    except BadBody as bad:
        return error(422, str(bad))
    sent = {name: _posted(params, name) for name in markers.TIMELINES}
    sent = {name: value for name, value in sent.items() if value is not None}
    if not sent:
        return error(422, f"Validation failed: give {' or '.join(_NAMES)}")
    ids = {name: parse_id(value) for name, value in sent.items()}
    bad = [name for name, value in ids.items() if value is None]
    if bad:
        return error(
            422,
            f"Validation failed: {bad[0]}[last_read_id] must be an id (1 to {MAX_ID})",
        )
    actor = actor_of(request)
    if markers.HOME in ids:
        reading.set_home_marker(actor, ids[markers.HOME])
    if markers.NOTIFICATIONS in ids:
        reading.mark_notifications_read(actor, ids[markers.NOTIFICATIONS])
    found = markers.get_markers(get_redis(), request.user.id)
    return json_response({name: _entity(found[name]) for name in ids if name in found})

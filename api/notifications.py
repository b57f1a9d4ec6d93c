"""The client API's notifications (/api/v1/notifications...), one by one as Mastodon
gives them (the page groups them): mention (a reply is one), follow, follow_request,
favourite, reblog (and update, poll once the site writes them). Read through
conversations.notices, which leaves out what the notifications page leaves out."""

from django.http import Http404

from socialsite.acting import actor_of
from socialsite.actions import reading
from socialsite.connection import get_redis
from socialsite.repository import conversations

from . import entities, paging
from .auth import api_view
from .common import filter_notices, get_list, id_or_404
from .responses import error, json_response

# Mastodon's types -> the repository's kinds.
KINDS_OF_TYPE = {
    "mention": {"mention", "reply"},
    "follow": {"follow"},
    "follow_request": {"follow_request"},
    "favourite": {"like"},
    "reblog": {"repost"},
    # The kinds later issues add, when the site writes them: an edit of a status one
    # reblogged, a poll one voted in ended.
    "update": {"update"},
    "poll": {"poll"},
}
SHOWN_KINDS = set().union(*KINDS_OF_TYPE.values())


def _kinds(request):
    """The repository kinds ``types[]`` and ``exclude_types[]`` ask for; unknown
    types name nothing (as Mastodon: a newer client's types are ignored)."""
    types = get_list(request.GET, "types")
    kinds = set(SHOWN_KINDS)
    if types:
        kinds = set().union(*(KINDS_OF_TYPE.get(name, set()) for name in types))
    for name in get_list(request.GET, "exclude_types"):
        kinds -= KINDS_OF_TYPE.get(name, set())
    return kinds


def _entity(base, notice):
    status = None
    if notice.status is not None:
        status = entities.shown_status(base, notice.status)
    return entities.notification(base, notice.event, notice.actor, status)


@api_view(scope="read:notifications")
def notification_list(request):
    """GET /api/v1/notifications: newest first, paged by ``max_id``/``since_id``/
    ``min_id``/``limit`` with the Link header."""
    try:
        query = paging.params(request, default=15, most=30)
    except paging.BadParameter as bad:
        return error(422, str(bad))
    found, next_cursor = conversations.notices(
        get_redis(), request.user.id, kinds=_kinds(request), before=query.max_id,
        after=query.lower, count=query.limit,
        upward=query.upward,
    )  # fmt: skip
    base = entities.site_base(request)
    shown = filter_notices(request, found)  # keyword filters
    response = json_response([_entity(base, notice) for notice in shown])
    prev = found[0].event.score if found else None
    return paging.with_link(response, request, next_cursor, prev)


def _one(request, notification_id):
    found, _ = conversations.notices(
        get_redis(), request.user.id, kinds=SHOWN_KINDS, score=id_or_404(notification_id), count=1
    )
    if not found:
        raise Http404
    return found[0]


@api_view(scope="read:notifications")
def one(request, notification_id):
    """GET /api/v1/notifications/:id."""
    notice = _one(request, notification_id)
    return json_response(_entity(entities.site_base(request), notice))


@api_view(scope="write:notifications", methods=("POST",))
def dismiss(request, notification_id):
    """POST /api/v1/notifications/:id/dismiss."""
    reading.dismiss_notification(actor_of(request), id_or_404(notification_id), SHOWN_KINDS)
    return json_response({})


@api_view(scope="write:notifications", methods=("POST",))
def clear(request):
    """POST /api/v1/notifications/clear: every notification of the user."""
    reading.clear_notifications(actor_of(request))
    return json_response({})

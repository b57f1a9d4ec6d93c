"""The client API's pinned statuses: POST /api/v1/statuses/:id/pin and /unpin
(actions.statuses.pin, unpin), answered with the status (``pinned``). Refusals as
Mastodon's: a status the caller may not see 404, another's, a repost, one not public and
past the most pinned 422."""

from socialsite.acting import actor_of
from socialsite.actions import statuses as statuses_actions
from socialsite.connection import get_redis

from .auth import api_view
from .common import status_entity, to_status_id, visible_status
from .responses import json_response


def _answer(request, sid):
    return json_response(status_entity(request, visible_status(get_redis(), request.user.id, sid)))


@api_view(scope="write:accounts", methods=("POST",))
def pin(request, status_id):
    sid = to_status_id(status_id)
    statuses_actions.pin(actor_of(request), sid)
    return _answer(request, sid)


@api_view(scope="write:accounts", methods=("POST",))
def unpin(request, status_id):
    sid = to_status_id(status_id)
    statuses_actions.unpin(actor_of(request), sid)
    return _answer(request, sid)

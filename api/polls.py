"""The client API's polls: GET /api/v1/polls/:id, POST /api/v1/polls/:id/votes. A poll's
id is its status's. Both go through actions.polls (the pages' vote does too): one vote
per account whatever the door, a status the caller may not see is "Record not found"."""

from socialsite.acting import actor_of
from socialsite.actions import polls as poll_actions

from . import entities
from .auth import api_view
from .common import BadBody, body, get_list, to_status_id
from .responses import error, json_response


def _answer(shown):
    return json_response(entities.poll(shown.sid, shown.poll, shown.own_votes, voted=shown.voted))


@api_view(scope="read:statuses", public=True)
def one(request, poll_id):
    """GET /api/v1/polls/:id: the Poll entity, ``voted`` and ``own_votes`` the caller's."""
    return _answer(poll_actions.show(actor_of(request), to_status_id(poll_id)))


@api_view(scope="write:statuses", methods=("POST",))
def votes(request, poll_id):
    """POST /api/v1/polls/:id/votes: ``choices[]`` (option indexes, as form fields or a
    JSON list); the Poll entity after the vote."""
    sid = to_status_id(poll_id)
    try:
        params = body(request)
    except BadBody as bad:
        return error(422, str(bad))
    try:
        choices = [int(choice) for choice in get_list(params, "choices")]
    except ValueError:
        return error(422, "Validation failed: choices[] are the indexes of options")
    return _answer(poll_actions.vote(actor_of(request), sid, choices))

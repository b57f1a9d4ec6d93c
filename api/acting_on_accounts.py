"""What the client API's acts on an account share (follow, block, mute, answer a
request...: api/accounts.py, api/relations.py): run the act's action
(socialsite/actions/relations.py) on the account a URL names and answer the
Relationship after it. A refusal the action raises goes up to api_view, which answers
it as Mastodon does (404, 422, 403, 409, 429: responses.refusal_response)."""

from collections.abc import Callable
from enum import Enum
from typing import Any

from django.http import HttpRequest, HttpResponse

from socialsite.acting import actor_of
from socialsite.actions import Actor
from socialsite.connection import get_redis
from socialsite.repository import graph, visibility
from socialsite.repository.client import Client

from . import entities
from .common import id_or_404
from .responses import json_response


def relationship(r: Client, viewer_id: int, other_id: int) -> dict[str, Any]:
    """Mastodon's Relationship of ``viewer_id`` to account ``other_id``."""
    rel = visibility.relationship(r, viewer_id, other_id)
    followed_by = graph.is_following(r, other_id, viewer_id)
    return entities.relationship(other_id, rel, followed_by=followed_by)


def act_on_account(
    request: HttpRequest, account_id: str, act: Callable[[Actor, int], Enum]
) -> HttpResponse:
    """Run ``act(actor, other id)`` on account ``account_id`` (an id from the URL: 404
    for what is not one) and answer the caller's Relationship to it after the act."""
    other_id = id_or_404(account_id)
    act(actor_of(request), other_id)
    return json_response(relationship(get_redis(), request.user.id, other_id))

"""The client API's followed hashtags: GET /api/v1/tags/:name (with
``following``), POST /api/v1/tags/:name/follow and /unfollow (actions.relations.follow_tag,
unfollow_tag), GET /api/v1/followed_tags (the caller's, the latest follow first, paged by
Link with the follows' times as ``max_id``)."""

from django.http import Http404

from socialsite.acting import actor_of
from socialsite.actions import relations as relation_actions
from socialsite.connection import get_redis
from socialsite.repository import entities as parsed_entities
from socialsite.repository import followed_tags

from . import entities, paging
from .auth import api_view
from .responses import error, json_response


def _name(tag):
    normalized = parsed_entities.normalize_tag(str(tag).lstrip("#"))
    if not parsed_entities.is_tag(normalized):
        raise Http404
    return normalized


def _answer(request, name):
    following = followed_tags.is_following(get_redis(), request.user.id, name)
    return json_response(entities.tag(entities.site_base(request), name, following=following))


@api_view(scope="read:statuses", public=True)
def tag(request, tag):
    return _answer(request, _name(tag))


@api_view(scope="write:follows", methods=("POST",))
def follow(request, tag):
    relation_actions.follow_tag(actor_of(request), tag)
    return _answer(request, _name(tag))


@api_view(scope="write:follows", methods=("POST",))
def unfollow(request, tag):
    relation_actions.unfollow_tag(actor_of(request), tag)
    return _answer(request, _name(tag))


@api_view(scope="read:follows")
def followed(request):
    try:
        query = paging.params(request, default=100, most=200)
    except paging.BadParameter as bad:
        return error(422, str(bad))
    pairs, next_cursor = followed_tags.followed(
        get_redis(), request.user.id, before=query.max_id, count=query.limit
    )
    base = entities.site_base(request)
    response = json_response([entities.tag(base, name, following=True) for name, _ in pairs])
    return paging.with_link(response, request, next_cursor, None)

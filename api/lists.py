"""The client API's lists (/api/v1/lists...): one's own named lists, their members,
read through the repository, changed through the actions the lists pages call (the
same name rules, limits and refusals: socialsite/actions/lists.py, decision 0037).
Another user's list id names nothing here, as on the pages: 404."""

from django.http import Http404, QueryDict

from socialsite.acting import actor_of
from socialsite.actions import lists as list_actions
from socialsite.connection import get_redis
from socialsite.repository import lists, users
from socialsite.repository.ids import parse_id

from . import paging
from .auth import api_view
from .common import BadBody, body, get_list, id_or_404, scope_refused
from .responses import error, json_response

# Members read per call at most (Mastodon: 40; limit=0 means "all" there, 40 here).
MEMBERS_AT_ONCE = 40


def _entity(found):
    return {"id": str(found["id"]), "title": found["name"], "replies_policy": "list",
            "exclusive": False}  # fmt: skip


def _scope_refused(request):
    return scope_refused(request, "read:lists" if request.method == "GET" else "write:lists")


_list_id = id_or_404


def _params(request):
    """The request's parameters; a PUT's or DELETE's form body too (Django parses only
    a POST's)."""
    if request.method in ("PUT", "DELETE", "PATCH") and request.content_type != "application/json":
        found = QueryDict(request.body, encoding=request.encoding).copy()
        for name, values in request.GET.lists():
            found.setlist(name, found.getlist(name) + values)
        return found
    return body(request)


def _title(params):
    """The ``title`` sent (checked by the action)."""
    return str(params.get("title", ""))


@api_view(methods=("GET", "POST"))
def lists_view(request):
    """GET /api/v1/lists: the user's lists, by name. POST (write:lists) ``title``: a new
    list; a title the user already has gives that list (a retry makes one list)."""
    refused = _scope_refused(request)
    if refused is not None:
        return refused
    if request.method == "GET":
        found = lists.get_lists(get_redis(), request.user.id)
        return json_response([_entity(one) for one in found])
    try:
        title = _title(body(request))
    except BadBody as bad:
        return error(422, str(bad))
    made = list_actions.create_list(actor_of(request), title)
    return json_response(_entity({"id": made.list_id, "name": made.name}))


@api_view(methods=("GET", "PUT", "DELETE"))
def one(request, list_id):
    """GET, PUT (``title``), DELETE /api/v1/lists/:id."""
    refused = _scope_refused(request)
    if refused is not None:
        return refused
    lid = _list_id(list_id)
    r = get_redis()
    uid = request.user.id
    if request.method == "GET":
        found = lists.get_list(r, uid, lid)
        if found is None:
            raise Http404
        return json_response(_entity(found))
    if request.method == "DELETE":
        list_actions.delete_list(actor_of(request), lid)
        return json_response({})
    try:
        title = _title(_params(request))
    except BadBody as bad:
        return error(422, str(bad))
    name = list_actions.rename_list(actor_of(request), lid, title)
    return json_response(_entity({"id": lid, "name": name}))


@api_view(methods=("GET", "POST", "DELETE"))
def accounts(request, list_id):
    """GET /api/v1/lists/:id/accounts (most recently added first, paged by Link);
    POST and DELETE (write:lists) ``account_ids[]``: add people the user follows, or
    take them off."""
    refused = _scope_refused(request)
    if refused is not None:
        return refused
    lid = _list_id(list_id)
    if request.method == "GET":
        return _members(request, lid)
    try:
        wanted = get_list(_params(request), "account_ids")
    except BadBody as bad:
        return error(422, str(bad))
    if not wanted:
        return error(422, "Validation failed: give account_ids[]")
    r = get_redis()
    if lists.get_list(r, request.user.id, lid) is None:
        raise Http404
    people = _accounts(r, wanted)
    change = list_actions.add_member if request.method == "POST" else list_actions.remove_member
    actor = actor_of(request)
    for person in people:
        change(actor, lid, person["id"])  # a refusal stops here: those before are done
    return json_response({})


def _accounts(r, wanted):
    """The users of ids ``wanted`` (strings), or Http404 if one names no one shown."""
    wanted = [parse_id(w) for w in wanted]
    if len(wanted) > MEMBERS_AT_ONCE or None in wanted:
        raise Http404
    found = users.get_users(r, wanted)
    people = [found.get(w) for w in wanted]
    if any(person is None or users.is_hidden(person) for person in people):
        raise Http404
    return people


def _members(request, lid):
    try:
        query = paging.params(request, default=MEMBERS_AT_ONCE, most=MEMBERS_AT_ONCE)
    except paging.BadParameter as bad:
        return error(422, str(bad))
    found, page = lists.members_page(get_redis(), request.user.id, lid, **query.bounds())
    if found is None:
        raise Http404
    return paging.accounts_response(request, page.items, page)

"""The client API's keyword filters: Mastodon's v2 filters (/api/v2/filters...), and the
v1 list (GET /api/v1/filters: one entry per keyword, as Mastodon answers v1 clients).
Read through the repository, changed through the actions the settings pages call
(socialsite/actions/filters.py, decision 0073). Another user's filter id names nothing
here, as on the pages: 404.

Where filters apply to what the API answers (a hide filter's statuses left out, a warn
filter's carrying ``filtered``): api/common.py's ``filter_statuses``."""

import re

from django.http import Http404

from socialsite.acting import actor_of
from socialsite.actions import Invalid
from socialsite.actions import filters as filter_actions
from socialsite.connection import get_redis
from socialsite.repository import filters

from . import entities
from .auth import api_view
from .common import TRUE, BadBody, body, id_or_404, scope_refused
from .lists import _params
from .responses import error, json_response

filter_entity = entities.filter_entity
keyword_entity = entities.filter_keyword
_iso_ms = entities._iso_ms


def _v1_entity(found, keyword):
    """One keyword of a filter as Mastodon's v1 Filter entity (what Mastodon.py's
    ``filters()`` reads)."""
    return {
        "id": str(keyword.id),
        "phrase": keyword.keyword,
        "context": list(found.context),
        "whole_word": keyword.whole_word,
        "expires_at": _iso_ms(found.expires_ms),
        "irreversible": found.action == filters.HIDE,
    }


# --- reading the parameters ----------------------------------------------------------------

_INDEXED = re.compile(r"^keywords_attributes\[(\d*)\]\[(\w+)\]$")


def _truth(value):
    return value in TRUE


def _keywords(params):
    """The ``keywords_attributes`` sent: a JSON list of objects, or form fields
    ``keywords_attributes[][keyword]`` (in order) or ``keywords_attributes[N][keyword]``
    (by N), with ``whole_word``, ``id`` and ``_destroy``; as KeywordChanges."""
    raw = params.get("keywords_attributes") if isinstance(params, dict) else None
    rows: list[dict] = []
    if isinstance(raw, list):
        rows = [row for row in raw if isinstance(row, dict)]
    elif isinstance(raw, dict):  # {"0": {...}, "1": {...}}, as Rails accepts
        rows = [row for _, row in sorted(raw.items()) if isinstance(row, dict)]
    elif hasattr(params, "lists"):
        indexed: dict[str, dict] = {}
        positional: dict[str, list] = {}
        for name, values in params.lists():
            found = _INDEXED.match(name)
            if found is None:
                continue
            index, field = found.groups()
            if index:
                indexed.setdefault(index, {})[field] = values[-1]
            else:
                positional[field] = values
        rows = [indexed[index] for index in sorted(indexed, key=int)]
        longest = max((len(values) for values in positional.values()), default=0)
        for i in range(longest):
            rows.append({f: v[i] for f, v in positional.items() if i < len(v)})
    changes = []
    for row in rows:
        try:
            kid = int(row.get("id") or 0)
        except (TypeError, ValueError):
            raise Invalid("A keyword's id is a number.", field="keywords_attributes") from None
        changes.append(
            filter_actions.KeywordChange(
                keyword=str(row.get("keyword") or ""),
                whole_word=_truth(row.get("whole_word", True)),
                id=kid,
                destroy=_truth(row.get("_destroy", False)),
            )
        )
    return changes


def _context(params):
    if hasattr(params, "getlist"):
        return params.getlist("context[]") or params.getlist("context")
    found = params.get("context")
    if isinstance(found, str):
        return [found]
    return [str(c) for c in found] if isinstance(found, list) else []


def _expires_in(params):
    """Seconds, None for never (absent or empty)."""
    value = params.get("expires_in")
    if value in (None, ""):
        return None
    try:
        return int(value)
    except (TypeError, ValueError):
        raise Invalid("expires_in is a number of seconds.", field="expires_in") from None


def _scope(request):
    return scope_refused(request, "read:filters" if request.method == "GET" else "write:filters")


# --- the views ----------------------------------------------------------------------------


@api_view(methods=("GET", "POST"))
def filters_view(request):
    """GET /api/v2/filters: the caller's filters. POST: a new one (``title``,
    ``context[]``, ``filter_action``, ``expires_in``, ``keywords_attributes``)."""
    refused = _scope(request)
    if refused is not None:
        return refused
    if request.method == "GET":
        found = filters.get_filters(get_redis(), request.user.id)
        return json_response([filter_entity(one) for one in found])
    try:
        params = body(request)
    except BadBody as bad:
        return error(422, str(bad))
    made = filter_actions.create_filter(
        actor_of(request),
        str(params.get("title") or ""),
        _context(params),
        str(params.get("filter_action") or filters.WARN),
        _keywords(params),
        _expires_in(params),
    )
    return json_response(filter_entity(made))


@api_view(methods=("GET", "PUT", "DELETE"))
def one(request, filter_id):
    """GET, PUT (any of POST's parameters; a keyword with ``id`` changed, with
    ``_destroy`` removed), DELETE /api/v2/filters/:id."""
    refused = _scope(request)
    if refused is not None:
        return refused
    fid = id_or_404(filter_id)
    actor = actor_of(request)
    if request.method == "GET":
        return json_response(filter_entity(filter_actions.get_filter(actor, fid)))
    if request.method == "DELETE":
        filter_actions.delete_filter(actor, fid)
        return json_response({})
    try:
        params = _params(request)
    except BadBody as bad:
        return error(422, str(bad))
    given = set(params.keys())
    context = _context(params) if given & {"context", "context[]"} else None
    changed = filter_actions.update_filter(
        actor,
        fid,
        title=str(params["title"]) if "title" in given else None,
        context=context,
        action=str(params["filter_action"]) if "filter_action" in given else None,
        keywords=_keywords(params),
        expires_in=_expires_in(params) if "expires_in" in given else filter_actions.UNCHANGED,
    )
    return json_response(filter_entity(changed))


@api_view(methods=("GET", "POST"))
def keywords_view(request, filter_id):
    """GET /api/v2/filters/:id/keywords: its keywords. POST (``keyword``,
    ``whole_word``): one more."""
    refused = _scope(request)
    if refused is not None:
        return refused
    fid = id_or_404(filter_id)
    actor = actor_of(request)
    if request.method == "GET":
        found = filter_actions.get_filter(actor, fid)
        return json_response([keyword_entity(k) for k in found.keywords])
    try:
        params = body(request)
    except BadBody as bad:
        return error(422, str(bad))
    word = str(params.get("keyword") or "").strip()
    if not word:
        raise Invalid("A keyword cannot be empty.", field="keyword")
    before = {k.id for k in filter_actions.get_filter(actor, fid).keywords}
    change = filter_actions.KeywordChange(word, _truth(params.get("whole_word", False)))
    changed = filter_actions.update_filter(actor, fid, keywords=[change])
    added = [k for k in changed.keywords if k.id not in before]
    if not added:  # the filter had that word already
        added = [k for k in changed.keywords if k.keyword.casefold() == word.casefold()]
    return json_response(keyword_entity(added[0]))


def _keyword_owner(request, keyword_id):
    kid = id_or_404(keyword_id)
    for found in filters.get_filters(get_redis(), request.user.id):
        for keyword in found.keywords:
            if keyword.id == kid:
                return found, keyword
    raise Http404


@api_view(methods=("GET", "DELETE"))
def keyword_one(request, keyword_id):
    """GET, DELETE /api/v2/filters/keywords/:id (one of the caller's keywords)."""
    refused = _scope(request)
    if refused is not None:
        return refused
    found, keyword = _keyword_owner(request, keyword_id)
    if request.method == "GET":
        return json_response(keyword_entity(keyword))
    change = filter_actions.KeywordChange(id=keyword.id, destroy=True)
    filter_actions.update_filter(actor_of(request), found.id, keywords=[change])
    return json_response({})


@api_view(scope="read:filters")
def v1_filters(request):
    """GET /api/v1/filters: the caller's filters as Mastodon answers v1 clients, one
    entry per keyword (``phrase``; ``irreversible`` for a hide filter)."""
    found = filters.get_filters(get_redis(), request.user.id)
    return json_response([_v1_entity(one, k) for one in found for k in one.keywords])

"""What the client API's views share: reading a request's parameters (a form or a JSON
body, as Mastodon takes both) and a status the viewer may see as its Status entity.
(An act's throttle and verified-address rule are its action's: api_view answers their
refusals.)"""

import dataclasses
import json
import re

from django.core.exceptions import RequestDataTooBig, TooManyFieldsSent
from django.http import Http404, QueryDict
from django.http.multipartparser import MultiPartParserError

from socialsite.connection import get_redis
from socialsite.repository import bookmarks, filters, keys, likes, pins, polls, reposts, users
from socialsite.repository.ids import parse_id

from . import entities
from .responses import error

TRUE = ("1", "true", "True", "on", True, 1)


# A JSON body nests this deep at most: Mastodon's nest three (a marker's
# ``{"home": {"last_read_id": ...}}``, ``fields_attributes``); more is no client's, and
# Python's decoder would reach its recursion limit near 1,000.
MAX_JSON_DEPTH = 16

# A JSON body is this long at most: the longest a client sends is a status with its
# spoiler, a few KB; the API's pictures come as multipart forms, never as JSON.
MAX_JSON_BYTES = 256 * 1024


# What an upload's id looks like (the ids POST /api/v2/media gives: attachments.upload_id).
UPLOAD_ID = re.compile(r"[A-Za-z0-9_-]{1,64}")


class BadBody(ValueError):
    pass


def body(request):
    """The request's parameters: its JSON object, or its form (a QueryDict), or its
    query string for a GET."""
    if request.method == "GET":
        return request.GET
    if request.content_type == "application/json":
        return json_object(request)
    if request.method in ("PUT", "PATCH"):
        return form_body(request)[0]
    try:
        return request.POST
    except MultiPartParserError:
        raise BadBody("The multipart body does not read") from None
    except (RequestDataTooBig, TooManyFieldsSent) as refused:
        # Django's bounds on a form (DATA_UPLOAD_MAX_MEMORY_SIZE, 2.5 MB of fields past
        # the files; DATA_UPLOAD_MAX_NUMBER_FIELDS, 1,000): said in JSON, not its page.
        raise BadBody(f"The request body is refused: {refused}") from None


def form_body(request):
    """(the form fields, the files) of a PUT's or PATCH's body (Django parses only a
    POST's): form-encoded as Mastodon.py sends an edit, or multipart; BadBody when it
    does not read."""
    try:
        if request.content_type == "multipart/form-data":
            return request.parse_file_upload(request.META, request)
        return QueryDict(request.body, encoding=request.encoding), {}
    except MultiPartParserError:
        raise BadBody("The multipart body does not read") from None
    except (RequestDataTooBig, TooManyFieldsSent) as refused:
        raise BadBody(f"The request body is refused: {refused}") from None


def json_object(request):
    """The request's JSON body as a dict; BadBody when it is not a JSON object, is over
    MAX_JSON_BYTES, nests past MAX_JSON_DEPTH or holds text that is not Unicode (a lone
    surrogate such as ``"\\ud800"``, which Redis could not be given)."""
    if _content_length(request) > MAX_JSON_BYTES:
        raise BadBody(f"The request body is over {MAX_JSON_BYTES // 1024} KB")
    try:
        data = json.loads(request.body or b"{}")
    except RecursionError:
        raise BadBody(f"The request body nests deeper than {MAX_JSON_DEPTH} levels") from None
    except ValueError:  # UnicodeDecodeError is one
        raise BadBody("The request body is not valid JSON") from None
    if not isinstance(data, dict):
        raise BadBody("The request body must be a JSON object")
    check_json(data)
    return data


def _content_length(request):
    try:
        return int(request.META.get("CONTENT_LENGTH") or 0)
    except ValueError:
        return 0  # Django reads such a body as empty


def check_json(data):
    """BadBody if ``data`` nests past MAX_JSON_DEPTH or holds a string (value or key)
    that is not Unicode. A loop, not recursion: the check must not itself run out."""
    waiting = [(data, 1)]
    while waiting:
        value, depth = waiting.pop()
        if depth > MAX_JSON_DEPTH:
            raise BadBody(f"The request body nests deeper than {MAX_JSON_DEPTH} levels")
        if isinstance(value, dict):
            for key, item in value.items():
                _check_text(key)
                waiting.append((item, depth + 1))
        elif isinstance(value, list):
            waiting.extend((item, depth + 1) for item in value)
        elif isinstance(value, str):
            _check_text(value)


def _check_text(text):
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        raise BadBody(
            "The request body holds text that is not Unicode (a lone surrogate such as \\ud800)"
        ) from None


def get_list(params, name):
    """A list parameter: ``name[]`` repeated in a form or query, or a JSON list."""
    if hasattr(params, "getlist"):
        return params.getlist(f"{name}[]") or params.getlist(name)
    value = params.get(name, params.get(f"{name}[]", []))
    if value is None:  # a JSON null: none sent
        return []
    return [str(item) for item in value] if isinstance(value, list) else [str(value)]


def id_or_404(value):
    """An id from the URL (a status's, a list's, an account's...), or Http404 (ids are
    numbers up to ids.MAX_ID: anything else names no record)."""
    found = parse_id(value)
    if found is None:
        raise Http404
    return found


# A status's id from the URL: the same rule, by the name the status views use.
to_status_id = id_or_404


def shown_user(r, uid_text):
    """The user dict of id ``uid_text`` (a string from the URL or the body), or Http404
    for none, a suspended account or one being deleted."""
    user = users.get_user(r, id_or_404(uid_text))
    if user is None or users.is_hidden(user):
        raise Http404
    return user


def visible_status(r, viewer_id, sid):
    """Status ``sid`` (with its ``author``, the user hash read fresh) if ``viewer_id``
    may see it, else Http404 (missing, hidden, protected, blocked: Mastodon answers all
    of them "Record not found")."""
    status, refused = likes.status_for_viewer(r, viewer_id, sid)
    if refused:
        raise Http404
    return status


def status_entity(request, status, base=None, fresh=False):
    """The Status entity of ``status`` (from visible_status) for the request's viewer:
    a repost as a wrapper around its original (when the viewer may see it). Three round
    trips for a logged-in viewer: whether they like, reposted and bookmarked it (none
    when ``fresh``: a status just posted)."""
    r = get_redis()
    base = base or entities.site_base(request)
    original = None
    if status.get("repost_of"):
        original = status_entity(
            request, visible_status(r, request.user.id, status["repost_of"]), base
        )
    viewer = request.user.id
    shown = original["id"] if original else status["id"]
    asked = viewer is not None and not fresh
    liked = likes.likes_of(r, viewer, [shown]) if asked else frozenset()
    reblogged = asked and reposts.has_reposted(r, viewer, shown)
    marked = bookmarks.bookmarked_of(r, viewer, [shown]) if asked else frozenset()
    # Pinned: said to the status's author only, as Mastodon does.
    mine = asked and original is None and int(status["uid"]) == int(viewer)
    pinned = mine and int(shown) in pins.pinned_ids(r, viewer)
    counts = {"replies": status.get("replies", 0), "reblogs": status.get("reposts", 0),
              "favourites": status.get("likes", 0)}  # fmt: skip
    flags = {"favourited": int(shown) in liked, "reblogged": reblogged,
             "bookmarked": int(shown) in marked, "pinned": pinned}  # fmt: skip
    if original is None and "poll" in status and viewer is not None:  # polls: their vote
        flags["own_votes"] = polls.own_votes(r, viewer, [int(shown)]).get(int(shown), ())
        flags["is_author"] = int(status["uid"]) == int(viewer)
    entity = entities.status(base, status, status["author"], counts=counts, viewer=flags,
                             reblog=original)  # fmt: skip
    if status.get(entities.FILTERED_FIELD) is not None:  # keyword filters (filter_statuses)
        entity["filtered"] = entities.filter_results(status[entities.FILTERED_FIELD])
    return entity


def read_poll_votes(r, viewer_id, items):
    """Polls: mark the items (status dicts) with polls with the viewer's own votes and
    whether they wrote them (entities.POLL_OWN_FIELD, POLL_AUTHOR_FIELD), for their Poll
    entities: one round trip when a page holds polls and the viewer is logged in, none
    else."""
    if viewer_id is None:
        return
    with_polls = [item for item in items if "poll" in item]
    if not with_polls:
        return
    own = polls.own_votes(r, viewer_id, [item["id"] for item in with_polls])
    for item in with_polls:
        item[entities.POLL_OWN_FIELD] = own.get(int(item["id"]), ())
        item[entities.POLL_AUTHOR_FIELD] = int(item["uid"]) == int(viewer_id)


def read_viewer_marks(r, viewer_id, items):
    """A timeline's marks for its caller, in one round trip (none for a visitor or no
    items): which of ``items`` (status dicts) they bookmarked (one ZMSCORE in their
    slot), returned, and their own votes in those with polls, set on the items as
    read_poll_votes does (an HGET in each poll's status's slot, in the same pipeline)."""
    if viewer_id is None or not items:
        return frozenset()
    sids = list(dict.fromkeys(int(item["id"]) for item in items))
    with_polls = [item for item in items if "poll" in item]
    pipe = r.pipeline(transaction=False)
    bookmarks.queue_bookmarked_of(pipe, viewer_id, sids)
    for item in with_polls:
        pipe.hget(keys.poll_votes(item["id"]), str(int(viewer_id)))
    scores, *votes = pipe.execute()
    for item, chosen in zip(with_polls, votes, strict=True):
        own = tuple(int(c) for c in str(chosen).split(",") if c.isdigit()) if chosen else ()
        item[entities.POLL_OWN_FIELD] = own
        item[entities.POLL_AUTHOR_FIELD] = int(item["uid"]) == int(viewer_id)
    return frozenset(sid for sid, score in zip(sids, scores, strict=True) if score)


def scope_refused(request, scope):
    """403 if the request's token lacks ``scope``, else None: for a URL whose methods
    need different scopes (GET read:lists, POST write:lists), where api_view is given
    none and the view asks per method."""
    from .auth import OUTSIDE_SCOPES, scope_allows  # auth imports this module's users

    if not scope_allows(request.api_token["scopes"], scope):
        return error(403, OUTSIDE_SCOPES)
    return None


# --- keyword filters -------------------------------------------------------------------------


def filter_statuses(request, items, context, focus=None):
    """The caller's keyword filters of ``context`` applied to ``items`` (statuses as the
    pages give them): those a hide filter matches left out, those a warn filter matches
    given with their filters.Match (entities.FILTERED_FIELD: the Status's ``filtered``).
    The caller's filters are read once per request (one round trip, none without a
    logged-in caller). ``focus``: a status asked for by its id, which a hide filter only
    marks."""
    uid = request.user.id
    if uid is None or not items:
        return items
    mine = getattr(request, "keyword_filters", None)
    if mine is None:
        mine = request.keyword_filters = filters.get_filters(get_redis(), uid)
    kept, warned = filters.apply(filters.matcher_for(mine, context), list(items), uid, focus)
    if not warned:
        return kept
    return [
        {**item, entities.FILTERED_FIELD: warned[item["id"]]} if item["id"] in warned else item
        for item in kept
    ]


def filter_notices(request, notices):
    """The caller's keyword filters of the notifications context applied to
    ``notices`` (conversations.Notice): those about a status a hide filter matches left
    out, those about one a warn filter matches given it marked (filter_statuses)."""
    about = [notice.status for notice in notices if notice.status is not None]
    if request.user.id is None or not about:
        return notices
    shown = {item["id"]: item for item in filter_statuses(request, about, "notifications")}
    return [
        notice if notice.status is None else dataclasses.replace(notice, status=shown[sid])
        for notice in notices
        if notice.status is None or (sid := notice.status["id"]) in shown
    ]

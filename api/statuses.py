"""The client API's statuses (/api/v1/statuses...): posting, reading, deleting, a
thread, likes ("favourites") and reposts ("reblogs"). Each goes through the same
repository functions as the pages (posting: statuses.post_status, with the status
form's own checks), so their throttles, the reply rule, mentions and fan-out hold."""

import base64
import hashlib

from django.http import Http404
from django.views.decorators.csrf import csrf_exempt

from socialsite.acting import actor_of
from socialsite.actions import polls as poll_actions
from socialsite.actions import statuses as statuses_actions
from socialsite.connection import get_redis
from socialsite.repository import bookmarks, conversations, likes, reposts, statuses, visibility
from socialsite.repository.ids import parse_id

from . import direct, entities, paging
from .auth import api_view
from .common import (
    TRUE,
    UPLOAD_ID,
    BadBody,
    body,
    filter_statuses,
    get_list,
    status_entity,
    to_status_id,
    visible_status,
)
from .responses import error, json_response

VISIBILITIES = ("public", "unlisted", "private", "direct")


def idempotency_posting_key(header):
    """The posting key (statuses.post_status) an ``Idempotency-Key`` header stands for:
    the same header twice posts once, as the same form sent twice does. A digest, so
    that any header fits the key's form and length."""
    digest = hashlib.sha256(f"api:{header}".encode()).digest()
    return base64.urlsafe_b64encode(digest).decode()[:22]


@api_view(scope="write:statuses", methods=("POST",))
def post(request):
    """POST /api/v1/statuses: status, in_reply_to_id, sensitive, spoiler_text,
    visibility (the account's own: 422 for another), honouring Idempotency-Key."""
    try:
        params = body(request)
    except BadBody as bad:
        return error(422, str(bad))
    key = request.headers.get("Idempotency-Key")
    media_ids = [str(each) for each in get_list(params, "media_ids") if str(each)]
    if not all(UPLOAD_ID.fullmatch(each) for each in media_ids):
        return error(422, "Validation failed: media_ids[] are the ids /api/v2/media gave")
    wanted = params.get("visibility") or None
    if wanted == "direct":
        if media_ids:
            return error(422, "Validation failed: a direct message has no images")
        return direct.post_direct(request, params, idempotency_posting_key(key) if key else None)
    try:
        poll = poll_of_params(params)
    except ValueError as bad:
        return error(422, f"Validation failed: {bad}")
    own = "private" if request.user_data.get("private") == "1" else "public"
    wanted = wanted or own
    if wanted != own:
        if wanted not in VISIBILITIES:
            return error(422, f"Validation failed: visibility '{wanted}' is not one")
        return error(
            422,
            f"Validation failed: your statuses are {own}: the account's privacy decides"
            f" who sees them, not each status ({wanted} is not available)",
        )
    in_reply_to = params.get("in_reply_to_id") or None
    if in_reply_to is not None:
        in_reply_to = parse_id(in_reply_to)
        if in_reply_to is None:
            return error(404, "Record not found")
    new = statuses_actions.NewStatus(
        text=str(params.get("status") or ""),
        spoiler_text=str(params.get("spoiler_text") or ""),
        sensitive=params.get("sensitive") in TRUE,
        in_reply_to=in_reply_to,
    )
    sid = statuses_actions.post(
        actor_of(request),
        new,
        upload_ids=media_ids,
        posting_key=idempotency_posting_key(key) if key else None,
        group=str(params.get("group") or "") or None,  # groups: an extension
        poll=poll,
    )
    # Just posted: nobody likes or reposted it yet (an Idempotency-Key's repeat may be
    # older, and is read as any status is).
    fresh = not key
    status = visible_status(get_redis(), request.user.id, sid)
    return json_response(status_entity(request, status, fresh=fresh))


def poll_of_params(params):
    """Polls: the NewPoll of a request's ``poll``, as form fields (``poll[options][]``,
    ``poll[expires_in]``, ``poll[multiple]``, ``poll[hide_totals]``) or as JSON
    (``{"poll": {"options": [...], "expires_in": 300}}``), or None without one;
    ValueError for one that does not read (its limits are the action's)."""
    if hasattr(params, "getlist"):
        options = params.getlist("poll[options][]")
        if not options:
            return None
        fields = {
            "expires_in": params.get("poll[expires_in]"),
            "multiple": params.get("poll[multiple]"),
            "hide_totals": params.get("poll[hide_totals]"),
        }
    else:
        data = params.get("poll")
        if data is None:
            return None
        if not isinstance(data, dict) or not isinstance(data.get("options"), list):
            raise ValueError("poll is an object with a list of options")
        options = data["options"]
        fields = data
    if not all(isinstance(option, str) for option in options):
        raise ValueError("poll's options are text")
    try:
        expires_in = int(fields.get("expires_in") if fields.get("expires_in") is not None else "")
    except (TypeError, ValueError):
        raise ValueError("poll[expires_in] is a number of seconds") from None
    return poll_actions.NewPoll(
        options=tuple(options),
        expires_in=expires_in,
        multiple=fields.get("multiple") in TRUE,
        hide_totals=fields.get("hide_totals") in TRUE,
    )


@csrf_exempt
def one(request, status_id):
    """GET, PUT (an edit) or DELETE /api/v1/statuses/:id (each with its own scope)."""
    if request.method == "DELETE":
        return _delete(request, status_id=status_id)
    if request.method == "PUT":
        return _edit(request, status_id=status_id)
    return _get(request, status_id=status_id)


def media_descriptions(params):
    """Edits: ``media_attributes[][id]`` and ``[description]`` of a form, or JSON's
    ``media_attributes`` (a list of objects), as ((id, description), ...)."""
    if hasattr(params, "getlist"):
        ids = params.getlist("media_attributes[][id]")
        texts = params.getlist("media_attributes[][description]")
        return tuple((str(i), str(t)) for i, t in zip(ids, texts, strict=False))
    found = params.get("media_attributes") or []
    if not isinstance(found, list):
        raise ValueError("media_attributes is a list of objects")
    return tuple(
        (str(each.get("id")), str(each.get("description") or ""))
        for each in found
        if isinstance(each, dict) and each.get("id") is not None
    )


@api_view(scope="write:statuses", methods=("PUT",))
def _edit(request, status_id):
    """PUT /api/v1/statuses/:id: an edit of one's own status (its text ``status``,
    ``spoiler_text``, ``sensitive``, ``media_ids`` (its images, kept and added; not sent:
    those it has) and their ``media_attributes`` descriptions), form-encoded as
    Mastodon.py sends it, or JSON. A poll's options are not editable: 422 for ``poll``.
    Answered with the status as edited."""
    try:
        params = body(request)
    except BadBody as bad:
        return error(422, str(bad))
    sid = to_status_id(status_id)
    sent_media = any(name in params for name in ("media_ids", "media_ids[]"))
    media_ids = [str(each) for each in get_list(params, "media_ids") if str(each)]
    if not all(UPLOAD_ID.fullmatch(each) for each in media_ids):
        return error(422, "Validation failed: media_ids[] are the ids of images")
    if any(name in params for name in ("poll", "poll[options][]")):
        return error(422, "Validation failed: a poll's options cannot be edited")
    try:
        descriptions = media_descriptions(params)
    except ValueError as bad:
        return error(422, f"Validation failed: {bad}")
    change = statuses_actions.StatusEdit(
        text=str(params.get("status") or ""),
        spoiler_text=str(params.get("spoiler_text") or ""),
        sensitive=params.get("sensitive") in TRUE,
        media_ids=tuple(media_ids) if sent_media else None,
        descriptions=descriptions,
    )
    statuses_actions.edit(actor_of(request), sid, change)
    status = visible_status(get_redis(), request.user.id, sid)
    return json_response(status_entity(request, status))


@api_view(scope="read:statuses", public=True)
def _get(request, status_id):
    message = direct.parse_direct_status_id(status_id)
    if message is not None:
        return json_response(direct.direct_status(request, *message))
    status = visible_status(get_redis(), request.user.id, to_status_id(status_id))
    # Keyword filters of the thread context: a status asked for by its id is marked by
    # a matching filter, never left out, as its page shows it.
    (status,) = filter_statuses(request, [status], "thread", focus=status["id"])
    return json_response(status_entity(request, status))


@api_view(scope="write:statuses", methods=("DELETE",))
def _delete(request, status_id):
    """Delete one's own status; answered with it, its ``text`` the message as written
    (Mastodon's "delete and redraft"). A direct status is deleted for the caller alone
    (api/direct.py)."""
    message = direct.parse_direct_status_id(status_id)
    if message is not None:
        return json_response(direct.delete_direct_status(request, *message))
    sid = to_status_id(status_id)
    status = visible_status(get_redis(), request.user.id, sid)
    entity = status_entity(request, status)
    statuses_actions.delete(actor_of(request), sid)
    entity["text"] = str(status.get("message") or "")
    return json_response(entity)


@api_view(scope="read:statuses", public=True)
def context(request, status_id):
    """GET /api/v1/statuses/:id/context: ancestors (oldest first) and descendants (depth
    first, as the thread page shows them), those the viewer may not see left out."""
    sid = to_status_id(status_id)
    r = get_redis()
    viewer = request.user.id
    thread = conversations.thread(r, sid, viewer)
    if thread is None:
        raise Http404
    author, rel = visibility.author_and_relationship(r, viewer, thread.status["uid"])
    if not visibility.sees_statuses_of(viewer, author, rel):
        raise Http404
    base = entities.site_base(request)
    liked = thread.liked
    ancestors = [
        ancestor
        for ancestor in thread.ancestors
        if not ancestor.get("deleted") and not ancestor.get("unavailable")
    ]
    descendants = []

    def walk(replies):
        for reply in replies:
            descendants.append(reply.status)
            walk(reply.replies)

    walk(thread.replies)
    # Keyword filters, of the thread context: one pass over both lists.
    shown = filter_statuses(request, [*ancestors, *descendants], "thread")
    kept = {item["id"]: item for item in shown}
    # Bookmarks: which of the shown statuses the caller bookmarked (one ZMSCORE).
    marked = bookmarks.bookmarked_of(r, viewer, list(kept))
    return json_response({
        "ancestors": [entities.shown_status(base, kept[a["id"]], liked, marked)
                      for a in ancestors if a["id"] in kept],
        "descendants": [entities.shown_status(base, kept[d["id"]], liked, marked)
                        for d in descendants if d["id"] in kept],
    })  # fmt: skip


# --- a status's source and history (edits: decision 0074) ------------------------------


@api_view(scope="read:statuses")
def source(request, status_id):
    """GET /api/v1/statuses/:id/source: the caller's own status as written (``text``,
    ``spoiler_text``), what an app fills its edit form with; 404 for another's."""
    sid = to_status_id(status_id)
    status = visible_status(get_redis(), request.user.id, sid)
    if int(status["uid"]) != int(request.user.id) or status.get("repost_of"):
        raise Http404
    return json_response({"id": str(sid), "text": str(status.get("message") or ""),
                          "spoiler_text": str(status.get("spoiler") or "")})  # fmt: skip


# What a version in a status's history keeps (statuses.status_history).
VERSION_FIELDS = ("message", "entities", "spoiler", "sensitive", "media")


@api_view(scope="read:statuses", public=True)
def history(request, status_id):
    """GET /api/v1/statuses/:id/history: its versions, oldest first (StatusEdit
    entities: content, spoiler_text, sensitive, created_at (when that version was
    written), account, poll, media_attachments, emojis); a status never edited has one,
    itself, as Mastodon answers."""
    r = get_redis()
    sid = to_status_id(status_id)
    status = visible_status(r, request.user.id, sid)
    if status.get("repost_of"):
        raise Http404
    base = entities.site_base(request)
    current = entities.status(base, status, status["author"])
    versions = [*statuses.status_history(r, sid), None]
    answer = []
    for version in versions:
        if version is None:
            part = current
            created = current["edited_at"] or current["created_at"]
        else:
            written = {name: version.get(name) or "" for name in VERSION_FIELDS}
            shown = {**status, **written}
            part = entities.own_part(base, shown)
            created = entities.iso_time(int(version.get("at") or 0) / 1000)
        answer.append({
            "content": part["content"],
            "spoiler_text": part["spoiler_text"],
            "sensitive": part["sensitive"],
            "created_at": created,
            "account": current["account"],
            "poll": current["poll"],
            "media_attachments": part["media_attachments"],
            "emojis": [],
        })  # fmt: skip
    return json_response(answer)


def _after_action(request, sid):
    return json_response(status_entity(request, visible_status(get_redis(), request.user.id, sid)))


@api_view(scope="write:favourites", methods=("POST",))
def favourite(request, status_id):
    sid = to_status_id(status_id)
    statuses_actions.like(actor_of(request), sid)
    return _after_action(request, sid)


@api_view(scope="write:favourites", methods=("POST",))
def unfavourite(request, status_id):
    sid = to_status_id(status_id)
    statuses_actions.unlike(actor_of(request), sid)
    return _after_action(request, sid)


@api_view(scope="write:statuses", methods=("POST",))
def reblog(request, status_id):
    """Mastodon answers a reblog with the reblog: the original inside it."""
    sid = to_status_id(status_id)
    done = statuses_actions.repost(actor_of(request), sid)
    original = done.original_id or sid
    mine = reposts.repost_id(get_redis(), request.user.id, original)
    return _after_action(request, mine if mine is not None else original)


@api_view(scope="write:statuses", methods=("POST",))
def unreblog(request, status_id):
    sid = to_status_id(status_id)
    statuses_actions.unrepost(actor_of(request), sid)
    located = statuses.locate(get_redis(), sid)
    return _after_action(request, (located["repost_of"] or sid) if located else sid)


def _accounts_page(request, sid, read_page):
    sid = to_status_id(sid)
    try:
        query = paging.params(request)
    except paging.BadParameter as bad:
        return error(422, str(bad))
    r = get_redis()
    status = visible_status(r, request.user.id, sid)
    if status.get("repost_of"):
        raise Http404
    page = read_page(r, sid, **query.bounds())
    return paging.accounts_response(request, page.items, page)


@api_view(scope="read:statuses", public=True)
def favourited_by(request, status_id):
    return _accounts_page(request, status_id, likes.likers_page)


@api_view(scope="read:statuses", public=True)
def reblogged_by(request, status_id):
    def read_page(r, sid, **bounds):
        page = reposts.reposters_page(r, sid, **bounds)
        page.items = [user for user in page.items if user]
        return page

    return _accounts_page(request, status_id, read_page)

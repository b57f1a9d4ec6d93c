"""The client API's statuses (/api/v1/statuses...): posting, reading, deleting, a
thread, likes ("favourites") and reposts ("reblogs"). Each goes through the same
repository functions as the pages (posting: statuses.post_status, with the status
form's own checks), so their throttles, the reply rule, mentions and fan-out hold."""

import base64
import hashlib

from django.conf import settings
from django.http import Http404
from django.views.decorators.csrf import csrf_exempt

from media import attachments, pictures
from socialsite.connection import get_redis
from socialsite.repository import conversations, keys, likes, reposts, statuses, visibility
from socialsite.repository.ids import parse_id
from timeline.forms import StatusForm

from . import direct, entities, paging
from .auth import api_view
from .common import (
    TRUE,
    BadBody,
    body,
    email_unverified,
    get_list,
    status_entity,
    throttled,
    to_status_id,
    visible_status,
)
from .media import UPLOAD_ID
from .responses import error, json_response

VISIBILITIES = ("public", "unlisted", "private", "direct")


def idempotency_posting_key(header):
    """The posting key (statuses.post_status) an ``Idempotency-Key`` header stands for:
    the same header twice posts once, as the same form sent twice does. A digest, so
    that any header fits the key's form and length."""
    digest = hashlib.sha256(f"api:{header}".encode()).digest()
    return base64.urlsafe_b64encode(digest).decode()[:22]


def _form_error(form):
    return " ".join(str(message) for errors in form.errors.values() for message in errors)


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
    refused = throttled(request, "statuses") or email_unverified(request)
    if refused is not None:
        return refused
    if len(media_ids) > attachments.MAX_IMAGES:
        return error(
            422,
            f"Validation failed: a status may have at most {attachments.MAX_IMAGES} images;"
            f" {len(media_ids)} were sent",
        )
    if params.get("poll[options][]") or params.get("poll"):
        return error(422, "Polls are not supported")
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
    form = StatusForm(
        {
            "message": str(params.get("status") or ""),
            "spoiler_text": str(params.get("spoiler_text") or ""),
            "sensitive": "on" if params.get("sensitive") in TRUE else "",
        }
    )
    if not form.is_valid():
        # A status of images alone has no text: the form, which has no images here,
        # asks for some.
        if not (media_ids and list(form.errors) == ["message"] and not form.data["message"]):
            return error(422, f"Validation failed: {_form_error(form)}")
        form.cleaned_data["message"] = ""
    data = form.cleaned_data
    r = get_redis()

    def post(media, upload_ids):
        return statuses.post_status(
            r,
            request.user.id,
            data["message"],
            inline_limit=settings.INLINE_FANOUT_LIMIT,
            pull_followers=settings.FANOUT_PULL_FOLLOWERS,
            posting_key=idempotency_posting_key(key) if key else None,
            in_reply_to=in_reply_to,
            notifications_kept=settings.NOTIFICATIONS_KEPT,
            pending_uploads=upload_ids,
            **{
                keys.STATUS_MEDIA_FIELD: media,
                keys.STATUS_SENSITIVE_FIELD: "1" if data["sensitive"] else "",
                keys.STATUS_SPOILER_FIELD: data["spoiler_text"],
            },
        )

    try:
        if media_ids:
            sid = attachments.attach_pending(r, request.user.id, media_ids, post)
        else:
            sid = post("", [])
    except attachments.UploadsNotFound as missing:
        # The same Idempotency-Key again: the first request attached the images.
        earlier = key and statuses.posted_with_key(r, request.user.id, idempotency_posting_key(key))
        if not earlier:
            return error(
                422,
                "Validation failed: no such media to attach (not yours, attached already,"
                f" or uploaded too long ago): {', '.join(missing.upload_ids)}",
            )
        sid = earlier
    except statuses.ReplyRefused as refusal:
        return error(422, f"Validation failed: {refusal}")
    except statuses.ParentGone:
        return error(404, "Record not found")
    if sid is None:
        return error(422, "This method requires an authenticated user")
    # Just posted: nobody likes or reposted it yet (an Idempotency-Key's repeat may be
    # older, and is read as any status is).
    fresh = not key
    status = visible_status(r, request.user.id, sid)
    return json_response(status_entity(request, status, fresh=fresh))


@csrf_exempt
def one(request, status_id):
    """GET or DELETE /api/v1/statuses/:id (each with its own scope)."""
    if request.method == "DELETE":
        return _delete(request, status_id=status_id)
    return _get(request, status_id=status_id)


@api_view(scope="read:statuses", public=True)
def _get(request, status_id):
    message = direct.parse_direct_status_id(status_id)
    if message is not None:
        return json_response(direct.direct_status(request, *message))
    status = visible_status(get_redis(), request.user.id, to_status_id(status_id))
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
    refused = throttled(request, "deletions")
    if refused is not None:
        return refused
    r = get_redis()
    status = visible_status(r, request.user.id, sid)
    entity = status_entity(request, status)
    result = statuses.delete_status(r, request.user.id, sid)
    if result is not statuses.DeleteResult.DELETED:
        raise Http404  # someone else's too: as Mastodon, one deletes among one's own
    pictures.delete_unused(r)  # its images' files, which the deletion listed
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
        entities.shown_status(base, ancestor, liked)
        for ancestor in thread.ancestors
        if not ancestor.get("deleted") and not ancestor.get("unavailable")
    ]
    descendants = []

    def walk(replies):
        for reply in replies:
            descendants.append(entities.shown_status(base, reply.status, liked))
            walk(reply.replies)

    walk(thread.replies)
    return json_response({"ancestors": ancestors, "descendants": descendants})


def _refusal(result):
    """The answer to a like's or repost's refusal, as Mastodon's: a status the caller
    may not see is "Record not found", as one that is not there (404); one they see
    and may not act on (a private account's, seen by a follower, reblogged) 403."""
    if result in (likes.LikeResult.NOT_FOUND, reposts.RepostResult.NOT_FOUND):
        raise Http404
    if result in (likes.LikeResult.BLOCKED, reposts.RepostResult.BLOCKED):
        raise Http404  # the caller blocks the author: as a status across a block, not there
    if result is reposts.RepostResult.NOT_PUBLIC:
        return error(403, "This action is not allowed: the status is not public")
    return None


def _after_action(request, sid):
    return json_response(status_entity(request, visible_status(get_redis(), request.user.id, sid)))


def _like_action(act):
    @api_view(scope="write:favourites", methods=("POST",))
    def view(request, status_id):
        sid = to_status_id(status_id)
        refused = throttled(request, "likes")
        if refused is None and act is likes.like:
            refused = email_unverified(request)
        if refused is not None:
            return refused
        result = act(get_redis(), request.user.id, sid)
        refused = _refusal(result)
        return refused or _after_action(request, sid)

    return view


favourite = _like_action(likes.like)
unfavourite = _like_action(likes.unlike)


def _repost_action(act):
    @api_view(scope="write:statuses", methods=("POST",))
    def view(request, status_id):
        sid = to_status_id(status_id)
        refused = throttled(request, "reposts")
        if refused is None and act is reposts.repost:
            refused = email_unverified(request)
        if refused is not None:
            return refused
        r = get_redis()
        result = act(r, request.user.id, sid)
        if isinstance(result, tuple):
            result = result[0]
        refused = _refusal(result)
        if refused is not None:
            return refused
        located = statuses.locate(r, sid)
        original = (located["repost_of"] or sid) if located else sid
        if act is reposts.repost:
            # Mastodon answers a reblog with the reblog: the original inside it.
            mine = reposts.repost_id(r, request.user.id, original)
            if mine is not None:
                return _after_action(request, mine)
        return _after_action(request, original)

    return view


reblog = _repost_action(reposts.repost)
unreblog = _repost_action(reposts.unrepost)


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

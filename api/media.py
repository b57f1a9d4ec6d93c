"""The client API's media (/api/v2/media, /api/v1/media/:id): an image uploaded before
the status that shows it, as Mastodon's apps post them. The upload goes through the
status form's own pipeline (images.read_upload and attachments.prepare: type, size,
pixels, re-encoded without EXIF) and THROTTLE_MEDIA, and is stored as a pending upload
(attachments.store_pending); POST /api/v1/statuses attaches it with ``media_ids[]``
(api/statuses.py). One not attached within MEDIA_PENDING_MAX_AGE is swept by the
fan-out workers (decision 0052)."""

import re

from django.http import Http404, QueryDict
from django.http.multipartparser import MultiPartParserError
from django.views.decorators.csrf import csrf_exempt

from media import attachments, files, images
from socialsite.connection import get_redis

from . import entities
from .auth import api_view
from .common import BadBody, body, email_unverified, throttled
from .responses import error, json_response

# An upload's id: the random token of its file's name (files.new_name).
UPLOAD_ID = re.compile(r"[A-Za-z0-9_-]{1,64}")


def _description(params):
    """The alt text sent (None when none is), or BadBody when too long."""
    value = params.get("description")
    if value is None:
        return None
    value = str(value).replace("\r\n", "\n").strip()
    if len(value) > attachments.ALT_MAX_LENGTH:
        raise BadBody(
            f"Validation failed: the description is {len(value):,} characters; at most"
            f" {attachments.ALT_MAX_LENGTH:,} are kept"
        )
    return value


@api_view(scope="write:media", methods=("POST",))
def upload(request):
    """POST /api/v2/media (and Mastodon's older /api/v1/media): ``file`` (multipart),
    ``description``; ``focus`` and ``thumbnail`` are ignored. Answers the
    MediaAttachment, ready at once (200: images are made while the request waits)."""
    refused = throttled(request, "media") or email_unverified(request)
    if refused is not None:
        return refused
    try:
        description = _description(body(request)) or ""
    except BadBody as bad:
        return error(422, str(bad))
    sent = request.FILES.get("file")
    if sent is None:
        return error(422, "Validation failed: File can't be blank (send it as multipart 'file')")
    try:
        prepared = attachments.prepare(images.read_upload(sent))
    except images.ImageRefused as refused_image:
        return error(422, f"Validation failed: the image was refused: {refused_image}")
    r = get_redis()
    try:
        upload_id = attachments.store_pending(r, request.user.id, prepared, description)
    except files.StorageFailed:
        return error(503, "The image could not be stored just now: try again in a moment")
    item = attachments.pending_upload(r, request.user.id, upload_id)
    if item is None:  # swept at once: only with a MEDIA_PENDING_MAX_AGE of nothing
        return error(503, "The image could not be stored just now: try again in a moment")
    return json_response(entities.media_attachment(entities.site_base(request), item))


@csrf_exempt
def one(request, media_id):
    """GET or PUT /api/v1/media/:id."""
    if request.method == "PUT":
        return _update(request, media_id=media_id)
    return _get(request, media_id=media_id)


def _upload_id(value):
    if not UPLOAD_ID.fullmatch(value):
        raise Http404
    return value


@api_view(scope="write:media")
def _get(request, media_id):
    """One's own upload not attached yet (Mastodon's answer; an attached image is read
    as part of its status)."""
    item = attachments.pending_upload(get_redis(), request.user.id, _upload_id(media_id))
    if item is None:
        raise Http404
    return json_response(entities.media_attachment(entities.site_base(request), item))


@api_view(scope="write:media", methods=("PUT",))
def _update(request, media_id):
    """Change the alt text (``description``) of one's own upload not attached yet;
    ``focus`` and ``thumbnail`` are ignored."""
    upload_id = _upload_id(media_id)
    try:
        params = body(request) if request.content_type == "application/json" else _put_form(request)
        description = _description(params)
    except BadBody as bad:
        return error(422, str(bad))
    r = get_redis()
    if description is None:
        item = attachments.pending_upload(r, request.user.id, upload_id)
    else:
        item = attachments.describe_pending(r, request.user.id, upload_id, description)
    if item is None:
        raise Http404
    return json_response(entities.media_attachment(entities.site_base(request), item))


def _put_form(request):
    """A PUT's form body (Django parses only a POST's): urlencoded or multipart."""
    if request.content_type == "multipart/form-data":
        try:
            data, _ = request.parse_file_upload(request.META, request)
        except MultiPartParserError:
            raise BadBody("The multipart body does not read") from None
        return data
    return QueryDict(request.body, encoding=request.encoding)

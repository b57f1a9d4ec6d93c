"""The client API's media (/api/v2/media, /api/v1/media/:id): an image uploaded before
the status that shows it, as Mastodon's apps post them. The upload goes through the
status form's own pipeline and THROTTLE_MEDIA (actions.uploads.upload: type, size,
pixels, re-encoded without EXIF) and is stored as a pending upload; POST
/api/v1/statuses attaches it with ``media_ids[]`` (api/statuses.py). One not attached
within MEDIA_PENDING_MAX_AGE is swept by the fan-out workers (decision 0052)."""

from django.http import Http404, QueryDict
from django.http.multipartparser import MultiPartParserError
from django.views.decorators.csrf import csrf_exempt

from media import attachments, files, images
from socialsite.acting import actor_of
from socialsite.actions import uploads as upload_actions
from socialsite.connection import get_redis

from . import entities
from .auth import api_view
from .common import UPLOAD_ID, BadBody, body
from .responses import error, json_response

# An upload's id: the random token of its file's name (files.new_name).
STORAGE_FAILED = "The image could not be stored just now: try again in a moment"


def _description(params):
    """The alt text sent, or None when none is (its length is the action's to check)."""
    value = params.get("description")
    return None if value is None else str(value)


@api_view(scope="write:media", methods=("POST",))
def upload(request):
    """POST /api/v2/media (and Mastodon's older /api/v1/media): ``file`` (multipart),
    ``description``; ``focus`` and ``thumbnail`` are ignored. Answers the
    MediaAttachment, ready at once (200: images are made while the request waits)."""
    try:
        description = _description(body(request)) or ""
    except BadBody as bad:
        return error(422, str(bad))
    sent = request.FILES.get("file")
    if sent is None:
        return error(422, "Validation failed: File can't be blank (send it as multipart 'file')")
    try:
        data = images.read_upload(sent)
    except images.ImageRefused as refused_image:
        return error(422, f"Validation failed: the image was refused: {refused_image}")
    try:
        uploaded = upload_actions.upload(actor_of(request), data, description)
    except files.StorageFailed:
        return error(503, STORAGE_FAILED)
    return json_response(entities.media_attachment(entities.site_base(request), uploaded.media))


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
    if description is None:
        item = attachments.pending_upload(get_redis(), request.user.id, upload_id)
        if item is None:
            raise Http404
    else:
        item = upload_actions.describe(actor_of(request), upload_id, description)
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

"""Pictures a person sends: an image uploaded before the status that shows it (the
client API's POST /api/v2/media, api/media.py) and its alt text changed (PUT
/api/v1/media/:id), the images of the status form (timeline/views.py: post_status),
and the count of the profile's pictures (timeline/profile_settings.py and the API's
update_credentials, whose act is actions.profiles.update_profile).

Throttle: "media" counts one use per picture, whichever door sends it, before any
picture is decoded (decoding a 33-megapixel picture is the costly part: a refused use
costs none). The Actor's ``count`` counts one use per call (socialsite.acting.actor_of),
so n pictures are n uses. Sending images to show needs a verified address, as posting
does, checked before any use is counted at every door; the profile's pictures are the
profile's act (which needs none).

Every image goes through one pipeline (media/images.py and media/attachments.py:
type, size, pixels, re-encoded without EXIF). A refused one is Invalid with the
pipeline's reason; files that cannot be stored raise files.StorageFailed, not a
refusal (nothing is kept: the doors say to try again, as for the profile's pictures).
"""

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from media import attachments, files, images
from socialsite.connection import get_redis

from .core import Actor, Invalid, NotFound, require


class SentFile(Protocol):
    """A file as a door receives it (Django's UploadedFile): read by
    images.read_upload, which refuses one past images.MAX_BYTES before reading it."""

    size: int | None

    def seek(self, offset: int, /) -> Any: ...

    def read(self, size: int = ..., /) -> bytes: ...


@dataclass(frozen=True)
class Uploaded:
    """An upload no status shows yet: its id (for media_ids[] when posting) and the
    image as attachments.pending_upload gives it (its sizes, alt text, upload time)."""

    id: str
    media: dict[str, Any]


def checked_description(description: str) -> str:
    """An image's alt text as kept (a line break one character, no spaces around it),
    or Invalid (field ``description``) past attachments.ALT_MAX_LENGTH."""
    description = description.replace("\r\n", "\n").strip()
    if len(description) > attachments.ALT_MAX_LENGTH:
        raise Invalid(
            f"the description is {len(description):,} characters; at most"
            f" {attachments.ALT_MAX_LENGTH:,} are kept",
            field="description",
        )
    return description


def count_pictures(actor: Actor, number: int, *, verified: bool = False) -> None:
    """Count ``number`` uses of the throttle "media" for the actor, one per picture,
    before any is read; Throttled at the first refused (those before it stay counted,
    as each was a picture sent). With ``verified``, first EmailUnverified for an actor
    who must verify their address: a picture they may not send costs no use (the
    status form's page refuses them before counting, by its decorator)."""
    require(actor, verified=verified)
    for _ in range(number):
        require(actor, throttle="media")


def upload(actor: Actor, data: bytes, description: str = "") -> Uploaded:
    """Store the image in ``data`` (an uploaded file's bytes) with its alt text as an
    upload of the actor's that no status shows yet; a status attaches it within
    MEDIA_PENDING_MAX_AGE (actions.statuses.post's ``upload_ids``) or the fan-out
    workers sweep it.

    Rules: a verified address, then the throttle "media" (one use: as the status
    form's images count), the alt text's length (Invalid), an image the pipeline takes
    (Invalid: "the image was refused: ..."). files.StorageFailed when its files cannot
    be stored: nothing kept."""
    count_pictures(actor, 1, verified=True)
    description = checked_description(description)
    try:
        prepared = attachments.prepare(data)
    except images.ImageRefused as refused:
        raise Invalid(f"the image was refused: {refused}", field="file") from None
    r = get_redis()
    upload_id = attachments.store_pending(r, actor.uid, prepared, description)
    item = attachments.pending_upload(r, actor.uid, upload_id)
    if item is None:  # swept at once: only with a MEDIA_PENDING_MAX_AGE of nothing
        raise files.StorageFailed(f"upload {upload_id} was swept as it was stored")
    return Uploaded(upload_id, item)


def describe(actor: Actor, upload_id: str, description: str) -> dict[str, Any]:
    """Give the actor's upload ``upload_id`` (one no status shows yet) the alt text
    ``description``; the upload as attachments.pending_upload gives it. NotFound for
    none of theirs that may still be attached; Invalid for an alt text too long."""
    description = checked_description(description)
    item = attachments.describe_pending(get_redis(), actor.uid, upload_id, description)
    if item is None:
        raise NotFound("There is no such upload.")
    return dict(item)


def prepare_images(actor: Actor, sent: Sequence[SentFile]) -> list[attachments.Prepared]:
    """The images of a status form (the files chosen, in order) made ready to post
    (attachments.prepare: checked, decoded, made into their two sizes), for
    actions.statuses.post's ``images``.

    Rules: each image counts toward the throttle "media" before any is decoded (at
    most attachments.MAX_IMAGES of them: more are refused before any is read), a
    verified address; then Invalid (field ``media``) for more than MAX_IMAGES images
    or one the pipeline refuses, saying which."""
    sent = [each for each in sent if each]
    count_pictures(actor, min(len(sent), attachments.MAX_IMAGES), verified=True)
    if len(sent) > attachments.MAX_IMAGES:
        raise Invalid(
            f"A status may have at most {attachments.MAX_IMAGES} images; you chose {len(sent)}.",
            field="media",
        )
    prepared = []
    for number, each in enumerate(sent, 1):
        try:
            prepared.append(attachments.prepare(images.read_upload(each)))
        except images.ImageRefused as refused:
            which = f"Image {number}" if len(sent) > 1 else "The image"
            raise Invalid(f"{which} was refused: {refused}", field="media") from None
    return prepared

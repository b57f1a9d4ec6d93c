"""A status's images: made from the uploads (images.py) before the status is written,
listed as pending uploads (repository/uploads.py), their files stored (files.py), then
the status written with their names and sizes in its hash (records.Status ``media``),
the same write taking them off the pending ones; should that write fail, the files are
deleted. Uploads left pending past MEDIA_PENDING_MAX_AGE (a process that died between
the files and the status; an upload stored first, as Mastodon's POST /api/v2/media
does, never attached) are swept by the fan-out workers (sweep_pending).

Deleting a status lists its files in keys.UNUSED_PICTURES in the round trip that takes
it off its lists (repository/statuses.py), and the request deletes them right after, or
for statuses a fan-out worker deleted, the worker's sweep (pictures.delete_unused): the
repository imports no Django and cannot touch files (docs/decisions/0051).
"""

import json
import logging
import time
from dataclasses import dataclass

from django.conf import settings

from socialsite.repository import statuses, uploads

from . import files, images

logger = logging.getLogger(__name__)

# Mastodon's figures: at most four images a status, alt text at most 1,500 characters.
MAX_IMAGES = 4
ALT_MAX_LENGTH = 1500
# The content warning (Mastodon's spoiler_text has no limit; a summary line's worth).
SPOILER_MAX_LENGTH = 100
# What a status shows as its warning when marked sensitive with no text of its own.
SENSITIVE_SUMMARY = "Sensitive content"

# The placeholder colours a page may show while an image loads (classes media-tone-0
# to -N in static/css/site.css): the stored colour's nearest. A class, not a style
# attribute: the Content-Security-Policy allows no inline style.
TONES = (
    (0x1F, 0x1F, 0x1F),
    (0x5F, 0x5F, 0x5F),
    (0xA0, 0xA0, 0xA0),
    (0xE6, 0xE6, 0xE6),
    (0x7A, 0x3B, 0x2E),
    (0xC8, 0x8A, 0x5A),
    (0x6B, 0x7A, 0x3A),
    (0x2E, 0x5E, 0x3E),
    (0x3A, 0x6E, 0x9A),
    (0x9C, 0xC0, 0xDE),
    (0x5A, 0x3E, 0x7A),
    (0xD8, 0xC0, 0x8A),
)


@dataclass(frozen=True)
class Prepared:
    """One image made and ready to store: its two renditions, placeholder colour and
    blurhash."""

    original: images.Encoded
    preview: images.Encoded
    colour: str
    blurhash: str = ""


def prepare(data):
    """``data`` (an upload's bytes) checked, decoded and made into its two sizes; the
    decoded picture is dropped before the next one is read (a 33-megapixel picture is
    100 MB decoded). ImageRefused with the reason otherwise."""
    image = images.read_image(data)
    original, preview = images.attachment(image)
    colour, blurhash = images.placeholders(image)
    return Prepared(original, preview, colour, blurhash)


def _item(prepared, alt, original_name, preview_name):
    """What a status's ``media`` field keeps of the image ``prepared``."""
    return {
        "o": original_name, "p": preview_name,
        "w": prepared.original.width, "h": prepared.original.height,
        "pw": prepared.preview.width, "ph": prepared.preview.height,
        "a": alt, "c": prepared.colour, "b": prepared.blurhash,
    }  # fmt: skip


def _pack(items):
    return json.dumps(items, separators=(",", ":"), ensure_ascii=False)


def upload_id(item):
    """An image's id: the random token of its original's storage name (media_of's ``id``,
    the pending upload's name)."""
    return item["o"].rsplit("/", 1)[-1].split(".", 1)[0]


def _named(prepared, descriptions):
    """(the media items of ``prepared`` with their alt texts, their renditions and the
    new storage names of those, in order): named before anything is stored."""
    items, renditions, names = [], [], []
    for index, each in enumerate(prepared):
        alt = descriptions[index] if index < len(descriptions) else ""
        pair = [each.original, each.preview]
        pair_names = [files.new_name("attachments", encoded) for encoded in pair]
        items.append(_item(each, alt, *pair_names))
        renditions += pair
        names += pair_names
    return items, renditions, names


def store(prepared, descriptions):
    """Store the files of ``prepared`` (a list of Prepared, in order) with their alt
    texts ``descriptions``, listed nowhere; (the status's media field, the names
    written). All or nothing: files.StorageFailed with nothing kept."""
    items, renditions, names = _named(prepared, descriptions)
    return _pack(items), files.save_all("attachments", renditions, names)


def _store_pending(r, uid, prepared, descriptions):
    """The media items of ``prepared``, listed as pending uploads of ``uid`` (one round
    trip) and then their files stored. files.StorageFailed: nothing stored, nothing
    listed."""
    items, renditions, names = _named(prepared, descriptions)
    pending = {upload_id(item): item for item in items}
    uploads.add_pending(r, uid, pending)
    try:
        files.save_all("attachments", renditions, names)
    except files.StorageFailed:
        _forget_quietly(r, uid, list(pending))
        raise
    return items


def _forget_quietly(r, uid, upload_ids):
    """Take ``upload_ids`` off the pending uploads, their files being deleted; should
    Redis fail, the sweep does it later (it finds no file, and no status naming one)."""
    try:
        uploads.forget_pending(r, uid, upload_ids)
    except Exception:
        logger.warning("Pending uploads %s left for the sweep", upload_ids, exc_info=True)


def post_with_images(r, uid, prepared, descriptions, post):
    """Store the files of ``prepared`` (with their alt texts ``descriptions``) as pending
    uploads of ``uid``, then post the status: ``post(media, upload_ids)`` with the
    status's media field ("" for no images) and the uploads it takes off the pending
    ones in its own write (statuses.post_status's ``pending_uploads``) returns its id.
    If the status is not written (``post`` raises), the files are deleted, the uploads
    forgotten and the error raised again; if the id names a status that is not this one
    (the same form sent again: its posting key named the first post, which has files of
    its own; or None, no such user), they are deleted and forgotten too. Should the
    process die between storing and posting, the sweep deletes them (sweep_pending).
    files.StorageFailed: nothing kept, nothing posted."""
    items = _store_pending(r, uid, prepared, descriptions) if prepared else []
    media = _pack(items) if items else ""
    upload_ids = [upload_id(item) for item in items]
    written = [item[part] for item in items for part in ("o", "p")]
    try:
        sid = post(media, upload_ids)
    except BaseException:
        files.delete_all(written)  # no status names them
        _forget_quietly(r, uid, upload_ids)
        raise
    if written and (sid is None or statuses.stored_media(r, sid) != media):
        files.delete_all(written)
        _forget_quietly(r, uid, upload_ids)
    return sid


# --- uploads stored before their status (Mastodon's POST /api/v2/media) -------------------


class UploadsNotFound(LookupError):
    """Uploads to attach that are not pending ones of this account (never made, swept,
    attached already, another's, or older than the age they may be attached at); its
    ``upload_ids`` say which."""

    def __init__(self, upload_ids):
        super().__init__(f"No such upload: {', '.join(upload_ids)}")
        self.upload_ids = upload_ids


def _attachable_since(max_age, now=None):
    """The time (ms) before which an upload is too old to attach: the sweep may be
    deleting it."""
    now = time.time() if now is None else now
    return int((now - max_age) * 1000)


def store_pending(r, uid, prepared, description=""):
    """Store the image ``prepared`` (from prepare) with its alt text as an upload of
    ``uid`` no status shows yet; its id, for pending_upload and attach_pending. One round
    trip and the files' writes; files.StorageFailed: nothing kept. Not attached within
    MEDIA_PENDING_MAX_AGE, it is swept."""
    (item,) = _store_pending(r, uid, [prepared], [description])
    return upload_id(item)


def pending_upload(r, uid, upload_id, max_age=None):
    """The upload ``upload_id`` of ``uid`` (store_pending) as media_of gives a status's
    image, with ``uploaded_at`` (seconds); None when it is not a pending upload of
    theirs that may still be attached. One round trip."""
    max_age = settings.MEDIA_PENDING_MAX_AGE if max_age is None else max_age
    found = uploads.get_pending(r, uid, [upload_id], _attachable_since(max_age)).get(upload_id)
    if found is None:
        return None
    shown = media_of({"media": _pack([found["item"]])})
    if not shown:
        return None
    return {**shown[0], "uploaded_at": found["at"] / 1000}


def describe_pending(r, uid, upload_id, description, max_age=None):
    """Change the alt text of pending upload ``upload_id`` of ``uid`` (Mastodon's PUT
    /api/v1/media/:id); the upload as pending_upload gives it, or None when it is not a
    pending upload of theirs that may still be attached. Two round trips."""
    max_age = settings.MEDIA_PENDING_MAX_AGE if max_age is None else max_age
    item = uploads.describe_pending(r, uid, upload_id, description, _attachable_since(max_age))
    if item is None:
        return None
    shown = media_of({"media": _pack([item])})
    return shown[0] if shown else None


def attach_pending(r, uid, upload_ids, post, max_age=None):
    """Post a status showing the pending uploads ``upload_ids`` of ``uid``, in that
    order: ``post(media, upload_ids)`` as for post_with_images (the status's write takes
    them off the pending ones); its id. UploadsNotFound, with nothing posted, when any
    is not a pending upload of theirs young enough to attach. One round trip before
    posting."""
    max_age = settings.MEDIA_PENDING_MAX_AGE if max_age is None else max_age
    upload_ids = list(dict.fromkeys(upload_ids))
    found = uploads.get_pending(r, uid, upload_ids, _attachable_since(max_age))
    missing = [each for each in upload_ids if each not in found]
    if missing:
        raise UploadsNotFound(missing)
    return post(_pack([found[each]["item"] for each in upload_ids]), upload_ids)


def edited_media(r, uid, packed, media_ids, descriptions, max_age=None):
    """Edits: the ``media`` field of a status of ``uid`` now ``packed``, edited to show
    ``media_ids`` in that order (None: the images it has) with the alt texts
    ``descriptions`` ({image id: text}) changed; each id either one of its images or a
    pending upload of theirs young enough to attach. Returns (the packed field, the
    uploads newly attached). UploadsNotFound for any other id. One round trip when new
    uploads are named, none otherwise. An image taken off keeps its files: the status's
    history shows it (decision 0074)."""
    try:
        current = json.loads(packed) if packed else []
    except ValueError:
        current = []
    by_id = {upload_id(item): item for item in current}
    wanted = list(by_id) if media_ids is None else list(dict.fromkeys(media_ids))
    added = [each for each in wanted if each not in by_id]
    if added:
        max_age = settings.MEDIA_PENDING_MAX_AGE if max_age is None else max_age
        found = uploads.get_pending(r, uid, added, _attachable_since(max_age))
        missing = [each for each in added if each not in found]
        if missing:
            raise UploadsNotFound(missing)
        by_id.update({each: found[each]["item"] for each in added})
    items = []
    for each in wanted:
        item = dict(by_id[each])
        if each in descriptions:
            item["a"] = descriptions[each]
        items.append(item)
    return (_pack(items) if items else ""), added


def sweep_pending(r, max_age=None, now=None):
    """Delete the files of the uploads stored more than ``max_age`` seconds ago
    (MEDIA_PENDING_MAX_AGE) that are still pending, unless a status of their uploader
    names them (its write's clearing was lost), then forget them; how many uploads'
    files were deleted. Safe to run anywhere at once: deleting a missing file and
    forgetting a forgotten upload do nothing."""
    max_age = settings.MEDIA_PENDING_MAX_AGE if max_age is None else max_age
    before_ms = _attachable_since(max_age, now)
    deleted, shown_by_uploader = 0, {}
    while True:
        due = uploads.expired(r, before_ms)
        if not due:
            return deleted
        for entry in due:
            item = entry["item"]
            if item is not None:
                names = [str(item[part]) for part in ("o", "p") if item.get(part)]
                uid = entry["uid"]
                if uid not in shown_by_uploader:
                    # Posted after its oldest due upload, with a minute's leeway for clocks.
                    shown_by_uploader[uid] = statuses.media_names_posted_since(
                        r, uid, entry["at"] / 1000 - 60
                    )
                if not shown_by_uploader[uid].intersection(names):
                    files.delete_all(names)
                    deleted += 1
            uploads.forget_expired(r, entry)


def _tone(colour):
    try:
        red, green, blue = (int(colour[i : i + 2], 16) for i in (1, 3, 5))
    except (TypeError, ValueError):
        return 2
    return min(
        range(len(TONES)),
        key=lambda i: sum((a - b) ** 2 for a, b in zip(TONES[i], (red, green, blue), strict=True)),
    )


def media_of(status):
    """``{{ status|status_media }}``: the images of ``status`` as dicts (``url``,
    ``preview_url``, ``width``, ``height`` of the preview, ``original_width``,
    ``original_height``, ``alt``, ``tone``, ``blurhash``: "" for an image kept
    without one), in order; none for a status without."""
    packed = status.get("media")
    if not packed:
        return []
    try:
        items = json.loads(packed)
        return [
            {
                "url": files.url(item["o"]),
                "preview_url": files.url(item["p"]),
                "width": int(item["pw"]),
                "height": int(item["ph"]),
                "original_width": int(item["w"]),
                "original_height": int(item["h"]),
                "alt": str(item.get("a") or ""),
                "tone": _tone(item.get("c")),
                "blurhash": str(item.get("b") or ""),
                "id": upload_id(item),
            }
            for item in items
        ]
    except (ValueError, TypeError, KeyError, AttributeError):
        return []


def original_names(status):
    """The storage names of ``status``'s images as uploaded (not their previews), in
    order: what an account's export carries; none for a status without."""
    try:
        return [str(item["o"]) for item in json.loads(status.get("media") or "[]")]
    except (ValueError, TypeError, KeyError):
        return []


def warning_of(status):
    """The content warning ``status`` is shown behind (its text, or SENSITIVE_SUMMARY
    when marked sensitive without one); "" for none."""
    spoiler = status.get("spoiler")
    if spoiler:
        return str(spoiler)
    if status.get("sensitive") in ("1", 1, True):
        return SENSITIVE_SUMMARY
    return ""


def summary(status):
    """``{{ status|status_summary }}``: what stands for ``status`` in a line of text (a
    page's title, a notification, a report): its message, or for images alone how many
    ("2 images"), so that no title or link is left empty."""
    message = str(status.get("message") or "")
    if message.strip():
        return message
    count = len(media_of(status))
    if count:
        return f"{count} image{'s' if count > 1 else ''}"
    return message

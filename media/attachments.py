"""A status's images: made from the uploads (images.py) before the status is written,
their files stored (files.py), then the status written with their names and sizes in
its hash (keys.STATUS_MEDIA_FIELD); should that write fail, the files are deleted.

Deleting a status lists its files in keys.UNUSED_PICTURES in the round trip that takes
it off its lists (repository/statuses.py), and the request deletes them right after, or
for statuses a fan-out worker deleted, the worker's sweep (pictures.delete_unused): the
repository imports no Django and cannot touch files (docs/decisions/0051).
"""

import json
from dataclasses import dataclass

from socialsite.repository import keys, statuses

from . import files, images

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


def store(prepared, descriptions):
    """Store the files of ``prepared`` (a list of Prepared, in order) with their alt
    texts ``descriptions``; (the status's media field, the names written). All or
    nothing: files.StorageFailed with nothing kept."""
    renditions = [each for item in prepared for each in (item.original, item.preview)]
    names = files.save_all("attachments", renditions)
    media = []
    for index, item in enumerate(prepared):
        alt = descriptions[index] if index < len(descriptions) else ""
        media.append({
            "o": names[2 * index], "p": names[2 * index + 1],
            "w": item.original.width, "h": item.original.height,
            "pw": item.preview.width, "ph": item.preview.height,
            "a": alt, "c": item.colour, "b": item.blurhash,
        })  # fmt: skip
    return json.dumps(media, separators=(",", ":"), ensure_ascii=False), names


def post_with_images(r, prepared, descriptions, post):
    """Store the files of ``prepared`` (with their alt texts ``descriptions``), then post
    the status: ``post(media)`` with the status's media field ("" for no images) returns
    its id. If the status is not written (``post`` raises), the files are deleted and
    the error raised again; if the id names a status that is not this one (the same
    form sent again: its posting key named the first post, which has files of its own;
    or None, no such user), they are deleted too. files.StorageFailed: nothing kept,
    nothing posted."""
    media, written = store(prepared, descriptions) if prepared else ("", [])
    try:
        sid = post(media)
    except BaseException:
        files.delete_all(written)  # no status names them
        raise
    if written and (sid is None or statuses.stored_media(r, sid) != media):
        files.delete_all(written)
    return sid


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
    packed = status.get(keys.STATUS_MEDIA_FIELD)
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
                "id": item["o"].rsplit("/", 1)[-1].split(".", 1)[0],
            }
            for item in items
        ]
    except (ValueError, TypeError, KeyError, AttributeError):
        return []


def original_names(status):
    """The storage names of ``status``'s images as uploaded (not their previews), in
    order: what an account's export carries; none for a status without."""
    try:
        return [str(item["o"]) for item in json.loads(status.get(keys.STATUS_MEDIA_FIELD) or "[]")]
    except (ValueError, TypeError, KeyError):
        return []


def warning_of(status):
    """The content warning ``status`` is shown behind (its text, or SENSITIVE_SUMMARY
    when marked sensitive without one); "" for none."""
    spoiler = status.get(keys.STATUS_SPOILER_FIELD)
    if spoiler:
        return str(spoiler)
    if status.get(keys.STATUS_SENSITIVE_FIELD) in ("1", 1, True):
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

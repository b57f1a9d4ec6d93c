"""Uploaded images checked, decoded and re-encoded: the bytes someone uploads are never
kept or served, only what is made here from their pixels.

An upload is accepted when its content (never its name or declared type) is a JPEG,
PNG, WebP or GIF of at most MAX_BYTES and MAX_PIXELS. The dimensions are read from the
header, and refused past the limit, before any pixel is decoded: a decompression bomb
(a small file declaring 20,000 x 20,000 pixels) costs a header's read. An animated GIF
becomes its first frame (a still picture; no video is made). EXIF orientation is applied,
the colours are converted to sRGB from the ICC profile the picture carries (a Display P3
or Adobe RGB photo would otherwise look washed out: browsers read pixels without a
profile as sRGB), then every piece of metadata (EXIF with its GPS position, XMP,
comments, the ICC profile) is left behind: only pixels are encoded again.

Encodings: JPEG (quality 85, baseline) for every opaque picture, the fastest to encode
with Pillow's libjpeg-turbo and shown by every browser (progressive encoding took six
times as long: 0.37 s against 0.06 s for a 3840 x 2880 picture); WebP (lossy, with its
alpha channel) for a picture with transparency, which a JPEG cannot carry and a PNG of a
photo would carry at several times the size. Every browser the site supports shows WebP.
"""

import io
import re
import warnings
from dataclasses import dataclass

import blurhash
from PIL import Image, ImageCms, ImageFile, ImageOps, UnidentifiedImageError

# Mastodon's limits for an image attachment (app/models/media_attachment.rb).
MAX_BYTES = 16 * 1024 * 1024
MAX_PIXELS = 33_177_600  # 7680 x 4320
# What is kept of a picture: the original's long side at most this (Mastodon's 4K),
# and a preview for timelines.
ORIGINAL_LONG_SIDE = 3840
PREVIEW_LONG_SIDE = 640
AVATAR_SIZES = (400, 96)
HEADER_SIZE = (1500, 500)
JPEG_QUALITY = 85
WEBP_QUALITY = 85

ACCEPTED_FORMATS = ("JPEG", "PNG", "WEBP", "GIF")
ACCEPTED_NAMES = "a JPEG, PNG, WebP or GIF image"

# Pillow's own guard, at the same figure: past it Image.open warns, past twice it
# raises; both are refusals here (read_image turns the warning into an error).
Image.MAX_IMAGE_PIXELS = MAX_PIXELS
# A truncated file is refused, never completed with grey (Pillow's default, said here).
ImageFile.LOAD_TRUNCATED_IMAGES = False

# A JPEG cut short and closed with its end marker (EOI) is not "truncated" to Pillow:
# libjpeg meets the marker, warns (a warning Pillow does not pass on) and decodes the
# missing blocks as grey, at the full cost of the size the header declares. Its coded
# data says it is cut: every 8 x 8 block of a component carries at least one Huffman
# code of its DC value (one bit at the least) in some scan, so a JPEG whose scans hold
# fewer bits than its picture has blocks cannot be whole. Checked before decoding, in
# one regular-expression pass over the bytes.
_JPEG_MARKER = re.compile(rb"\xff[^\x00\xd0-\xd7\xff]")  # not stuffing, not RSTn
_JPEG_SOS = 0xDA
_JPEG_EOI = 0xD9

# The first bytes of each accepted format, checked before Pillow sees the file: SVG,
# HTML, PDF and text are refused by their content whatever their name says.
_SIGNATURES = (
    (b"\xff\xd8\xff", "JPEG"),
    (b"\x89PNG\r\n\x1a\n", "PNG"),
    (b"GIF87a", "GIF"),
    (b"GIF89a", "GIF"),
)
# Content a browser or a reader would act on, anywhere in the file: an image that is
# also an HTML page, a script or a PDF (a polyglot) is refused, though only its pixels
# would be kept. Searched in the lower-cased bytes (a third of the time of a
# case-insensitive search: 0.06 s for 8 MB); each marker with what must follow it is
# long enough not to turn up by chance in compressed data. Not "<?xml": cameras' XMP
# metadata may begin so.
_POLYGLOT = re.compile(
    rb"<(?:html|head|body|script|svg|iframe|object|embed|!doctype|\?php)[\s>/]"
    rb"|%pdf-|javascript:"
)


# What every kept picture's pixels mean: sRGB, the colour space of the web.
_SRGB = ImageCms.ImageCmsProfile(ImageCms.createProfile("sRGB"))
# Its primaries' XYZ (D50), which an sRGB profile's colorant tags hold.
_SRGB_COLORANTS = tuple(
    colorant[0]
    for colorant in (
        _SRGB.profile.red_colorant,
        _SRGB.profile.green_colorant,
        _SRGB.profile.blue_colorant,
    )
)
# The modes a profile's transform reads directly (a CMYK JPEG, a greyscale one); any
# other is made RGB or RGBA first.
_TRANSFORMED_MODES = ("RGB", "RGBA", "CMYK", "L")
# The blurhash kept with each status's image: computed on a thumbnail of this long side
# (the pure-Python encoder's cost grows with the pixels; a blurhash holds only the
# broadest shapes), with Mastodon's 4 x 4 components (36 characters).
BLURHASH_SIDE = 32
BLURHASH_COMPONENTS = (4, 4)


class ImageRefused(ValueError):
    """An upload that is not an image this site takes; its message says why, for the
    person who sent it."""


@dataclass(frozen=True)
class Encoded:
    """One stored rendition: its bytes, pixel size, type and file extension."""

    data: bytes
    width: int
    height: int
    content_type: str
    extension: str


def _format_of(data):
    for signature, name in _SIGNATURES:
        if data.startswith(signature):
            return name
    if data[:4] == b"RIFF" and data[8:12] == b"WEBP":
        return "WEBP"
    return None


def read_upload(upload):
    """The bytes of a Django UploadedFile, refused past MAX_BYTES before reading them."""
    if upload.size is not None and upload.size > MAX_BYTES:
        raise ImageRefused(_too_big(upload.size))
    upload.seek(0)
    data = upload.read(MAX_BYTES + 1)
    if len(data) > MAX_BYTES:
        raise ImageRefused(_too_big(len(data)))
    return data


def _too_big(size):
    return f"The file is {size / 2**20:.1f} MiB; an image may be at most {MAX_BYTES // 2**20} MiB."


def read_image(data):
    """The picture in ``data`` (bytes) as a Pillow image in RGB or RGBA, oriented as
    its EXIF says and with no metadata at all; ImageRefused with the reason otherwise.

    1. Refuse what is empty, too big, not one of the accepted formats by its first
       bytes, or carries HTML, script or PDF (a polyglot).
    2. Image.open reads the header only: refuse dimensions past MAX_PIXELS (or
       Pillow's bomb warning) before decoding.
    3. Decode the first frame (a truncated file fails here), apply the orientation.
    """
    if not data:
        raise ImageRefused("The file is empty.")
    if len(data) > MAX_BYTES:
        raise ImageRefused(_too_big(len(data)))
    declared = _format_of(data)
    if declared is None:
        raise ImageRefused(f"The file is not {ACCEPTED_NAMES}.")
    if _POLYGLOT.search(data.lower()):
        raise ImageRefused(
            f"The file is {ACCEPTED_NAMES} that also holds web page, script or PDF content;"
            " only plain images are accepted."
        )
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error", Image.DecompressionBombWarning)
            image = Image.open(io.BytesIO(data), formats=ACCEPTED_FORMATS)
            width, height = image.size
            if width < 1 or height < 1 or image.format != declared:
                raise ImageRefused(f"The file is not {ACCEPTED_NAMES}.")
            _check_pixels(width, height)
            if declared == "JPEG":
                _check_jpeg_data(data, width, height)
            image.seek(0)  # an animated GIF or WebP: its first frame
            image.load()
    except (Image.DecompressionBombError, Image.DecompressionBombWarning):
        # Pillow's own check, made as Image.open reads the header.
        raise ImageRefused(
            f"The image declares more than {MAX_PIXELS:,} pixels (7680 x 4320), the most accepted."
        ) from None
    except ImageRefused:
        raise
    except (UnidentifiedImageError, OSError, SyntaxError, ValueError, EOFError, IndexError):
        # Pillow's ways of saying the data ends early or is not what its header says.
        raise ImageRefused(
            f"The file could not be read as {ACCEPTED_NAMES}: it is damaged or cut short."
        ) from None
    return _clean(image)


def _jpeg_scan_bytes(data):
    """How many bytes the JPEG ``data``'s scans (its entropy-coded data) hold: the
    marker segments are walked from the start; each scan runs from its SOS header to
    the next marker that is neither byte stuffing nor a restart marker."""
    total, at = 0, 2  # past SOI
    while at + 4 <= len(data):
        if data[at] != 0xFF:
            return total  # not a marker where one must be: the decoder refuses it
        marker = data[at + 1]
        if marker == 0xFF:  # fill bytes before a marker
            at += 1
            continue
        if marker == _JPEG_EOI:
            return total
        at += 2 + int.from_bytes(data[at + 2 : at + 4], "big")
        if marker == _JPEG_SOS:
            found = _JPEG_MARKER.search(data, at)
            end = found.start() if found else len(data)
            total += end - at
            at = end
    return total


def _check_jpeg_data(data, width, height):
    blocks = -(-width // 8) * -(-height // 8)
    if _jpeg_scan_bytes(data) * 8 < blocks:
        raise ImageRefused(
            f"The file could not be read as {ACCEPTED_NAMES}: it is damaged or cut short"
            f" (its data is too short for the {width:,} x {height:,} pixels it declares)."
        )


def _check_pixels(width, height):
    if width * height > MAX_PIXELS:
        raise ImageRefused(_too_many_pixels(width, height))


def _too_many_pixels(width, height):
    return (
        f"The image is {width:,} x {height:,} pixels; at most {MAX_PIXELS:,} pixels"
        " (7680 x 4320) are accepted."
    )


def _colorants(profile):
    return (profile.red_colorant[0], profile.green_colorant[0], profile.blue_colorant[0])


def _is_srgb(profile):
    """Whether ``profile`` is an sRGB profile (its name says so and its primaries are
    sRGB's): converting from it would cost a third of the picture's acceptance (0.17 s
    of 0.54 s for 12 megapixels) to change nothing. Both, because a profile with sRGB's
    primaries may have another tone curve (Rec. 709's), and a name may say anything."""
    try:
        named = "srgb" in (profile.profile_description or "").lower()
        return named and all(
            abs(a - b) < 0.002
            for mine, srgb in zip(_colorants(profile), _SRGB_COLORANTS, strict=True)
            for a, b in zip(mine, srgb, strict=True)
        )
    except (TypeError, ValueError, AttributeError):
        return False


def _to_srgb(image):
    """``image`` with its colours converted from its ICC profile to sRGB, in RGB or
    RGBA (the mode _clean wants); ``image`` itself when it has no profile, or one that
    cannot be read or does not fit its mode (shown as stored, as a browser would)."""
    icc = image.info.get("icc_profile")
    if not icc:
        return image
    try:
        source = ImageCms.ImageCmsProfile(io.BytesIO(icc))
        if _is_srgb(source.profile):
            return image  # most phones' and cameras' own: nothing to convert
        if image.mode not in _TRANSFORMED_MODES:
            has_alpha = "A" in image.getbands() or "transparency" in image.info
            image = image.convert("RGBA" if has_alpha else "RGB")
        out_mode = "RGBA" if image.mode == "RGBA" else "RGB"
        transform = ImageCms.buildTransform(
            source, _SRGB, image.mode, out_mode, ImageCms.Intent.PERCEPTUAL
        )
        # In place when the mode stays: no second copy of a picture of up to 100 MB.
        in_place = image.mode == out_mode
        converted = ImageCms.applyTransform(image, transform, inPlace=in_place)
        return image if in_place else converted
    except (ImageCms.PyCMSError, OSError, ValueError, TypeError):
        return image


def _clean(image):
    """``image`` turned as its EXIF orientation says, its colours in sRGB, in RGB (or
    RGBA when it has transparency), without any metadata."""
    try:
        # In place: a 33-megapixel picture is 100 MB decoded; no copy of it is made here
        # unless its mode must change.
        ImageOps.exif_transpose(image, in_place=True)
    except (OSError, SyntaxError, ValueError, TypeError, KeyError):
        pass  # unreadable EXIF: shown as stored
    image = _to_srgb(image)
    has_alpha = image.mode in ("RGBA", "LA", "PA") or (
        image.mode == "P" and "transparency" in image.info
    )
    if has_alpha:
        clean = image.convert("RGBA")
        if clean.getchannel("A").getextrema()[0] == 255:
            clean = clean.convert("RGB")  # an alpha channel that hides nothing
    else:
        clean = image if image.mode == "RGB" else image.convert("RGB")
    # The info dict (EXIF, ICC profile, comments...), which convert() copies: none stays.
    clean.info = {}
    return clean


def encode(image):
    """``image`` (from read_image) encoded for keeping: JPEG when opaque, WebP when it
    has transparency (the module's docstring says why); nothing but pixels written."""
    buffer = io.BytesIO()
    if image.mode == "RGBA":
        image.save(buffer, "WEBP", quality=WEBP_QUALITY, method=4)
        content_type, extension = "image/webp", "webp"
    else:
        image.save(buffer, "JPEG", quality=JPEG_QUALITY)
        content_type, extension = "image/jpeg", "jpg"
    return Encoded(buffer.getvalue(), image.width, image.height, content_type, extension)


def _fit_within(image, long_side):
    """A copy of ``image`` whose long side is at most ``long_side`` (never enlarged)."""
    copy = image.copy()
    copy.thumbnail((long_side, long_side), Image.Resampling.LANCZOS, reducing_gap=3.0)
    copy.info = {}
    return copy


def attachment(image):
    """A status's picture: (original, preview), long sides at most ORIGINAL_LONG_SIDE
    and PREVIEW_LONG_SIDE."""
    original = _fit_within(image, ORIGINAL_LONG_SIDE)
    preview = _fit_within(original, PREVIEW_LONG_SIDE)
    return encode(original), encode(preview)


def avatar(image):
    """An avatar: the picture cropped to a square about its centre, at each of
    AVATAR_SIZES (largest first)."""
    largest = ImageOps.fit(image, (AVATAR_SIZES[0],) * 2, Image.Resampling.LANCZOS)
    made = [largest]
    for side in AVATAR_SIZES[1:]:
        made.append(largest.resize((side, side), Image.Resampling.LANCZOS))
    for each in made:
        each.info = {}
    return [encode(each) for each in made]


def header(image):
    """A profile's header: the picture cropped about its centre to HEADER_SIZE's shape
    (3:1), at most HEADER_SIZE, never enlarged."""
    max_width, max_height = HEADER_SIZE
    width = min(max_width, image.width, image.height * max_width // max_height)
    height = max(1, width * max_height // max_width)
    width = max(1, width)
    cropped = ImageOps.fit(image, (width, height), Image.Resampling.LANCZOS)
    cropped.info = {}
    return encode(cropped)


def _thumbnail(image):
    """A copy of ``image`` with a long side of at most BLURHASH_SIDE, in RGB (its
    transparent parts on white)."""
    # Resized from the picture itself, not a copy of it (a 12-megapixel copy is 36 MB).
    scale = BLURHASH_SIDE / max(image.size)
    size = (max(1, round(image.width * scale)), max(1, round(image.height * scale)))
    small = image.resize(size, Image.Resampling.BOX, reducing_gap=2.0) if scale < 1 else image
    if small.mode == "RGBA":
        backdrop = Image.new("RGBA", small.size, (255, 255, 255, 255))
        small = Image.alpha_composite(backdrop, small)
    return small.convert("RGB")


def _average(small):
    red, green, blue = small.resize((1, 1), Image.Resampling.BOX).getpixel((0, 0))
    return f"#{red:02x}{green:02x}{blue:02x}"


def _blurhash(small):
    # Rows of pixels, each pixel 3 bytes (indexing them gives ints, as the encoder wants).
    raw, stride = small.tobytes(), 3 * small.width
    rows = [
        [raw[at : at + 3] for at in range(start, start + stride, 3)]
        for start in range(0, len(raw), stride)
    ]
    return blurhash.encode(rows, *BLURHASH_COMPONENTS)


def placeholder_colour(image):
    """The picture's average colour as "#rrggbb" (transparent parts as white): what a
    page shows while the picture loads."""
    return _average(_thumbnail(image))


def placeholders(image):
    """(the average colour as placeholder_colour gives it, the picture's blurhash):
    both from one thumbnail of BLURHASH_SIDE pixels."""
    small = _thumbnail(image)
    return _average(small), _blurhash(small)

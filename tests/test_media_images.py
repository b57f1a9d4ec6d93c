"""The image pipeline (media/images.py) on real files made by Pillow: what it accepts,
what it keeps of them, and what it refuses, each with its reason."""

import io
import struct
import zlib

import blurhash
import pytest
from PIL import Image, ImageCms

from media import images

GPS_IFD = 0x8825


def jpeg_with_gps(size=(1200, 800), orientation=None):
    """A JPEG carrying a GPS position (and an orientation) in its EXIF."""
    picture = Image.new("RGB", size, (200, 30, 30))
    exif = Image.Exif()
    exif[0x010F] = "CameraMaker"
    gps = exif.get_ifd(GPS_IFD)
    gps[1] = "N"
    gps[2] = (48.0, 51.0, 24.0)
    gps[3] = "E"
    gps[4] = (2.0, 21.0, 3.0)
    if orientation:
        exif[0x0112] = orientation
    buffer = io.BytesIO()
    picture.save(buffer, "JPEG", exif=exif, quality=90)
    return buffer.getvalue()


def png(size=(300, 200), mode="RGB", colour=(10, 120, 200)):
    buffer = io.BytesIO()
    Image.new(mode, size, colour).save(buffer, "PNG")
    return buffer.getvalue()


def animated_gif():
    frames = [Image.new("P", (60, 40), index) for index in (1, 2, 3)]
    buffer = io.BytesIO()
    frames[0].save(buffer, "GIF", save_all=True, append_images=frames[1:], duration=100)
    return buffer.getvalue()


def jpeg_cut_and_closed(width=5000, height=6000, progressive=False):
    """A 16 x 16 JPEG whose header declares ``width`` x ``height``: its data ends (with
    the end-of-image marker) after the first 16 x 16 pixels, about 600 bytes."""
    out = io.BytesIO()
    Image.new("RGB", (16, 16), (200, 30, 30)).save(out, "JPEG", progressive=progressive)
    data = bytearray(out.getvalue())
    frame = data.find(b"\xff\xc2" if progressive else b"\xff\xc0")
    data[frame + 5 : frame + 9] = struct.pack(">HH", height, width)
    return bytes(data)


def png_bomb(width=20_000, height=20_000):
    """A few hundred bytes declaring width x height pixels: a valid header and one
    compressed block of zeros (most rows missing)."""

    def chunk(kind, body):
        return (
            len(body).to_bytes(4, "big") + kind + body + zlib.crc32(kind + body).to_bytes(4, "big")
        )

    header = width.to_bytes(4, "big") + height.to_bytes(4, "big") + bytes([8, 0, 0, 0, 0])
    data = zlib.compress(b"\0" * (width + 1) * 4)
    return (
        b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", data) + chunk(b"IEND", b"")
    )


def reopened(encoded):
    return Image.open(io.BytesIO(encoded.data))


def test_a_jpeg_keeps_its_pixels_and_loses_its_gps_position():
    data = jpeg_with_gps()
    assert Image.open(io.BytesIO(data)).getexif().get_ifd(GPS_IFD)  # the test file has one
    original, preview = images.attachment(images.read_image(data))
    for encoded in (original, preview):
        kept = reopened(encoded)
        assert kept.format == "JPEG" and encoded.content_type == "image/jpeg"
        assert not kept.getexif(), "no EXIF at all is kept"
        assert b"Exif" not in encoded.data and b"CameraMaker" not in encoded.data
    assert (original.width, original.height) == (1200, 800)
    assert (preview.width, preview.height) == (640, 427)


def test_the_exif_orientation_is_applied():
    # Orientation 6: the camera was turned; the picture is shown turned a quarter.
    picture = images.read_image(jpeg_with_gps(size=(400, 200), orientation=6))
    assert picture.size == (200, 400)


def test_a_big_picture_is_made_at_most_3840_pixels_long():
    original, preview = images.attachment(images.read_image(png(size=(5000, 2500))))
    assert (original.width, original.height) == (3840, 1920)
    assert (preview.width, preview.height) == (640, 320)


def test_a_png_is_accepted_and_an_opaque_one_becomes_a_jpeg():
    original, _ = images.attachment(images.read_image(png()))
    assert reopened(original).format == "JPEG"
    assert (original.width, original.height) == (300, 200)


def test_a_png_with_transparency_keeps_it_as_webp():
    picture = images.read_image(png(mode="RGBA", colour=(0, 0, 255, 100)))
    original, _ = images.attachment(picture)
    assert original.content_type == "image/webp"
    assert reopened(original).mode == "RGBA"


def test_an_animated_gif_becomes_its_first_frame():
    picture = images.read_image(animated_gif())
    assert picture.size == (60, 40)
    original, _ = images.attachment(picture)
    kept = reopened(original)
    assert kept.format == "JPEG" and not getattr(kept, "is_animated", False)


def test_a_webp_is_accepted():
    buffer = io.BytesIO()
    Image.new("RGB", (50, 50), "green").save(buffer, "WEBP")
    assert images.read_image(buffer.getvalue()).size == (50, 50)


def test_the_placeholder_is_the_average_colour():
    assert images.placeholder_colour(images.read_image(png(colour=(10, 120, 200)))) == "#0a78c8"


def test_each_image_keeps_its_blurhash_from_a_small_thumbnail():
    picture = Image.new("RGB", (400, 300), (10, 120, 200))
    picture.paste((250, 250, 20), (0, 0, 200, 300))  # yellow left half, blue right
    colour, hashed = images.placeholders(picture)
    assert colour == images.placeholder_colour(picture)
    assert len(hashed) == 36 and blurhash.components(hashed) == (4, 4)
    # Decoded, it is yellow on the left and blue on the right.
    decoded = blurhash.decode(hashed, 8, 6)
    left, right = decoded[3][0], decoded[3][7]
    assert left[0] > 180 and left[2] < 100, left
    assert right[2] > 150 and right[0] < 100, right


def rgb_profile(swap=(b"rXYZ", b"bXYZ")):
    """An RGB ICC profile that is not sRGB: sRGB's, its red and blue primaries swapped
    (the tag table's entries for them exchanged), so that the pixel (200, 30, 30) in it
    is the sRGB colour (30, 30, 200)."""
    data = bytearray(ImageCms.ImageCmsProfile(ImageCms.createProfile("sRGB")).tobytes())
    count = struct.unpack(">I", data[128:132])[0]
    entries = {}
    for i in range(count):
        at = 132 + 12 * i
        entries[bytes(data[at : at + 4])] = at
    first, second = (entries[name] for name in swap)
    data[first + 4 : first + 12], data[second + 4 : second + 12] = (
        data[second + 4 : second + 12],
        data[first + 4 : first + 12],
    )
    return bytes(data)


def with_profile(profile, kind="JPEG", colour=(200, 30, 30), mode="RGB"):
    buffer = io.BytesIO()
    Image.new(mode, (40, 30), colour).save(buffer, kind, icc_profile=profile)
    return buffer.getvalue()


def close_to(pixel, expected, tolerance=6):
    return all(abs(a - b) <= tolerance for a, b in zip(pixel, expected, strict=True))


@pytest.mark.parametrize("kind", ["JPEG", "PNG", "WEBP"])
def test_colours_are_converted_to_srgb_from_the_pictures_profile(kind):
    picture = images.read_image(with_profile(rgb_profile(), kind))
    assert close_to(picture.getpixel((5, 5)), (30, 30, 200)), picture.getpixel((5, 5))
    original, preview = images.attachment(picture)
    for kept in (reopened(original), reopened(preview)):
        assert "icc_profile" not in kept.info  # then dropped with the other metadata
        assert close_to(kept.convert("RGB").getpixel((5, 5)), (30, 30, 200), tolerance=10)


def test_a_turned_photo_is_turned_and_converted():
    exif = Image.Exif()
    exif[0x0112] = 6  # turned a quarter
    buffer = io.BytesIO()
    Image.new("RGB", (40, 30), (200, 30, 30)).save(
        buffer, "JPEG", exif=exif, icc_profile=rgb_profile()
    )
    picture = images.read_image(buffer.getvalue())
    assert picture.size == (30, 40)
    assert close_to(picture.getpixel((5, 5)), (30, 30, 200))


def test_a_picture_with_transparency_is_converted_and_keeps_it():
    picture = images.read_image(with_profile(rgb_profile(), "PNG", (200, 30, 30, 128), "RGBA"))
    assert picture.mode == "RGBA"
    assert close_to(picture.getpixel((5, 5)), (30, 30, 200, 128))


def test_only_a_profile_named_srgb_with_srgbs_primaries_is_taken_as_srgb():
    def read(data):
        return ImageCms.ImageCmsProfile(io.BytesIO(data)).profile

    srgb = ImageCms.ImageCmsProfile(ImageCms.createProfile("sRGB")).tobytes()
    assert images._is_srgb(read(srgb))
    assert not images._is_srgb(read(rgb_profile()))  # named sRGB, its primaries are not
    assert not images._is_srgb(
        read(ImageCms.ImageCmsProfile(ImageCms.createProfile("LAB")).tobytes())
    )


def test_an_srgb_profile_or_none_leaves_the_pixels_as_they_are():
    srgb = ImageCms.ImageCmsProfile(ImageCms.createProfile("sRGB")).tobytes()
    for data in (with_profile(srgb, "PNG"), png(colour=(200, 30, 30))):
        assert close_to(images.read_image(data).getpixel((5, 5)), (200, 30, 30), tolerance=2)


def test_a_greyscale_picture_with_a_lab_profile_it_cannot_use_is_shown_as_stored():
    lab = ImageCms.ImageCmsProfile(ImageCms.createProfile("LAB")).tobytes()
    picture = images.read_image(with_profile(lab, "PNG", 90, "L"))
    assert picture.mode == "RGB" and picture.getpixel((5, 5)) == (90, 90, 90)


def test_an_unreadable_profile_is_ignored():
    picture = images.read_image(with_profile(b"not a profile at all", "PNG"))
    assert picture.getpixel((5, 5)) == (200, 30, 30)


def test_an_avatar_is_a_square_at_400_and_96():
    large, small = images.avatar(images.read_image(png(size=(900, 300))))
    assert (large.width, large.height) == (400, 400)
    assert (small.width, small.height) == (96, 96)


def test_a_header_is_at_most_1500_by_500():
    made = images.header(images.read_image(png(size=(4000, 4000))))
    assert (made.width, made.height) == (1500, 500)
    small = images.header(images.read_image(png(size=(600, 600))))
    assert (small.width, small.height) == (600, 200)


REFUSED = {
    "empty": (b"", "empty"),
    "text named .jpg": (b"Just some text, in a file named photo.jpg\n", "not a JPEG"),
    "svg with script": (
        b'<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>',
        "not a JPEG",
    ),
    "html": (b"<!DOCTYPE html><html><body>hi</body></html>", "not a JPEG"),
    "pdf": (b"%PDF-1.7\n1 0 obj\n<<>>\nendobj\n", "not a JPEG"),
    "truncated jpeg": (None, "damaged or cut short"),
    "jpeg cut and closed": (None, "too short for the 5,000 x 6,000 pixels it declares"),
    "progressive jpeg cut and closed": (None, "too short for the 5,000 x 6,000 pixels"),
    "bomb": (None, "pixels"),
    "gif with html": (None, "web page, script or PDF"),
}


def refused_file(name):
    data, reason = REFUSED[name]
    if name == "truncated jpeg":
        data = jpeg_with_gps()[:2000]
    elif name == "jpeg cut and closed":
        data = jpeg_cut_and_closed()
    elif name == "progressive jpeg cut and closed":
        data = jpeg_cut_and_closed(progressive=True)
    elif name == "bomb":
        data = png_bomb()
    elif name == "gif with html":
        buffer = io.BytesIO()
        Image.new("P", (10, 10), 1).save(buffer, "GIF", comment=b"<html><script>x</script>")
        data = buffer.getvalue()
    return data, reason


@pytest.mark.parametrize("name", list(REFUSED))
def test_it_refuses_what_is_not_an_image_with_its_reason(name):
    data, reason = refused_file(name)
    with pytest.raises(images.ImageRefused, match=reason):
        images.read_image(data)


@pytest.mark.parametrize("mode", ["RGB", "L"])
@pytest.mark.parametrize("options", [{}, {"progressive": True}, {"optimize": True}])
def test_the_most_compressible_whole_jpeg_is_not_taken_for_a_cut_one(mode, options):
    # One flat colour at the most pixels accepted: two bits per block, twice the bound.
    out = io.BytesIO()
    Image.new(mode, (7680, 4320)).save(out, "JPEG", **options)
    assert images.read_image(out.getvalue()).size == (7680, 4320)


def test_a_jpeg_with_xml_metadata_is_no_polyglot():
    # Cameras' XMP packets are XML: only markup a browser acts on makes a polyglot.
    buffer = io.BytesIO()
    xmp = b'<?xml version="1.0"?><x:xmpmeta xmlns:x="adobe:ns:meta/"></x:xmpmeta>'
    Image.new("RGB", (20, 20), "red").save(buffer, "JPEG", comment=xmp)
    assert images.read_image(buffer.getvalue()).size == (20, 20)


def test_a_bomb_is_refused_from_its_header_without_decoding():
    data = png_bomb()
    assert len(data) < 100_000  # small file, 400 million pixels declared
    with pytest.raises(images.ImageRefused, match="pixels"):
        images.read_image(data)


def test_a_file_past_16_mib_is_refused_before_it_is_read():
    class Upload(io.BytesIO):
        size = images.MAX_BYTES + 1

    with pytest.raises(images.ImageRefused, match="at most 16 MiB"):
        images.read_upload(Upload(b"\xff\xd8\xff"))

"""Pictures' files: stored under random names through the storage API (media/files.py),
and served with their image type and nosniff (media/views.py, the test-only route)."""

import io

import pytest
from django.core.files.storage import default_storage
from PIL import Image

from media import files, images
from tests.support.helpers import stored_files
from tests.test_media_images import jpeg_with_gps


def stored_attachment():
    return files.save_all("attachments", images.attachment(images.read_image(jpeg_with_gps())))


def test_files_get_random_names_of_their_folder(media_root):
    first = stored_attachment()
    second = stored_attachment()
    assert len(set(first + second)) == 4
    for name in first + second:
        assert files.NAME.fullmatch(name), name
    assert stored_files(media_root) == sorted(first + second)


def test_a_failed_write_keeps_nothing(media_root, monkeypatch):
    written = []
    real_save = default_storage.save

    def failing_save(name, content, **kwargs):
        if written:
            raise OSError("disk full")
        written.append(name)
        return real_save(name, content, **kwargs)

    monkeypatch.setattr(default_storage, "save", failing_save)
    with pytest.raises(files.StorageFailed):
        stored_attachment()
    assert written, "the first file was written"
    assert stored_files(media_root) == []


def test_a_picture_is_served_with_its_type_and_nosniff(client, media_root):
    original, _ = stored_attachment()
    response = client.get(files.url(original))
    assert response.status_code == 200
    assert response["Content-Type"] == "image/jpeg"
    assert response["X-Content-Type-Options"] == "nosniff"
    body = b"".join(response.streaming_content)
    served = Image.open(io.BytesIO(body))
    assert served.format == "JPEG" and not served.getexif()


@pytest.mark.parametrize(
    "name",
    ["attachments/../../secret_key", "attachments/x.html", "other/AAAAAAAAAAAAAAAAAAAAAA.jpg"],
)
def test_only_names_it_makes_are_served(client, media_root, name):
    (media_root / "other").mkdir(parents=True)
    (media_root / "other" / "AAAAAAAAAAAAAAAAAAAAAA.jpg").write_bytes(b"<html>")
    assert client.get(f"/media/{name}").status_code == 404


def test_a_missing_picture_is_404(client, media_root):
    assert client.get("/media/avatars/AAAAAAAAAAAAAAAAAAAAAA.jpg").status_code == 404

"""Statuses with images (POST /statuses/ as multipart: media/attachments.py): up to four
images in order with their alt texts, a content warning, every refusal a message with
the text kept and nothing stored, the images on every page that shows the status, and
deleting the status (or the account) deleting their files."""

import html as html_module
import io
import json
import re

import blurhash
import pytest
from django.core.files.storage import default_storage
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import call_command
from django.test import Client
from PIL import Image

from media import attachments
from socialsite.repository import keys, leaving, reposts, statuses, timelines, uploads
from tests.support.helpers import PASSWORD, log_in, make_user, stored_files
from tests.test_media_images import (
    animated_gif,
    jpeg_cut_and_closed,
    jpeg_with_gps,
    png,
    png_bomb,
)


@pytest.fixture
def alice_in(client, alice, media_root):
    return log_in(client, "alice")


def upload(data, name="photo.jpg", content_type="image/jpeg"):
    return SimpleUploadedFile(name, data, content_type=content_type)


def page(client, url):
    response = client.get(url)
    assert response.status_code == 200, url
    return html_module.unescape(response.content.decode())


def newest(r, uid):
    sids = r.zrevrange(keys.profile(uid), 0, 0)
    return statuses.get_status(r, int(sids[0])) if sids else None


def media(status):
    return json.loads(status[keys.STATUS_MEDIA_FIELD])


def test_the_form_takes_images_alt_texts_and_a_warning(alice_in):
    html = alice_in.get("/").content.decode()
    assert 'enctype="multipart/form-data"' in html
    assert re.search(r'<input type="file" name="media"[^>]* multiple', html)
    assert 'accept="image/jpeg,image/png,image/webp,image/gif"' in html
    assert html.count('name="media_description"') == attachments.MAX_IMAGES
    for number in range(1, 5):
        assert f"Description of image {number} (alt text)" in html
    assert 'name="spoiler_text"' in html and 'name="sensitive"' in html


def test_four_images_are_kept_in_order_with_their_alt(alice_in, r, alice, media_root):
    sizes = [(300, 200), (200, 300), (100, 100), (640, 480)]
    sent = [upload(png(size), f"p{i}.png", "image/png") for i, size in enumerate(sizes)]
    response = alice_in.post(
        "/statuses/",
        {
            "message": "four",
            "media": sent,
            "media_description": ["first", "second", "", "fourth <b>"],
        },
    )
    assert response.status_code == 302
    status = newest(r, alice["id"])
    kept = media(status)
    assert [(item["w"], item["h"]) for item in kept] == sizes
    assert [item["a"] for item in kept] == ["first", "second", "", "fourth <b>"]
    assert uploads.count(r) == 0  # the status's write took them off the pending uploads
    # Each with its blurhash, which media_of gives (for the client API; pages show a tone).
    shown = attachments.media_of(status)
    assert [each["blurhash"] for each in shown] == [item["b"] for item in kept]
    assert all(blurhash.components(each["blurhash"]) == (4, 4) for each in shown)
    assert stored_files(media_root) == sorted(n for item in kept for n in (item["o"], item["p"]))
    html = alice_in.get("/").content.decode()
    assert html.index(kept[0]["p"]) < html.index(kept[1]["p"]) < html.index(kept[3]["p"])
    assert 'alt="fourth &lt;b&gt;"' in html
    assert 'aria-label="Image 3 of 4, not described"' in html


def test_a_status_may_be_images_alone(alice_in, r, alice, media_root):
    response = alice_in.post("/statuses/", {"message": "", "media": [upload(jpeg_with_gps())]})
    assert response.status_code == 302
    status = newest(r, alice["id"])
    assert status["message"] == ""
    (item,) = media(status)
    served = alice_in.get(f"/media/{item['o']}")
    picture = Image.open(io.BytesIO(b"".join(served.streaming_content)))
    assert picture.size == (1200, 800) and not picture.getexif()
    html = alice_in.get("/").content.decode()
    assert f'src="/media/{item["p"]}"' in html and f'href="/media/{item["o"]}"' in html
    assert 'width="640" height="427" loading="lazy"' in html
    assert '<p class="message"' not in html.split('class="status"', 1)[1]


def test_an_empty_post_is_still_refused(alice_in, r, alice):
    alice_in.post("/statuses/", {"message": ""})
    assert "Write something, or add an image, before posting." in page(alice_in, "/")
    assert newest(r, alice["id"]) is None


def test_a_warning_hides_text_and_images_in_details(alice_in, r, alice, media_root):
    alice_in.post(
        "/statuses/",
        {"message": "the plot", "spoiler_text": "Film <spoilers>", "media": [upload(png())]},
    )
    status = newest(r, alice["id"])
    assert status[keys.STATUS_SPOILER_FIELD] == "Film <spoilers>"
    raw = alice_in.get("/").content.decode()
    details = re.search(r'<details class="content-warning">(.*?)</details>', raw, re.S)
    assert details is not None
    assert '<summary><span class="cw-text">Film &lt;spoilers&gt;</span>' in details.group(1)
    assert "the plot" in details.group(1) and media(status)[0]["p"] in details.group(1)


def test_sensitive_alone_says_sensitive_content(alice_in, r, alice, media_root):
    alice_in.post("/statuses/", {"message": "x", "sensitive": "on", "media": [upload(png())]})
    assert newest(r, alice["id"])[keys.STATUS_SENSITIVE_FIELD] == "1"
    page = alice_in.get("/").content.decode()
    assert '<summary><span class="cw-text">Sensitive content</span>' in page


def test_a_status_without_images_has_no_media_fields(alice_in, r, alice):
    alice_in.post("/statuses/", {"message": "plain"})
    status = newest(r, alice["id"])
    for field in (keys.STATUS_MEDIA_FIELD, keys.STATUS_SENSITIVE_FIELD, keys.STATUS_SPOILER_FIELD):
        assert field not in status
    assert '<details class="content-warning">' not in alice_in.get("/").content.decode()


REFUSALS = {
    "five images": (
        {"media": [upload(png(), f"{i}.png", "image/png") for i in range(5)]},
        "at most 4 images; you chose 5",
    ),
    "text named .jpg": ({"media": [upload(b"hello, world")]}, "is not a JPEG, PNG, WebP or GIF"),
    "svg with script": (
        {"media": [upload(b'<svg xmlns="http://www.w3.org/2000/svg"><script>x</script></svg>')]},
        "is not a JPEG, PNG, WebP or GIF",
    ),
    "truncated": ({"media": [upload(png(), "a.png"), upload(jpeg_with_gps()[:3000])]}, "Image 2"),
    "bomb": ({"media": [upload(png_bomb(), "b.png", "image/png")]}, "pixels"),
    "cut and closed": ({"media": [upload(jpeg_cut_and_closed())]}, "too short for the 5,000"),
    "long alt": (
        {"media": [upload(png())], "media_description": ["x" * 1501]},
        "The description of image 1 is 1,501 characters; at most 1,500 are kept.",
    ),
    "long warning": (
        {"media": [upload(png())], "spoiler_text": "w" * 101},
        "at most 100 characters",
    ),
}


@pytest.mark.parametrize("name", list(REFUSALS))
def test_a_refusal_keeps_the_text_stores_nothing_and_says_choose_again(
    alice_in, r, alice, media_root, name
):
    fields, reason = REFUSALS[name]
    response = alice_in.post("/statuses/", {"message": "kept text", **fields})
    assert response.status_code == 302 and response["Location"] == "/"
    html = page(alice_in, "/")
    assert reason in html
    assert "Choose your images again: they were not kept." in html
    assert ">kept text</textarea>" in html.replace("\n", "")
    assert stored_files(media_root) == []
    assert newest(r, alice["id"]) is None
    assert uploads.count(r) == 0


def test_a_refused_reply_returns_to_its_thread_with_its_alt_text(alice_in, r, alice, media_root):
    sid = statuses.post_status(r, alice["id"], "parent")
    thread = f"/@alice/{sid}/"
    response = alice_in.post(
        "/statuses/",
        {
            "message": "my reply",
            "in_reply_to": sid,
            "next": thread,
            "media": [upload(b"not an image")],
            "media_description": ["a described picture"],
        },
    )
    assert response["Location"] == thread
    html = page(alice_in, thread)
    assert "Choose your images again" in html
    assert ">a described picture</textarea>" in html.replace("\n", "")
    assert stored_files(media_root) == []


def test_an_animated_gif_is_its_first_frame(alice_in, r, alice, media_root):
    alice_in.post("/statuses/", {"message": "", "media": [upload(animated_gif(), "a.gif")]})
    (item,) = media(newest(r, alice["id"]))
    assert Image.open(media_root / item["o"]).size == (60, 40)


def test_images_are_throttled_each_counted(alice_in, r, alice, settings, media_root):
    settings.THROTTLES = {**settings.THROTTLES, "media": (3, 1800)}
    two = [upload(png(), "a.png"), upload(png(), "b.png")]
    assert alice_in.post("/statuses/", {"message": "1", "media": two}).status_code == 302
    response = alice_in.post(
        "/statuses/", {"message": "kept", "media": [upload(png()), upload(png())]}
    )
    assert response.status_code == 429 and int(response["Retry-After"]) >= 1
    html = html_module.unescape(response.content.decode())
    assert "Choose your images again" in html and ">kept</textarea>" in html.replace("\n", "")
    assert len(stored_files(media_root)) == 4  # the first status's two images, two sizes
    # Without images, a post is not counted.
    assert alice_in.post("/statuses/", {"message": "no images"}).status_code == 302


def test_a_storage_failure_leaves_no_status_and_no_files(alice_in, r, alice, media_root,
                                                         monkeypatch):  # fmt: skip
    real_save = default_storage.save
    calls = []

    def failing_save(name, content, **kwargs):
        calls.append(name)
        if len(calls) == 3:
            raise OSError("disk full")
        return real_save(name, content, **kwargs)

    monkeypatch.setattr(default_storage, "save", failing_save)
    response = alice_in.post(
        "/statuses/", {"message": "kept", "media": [upload(png(), "a.png"), upload(png())]}
    )
    assert response.status_code == 302
    html = page(alice_in, "/")
    assert "Your images could not be stored just now, so nothing was posted." in html
    assert stored_files(media_root) == []
    assert newest(r, alice["id"]) is None


def test_a_failed_status_write_deletes_the_files(alice_in, r, alice, media_root, monkeypatch):
    def failing_post(*args, **kwargs):
        raise ConnectionError("Redis went away")

    monkeypatch.setattr(statuses, "post_status", failing_post)
    with pytest.raises(ConnectionError):
        alice_in.post("/statuses/", {"message": "x", "media": [upload(png())]})
    assert stored_files(media_root) == []
    assert uploads.count(r) == 0


def test_a_reply_to_a_deleted_status_deletes_the_files(alice_in, r, alice, media_root):
    sid = statuses.post_status(r, alice["id"], "parent")
    statuses.delete_status(r, alice["id"], sid)
    alice_in.post("/statuses/", {"message": "x", "in_reply_to": sid, "media": [upload(png())]})
    assert "was deleted, or never existed" in page(alice_in, "/")
    assert stored_files(media_root) == []
    assert uploads.count(r) == 0


def test_the_same_form_sent_twice_keeps_one_set_of_files(alice_in, r, alice, media_root):
    form = {"message": "once", "posting_key": "k" * 22}
    alice_in.post("/statuses/", {**form, "media": [upload(png())]})
    alice_in.post("/statuses/", {**form, "media": [upload(png())]})
    assert r.zcard(keys.profile(alice["id"])) == 1
    (item,) = media(newest(r, alice["id"]))
    assert stored_files(media_root) == sorted([item["o"], item["p"]])
    assert uploads.count(r) == 0


def test_deleting_the_status_deletes_its_files(alice_in, r, alice, media_root):
    alice_in.post("/statuses/", {"message": "x", "media": [upload(png()), upload(png())]})
    status = newest(r, alice["id"])
    assert len(stored_files(media_root)) == 4
    response = alice_in.post(f"/statuses/{status['id']}/delete/")
    assert response.status_code == 302
    assert stored_files(media_root) == []
    assert r.zcard(keys.UNUSED_PICTURES) == 0


def test_deleting_the_account_deletes_its_statuses_files(alice_in, r, alice, media_root):
    alice_in.post("/statuses/", {"message": "x", "media": [upload(png())]})
    alice_in.post("/statuses/", {"message": "", "media": [upload(png())]})
    assert len(stored_files(media_root)) == 4
    response = alice_in.post("/settings/delete/", {"password": PASSWORD})
    assert response.status_code == 302
    assert stored_files(media_root) == []


def test_every_surface_shows_the_images(alice_in, client, r, alice, bob, media_root):
    alice_in.post(
        "/statuses/",
        {"message": "a #sunset", "media": [upload(png())], "media_description": ["red sky"]},
    )
    status = newest(r, alice["id"])
    preview = media(status)[0]["p"]
    reposts.repost(r, bob["id"], status["id"])
    for url in ("/", "/@alice/", f"/@alice/{status['id']}/", "/tags/sunset/", "/@bob/"):
        html = page(alice_in, url)
        assert preview in html and 'alt="red sky"' in html, url


def test_a_repost_in_a_timeline_shows_the_originals_images(r, alice, bob, client, media_root):
    log_in(client, "alice")
    client.post("/statuses/", {"message": "pic", "media": [upload(png())]})
    status = newest(r, alice["id"])
    reposts.repost(r, bob["id"], status["id"])
    page_of_bob = timelines.profile_page(r, bob["id"])
    shown = [s for s in page_of_bob.items if s.get("reposted_by") or s["id"] == status["id"]]
    assert shown and media(shown[0])[0]["p"] == media(status)[0]["p"]


def test_a_moderators_deletion_deletes_the_files(alice_in, r, alice, bob, media_root):
    from socialsite.repository import moderation

    alice_in.post("/statuses/", {"message": "reported", "media": [upload(png())]})
    sid = newest(r, alice["id"])["id"]
    rid = moderation.file_report(r, bob, alice, "abuse", "", [sid])
    moderator = make_user(r, "mod")
    moderation.add_moderator(r, moderator["id"])
    client = log_in(Client(), "mod")
    response = client.post(
        f"/moderation/reports/{rid}/",
        {"action": "delete-status", "status": str(sid), "reason": "rude"},
    )
    assert response.status_code == 302
    assert stored_files(media_root) == []


def test_the_workers_sweep_deletes_the_files_of_a_big_accounts_statuses(
    alice_in, r, alice, media_root
):
    for n in range(3):
        alice_in.post("/statuses/", {"message": str(n), "media": [upload(png())]})
    assert leaving.delete_account(r, alice["id"], inline_budget=1) is False
    call_command("fanout", "--exit-when-idle", stdout=io.StringIO())
    assert stored_files(media_root) == []
    assert r.zcard(keys.UNUSED_PICTURES) == 0


def test_an_images_only_status_is_named_by_its_images_in_lines_of_text(
    alice_in, r, alice, bob, media_root
):
    from socialsite.repository import likes, moderation

    alice_in.post("/statuses/", {"message": "", "media": [upload(png()), upload(png())]})
    sid = newest(r, alice["id"])["id"]
    title = re.search(r"<title>(.*?)</title>", page(alice_in, f"/@alice/{sid}/"), re.S).group(1)
    assert "2 images" in title
    likes.like(r, bob["id"], sid)
    notes = page(alice_in, "/notifications/")
    assert re.search(r'<a class="quoted" href="/@alice/\d+/">2 images</a>', notes)
    # A moderator sees the reported images themselves.
    moderation.file_report(r, bob, alice, "abuse", "", [sid])
    moderation.add_moderator(r, alice["id"])
    queue = page(alice_in, "/moderation/")
    assert queue.count('class="media-image') == 2

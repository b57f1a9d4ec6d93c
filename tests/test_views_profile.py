"""/settings/profile/ (timeline/profile_settings.py): the profile form with its pictures,
every refusal a form error with nothing stored, the profile page and lists of people
showing what it saved, and deleting the account deleting its files."""

import io
import re

import pytest
from django.core.files.storage import default_storage
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import call_command
from PIL import Image

from media import files, images
from socialsite.repository import graph, keys, leaving, profiles, users
from tests.support.helpers import PASSWORD, exported, log_in, make_user, stored_files
from tests.test_media_images import animated_gif, jpeg_with_gps, png, png_bomb

URL = "/settings/profile/"


@pytest.fixture
def alice_in(client, alice, media_root):
    return log_in(client, "alice")


def upload(data, name="picture.jpg", content_type="image/jpeg"):
    return SimpleUploadedFile(name, data, content_type=content_type)


def form(**fields):
    return {"name": "Alice", "bio": "", "website": "", **fields}


def saved(r, user):
    return users.get_user(r, user["id"])


def test_it_needs_a_login(client):
    response = client.get(URL)
    assert response.status_code == 302 and "/accounts/login/" in response["Location"]


def test_the_settings_page_links_to_it(alice_in):
    assert f'href="{URL}"' in alice_in.get("/settings/").content.decode()


def test_the_form_is_multipart(alice_in):
    html = alice_in.get(URL).content.decode()
    assert 'enctype="multipart/form-data"' in html
    for name in ("name", "bio", "website", "avatar", "header", "remove_avatar", "remove_header"):
        assert f'name="{name}"' in html


def test_an_avatar_is_stored_at_two_sizes_without_its_gps(alice_in, r, alice, media_root):
    response = alice_in.post(URL, form(avatar=upload(jpeg_with_gps())))
    assert response.status_code == 302
    user = saved(r, alice)
    large, small = user[keys.AVATAR_FIELD], user[keys.AVATAR_SMALL_FIELD]
    assert stored_files(media_root) == sorted([large, small])
    served = alice_in.get(f"/media/{large}")
    assert served["Content-Type"] == "image/jpeg"
    picture = Image.open(io.BytesIO(b"".join(served.streaming_content)))
    assert picture.size == (400, 400) and not picture.getexif()
    assert Image.open(media_root / small).size == (96, 96)


def test_the_profile_page_shows_avatar_header_bio_website_and_joined(alice_in, r, alice, bob):
    response = alice_in.post(
        URL,
        form(
            bio="I make #things with @bob",
            website="https://alice.example/",
            avatar=upload(png()),
            header=upload(png(size=(3000, 1200)), "h.png", "image/png"),
        ),
    )
    assert response.status_code == 302
    user = saved(r, alice)
    html = alice_in.get("/@alice/").content.decode()
    assert f'src="/media/{user[keys.AVATAR_FIELD]}"' in html
    assert f'src="/media/{user[keys.HEADER_FIELD]}"' in html
    assert 'width="1500" height="500"' in html
    assert '<a class="hashtag" href="/tags/things/">#things</a>' in html
    assert '<a class="mention" href="/@bob/">@bob</a>' in html
    assert 'href="https://alice.example/" rel="me nofollow noopener"' in html
    assert re.search(r"Joined <time datetime=\"[^\"]+\">\w+ \d{4}</time>", html)


def test_people_lists_show_the_avatar_or_a_made_one(alice_in, r, alice, bob, carol):
    alice_in.post(URL, form(avatar=upload(png())))
    graph.follow(r, alice["id"], bob["id"])
    graph.follow(r, carol["id"], bob["id"])
    html = alice_in.get("/@bob/followers/").content.decode()
    assert f'src="/media/{saved(r, alice)[keys.AVATAR_SMALL_FIELD]}"' in html
    # carol has none: her initials on a colour of her own, with no picture to fetch.
    assert re.search(r'<span class="avatar avatar-small avatar-made avatar-hue-\d+" '
                     r'aria-hidden="true">CD</span>', html)  # fmt: skip


def test_notifications_show_the_actors_avatar(client, r, alice, bob, media_root):
    bob_in = log_in(client, "bob")
    bob_in.post(URL, form(name="Bob", avatar=upload(png())))
    graph.follow(r, bob["id"], alice["id"])
    client.post("/accounts/logout/")
    html = log_in(client, "alice").get("/notifications/").content.decode()
    assert f'src="/media/{saved(r, bob)[keys.AVATAR_SMALL_FIELD]}"' in html


def test_a_made_avatar_escapes_the_name(r, client, media_root):
    make_user(r, "mallory", "<script>x</script> Evil")
    dave = make_user(r, "dave")
    graph.follow(r, users.get_user_id(r, "mallory"), dave["id"])
    html = client.get("/@dave/followers/").content.decode()
    assert "<script>x" not in html
    assert "&lt;script&gt;x&lt;/script&gt; Evil" in html
    assert 'aria-hidden="true">SE</span>' in html  # letters only


def test_replacing_the_avatar_deletes_the_old_files(alice_in, r, alice, media_root):
    alice_in.post(URL, form(avatar=upload(png())))
    first = stored_files(media_root)
    alice_in.post(URL, form(avatar=upload(png(colour=(0, 0, 0)), "b.png", "image/png")))
    second = stored_files(media_root)
    assert len(second) == 2 and not set(first) & set(second)


def test_removing_the_pictures_deletes_their_files(alice_in, r, alice, media_root):
    alice_in.post(URL, form(avatar=upload(png()), header=upload(png(), "h.png", "image/png")))
    assert len(stored_files(media_root)) == 3
    response = alice_in.post(URL, form(remove_avatar="on", remove_header="on"))
    assert response.status_code == 302
    assert stored_files(media_root) == []
    user = saved(r, alice)
    assert keys.AVATAR_FIELD not in user and keys.HEADER_FIELD not in user


def test_an_animated_gif_is_accepted_as_its_first_frame(alice_in, r, alice, media_root):
    response = alice_in.post(URL, form(avatar=upload(animated_gif(), "a.gif", "image/gif")))
    assert response.status_code == 302
    assert Image.open(media_root / saved(r, alice)[keys.AVATAR_FIELD]).format == "JPEG"


REFUSALS = {
    "text named .jpg": (b"hello, I am text\n", "not a JPEG, PNG, WebP or GIF image"),
    "svg with script": (
        b'<svg xmlns="http://www.w3.org/2000/svg" onload="f()"><script>f()</script></svg>',
        "not a JPEG, PNG, WebP or GIF image",
    ),
    "truncated jpeg": (jpeg_with_gps()[:3000], "damaged or cut short"),
    "bomb": (png_bomb(), "pixels"),
    "empty": (b"", "empty"),
}


@pytest.mark.parametrize("name", list(REFUSALS))
def test_a_refused_picture_is_a_form_error_and_nothing_is_stored(alice_in, r, alice, media_root,
                                                                 name):  # fmt: skip
    data, reason = REFUSALS[name]
    response = alice_in.post(URL, form(bio="kept?", avatar=upload(data, "photo.jpg")))
    assert response.status_code == 400
    html = response.content.decode()
    assert reason in html.replace("&#x27;", "'")
    assert "choose them again" in html
    assert stored_files(media_root) == []
    user = saved(r, alice)
    assert keys.AVATAR_FIELD not in user and keys.BIO_FIELD not in user


def test_a_long_bio_and_a_bad_website_are_form_errors(alice_in, r, alice, media_root):
    response = alice_in.post(URL, form(bio="x" * 501, website="javascript:alert(1)"))
    assert response.status_code == 400
    html = response.content.decode()
    assert "A bio is at most 500 characters; this one has 501." in html
    assert keys.BIO_FIELD not in saved(r, alice)


def test_a_storage_failure_keeps_nothing_and_says_so(alice_in, r, alice, media_root, monkeypatch):
    real_save = default_storage.save
    calls = []

    def failing_save(name, content, **kwargs):
        calls.append(name)
        if len(calls) == 2:
            raise OSError("disk full")
        return real_save(name, content, **kwargs)

    monkeypatch.setattr(default_storage, "save", failing_save)
    response = alice_in.post(URL, form(bio="new bio", avatar=upload(png())))
    assert response.status_code == 503
    assert "could not be stored" in response.content.decode()
    assert stored_files(media_root) == []
    assert keys.BIO_FIELD not in saved(r, alice)


def test_deleting_the_account_deletes_its_pictures(alice_in, r, alice, media_root):
    alice_in.post(URL, form(avatar=upload(png()), header=upload(png(), "h.png", "image/png")))
    assert len(stored_files(media_root)) == 3
    response = alice_in.post("/settings/delete/", {"password": PASSWORD})
    assert response.status_code == 302
    assert stored_files(media_root) == []


def test_pictures_are_throttled_each_counted(alice_in, settings, media_root):
    settings.THROTTLES = {**settings.THROTTLES, "media": (3, 1800)}
    two = form(avatar=upload(png()), header=upload(png(), "h.png", "image/png"))
    assert alice_in.post(URL, two).status_code == 302
    assert alice_in.post(URL, form(avatar=upload(png()))).status_code == 302
    response = alice_in.post(URL, form(bio="kept", avatar=upload(png())))
    assert response.status_code == 429
    assert int(response["Retry-After"]) >= 1
    html = response.content.decode()
    assert "Too many pictures uploaded: at most 3 in 30 minutes" in html
    assert "choose them again" in html and ">kept</textarea>" in html.replace("\n", "")
    # Without pictures, the form is not counted.
    assert alice_in.post(URL, form(bio="no pictures")).status_code == 302


def test_search_results_show_the_avatar(client, r, alice, bob, media_root):
    log_in(client, "bob").post(URL, form(name="Bob", avatar=upload(png())))
    html = client.get("/search/?q=bo").content.decode()
    assert f'src="/media/{saved(r, bob)[keys.AVATAR_SMALL_FIELD]}"' in html


def test_the_export_carries_the_bio_and_website(alice_in, media_root):
    alice_in.post(URL, form(bio="Hello there", website="https://alice.example/"))
    data, _ = exported(alice_in.get("/settings/export/"))
    assert data["account"]["bio"] == "Hello there"
    assert data["account"]["website"] == "https://alice.example/"


def test_the_command_deletes_what_a_cut_short_deletion_left(r, alice, media_root):
    large, small = files.save_all("avatars", images.avatar(images.read_image(png())))
    profiles.update_profile(r, alice["id"], {keys.AVATAR_FIELD: large,
                                             keys.AVATAR_SMALL_FIELD: small})  # fmt: skip
    leaving.delete_account(r, alice["id"])  # the repository's part only: the files stay
    assert stored_files(media_root) == sorted([large, small])
    out = io.StringIO()
    call_command("pictures", "unused", stdout=out)
    assert "2 picture file(s) wait" in out.getvalue()
    call_command("pictures", "delete-unused", stdout=out)
    assert "Deleted 2 picture file(s)." in out.getvalue()
    assert stored_files(media_root) == []
    assert profiles.unused_pictures(r) == []

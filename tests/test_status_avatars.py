"""The author's avatar beside every status (_status.html's status_article): on home,
profile and thread pages and in the live feed's markup, the uploaded one or the made one,
and a new avatar shown at once although the status's markup is remembered
(timeline/jinja_helpers.status_list_markup)."""

import json
import re

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from socialsite.repository import graph, keys, users
from socialsite_dev.streams import StreamConnection
from tests.support.helpers import log_in, post
from tests.test_media_images import png

PROFILE = "/settings/profile/"


def set_avatar(client, name, colour=(200, 30, 30)):
    upload = SimpleUploadedFile("a.png", png(colour=colour), content_type="image/png")
    form = {"name": name, "bio": "", "website": "", "avatar": upload}
    assert client.post(PROFILE, form).status_code == 302


def small_avatar(r, user):
    return users.get_user(r, user["id"])[keys.AVATAR_SMALL_FIELD]


def article(html, sid):
    found = re.search(rf'<article class="status" id="status-{sid}".*?</article>', html, re.S)
    assert found, html
    return found.group(0)


def author_link(html, sid):
    return re.search(r'<a class="author" href="[^"]+">.*?</a>', article(html, sid), re.S).group(0)


def test_every_page_shows_the_authors_avatar_beside_the_status(client, r, alice, bob, media_root):
    set_avatar(log_in(client, "alice"), "Alice Liddell")
    sid = post(r, alice, "hello")
    graph.follow(r, bob["id"], alice["id"])
    client.post("/accounts/logout/")
    bob_in = log_in(client, "bob")
    img = f'<img class="avatar avatar-small" src="/media/{small_avatar(r, alice)}" alt=""'
    for url in ("/", "/@alice/", f"/@alice/{sid}/"):
        response = bob_in.get(url)
        assert response.status_code == 200, url
        # Decorative, inside the link that names her.
        assert img in author_link(response.content.decode(), sid), url


def test_without_an_upload_the_made_avatar_is_shown(client, r, alice, bob):
    sid = post(r, alice, "hello")
    html = log_in(client, "bob").get("/@alice/").content.decode()
    assert re.search(r'<span class="avatar avatar-small avatar-made avatar-hue-\d+" '
                     r'aria-hidden="true">AL</span>', author_link(html, sid))  # fmt: skip


def test_a_new_avatar_is_shown_at_once_on_remembered_markup(client, r, alice, bob, media_root):
    sid = post(r, alice, "hello")
    graph.follow(r, bob["id"], alice["id"])
    assert "avatar-made" in author_link(log_in(client, "bob").get("/").content.decode(), sid)
    client.post("/accounts/logout/")
    alice_in = log_in(client, "alice")
    set_avatar(alice_in, "Alice Liddell")
    first = small_avatar(r, alice)
    client.post("/accounts/logout/")
    bob_in = log_in(client, "bob")
    assert f'src="/media/{first}"' in author_link(bob_in.get("/").content.decode(), sid)
    client.post("/accounts/logout/")
    set_avatar(log_in(client, "alice"), "Alice Liddell", colour=(0, 0, 0))
    second = small_avatar(r, alice)
    assert second != first
    client.post("/accounts/logout/")
    shown = author_link(log_in(client, "bob").get("/").content.decode(), sid)
    assert f'src="/media/{second}"' in shown and first not in shown


@pytest.fixture(scope="module")
def stream_server_options():
    # A stream server of this module's own: its memory of authors starts empty.
    return {"site_port": 8123}


def test_a_live_status_shows_its_authors_avatar_as_the_page_does(
    client, settings, r, alice, stream_server, media_root
):
    alice_in = log_in(client, "alice")
    set_avatar(alice_in, "Alice Liddell")
    cookie = f"{settings.SESSION_COOKIE_NAME}={client.cookies[settings.SESSION_COOKIE_NAME].value}"
    headers = {"Accept": "text/event-stream", "Cookie": cookie}
    with StreamConnection(stream_server.port, "GET", "/live/home", headers=headers) as stream:
        assert stream.status == 200
        sid = post(r, alice, "live")
        kind, data = stream.read_event()
        assert kind == "status"
        live_html = json.loads(data)["html"]
    assert f'src="/media/{small_avatar(r, alice)}" alt=""' in live_html
    page = alice_in.get("/").content.decode()
    token = re.compile(r'(name="csrfmiddlewaretoken" value=")[^"]+"')
    assert live_html == token.sub(r'\1"', article(page, sid))

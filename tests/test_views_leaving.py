"""/settings/delete/ and /settings/export/ through the real views on real Redis."""

import json

from django.test import Client

from socialsite.repository import bookmarks, graph, pins, statuses, users, worker
from tests.support.helpers import PASSWORD, exported, log_in, post


def html_of(response):
    return response.content.decode()


def logged_in(client):
    return "Log out</button>" in html_of(client.get("/"))


def sign_up(client, login):
    return client.post(
        "/accounts/signup/",
        {
            "username": login,
            "name": "Someone New",
            "email": f"{login}@example.org",
            "password1": PASSWORD,
            "password2": PASSWORD,
        },
    )


def test_the_delete_page_says_what_goes(r, client, alice, bob):
    graph.follow(r, alice["id"], bob["id"])
    post(r, alice, "one")
    log_in(client, "alice")
    response = client.get("/settings/delete/")
    assert response.status_code == 200
    html = html_of(response)
    assert "your 1 status," in html
    assert "you stop following 1 person, and 0 people stop following you" in html
    assert "Nobody can sign up as @alice for 30 days" in html
    assert 'href="/settings/export/"' in html
    assert 'name="password"' in html
    assert 'href="/settings/delete/"' in html_of(client.get("/accounts/password/"))


def test_leaving_needs_a_login(client):
    for path in ("/settings/delete/", "/settings/export/"):
        response = client.get(path)
        assert response.status_code == 302
        assert response["Location"].startswith("/accounts/login/?next=")
    assert client.post("/settings/delete/", {"password": PASSWORD}).status_code == 302


def test_a_wrong_password_deletes_nothing(r, client, alice, bob):
    graph.follow(r, bob["id"], alice["id"])
    sid = post(r, alice, "still mine")
    log_in(client, "alice")
    for password in ("", "not my password at all", "x" * 600):
        response = client.post("/settings/delete/", {"password": password})
        assert response.status_code == 400
    assert "That is not your password." in html_of(
        client.post("/settings/delete/", {"password": "nope"})
    )
    assert logged_in(client)
    user = users.get_user(r, alice["id"])
    assert not users.is_hidden(user)
    assert (user["posts"], user["followers"]) == (1, 1)
    assert statuses.get_status(r, sid) is not None
    assert client.get("/@alice/").status_code == 200


def test_deleting_the_account(r, client, alice, bob):
    graph.follow(r, bob["id"], alice["id"])
    graph.follow(r, alice["id"], bob["id"])
    sid = post(r, alice, "goodbye")
    log_in(client, "alice")
    other_device = log_in(Client(), "alice")

    response = client.post("/settings/delete/", {"password": PASSWORD})
    assert response.status_code == 302 and response["Location"] == "/"
    assert "Your account is deleted" in html_of(client.get("/"))
    assert not logged_in(client)
    assert not logged_in(other_device)  # every session ended
    assert client.get("/@alice/").status_code == 404
    assert Client().get(f"/@alice/{sid}/").status_code == 404
    assert statuses.get_status(r, sid) is None
    fresh_bob = users.get_user(r, bob["id"])
    assert (fresh_bob["followers"], fresh_bob["following"]) == (0, 0)
    worker.work_until_idle(r)
    assert users.get_user(r, alice["id"]) is None

    refused = Client().post("/accounts/login/", {"username": "alice", "password": PASSWORD})
    assert refused.status_code == 400
    taken = sign_up(Client(), "Alice")
    assert taken.status_code == 400
    assert "That login name belonged to an account deleted lately" in html_of(taken)
    assert "free again on" in html_of(taken)


def test_the_export_downloads_statuses_follows_and_followers(r, client, alice, bob, carol):
    sids = [post(r, alice, f"status {i}") for i in range(3)]
    post(r, alice, "with a place", location="48.8566,2.3522")
    graph.follow(r, alice["id"], bob["id"])
    graph.follow(r, carol["id"], alice["id"])
    log_in(client, "alice")
    response = client.get("/settings/export/")
    assert response.status_code == 200
    assert response.streaming
    assert response["Content-Disposition"] == 'attachment; filename="socialsite-alice.zip"'
    assert response["Content-Type"] == "application/zip"
    data, files = exported(response)
    assert files == {}  # no pictures
    assert data["account"]["login"] == "alice"
    assert data["account"]["posts"] == 4
    assert "password" not in json.dumps(data)
    assert [s["message"] for s in data["statuses"]] == [
        "with a place",
        "status 2",
        "status 1",
        "status 0",
    ]
    assert data["statuses"][0]["location"] == "48.8566,2.3522"
    assert [s["id"] for s in data["statuses"][1:]] == sids[::-1]
    assert [p["login"] for p in data["following"]] == ["bob"]
    assert [p["login"] for p in data["followers"]] == ["carol"]


def test_an_empty_account_exports_empty_lists(client, alice):
    log_in(client, "alice")
    data, _ = exported(client.get("/settings/export/"))
    assert (data["statuses"], data["following"], data["followers"]) == ([], [], [])


def test_a_big_export_is_valid_json_across_chunks(r, client, alice):
    import secrets

    # More than two chunks of the download and a page of reads, in words that do not
    # compress away: the zip is sent in pieces as it is made.
    messages = [f"s{i} {secrets.token_hex(100)}" for i in range(450)]
    for message in messages:
        statuses.post_status(r, alice["id"], message)
    log_in(client, "alice")
    response = client.get("/settings/export/")
    chunks = list(response.streaming_content)
    assert len([chunk for chunk in chunks if chunk]) >= 3
    data, _ = exported(b"".join(chunks))
    assert [s["message"] for s in data["statuses"]] == messages[::-1]


def test_deleting_needs_the_forms_csrf_token(r, alice):
    from tests.support.helpers import csrf_token

    client = log_in(Client(enforce_csrf_checks=True), "alice")
    assert client.post("/settings/delete/", {"password": PASSWORD}).status_code == 403
    assert not users.is_hidden(users.get_user(r, alice["id"]))
    token = csrf_token(client.get("/settings/delete/"))
    form = {"password": PASSWORD, "csrfmiddlewaretoken": token}
    assert client.post("/settings/delete/", form).status_code == 302
    assert users.get_user_id(r, "alice") is None


def test_the_export_zip_holds_the_accounts_pictures_under_the_names_its_json_gives(
    r, client, alice, bob, media_root
):
    from django.core.files.storage import default_storage
    from django.core.files.uploadedfile import SimpleUploadedFile

    from tests.test_media_images import png

    alice_in = log_in(client, "alice")
    profile = {"name": "Alice", "bio": "", "website": "",
               "avatar": SimpleUploadedFile("a.png", png(), "image/png"),
               "header": SimpleUploadedFile("h.png", png(), "image/png")}  # fmt: skip
    assert alice_in.post("/settings/profile/", profile).status_code == 302
    images = [SimpleUploadedFile(f"{n}.png", png(colour=(n, 0, 0)), "image/png") for n in (1, 2)]
    form = {"message": "two birds", "media": images, "media_description": ["a heron", "a swan"]}
    assert alice_in.post("/statuses/", form).status_code == 302
    post(r, bob, "not hers")
    data, files = exported(alice_in.get("/settings/export/"))
    account = data["account"]
    originals = [item["o"] for item in json.loads(data["statuses"][0]["media"])]
    assert len(originals) == 2
    assert set(files) == {account["avatar"], account["header"], *originals}
    for name, content in files.items():
        with default_storage.open(name, "rb") as stored:
            assert content == stored.read(), name


def test_a_picture_the_storage_cannot_read_is_left_out_of_the_export(client, alice, media_root):
    from django.core.files.storage import default_storage
    from django.core.files.uploadedfile import SimpleUploadedFile

    from tests.test_media_images import png

    alice_in = log_in(client, "alice")
    profile = {"name": "Alice", "bio": "", "website": "",
               "avatar": SimpleUploadedFile("a.png", png(), "image/png"),
               "header": SimpleUploadedFile("h.png", png(), "image/png")}  # fmt: skip
    assert alice_in.post("/settings/profile/", profile).status_code == 302
    data, _ = exported(alice_in.get("/settings/export/"))
    default_storage.delete(data["account"]["header"])
    data, files = exported(alice_in.get("/settings/export/"))
    assert set(files) == {data["account"]["avatar"]}


def test_the_export_holds_bookmarks_and_pins(r, client, alice, bob):
    theirs = post(r, bob, "bob's, kept")
    mine = post(r, alice, "mine, pinned")
    bookmarks.bookmark(r, alice["id"], theirs)
    bookmarks.bookmark(r, alice["id"], mine)
    pins.pin(r, alice["id"], mine)
    log_in(client, "alice")
    data, _ = exported(client.get("/settings/export/"))
    assert [(b["id"], b["login"]) for b in data["bookmarks"]] == [(mine, "alice"), (theirs, "bob")]
    assert all(b["bookmarked"] > 0 for b in data["bookmarks"])
    assert [(p["id"], p["login"]) for p in data["pinned"]] == [(mine, "alice")]

"""CSRF protection of every POST endpoint, with a client that enforces it as browsers do.

Without a token each action answers 403 and changes nothing; with the token from the
page it works.
"""

import pytest
from django.test import Client

from socialsite.repository import graph, statuses, timelines, users
from tests.support.helpers import PASSWORD, csrf_token, log_in

FORM_EXPIRED = "That form has expired"


def csrf_client():
    return Client(enforce_csrf_checks=True)


def is_logged_in_as(client, login):
    return f'aria-label="Account menu of @{login}"' in client.get("/").content.decode()


def refused(response):
    return response.status_code == 403 and FORM_EXPIRED in response.content.decode()


@pytest.fixture
def alice_client(alice):
    return log_in(csrf_client(), "alice")


def test_it_logs_in_with_the_token_from_the_page(alice):
    client = log_in(csrf_client(), "alice")
    assert is_logged_in_as(client, "alice")


def test_posting_needs_a_token(r, alice_client, alice):
    assert refused(alice_client.post("/statuses/", {"message": "forged"}))
    assert timelines.profile_ids(r, alice["id"]) == []
    assert users.get_user(r, alice["id"])["posts"] == 0


def test_posting_works_with_the_token_from_the_page(r, alice_client, alice):
    token = csrf_token(alice_client.get("/"))
    response = alice_client.post("/statuses/", {"message": "real", "csrfmiddlewaretoken": token})
    assert response.status_code == 302
    [sid] = timelines.profile_ids(r, alice["id"])
    assert statuses.get_status(r, sid)["message"] == "real"


def test_posting_works_with_the_token_in_a_header(r, alice_client, alice):
    token = csrf_token(alice_client.get("/"))
    response = alice_client.post("/statuses/", {"message": "ajax"}, headers={"X-CSRFToken": token})
    assert response.status_code == 302
    assert len(timelines.profile_ids(r, alice["id"])) == 1


def test_a_wrong_token_is_refused(r, alice_client, alice):
    response = alice_client.post(
        "/statuses/", {"message": "forged", "csrfmiddlewaretoken": "x" * 64}
    )
    assert refused(response)
    assert timelines.profile_ids(r, alice["id"]) == []


def test_a_token_from_before_login_is_refused_after_it(r, alice):
    client = csrf_client()
    old_token = csrf_token(client.get("/accounts/login/"))
    client.post(
        "/accounts/login/",
        {"username": "alice", "password": PASSWORD, "csrfmiddlewaretoken": old_token},
    )
    assert is_logged_in_as(client, "alice")
    response = client.post("/statuses/", {"message": "stale", "csrfmiddlewaretoken": old_token})
    assert refused(response)
    assert timelines.profile_ids(r, alice["id"]) == []


def test_deleting_needs_a_token(r, alice_client, alice):
    sid = statuses.post_status(r, alice["id"], "keep me")
    assert refused(alice_client.post(f"/statuses/{sid}/delete/"))
    assert statuses.get_status(r, sid)["message"] == "keep me"
    assert users.get_user(r, alice["id"])["posts"] == 1


def test_deleting_works_with_the_token_from_the_page(r, alice_client, alice):
    sid = statuses.post_status(r, alice["id"], "delete me")
    token = csrf_token(alice_client.get(f"/@alice/{sid}/"))
    response = alice_client.post(f"/statuses/{sid}/delete/", {"csrfmiddlewaretoken": token})
    assert response.status_code == 302
    assert statuses.get_status(r, sid) is None


def test_following_needs_a_token(r, alice_client, alice, bob):
    assert refused(alice_client.post("/@bob/follow/"))
    assert not graph.is_following(r, alice["id"], bob["id"])
    assert users.get_user(r, bob["id"])["followers"] == 0


def test_following_works_with_the_token_from_the_page(r, alice_client, alice, bob):
    token = csrf_token(alice_client.get("/@bob/"))
    response = alice_client.post("/@bob/follow/", {"csrfmiddlewaretoken": token})
    assert response.status_code == 302
    assert graph.is_following(r, alice["id"], bob["id"])


def test_unfollowing_needs_a_token(r, alice_client, alice, bob):
    graph.follow(r, alice["id"], bob["id"])
    assert refused(alice_client.post("/@bob/unfollow/"))
    assert graph.is_following(r, alice["id"], bob["id"])
    assert users.get_user(r, bob["id"])["followers"] == 1


def test_logging_out_needs_a_token(alice_client):
    assert refused(alice_client.post("/accounts/logout/"))
    assert is_logged_in_as(alice_client, "alice")


def test_logging_out_works_with_the_token_from_the_page(alice_client):
    token = csrf_token(alice_client.get("/"))
    response = alice_client.post("/accounts/logout/", {"csrfmiddlewaretoken": token})
    assert response.status_code == 302
    assert not is_logged_in_as(alice_client, "alice")


def test_changing_the_password_needs_a_token(r, alice_client, alice):
    hash_before = users.get_password_hash(r, alice["id"])
    response = alice_client.post(
        "/accounts/password/",
        {
            "old_password": PASSWORD,
            "new_password1": "a forged new passphrase",
            "new_password2": "a forged new passphrase",
        },
    )
    assert refused(response)
    assert users.get_password_hash(r, alice["id"]) == hash_before
    assert is_logged_in_as(alice_client, "alice")


def test_logging_in_needs_a_token(alice):
    client = csrf_client()
    client.get("/accounts/login/")  # has the cookie, not the token
    response = client.post("/accounts/login/", {"username": "alice", "password": PASSWORD})
    assert refused(response)
    assert not is_logged_in_as(client, "alice")


def test_signing_up_needs_a_token(r):
    client = csrf_client()
    client.get("/accounts/signup/")
    response = client.post(
        "/accounts/signup/",
        {
            "username": "mallory",
            "name": "Mallory",
            "email": "mallory@example.org",
            "password1": PASSWORD,
            "password2": PASSWORD,
        },
    )
    assert refused(response)
    assert users.get_user_id(r, "mallory") is None
    assert not is_logged_in_as(client, "mallory")


def test_signing_up_works_with_the_token_from_the_page(r):
    client = csrf_client()
    token = csrf_token(client.get("/accounts/signup/"))
    response = client.post(
        "/accounts/signup/",
        {
            "username": "dinah",
            "name": "Dinah",
            "email": "dinah@example.org",
            "password1": PASSWORD,
            "password2": PASSWORD,
            "csrfmiddlewaretoken": token,
        },
    )
    assert response.status_code == 302
    assert users.get_user_id(r, "dinah") is not None
    assert is_logged_in_as(client, "dinah")


def test_a_page_with_a_form_sends_the_csrf_cookie_again_as_django_does(alice_client, settings):
    # Django renews the cookie's age with every page that shows a form.
    for _ in range(2):
        response = alice_client.get("/")
        assert response.status_code == 200 and "csrfmiddlewaretoken" in response.text
        assert settings.CSRF_COOKIE_NAME in response.cookies


def test_a_page_still_sends_a_new_cookie_when_the_browser_has_none(alice_client, settings):
    alice_client.get("/")
    del alice_client.cookies[settings.CSRF_COOKIE_NAME]
    response = alice_client.get("/")
    assert settings.CSRF_COOKIE_NAME in response.cookies
    token = csrf_token(response)
    posted = alice_client.post(
        "/statuses/", {"message": "still works", "csrfmiddlewaretoken": token}
    )
    assert posted.status_code == 302

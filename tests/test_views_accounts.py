"""Views of the accounts app: sign up, log in, log out, password change.

Every test runs the real views against real Redis (see conftest.py).
"""

import pytest
from django.test import Client

from socialsite.repository import keys, sessions, users
from tests.support.helpers import PASSWORD, log_in, make_user

NEW_PASSWORD = "a brand new passphrase 42"
LOGIN_ERROR = "That login name and password do not match an account."


def sign_up(client, username="dinah", name="Dinah Cat", password=PASSWORD, password2=None):
    return client.post(
        "/accounts/signup/",
        {
            "username": username,
            "name": name,
            "email": f"{username}@example.org",
            "password1": password,
            "password2": password if password2 is None else password2,
        },
    )


def logged_in_login(client):
    """The login the header's account menu names on the home page, or None if anonymous."""
    html = client.get("/").content.decode()
    if "Log out</button>" not in html:
        assert "Short posts from the people you follow" in html  # the landing page
        return None
    start = html.index('aria-label="Account menu of @') + len('aria-label="Account menu of @')
    return html[start : html.index('"', start)]


def session_key(client):
    return client.cookies["sessionid"].value


# --- sign up ------------------------------------------------------------------------


def test_signup_page_shows_the_form(client):
    response = client.get("/accounts/signup/")
    assert response.status_code == 200
    html = response.content.decode()
    for field in ("username", "name", "password1", "password2"):
        assert f'name="{field}"' in html


def test_it_signs_up_and_logs_in(client, r):
    response = sign_up(client)
    assert response.status_code == 302
    assert response["Location"] == "/"
    assert logged_in_login(client) == "dinah"
    user = users.get_user_by_login(r, "dinah")
    assert user["name"] == "Dinah Cat"
    assert (user["posts"], user["followers"], user["following"]) == (0, 0, 0)


def test_it_welcomes_a_new_user(client):
    response = sign_up(client)
    assert response.status_code == 302
    assert "Welcome, Dinah Cat! Your account is ready." in client.get("/").content.decode()


def test_it_does_not_store_the_password_in_clear(client, r):
    sign_up(client)
    password_hash = users.get_password_hash(r, users.get_user_id(r, "dinah"))
    assert password_hash.startswith("argon2$")
    assert PASSWORD not in password_hash


def test_it_redirects_a_logged_in_user_away_from_signup(client, alice):
    log_in(client, "alice")
    response = client.get("/accounts/signup/")
    assert response.status_code == 302
    assert response["Location"] == "/"


@pytest.mark.parametrize("login", ["a", "Z", "dinah_2", "_", "A" * 30, "x1_Y2_z3"])
def test_it_accepts_valid_logins(client, r, login):
    response = sign_up(client, username=login)
    assert response.status_code == 302
    assert users.get_user_by_login(r, login)["login"] == login


@pytest.mark.parametrize(
    "login",
    ["a" * 31, "bad-name", "bad name", "dot.name", "émile", "日本", "name!", "@dinah"],
)
def test_it_refuses_malformed_logins(client, r, login):
    response = sign_up(client, username=login)
    assert response.status_code == 400
    assert users.get_user_id(r, login) is None
    assert r.get(keys.USER_IDS) is None  # no user was even started


@pytest.mark.parametrize("login", ["accounts", "static", "tags", "api", "Admin", "API", "sTaTiC"])
def test_it_refuses_reserved_logins_in_any_case(client, r, login):
    response = sign_up(client, username=login)
    assert response.status_code == 400
    assert "That login name is reserved." in response.content.decode()
    assert users.get_user_id(r, login) is None


@pytest.mark.parametrize("login", ["alice", "ALICE", "Alice", "aLiCe"])
def test_it_refuses_a_taken_login_in_any_case(client, r, alice, login):
    response = sign_up(client, username=login, name="Another Alice")
    assert response.status_code == 400
    assert "That login name is taken." in response.content.decode()
    assert users.get_user_by_login(r, "alice")["name"] == "Alice Liddell"
    assert r.hlen(keys.LOGINS) == 1


def test_it_keeps_the_entered_fields_after_an_error(client, alice):
    response = sign_up(client, username="ALICE", name="Another Alice")
    html = response.content.decode()
    assert 'value="ALICE"' in html
    assert 'value="Another Alice"' in html


def test_it_never_echoes_the_password_back(client, alice):
    response = sign_up(client, username="alice")
    assert response.status_code == 400
    assert PASSWORD not in response.content.decode()


def test_it_accepts_a_display_name_of_50_characters(client, r):
    response = sign_up(client, name="N" * 50)
    assert response.status_code == 302
    assert users.get_user_by_login(r, "dinah")["name"] == "N" * 50


def test_it_refuses_a_display_name_of_51_characters(client, r):
    response = sign_up(client, name="N" * 51)
    assert response.status_code == 400
    assert "at most 50 characters" in response.content.decode()
    assert users.get_user_id(r, "dinah") is None


def test_it_escapes_html_in_the_display_name(client):
    sign_up(client, name="<b>Dinah</b>")
    html = client.get("/").content.decode()
    assert "&lt;b&gt;Dinah&lt;/b&gt;" in html
    assert "<b>Dinah</b>" not in html


def test_it_refuses_a_password_under_12_characters(client, r):
    response = sign_up(client, password="short pass1")  # 11 characters
    assert response.status_code == 400
    assert "too short" in response.content.decode()
    assert users.get_user_id(r, "dinah") is None


def test_it_accepts_a_password_of_12_characters(client, r):
    response = sign_up(client, password="twelve chars")
    assert response.status_code == 302
    assert users.get_user_id(r, "dinah") is not None


def test_it_accepts_128_characters_and_never_truncates(client):
    password = ("Tr0ub4dor&3-" * 11)[:128]
    assert len(password) == 128
    assert sign_up(client, password=password).status_code == 302

    truncated = Client().post("/accounts/login/", {"username": "dinah", "password": password[:127]})
    assert truncated.status_code == 400
    assert LOGIN_ERROR in truncated.content.decode()

    fresh = Client()
    log_in(fresh, "dinah", password)
    assert logged_in_login(fresh) == "dinah"


def test_it_refuses_a_password_of_129_characters(client, r):
    response = sign_up(client, password=("Tr0ub4dor&3-" * 11)[:129])
    assert response.status_code == 400
    assert "at most 128 characters" in response.content.decode()
    assert users.get_user_id(r, "dinah") is None


def test_it_accepts_a_unicode_password(client):
    password = "pässwörd-日本語-🙂-long"
    assert sign_up(client, password=password).status_code == 302
    fresh = Client()
    log_in(fresh, "dinah", password)
    assert logged_in_login(fresh) == "dinah"


def test_it_refuses_a_common_password(client, r):
    response = sign_up(client, password="password1234")
    assert response.status_code == 400
    assert "This password is too common." in response.content.decode()
    assert users.get_user_id(r, "dinah") is None


def test_it_refuses_an_all_digit_password(client, r):
    response = sign_up(client, password="83920174659201")
    assert response.status_code == 400
    assert "This password is entirely numeric." in response.content.decode()
    assert users.get_user_id(r, "dinah") is None


def test_it_refuses_a_password_too_close_to_the_login(client, r):
    response = sign_up(client, username="dinahcatherine", password="dinahcatherine1")
    assert response.status_code == 400
    assert "The password is too similar to the login name." in response.content.decode()
    assert users.get_user_id(r, "dinahcatherine") is None


def test_it_refuses_a_password_too_close_to_the_display_name(client, r):
    response = sign_up(client, name="Dinah Catherine Smith", password="Catherine Smith")
    assert response.status_code == 400
    assert "The password is too similar to the display name." in response.content.decode()
    assert users.get_user_id(r, "dinah") is None


def test_it_refuses_mismatching_passwords(client, r):
    response = sign_up(client, password2=PASSWORD + "!")
    assert response.status_code == 400
    assert "The two passwords differ." in response.content.decode()
    assert users.get_user_id(r, "dinah") is None


def test_it_rerenders_the_form_with_username_and_name_after_a_password_error(client):
    response = sign_up(client, username="dinah", name="Dinah Cat", password="short")
    assert response.status_code == 400
    html = response.content.decode()
    assert 'value="dinah"' in html
    assert 'value="Dinah Cat"' in html


# --- log in ---------------------------------------------------------------------------


def test_login_page_shows_the_form(client):
    response = client.get("/accounts/login/")
    assert response.status_code == 200
    html = response.content.decode()
    assert 'name="username"' in html and 'name="password"' in html


@pytest.mark.parametrize("login", ["alice", "ALICE", "Alice", "aLiCe"])
def test_it_logs_in_with_any_case_of_the_login(client, alice, login):
    log_in(client, login)
    assert logged_in_login(client) == "alice"


def test_it_welcomes_back(client, alice):
    log_in(client, "alice")
    assert "Welcome back, Alice Liddell." in client.get("/").content.decode()


def test_it_refuses_a_wrong_password(client, alice):
    response = client.post("/accounts/login/", {"username": "alice", "password": "not it"})
    assert response.status_code == 400
    assert LOGIN_ERROR in response.content.decode()
    assert logged_in_login(client) is None


def test_it_gives_the_same_error_for_an_unknown_login(client, alice):
    wrong_password = client.post("/accounts/login/", {"username": "alice", "password": "nope"})
    unknown = client.post("/accounts/login/", {"username": "nobody", "password": "nope"})
    assert wrong_password.status_code == unknown.status_code == 400

    def errors(response):
        html = response.content.decode()
        start = html.index('<div class="form-errors"')
        return html[start : html.index("</div>", start)]

    assert errors(wrong_password) == errors(unknown)
    assert LOGIN_ERROR in errors(unknown)


def test_it_keeps_the_username_after_a_failed_login(client, alice):
    response = client.post("/accounts/login/", {"username": "alice", "password": "nope"})
    html = response.content.decode()
    assert 'value="alice"' in html
    assert 'value="nope"' not in html


def test_it_changes_the_session_key_at_login(client, r, alice):
    session = client.session  # an anonymous session that already holds something
    session["theme"] = "dark"
    session.save()
    before = session_key(client)

    log_in(client, "alice")

    after = session_key(client)
    assert after != before
    assert not sessions.exists(r, before)
    assert client.session["theme"] == "dark"


def test_an_old_anonymous_session_key_is_not_logged_in(client, alice):
    session = client.session
    session["theme"] = "dark"
    session.save()
    before = session_key(client)
    log_in(client, "alice")

    attacker = Client()
    attacker.cookies["sessionid"] = before
    assert logged_in_login(attacker) is None


def test_it_rotates_the_csrf_token_at_login(client, alice):
    client.get("/accounts/login/")
    before = client.cookies["csrftoken"].value
    log_in(client, "alice")
    assert client.cookies["csrftoken"].value != before


@pytest.mark.parametrize("target", ["/@bob/", "/accounts/password/", "/?before=5"])
def test_it_follows_a_local_next(client, alice, bob, target):
    response = client.post(
        "/accounts/login/", {"username": "alice", "password": PASSWORD, "next": target}
    )
    assert response.status_code == 302
    assert response["Location"] == target


def test_it_follows_next_from_the_query_string(client, alice):
    response = client.post(
        "/accounts/login/?next=/@alice/", {"username": "alice", "password": PASSWORD}
    )
    assert response["Location"] == "/@alice/"


def test_it_carries_next_through_the_login_form(client):
    html = client.get("/accounts/login/?next=/@bob/").content.decode()
    assert '<input type="hidden" name="next" value="/@bob/">' in html


@pytest.mark.parametrize(
    "target",
    [
        "https://evil.example/",
        "//evil.example/",
        "///evil.example/",
        "http://evil.example/@alice/",
        "/\\evil.example/",
        "javascript:alert(1)",
    ],
)
def test_it_does_not_follow_a_foreign_next(client, alice, target):
    response = client.post(
        "/accounts/login/", {"username": "alice", "password": PASSWORD, "next": target}
    )
    assert response.status_code == 302
    assert response["Location"] == "/"


def test_it_does_not_put_a_foreign_next_in_the_form(client):
    html = client.get("/accounts/login/?next=https://evil.example/").content.decode()
    assert "evil.example" not in html


def test_it_redirects_a_logged_in_user_away_from_login(client, alice):
    log_in(client, "alice")
    response = client.get("/accounts/login/")
    assert response.status_code == 302
    assert response["Location"] == "/"


def test_it_redirects_a_logged_in_user_to_a_local_next(client, alice):
    log_in(client, "alice")
    response = client.get("/accounts/login/?next=/@alice/")
    assert response["Location"] == "/@alice/"


def test_it_refuses_a_login_with_an_overlong_password_like_any_wrong_one(client, alice):
    response = client.post("/accounts/login/", {"username": "alice", "password": "x" * 300})
    assert response.status_code == 400
    assert LOGIN_ERROR in response.content.decode()


# --- log out --------------------------------------------------------------------------


def test_logout_rejects_get(client, alice):
    log_in(client, "alice")
    response = client.get("/accounts/logout/")
    assert response.status_code == 405
    assert logged_in_login(client) == "alice"


def test_it_logs_out(client, alice):
    log_in(client, "alice")
    response = client.post("/accounts/logout/")
    assert response.status_code == 302
    assert response["Location"] == "/"
    html = client.get("/").content.decode()
    assert "You have logged out." in html
    assert "Short posts from the people you follow" in html
    assert 'href="/accounts/login/"' in html


def test_the_old_session_key_does_not_work_after_logout(client, r, alice):
    log_in(client, "alice")
    old_key = session_key(client)
    client.post("/accounts/logout/")

    assert not sessions.exists(r, old_key)
    replay = Client()
    replay.cookies["sessionid"] = old_key
    assert logged_in_login(replay) is None
    assert replay.post("/statuses/", {"message": "replayed"}).status_code == 302
    assert users.get_user(r, alice["id"])["posts"] == 0


def test_logout_of_an_anonymous_visitor_is_harmless(client):
    response = client.post("/accounts/logout/")
    assert response.status_code == 302
    assert logged_in_login(client) is None


# --- password change --------------------------------------------------------------------


def change_password(client, old=PASSWORD, new1=NEW_PASSWORD, new2=None):
    return client.post(
        "/accounts/password/",
        {"old_password": old, "new_password1": new1, "new_password2": new2 or new1},
    )


def test_password_change_requires_login(client):
    response = client.get("/accounts/password/")
    assert response.status_code == 302
    assert response["Location"] == "/accounts/login/?next=%2Faccounts%2Fpassword%2F"


def test_password_change_post_requires_login(client, r, alice):
    response = change_password(client)
    assert response.status_code == 302
    assert response["Location"].startswith("/accounts/login/")
    log_in(Client(), "alice", PASSWORD)  # unchanged


def test_password_change_page_shows_the_form(client, alice):
    log_in(client, "alice")
    html = client.get("/accounts/password/").content.decode()
    for field in ("old_password", "new_password1", "new_password2"):
        assert f'name="{field}"' in html


def test_it_refuses_a_wrong_old_password(client, r, alice):
    log_in(client, "alice")
    hash_before = users.get_password_hash(r, alice["id"])
    response = change_password(client, old="not my password")
    assert response.status_code == 400
    assert "Your current password was entered incorrectly." in response.content.decode()
    assert users.get_password_hash(r, alice["id"]) == hash_before
    log_in(Client(), "alice", PASSWORD)


def test_it_refuses_mismatching_new_passwords(client, r, alice):
    log_in(client, "alice")
    hash_before = users.get_password_hash(r, alice["id"])
    response = change_password(client, new2=NEW_PASSWORD + "!")
    assert response.status_code == 400
    assert "The two passwords differ." in response.content.decode()
    assert users.get_password_hash(r, alice["id"]) == hash_before


def test_it_refuses_a_weak_new_password(client, r, alice):
    log_in(client, "alice")
    hash_before = users.get_password_hash(r, alice["id"])
    response = change_password(client, new1="password1234")
    assert response.status_code == 400
    assert "This password is too common." in response.content.decode()
    assert users.get_password_hash(r, alice["id"]) == hash_before


def test_it_refuses_a_new_password_too_close_to_the_login(client, r, alice):
    carroll = make_user(r, "lewiscarroll", "Charles Dodgson")
    log_in(client, "lewiscarroll")
    hash_before = users.get_password_hash(r, carroll["id"])
    response = change_password(client, new1="lewiscarroll1")
    assert response.status_code == 400
    assert "The password is too similar to the login name." in response.content.decode()
    assert users.get_password_hash(r, carroll["id"]) == hash_before


def test_it_changes_the_password_and_keeps_this_session(client, r, alice):
    log_in(client, "alice")
    hash_before = users.get_password_hash(r, alice["id"])
    response = change_password(client)
    assert response.status_code == 302
    assert users.get_password_hash(r, alice["id"]) != hash_before
    html = client.get("/").content.decode()
    assert "Your password is changed." in html
    assert logged_in_login(client) == "alice"


def test_it_cycles_the_session_key_at_password_change(client, r, alice):
    log_in(client, "alice")
    before = session_key(client)
    change_password(client)
    assert session_key(client) != before
    assert not sessions.exists(r, before)


def test_a_password_change_logs_out_other_sessions(client, alice):
    other = Client()
    log_in(other, "alice")
    log_in(client, "alice")
    assert logged_in_login(other) == "alice"

    assert change_password(client).status_code == 302

    assert logged_in_login(other) is None
    assert logged_in_login(client) == "alice"


def test_a_password_change_leaves_other_users_logged_in(client, alice, bob):
    other = Client()
    log_in(other, "bob")
    log_in(client, "alice")
    change_password(client)
    assert logged_in_login(other) == "bob"


def test_the_new_password_works_and_the_old_one_does_not(client, alice):
    log_in(client, "alice")
    change_password(client)

    old = Client().post("/accounts/login/", {"username": "alice", "password": PASSWORD})
    assert old.status_code == 400
    assert LOGIN_ERROR in old.content.decode()

    fresh = Client()
    log_in(fresh, "alice", NEW_PASSWORD)
    assert logged_in_login(fresh) == "alice"


def test_login_upgrades_an_outdated_hash_and_the_session_stays_valid(client, r):
    from django.contrib.auth.hashers import Argon2PasswordHasher, identify_hasher

    # Stored with Django's own (costlier) Argon2 parameters; the site now uses others.
    old_hash = Argon2PasswordHasher().encode(PASSWORD, Argon2PasswordHasher().salt())
    uid = users.create_user(r, "dora", "Dora", old_hash)
    response = client.post("/accounts/login/", {"username": "dora", "password": PASSWORD})
    assert response.status_code == 302
    new_hash = users.get_password_hash(r, uid)
    assert new_hash != old_hash
    assert not identify_hasher(new_hash).must_update(new_hash)
    # The session's auth hash was made from the upgraded hash: still logged in.
    assert "@dora" in client.get("/").content.decode()

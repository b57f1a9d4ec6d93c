"""Device cookies (accounts/devices.py, docs/accounts.md): strangers who fail a login
name's log-ins from many addresses lock out everyone but the browsers that logged in to
that account before. Through the real views, with the throttles lowered.
"""

import json
from types import SimpleNamespace

import pytest
from django.core import signing
from django.test import Client

from accounts import devices as device_cookies
from socialsite.repository import devices, leaving
from tests.support.helpers import PASSWORD, log_in

ADDRESS = "203.0.113.7"
WRONG = "not the right password at all"
NEW_PASSWORD = "a brand new passphrase 42"


@pytest.fixture
def limits(settings):
    settings.THROTTLES = {
        **settings.THROTTLES,
        "login": (100, 300),
        "login_failures": (3, 3600),
        "device_failures": (2, 3600),
    }


def browser(address=ADDRESS):
    return Client(REMOTE_ADDR=address)


def try_login(client, login="alice", password=WRONG):
    return client.post("/accounts/login/", {"username": login, "password": password})


def lock_out(login="alice"):
    """Strangers fail ``login``'s log-ins from three addresses until its name is locked."""
    for i in range(3):
        assert try_login(browser(f"198.51.100.{i + 1}"), login).status_code == 400
    assert try_login(browser("198.51.100.99"), login, PASSWORD).status_code == 429


def owners_browser(login="alice"):
    """A browser that logged in to ``login`` and out again: it keeps its device cookie."""
    client = log_in(browser(), login)
    assert client.post("/accounts/logout/").status_code == 302
    assert device_cookies.COOKIE_NAME in client.cookies
    return client


def with_cookie(value, address=ADDRESS):
    client = browser(address)
    client.cookies[device_cookies.COOKIE_NAME] = value
    return client


def cookie_of(client):
    return client.cookies[device_cookies.COOKIE_NAME].value


def test_the_owners_browser_gets_in_after_a_lock_out_by_many_addresses(alice, limits):
    client = owners_browser()
    lock_out()
    response = try_login(client, password=PASSWORD)
    assert response.status_code == 302


def test_a_browser_without_the_cookie_stays_locked_out(alice, limits):
    owners_browser()
    lock_out()
    assert try_login(browser(), password=PASSWORD).status_code == 429


def test_the_cookie_is_given_at_sign_up_too(limits):
    client = browser()
    form = {
        "username": "dinah",
        "name": "Dinah",
        "email": "dinah@example.org",
        "password1": PASSWORD,
        "password2": PASSWORD,
    }
    assert client.post("/accounts/signup/", form).status_code == 302
    client.post("/accounts/logout/")
    lock_out("dinah")
    assert try_login(client, "dinah", PASSWORD).status_code == 302


def test_the_cookie_is_httponly_lax_for_the_login_page_and_lasts_a_session(alice, settings):
    settings.SESSION_COOKIE_SECURE = False
    cookie = log_in(browser(), "alice").cookies[device_cookies.COOKIE_NAME]
    assert cookie["httponly"] is True
    assert cookie["samesite"] == "Lax"
    assert cookie["path"] == "/accounts/login/"
    assert cookie["max-age"] == settings.SESSION_COOKIE_AGE
    assert not cookie["secure"]
    settings.SESSION_COOKIE_SECURE = True  # HTTPS=true
    assert log_in(browser(), "alice").cookies[device_cookies.COOKIE_NAME]["secure"] is True


def test_a_tampered_cookie_gives_nothing(alice, limits):
    value = cookie_of(owners_browser())
    lock_out()
    payload, _, signature = value.partition(":")
    tampered = payload + ":" + signature[:-2] + ("AA" if signature[-2:] != "AA" else "BB")
    assert try_login(with_cookie(tampered), password=PASSWORD).status_code == 429


def test_a_forged_cookie_gives_nothing(alice, limits, r):
    lock_out()
    claim = {
        "login": "alice",
        "uid": alice["id"],
        "nonce": "made-up",
        "generation": devices.generation(r, alice["id"]),
    }
    unsigned = signing.b64_encode(json.dumps(claim).encode()).decode()
    assert try_login(with_cookie(unsigned), password=PASSWORD).status_code == 429
    wrong_key = signing.TimestampSigner(key="not the site's key", salt="accounts.devices")
    forged = wrong_key.sign_object(claim)
    assert try_login(with_cookie(forged), password=PASSWORD).status_code == 429
    assert try_login(with_cookie("garbage:value:here"), password=PASSWORD).status_code == 429


def test_a_cookie_of_another_login_gives_nothing(alice, bob, limits):
    bobs_browser = owners_browser("bob")
    lock_out("alice")
    assert try_login(bobs_browser, "alice", PASSWORD).status_code == 429
    # ...and it is bob's: the name in another case is his.
    assert try_login(bobs_browser, "BOB", PASSWORD).status_code == 302


def test_a_cookie_older_than_a_session_gives_nothing(alice, limits, settings, monkeypatch):
    client = owners_browser()
    lock_out()
    later = signing.time.time() + settings.SESSION_COOKIE_AGE + 1
    monkeypatch.setattr(signing, "time", SimpleNamespace(time=lambda: later))
    assert try_login(client, password=PASSWORD).status_code == 429


def test_a_password_change_revokes_every_cookie_of_the_account(alice, limits):
    old_cookie = cookie_of(owners_browser())
    changer = log_in(browser(), "alice")
    form = {"old_password": PASSWORD, "new_password1": NEW_PASSWORD, "new_password2": NEW_PASSWORD}
    assert changer.post("/accounts/password/", form).status_code == 302
    changer.post("/accounts/logout/")
    lock_out()
    assert try_login(with_cookie(old_cookie), password=NEW_PASSWORD).status_code == 429
    # The browser that changed it got a new cookie, which lets it in.
    assert cookie_of(changer) != old_cookie
    assert try_login(changer, password=NEW_PASSWORD).status_code == 302


def test_a_deleted_accounts_cookie_gives_nothing(alice, r):
    value = cookie_of(owners_browser())
    assert leaving.delete_account(r, alice["id"]) is True
    request = SimpleNamespace(COOKIES={device_cookies.COOKIE_NAME: value})
    assert device_cookies.recognised(request, "alice") is None


def test_the_owners_browser_is_locked_out_after_its_own_failures(alice, limits):
    client = owners_browser()
    for _ in range(2):
        assert try_login(client).status_code == 400
    response = try_login(client, password=PASSWORD)
    assert response.status_code == 429
    assert "Too many failed log-ins from this browser: at most 2 in " in response.content.decode()
    # Its failures were its own: the name is not locked for other browsers.
    log_in(browser("192.0.2.1"), "alice")


def test_the_owners_browser_is_still_counted_by_its_address(alice, limits, settings):
    client = owners_browser()  # one attempt from ADDRESS
    settings.THROTTLES = {**settings.THROTTLES, "login": (1, 300)}
    response = try_login(client, password=PASSWORD)
    assert response.status_code == 429
    assert "Too many log-in attempts from your network" in response.content.decode()

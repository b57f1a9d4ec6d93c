"""Throttled actions through the real views (socialsite/throttling.py): the 429 answer,
its headers and page, forms shown again with what was sent, no password hashing for a
refused log-in, whom each throttle counts (addresses, IPv6 /64s, X-Forwarded-For behind
a proxy, login names, accounts) and loopback spared only without BEHIND_PROXY.

Each test lowers the limits it exercises (settings.THROTTLES), so few requests reach
them; the defaults are checked against the issue's numbers once. Windows move on
through the repository's clock, never by sleeping.
"""

import re

import pytest
from django.test import Client
from redis.connection import AbstractConnection

from socialsite import throttling
from socialsite.repository import graph, moderation, scripts, statuses, throttles, users
from socialsite_dev.hashers import QuickArgon2PasswordHasher
from tests.support.helpers import PASSWORD, log_in, make_user, post

ADDRESS = "203.0.113.7"
OTHER_ADDRESS = "198.51.100.20"
WRONG = "not the right password at all"
T0 = 1_700_000_000.0


@pytest.fixture
def limits(settings):
    """``limits(name=(limit, seconds), ...)`` sets those throttles for the test."""

    def set_limits(**changes):
        settings.THROTTLES = {**settings.THROTTLES, **changes}

    return set_limits


@pytest.fixture
def clock(monkeypatch):
    class Clock:
        now = T0

    monkeypatch.setattr(throttles, "clock", lambda: Clock.now)
    return Clock


@pytest.fixture
def hashings(monkeypatch):
    """How many times a password was hashed (made or checked) so far: ``hashings["n"]``."""
    counter = {"n": 0}
    encode, verify = QuickArgon2PasswordHasher.encode, QuickArgon2PasswordHasher.verify

    def counting_encode(self, *args, **kwargs):
        counter["n"] += 1
        return encode(self, *args, **kwargs)

    def counting_verify(self, *args, **kwargs):
        counter["n"] += 1
        return verify(self, *args, **kwargs)

    monkeypatch.setattr(QuickArgon2PasswordHasher, "encode", counting_encode)
    monkeypatch.setattr(QuickArgon2PasswordHasher, "verify", counting_verify)
    return counter


def browser(address=ADDRESS, **headers):
    """A test client whose requests come from ``address`` (REMOTE_ADDR)."""
    return Client(REMOTE_ADDR=address, **headers)


def try_login(client, login="alice", password=WRONG, **extra):
    return client.post("/accounts/login/", {"username": login, "password": password}, **extra)


def assert_throttled(response, what, limit):
    """A 429 with the rate-limit headers and a page saying what and when."""
    assert response.status_code == 429, response.content.decode()[:500]
    assert response["X-RateLimit-Limit"] == str(limit)
    assert response["X-RateLimit-Remaining"] == "0"
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z", response["X-RateLimit-Reset"])
    assert int(response["Retry-After"]) >= 1
    html = response.content.decode()
    assert f"Too many {what}: at most {limit} in " in html
    assert "Try again in " in html
    return html


# --- the settings --------------------------------------------------------------------


def test_the_default_limits_are_the_issues():
    from socialsite import settings as project_settings  # the module, not the test's

    minutes, hours = 60, 3600
    assert project_settings.THROTTLES == {
        "login": (25, 5 * minutes),
        "login_failures": (25, 1 * hours),
        "device_failures": (10, 1 * hours),  # instead, from a browser with a device cookie
        "signup": (5, 30 * minutes),
        "password_reset": (5, 30 * minutes),
        "password_reset_target": (5, 30 * minutes),
        "email": (5, 1 * hours),
        "password_change": (10, 10 * minutes),
        "statuses": (300, 3 * hours),
        "follows": (400, 24 * hours),
        "deletions": (30, 30 * minutes),
        "reports": (400, 24 * hours),
        "search": (300, 5 * minutes),
        "autocomplete": (300, 5 * minutes),
        "likes": (300, 5 * minutes),
        "reposts": (300, 3 * hours),  # the statuses' limit, counted apart
        "media": (30, 30 * minutes),  # each picture uploaded
        "api": (300, 5 * minutes),  # every client API request
        "messages": (600, 1 * hours),  # direct messages sent
        "conversations": (100, 24 * hours),  # conversations started
        "communities": (10, 24 * hours),  # groups made
        "joins": (100, 1 * hours),  # groups joined or asked to join
    }
    assert set(throttling.THROTTLE_RULES) == set(project_settings.THROTTLES)


@pytest.mark.parametrize(
    "value, expected",
    [("300/3h", (300, 10800)), ("25/300", (25, 300)), ("5/30m", (5, 1800)),
     ("1/1d", (1, 86400)), ("10/45s", (10, 45)), ("OFF", None), (" 7/2H ", (7, 7200))],
)  # fmt: skip
def test_a_throttle_is_set_from_the_environment(monkeypatch, value, expected):
    from socialsite.settings import env_throttle

    monkeypatch.setenv("THROTTLE_X", value)
    assert env_throttle("THROTTLE_X", (1, 1)) == expected


@pytest.mark.parametrize("value", ["300", "300/", "/3h", "0/3h", "3/0m", "x/3h", "3/3w", "-1/5"])
def test_a_malformed_throttle_stops_start_up(monkeypatch, value):
    from django.core.exceptions import ImproperlyConfigured

    from socialsite.settings import env_throttle

    monkeypatch.setenv("THROTTLE_X", value)
    with pytest.raises(ImproperlyConfigured, match="THROTTLE_X"):
        env_throttle("THROTTLE_X", (1, 1))


# --- log-in attempts per address --------------------------------------------------------


def test_login_attempts_from_one_address_are_throttled(alice, limits, hashings):
    limits(login=(3, 300))
    client = browser()
    for remaining in (2, 1, 0):
        response = try_login(client)
        assert response.status_code == 400
        assert response["X-RateLimit-Remaining"] == str(remaining)
    hashed = hashings["n"]
    response = try_login(client, password=PASSWORD)  # even the right password
    html = assert_throttled(response, "log-in attempts from your network", 3)
    assert hashings["n"] == hashed  # no password was hashed for it
    assert 'name="username"' in html and 'value="alice"' in html  # the form, filled in
    assert PASSWORD not in html
    assert "sessionid" not in response.cookies or not response.cookies["sessionid"].value
    # Another address is not affected.
    log_in(browser(OTHER_ADDRESS), "alice")


def test_a_login_refused_for_the_address_keeps_the_next_page(alice, limits):
    limits(login=(1, 300))
    client = browser()
    try_login(client)
    response = client.post(
        "/accounts/login/", {"username": "alice", "password": PASSWORD, "next": "/@alice/"}
    )
    assert response.status_code == 429
    assert 'name="next" value="/@alice/"' in response.content.decode()


def test_the_login_window_rolls_over(alice, limits, clock):
    limits(login=(2, 300))
    client = browser()
    try_login(client)
    clock.now += 100
    try_login(client)
    clock.now += 150
    response = try_login(client)
    assert response.status_code == 429
    assert response["Retry-After"] == "50"
    assert "Try again in 50 seconds, at " in response.content.decode()
    clock.now += 50
    assert try_login(client).status_code == 400  # a new window: tried, and wrong


def test_ipv6_addresses_count_per_64(alice, limits):
    limits(login=(2, 300))
    assert try_login(browser("2001:db8:1:2::1")).status_code == 400
    assert try_login(browser("2001:db8:1:2:ffff:ffff:ffff:ffff")).status_code == 400
    assert try_login(browser("2001:db8:1:2:abcd::9")).status_code == 429  # the same /64
    assert try_login(browser("2001:db8:1:3::1")).status_code == 400  # the next /64


def test_ipv4_mapped_ipv6_counts_as_the_ipv4_address(alice, limits):
    limits(login=(1, 300))
    assert try_login(browser("::ffff:203.0.113.7")).status_code == 400
    assert try_login(browser("203.0.113.7")).status_code == 429


@pytest.mark.parametrize("loopback", ["127.0.0.1", "127.8.9.10", "::1", "::ffff:127.0.0.1"])
def test_loopback_is_spared_without_a_proxy(alice, limits, loopback, r):
    limits(login=(1, 300), login_failures=(1, 3600))
    client = browser(loopback)
    for _ in range(3):
        assert try_login(client).status_code == 400
    log_in(client, "alice")
    assert not r.keys("throttle:*")  # nothing counted at all


def test_behind_a_proxy_the_last_forwarded_address_counts(alice, limits, settings):
    settings.BEHIND_PROXY = True
    limits(login=(2, 300))
    # The proxy connects from loopback and appends the client's address; what comes
    # before it is whatever the client sent, and changing it does not help.
    for spoofed in ("10.0.0.1", "192.0.2.99, 10.9.9.9"):
        forwarded = f"{spoofed}, {ADDRESS}"
        assert try_login(browser("127.0.0.1"), HTTP_X_FORWARDED_FOR=forwarded).status_code == 400
    response = try_login(browser("127.0.0.1"), HTTP_X_FORWARDED_FOR=f"1.1.1.1, {ADDRESS}")
    assert response.status_code == 429
    other = try_login(browser("127.0.0.1"), HTTP_X_FORWARDED_FOR=f"{ADDRESS}, {OTHER_ADDRESS}")
    assert other.status_code == 400


def test_behind_a_proxy_loopback_is_not_spared(alice, limits, settings):
    settings.BEHIND_PROXY = True
    limits(login=(2, 300))
    client = browser("127.0.0.1")  # no X-Forwarded-For: the proxy's own address counts
    assert try_login(client).status_code == 400
    assert try_login(client).status_code == 400
    assert try_login(client).status_code == 429
    forwarded = try_login(client, HTTP_X_FORWARDED_FOR="127.0.0.1")
    assert forwarded.status_code == 429  # the same address, named by the proxy
    assert try_login(client, HTTP_X_FORWARDED_FOR="::1").status_code == 400  # another


def test_without_a_proxy_x_forwarded_for_is_ignored(alice, limits):
    limits(login=(1, 300))
    try_login(browser(), HTTP_X_FORWARDED_FOR=OTHER_ADDRESS)
    response = try_login(browser(), HTTP_X_FORWARDED_FOR="192.0.2.1")
    assert response.status_code == 429


@pytest.mark.parametrize(
    "forwarded", ["", "not an address", "1.2.3.4,", ",,,", "[::1", "999.1.1.1", "a" * 5000,
                  "1.2.3.4:80", "[2001:db8::1]:443", "fe80::1%eth0", "\x00"],
)  # fmt: skip
def test_hostile_forwarded_headers_never_make_a_5xx(alice, limits, settings, forwarded):
    settings.BEHIND_PROXY = True
    limits(login=(1, 300))
    client = Client(REMOTE_ADDR=ADDRESS, raise_request_exception=False)
    for _ in range(2):
        response = try_login(client, HTTP_X_FORWARDED_FOR=forwarded)
        assert response.status_code in (400, 429)


def test_a_malformed_remote_address_counts_as_unknown(alice, limits):
    limits(login=(1, 300))
    assert try_login(browser("not-an-address")).status_code == 400
    assert try_login(browser("")).status_code == 429


# --- failed log-ins per login name -------------------------------------------------------


def test_failed_logins_for_one_name_are_throttled_across_addresses(alice, bob, limits, hashings):
    limits(login_failures=(3, 3600))
    for i in range(3):
        assert try_login(browser(f"198.51.100.{i + 1}")).status_code == 400
    hashed = hashings["n"]
    # A fourth address, and the right password: refused without hashing it.
    response = try_login(browser("192.0.2.44"), password=PASSWORD)
    html = assert_throttled(response, "failed log-ins for this login name", 3)
    assert hashings["n"] == hashed
    assert 'value="alice"' in html
    # The name in another case is the same account; another name is not affected.
    assert try_login(browser("192.0.2.45"), login="ALICE").status_code == 429
    log_in(browser("192.0.2.44"), "bob")


def test_successful_logins_are_not_failures(alice, limits, r):
    limits(login_failures=(2, 3600))
    for _ in range(3):
        log_in(browser(), "alice")
    assert try_login(browser()).status_code == 400
    log_in(browser(), "alice")
    assert try_login(browser()).status_code == 400
    assert try_login(browser(), password=PASSWORD).status_code == 429


def test_a_form_without_a_password_is_no_failed_login(alice, limits, hashings):
    limits(login_failures=(1, 3600))
    for _ in range(3):
        response = browser().post("/accounts/login/", {"username": "alice", "password": ""})
        assert response.status_code == 400
    assert hashings["n"] == 0
    log_in(browser(), "alice")


def test_unknown_names_are_counted_too(limits, hashings):
    limits(login_failures=(1, 3600))
    assert try_login(browser(), login="nobody").status_code == 400
    hashed = hashings["n"]
    assert try_login(browser(OTHER_ADDRESS), login="nobody").status_code == 429
    assert hashings["n"] == hashed


def test_failed_logins_are_forgotten_after_the_hour(alice, limits, clock):
    limits(login_failures=(1, 3600))
    try_login(browser())
    clock.now += 3599
    assert try_login(browser(), password=PASSWORD).status_code == 429
    clock.now += 1
    log_in(browser(), "alice")


# --- sign-ups ----------------------------------------------------------------------


def sign_up(client, username, name="Dinah Cat", password=PASSWORD):
    form = {
        "username": username,
        "name": name,
        "email": f"{username}@example.org",
        "password1": password,
        "password2": password,
    }
    return client.post("/accounts/signup/", form)


def test_signups_from_one_address_are_throttled(limits, hashings, r):
    limits(signup=(2, 1800))
    first = sign_up(browser(), "dinah")
    assert first.status_code == 302 and first["X-RateLimit-Remaining"] == "1"
    assert sign_up(browser(), "erin").status_code == 302
    hashed = hashings["n"]
    response = sign_up(browser(), "fanny", name="Fanny Price")
    html = assert_throttled(response, "sign-ups from your network", 2)
    assert hashings["n"] == hashed
    assert users.get_user_id(r, "fanny") is None
    assert 'value="fanny"' in html and 'value="Fanny Price"' in html
    assert sign_up(browser(OTHER_ADDRESS), "fanny").status_code == 302


def test_refused_signup_forms_are_not_counted(limits, r, alice):
    limits(signup=(1, 1800))
    for _ in range(3):
        assert sign_up(browser(), "alice").status_code == 400  # taken
        assert sign_up(browser(), "dinah", password="short").status_code == 400
    assert sign_up(browser(), "dinah").status_code == 302


def test_signups_from_loopback_are_spared(limits):
    limits(signup=(1, 1800))
    for login in ("dinah", "erin", "fanny"):
        assert sign_up(browser("127.0.0.1"), login).status_code == 302


# --- password changes ---------------------------------------------------------------


def change_password(client, old=PASSWORD, new="a brand new passphrase 42"):
    form = {"old_password": old, "new_password1": new, "new_password2": new}
    return client.post("/accounts/password/", form)


def test_password_changes_are_throttled_per_account(alice, limits, hashings):
    limits(password_change=(2, 600))
    client = log_in(browser(), "alice")
    elsewhere = log_in(browser(OTHER_ADDRESS), "alice")
    assert change_password(client, old=WRONG).status_code == 400
    assert change_password(elsewhere, old=WRONG).status_code == 400
    hashed = hashings["n"]
    response = change_password(client)
    assert_throttled(response, "attempts to change your password", 2)
    assert hashings["n"] == hashed  # neither password checked nor new one hashed
    assert 'name="old_password"' in response.content.decode()
    log_in(browser(), "alice")  # the password is still the old one


def test_password_changes_from_loopback_are_spared(alice, limits):
    limits(password_change=(1, 600))
    client = log_in(browser("127.0.0.1"), "alice")
    for _ in range(3):
        assert change_password(client, old=WRONG).status_code == 400


# --- posting -------------------------------------------------------------------------


@pytest.fixture
def alice_client(alice):
    return log_in(Client(), "alice")  # from 127.0.0.1: per-account throttles count it


def test_posting_is_throttled_per_account_from_any_address(r, alice, alice_client, limits):
    limits(statuses=(3, 3 * 3600))
    for remaining in (2, 1, 0):
        response = alice_client.post("/statuses/", {"message": "hello"})
        assert response.status_code == 302
        assert response["X-RateLimit-Remaining"] == str(remaining)
    form = {"message": "one too many <b>", "location": "48.8566,2.3522",
            "posting_key": "k" * 22}  # fmt: skip
    response = alice_client.post("/statuses/", form)
    html = assert_throttled(response, "statuses posted", 3)
    # The status form again, with what was sent (escaped) and the same posting key.
    assert "one too many &lt;b&gt;</textarea>" in html
    assert 'value="48.8566,2.3522"' in html
    assert 'name="posting_key" value="' + "k" * 22 + '"' in html
    assert users.get_user(r, alice["id"])["posts"] == 3
    # The same account from another address is refused too.
    elsewhere = log_in(browser(OTHER_ADDRESS), "alice")
    assert elsewhere.post("/statuses/", {"message": "hello"}).status_code == 429


def test_posting_again_after_the_window(r, alice, alice_client, limits, clock):
    limits(statuses=(1, 3 * 3600))
    assert alice_client.post("/statuses/", {"message": "one"}).status_code == 302
    clock.now += 3 * 3600 - 1
    refused = alice_client.post("/statuses/", {"message": "two"})
    assert refused.status_code == 429
    assert refused["Retry-After"] == "1"
    clock.now += 1
    assert alice_client.post("/statuses/", {"message": "two"}).status_code == 302
    assert users.get_user(r, alice["id"])["posts"] == 2


@pytest.fixture
def writes(monkeypatch):
    """Every write to a Redis socket (one a round trip, per server) as bytes, in order."""
    sent = []
    original = AbstractConnection.send_packed_command

    def recording(self, command, check_health=True):
        parts = command if isinstance(command, list | tuple) else [command]
        sent.append(b"".join(bytes(part) for part in parts))
        return original(self, command, check_health)

    monkeypatch.setattr(AbstractConnection, "send_packed_command", recording)
    return sent


def test_the_posting_throttle_is_counted_in_the_session_read(
    alice, alice_client, limits, writes, r, redis_backend
):
    alice_client.post("/statuses/", {"message": "warm up"})  # scripts loaded

    def post_and_count_writes():
        writes.clear()
        assert alice_client.post("/statuses/", {"message": "counted"}).status_code == 302
        return list(writes)

    limits(statuses=None)
    without = post_and_count_writes()
    limits(statuses=(300, 3 * 3600))
    with_throttle = post_and_count_writes()
    counter = throttles.account_counter(alice["id"], "statuses")
    assert throttles.uses(r, counter, 3 * 3600) == 2
    # The throttle's script goes out in the same write as the session's read.
    session_key = alice_client.cookies["sessionid"].value.encode()
    sha = scripts.throttle.sha.encode()
    # (Not redis-py's own look-up of the script's keys, on a cluster: see below.)
    counting = [w for w in with_throttle if sha in w and b"GETKEYS" not in w]
    assert len(counting) == 1
    assert session_key in counting[0] and b"GET" in counting[0]
    if not redis_backend.cluster:
        # On a cluster, redis-py's pipeline asks a node for an EVALSHA's keys
        # (COMMAND GETKEYS) before sending it, and which writes share a node varies
        # with the status id's slot: only one server gives comparable counts.
        assert len(with_throttle) == len(without)


def test_a_made_up_session_counts_nothing_against_its_user(r, alice, client, limits):
    limits(statuses=(1, 3 * 3600))
    client.cookies["sessionid"] = f"{alice['id']}.{'x' * 32}"
    response = client.post("/statuses/", {"message": "not alice"})
    assert response.status_code == 302 and response["Location"].startswith("/accounts/login/")
    assert not r.exists(throttles.account_counter(alice["id"], "statuses"))


def test_anonymous_posts_are_not_counted(r, client, limits):
    limits(statuses=(1, 3 * 3600))
    for _ in range(2):
        response = browser().post("/statuses/", {"message": "hi"})
        assert response.status_code == 302 and "/accounts/login/" in response["Location"]
    assert not r.keys("throttle:*")


def test_a_throttled_post_can_be_sent_again_from_its_page(r, alice, alice_client, limits, clock):
    limits(statuses=(1, 3600))
    alice_client.post("/statuses/", {"message": "first"})
    page = alice_client.post("/statuses/", {"message": "second"}).content.decode()
    key = re.search(r'name="posting_key" value="([A-Za-z0-9_-]{22})"', page).group(1)
    clock.now += 3600
    form = {"message": "second", "posting_key": key}
    for _ in range(2):  # sent twice: posted once
        alice_client.post("/statuses/", form)
        clock.now += 3600
    assert [s["message"] for s in statuses.get_statuses(r, range(1, 10))] == ["first", "second"]


# --- follows and deletions --------------------------------------------------------------


def test_follows_are_throttled(r, alice, alice_client, limits):
    others = [make_user(r, f"user{i}") for i in range(3)]
    limits(follows=(2, 24 * 3600))
    for other in others[:2]:
        assert alice_client.post(f"/@{other['login']}/follow/").status_code == 302
    response = alice_client.post("/@user2/follow/")
    assert_throttled(response, "follows", 2)
    assert not graph.is_following(r, alice["id"], others[2]["id"])
    # Unfollowing is not throttled.
    assert alice_client.post("/@user0/unfollow/").status_code == 302
    assert not graph.is_following(r, alice["id"], others[0]["id"])


def test_deletions_are_throttled(r, alice, alice_client, limits):
    sids = [post(r, alice, f"status {i}") for i in range(3)]
    limits(deletions=(2, 30 * 60))
    for sid in sids[:2]:
        assert alice_client.post(f"/statuses/{sid}/delete/").status_code == 302
    response = alice_client.post(f"/statuses/{sids[2]}/delete/")
    assert_throttled(response, "deletions", 2)
    assert statuses.get_status(r, sids[2]) is not None


def test_a_throttle_set_off_counts_nothing(r, alice, alice_client, limits):
    limits(statuses=None)
    for _ in range(3):
        response = alice_client.post("/statuses/", {"message": "free"})
        assert response.status_code == 302
        assert "X-RateLimit-Limit" not in response
    assert not r.keys("throttle:*")


def test_pages_that_are_not_throttled_carry_no_rate_limit_headers(alice, alice_client):
    for path in ("/", "/@alice/", "/accounts/password/"):
        response = alice_client.get(path)
        assert response.status_code == 200
        assert "X-RateLimit-Limit" not in response


# --- the decorator, for throttles whose views other features add ----------------------


@pytest.mark.urls("tests.support.throttled_urls")
def test_a_view_throttled_in_one_line_counts_accounts(r, alice, alice_client, limits):
    limits(search=(2, 300))
    for remaining in (1, 0):
        response = alice_client.get("/_test/search/?q=redis")
        assert response.status_code == 200
        assert response["X-RateLimit-Remaining"] == str(remaining)
    html = assert_throttled(alice_client.get("/_test/search/?q=redis"), "searches", 2)
    assert "Back to the home page" in html
    assert throttles.uses(r, throttles.account_counter(alice["id"], "search"), 300) == 2
    # Only the methods named are counted.
    assert alice_client.post("/_test/search/").status_code == 200


@pytest.mark.urls("tests.support.throttled_urls")
def test_a_view_throttled_in_one_line_counts_anonymous_visitors_by_address(r, limits):
    limits(search=(1, 300))
    assert browser().get("/_test/search/").status_code == 200
    assert browser().get("/_test/search/").status_code == 429
    assert browser(OTHER_ADDRESS).get("/_test/search/").status_code == 200
    for _ in range(2):  # loopback: spared
        assert browser("127.0.0.1").get("/_test/search/").status_code == 200


def test_reports_are_throttled_and_the_form_keeps_what_was_typed(r, alice, bob, limits, clock):
    limits(reports=(2, 3600))
    sid = post(r, alice, "spam spam spam")
    client = log_in(browser(), "bob")
    for _ in range(2):
        sent = client.post("/@alice/report/", {"reason": "spam", "comment": "watches"})
        assert sent.status_code == 302
    refused = client.post(
        "/@alice/report/", {"reason": "abuse", "comment": "still selling", "status": [sid]}
    )
    html = assert_throttled(refused, "reports", 2)
    assert "still selling" in html
    assert re.search(rf'value="{sid}"[^>]*checked|checked[^>]*value="{sid}"', html)
    assert len(moderation.open_reports_page(r).items) == 2
    clock.now += 3601
    assert client.post("/@alice/report/", {"reason": "abuse"}).status_code == 302

"""No input makes a 5xx: every form field, query parameter, path argument and header
the site reads, given hostile values, logged in and not.

Each value of VALUES goes once into each place (deterministic), then a seeded random
mix of several places at once. CSRF checks are off here (Django's test client), so the
requests reach the views; tests/test_csrf.py covers the checks themselves.
"""

import itertools
import random
from urllib.parse import quote, urlencode

import pytest
from django.test import Client

from socialsite.repository import statuses
from tests.support.helpers import log_in

VALUES = [
    "", " ", "x", "-1", "0", "1", "profile", "home", "login", "99999999999999999999999",
    "1e9", "²", "٣", "//evil.example", "/\\evil.example", "http://evil.example/",
    "javascript:alert(1)", "/ok/path", "/\r\nSet-Cookie: a=b", "/%0d%0aX: y", "\x00",
    "\x1b[31m", "é", "🙂", "<script>alert(1)</script>", "' OR 1=1 --", "../../etc/passwd",
    "a" * 5000, "%", "%zz", "@", "@alice", "#tag", "1,2", "91,181", "-90.0,-180.0",
    "nan,nan", "inf,0", "1,2,3", " 51.5 , -0.1 ",
]  # fmt: skip

# (method, path template, fields the view reads). {login} and {sid} are filled with a
# real user and status, and also with hostile values.
ENDPOINTS = [
    ("GET", "/", ["before"]),
    ("GET", "/@{login}/", ["before"]),
    ("GET", "/@{login}/followers/", ["before"]),
    ("GET", "/@{login}/following/", ["before"]),
    ("GET", "/@{login}/{sid}/", ["after"]),
    ("POST", "/statuses/", ["message", "location", "posting_key", "next"]),
    ("POST", "/statuses/", ["message", "in_reply_to", "posting_key", "next"]),
    ("GET", "/notifications/", ["before", "type"]),
    ("POST", "/statuses/{sid}/delete/", ["next"]),
    ("POST", "/@{login}/follow/", ["next"]),
    ("POST", "/@{login}/unfollow/", ["next"]),
    ("GET", "/accounts/login/", ["next"]),
    ("POST", "/accounts/login/", ["username", "password", "next"]),
    ("GET", "/accounts/signup/", []),
    ("POST", "/accounts/signup/", ["username", "name", "email", "password1", "password2"]),
    ("GET", "/accounts/password/", []),
    ("POST", "/accounts/password/", ["old_password", "new_password1", "new_password2"]),
    ("POST", "/accounts/logout/", ["next"]),
    ("GET", "/healthz", []),
    ("GET", "/tags/{login}/", ["before"]),  # {login}: any word of a path, here a tag
    ("GET", "/readyz", []),
    ("POST", "/@{login}/block/", ["next"]),
    ("POST", "/@{login}/unblock/", ["next"]),
    ("POST", "/@{login}/mute/", ["duration", "next"]),
    ("POST", "/@{login}/unmute/", ["next"]),
    ("GET", "/settings/", []),
    ("POST", "/settings/", ["private"]),
    ("GET", "/settings/blocks/", ["before"]),
    ("GET", "/settings/mutes/", ["before"]),
    ("GET", "/settings/requests/", ["before"]),
    ("POST", "/settings/requests/{login}/approve/", ["next"]),
    ("POST", "/settings/requests/{login}/reject/", ["next"]),
    ("GET", "/@{login}/report/", ["status"]),
    ("POST", "/@{login}/report/", ["reason", "comment", "status"]),
    ("GET", "/moderation/", ["before"]),
    ("GET", "/moderation/log/", ["before"]),
    ("POST", "/moderation/reports/{sid}/", ["action", "status", "reason"]),
    ("POST", "/moderation/accounts/{login}/suspend/", ["reason"]),
    ("POST", "/moderation/accounts/{login}/unsuspend/", ["reason"]),
    ("GET", "/settings/delete/", []),
    ("POST", "/settings/delete/", ["password"]),
    ("GET", "/settings/export/", []),
    ("GET", "/settings/email/", []),
    ("POST", "/settings/email/", ["email", "password", "resend"]),
    ("POST", "/accounts/password/reset/", ["email"]),
    ("GET", "/accounts/verify/{login}/", []),
    ("POST", "/accounts/verify/{login}/", []),
    ("GET", "/accounts/reset/{login}/{login}/", []),
    ("POST", "/accounts/reset/{login}/{login}/", ["new_password1", "new_password2"]),
    ("GET", "/explore/", []),
    ("GET", "/explore/people/", []),
    # Named lists ({sid}: any number in the path, here a list id).
    ("GET", "/lists/", []),
    ("POST", "/lists/", ["name"]),
    ("GET", "/lists/{sid}/", ["before"]),
    ("GET", "/lists/{sid}/members/", ["before"]),
    ("POST", "/lists/{sid}/rename/", ["name"]),
    ("POST", "/lists/{sid}/delete/", []),
    ("POST", "/lists/{sid}/add/", ["login", "back"]),
    ("POST", "/lists/{sid}/remove/", ["login", "back"]),
    ("POST", "/statuses/{sid}/like/", ["next"]),
    ("POST", "/statuses/{sid}/unlike/", ["next"]),
    ("GET", "/@{login}/{sid}/likes/", ["before"]),
    ("GET", "/@{login}/likes/", ["before"]),
    ("GET", "/search/", ["q", "page"]),
    ("GET", "/search/complete.json", ["q"]),
    ("POST", "/statuses/{sid}/repost/", ["next"]),
    ("POST", "/statuses/{sid}/unrepost/", ["next"]),
    ("GET", "/@{login}/{sid}/reposts/", ["before"]),
]

HEADERS = {
    "HTTP_HOST": ["localhost", "evil.example", "localhost:99999", "[::1", "a" * 300],
    "HTTP_COOKIE": ["sessionid=garbage", "sessionid=1.abc", "csrftoken=\x00", "a=b; ; =;"],
    "HTTP_X_FORWARDED_PROTO": ["https", "gopher", ""],
    "HTTP_X_FORWARDED_FOR": ["1.2.3.4", "not an address", "::1, 10.0.0.1", ""],
    "HTTP_REFERER": ["http://evil.example/", "\x00", ""],
    "HTTP_ACCEPT": ["text/event-stream", "*/*;q=x", ""],
    "CONTENT_TYPE": ["text/plain", "multipart/form-data", "application/json"],
    "HTTP_IF_NONE_MATCH": ["*", '"x"'],
    # The client's address, as the throttles read it (socialsite/throttling.py).
    "REMOTE_ADDR": ["203.0.113.7", "2001:db8::1", "::ffff:10.0.0.1", "not an address", ""],
}


def path_for(template, login, sid):
    return template.format(login=quote(login, safe="@"), sid=quote(str(sid), safe=""))


def send(browser, method, path, fields, headers=None):
    headers = headers or {}
    if method == "GET":
        query = urlencode(fields) if fields else ""
        return browser.get(path + ("?" + query if query else ""), **headers)
    return browser.post(path, fields, **headers)


@pytest.fixture
def visitors(r, alice, bob):
    """An anonymous browser and one logged in as alice; a status of bob's exists."""
    sid = statuses.post_status(r, bob["id"], "hello")
    anonymous = Client(raise_request_exception=False)
    logged_in = log_in(Client(raise_request_exception=False), "alice")
    return {"anonymous": anonymous, "alice": logged_in}, sid


def assert_no_5xx(failures, total):
    assert not failures, f"{len(failures)} of {total} requests answered 5xx: {failures[:10]}"


def test_every_field_and_path_argument_with_every_value(visitors):
    browsers, sid = visitors
    failures, total = [], 0
    for (method, template, fields), (who, browser) in itertools.product(
        ENDPOINTS, browsers.items()
    ):
        places = [("path:login", None), ("path:sid", None)] + [(f, None) for f in fields]
        for (place, _), value in itertools.product(places, VALUES):
            if place == "path:login" and "{login}" not in template:
                continue
            if place == "path:sid" and "{sid}" not in template:
                continue
            login = value if place == "path:login" else "bob"
            status_id = value if place == "path:sid" else sid
            data = {field: value for field in fields if field == place}
            response = send(browser, method, path_for(template, login, status_id), data)
            total += 1
            if response.status_code >= 500:
                failures.append((who, method, template, place, value[:40], response.status_code))
    assert_no_5xx(failures, total)


def test_every_header_the_site_reads_with_hostile_values(visitors):
    browsers, sid = visitors
    failures, total = [], 0
    for (method, template, fields), (who, browser) in itertools.product(
        ENDPOINTS, browsers.items()
    ):
        for header, values in HEADERS.items():
            for value in values:
                path = path_for(template, "bob", sid)
                response = send(browser, method, path, dict.fromkeys(fields, "x"), {header: value})
                total += 1
                if response.status_code >= 500:
                    failures.append((who, method, template, header, value[:40]))
    assert_no_5xx(failures, total)


def test_random_mixes_of_hostile_values(visitors):
    browsers, sid = visitors
    rng = random.Random(20261124)
    failures = []
    for _ in range(600):
        method, template, fields = rng.choice(ENDPOINTS)
        who = rng.choice(list(browsers))
        login = rng.choice(["bob", "alice", *VALUES])
        status_id = rng.choice([sid, *VALUES])
        data = {field: rng.choice(VALUES) for field in fields if rng.random() < 0.8}
        header = rng.choice(list(HEADERS))
        headers = {header: rng.choice(HEADERS[header])} if rng.random() < 0.5 else {}
        response = send(browsers[who], method, path_for(template, login, status_id), data, headers)
        if response.status_code >= 500:
            failures.append((who, method, template, login[:20], data, headers))
    assert_no_5xx(failures, 600)

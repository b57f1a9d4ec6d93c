"""No input makes a 5xx: every form field, query parameter, path argument and header
the site reads, given hostile values, logged in and not.

Each value of VALUES goes once into each place (deterministic), then a seeded random
mix of several places at once. CSRF checks are off here (Django's test client), so the
requests reach the views; tests/test_csrf.py covers the checks themselves.
"""

import itertools
import json
import random
from urllib.parse import quote, urlencode

import pytest
from django.test import Client
from django.urls import reverse

from api.auth import SCOPES
from socialsite.repository import communities, direct, graph, lists, oauth, statuses
from socialsite.repository.ids import MAX_ID
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
    # Bookmarks.
    ("POST", "/statuses/{sid}/bookmark/", ["next"]),
    ("POST", "/statuses/{sid}/unbookmark/", ["next"]),
    ("GET", "/bookmarks/", ["before"]),
    ("POST", "/statuses/{sid}/pin/", ["next"]),
    ("POST", "/statuses/{sid}/unpin/", ["next"]),
    ("POST", "/tags/{login}/follow/", ["next"]),
    ("POST", "/tags/{login}/unfollow/", ["next"]),
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


# --- the client API ---------------------------------------------------------------------
# Every route of api/urls.py (test_every_api_route_is_fuzzed keeps the table whole): the
# methods it answers and the parameters it reads. Paging routes read PAGING too.

PAGING = ["max_id", "since_id", "min_id", "limit"]
FILTER_FIELDS = [
    "title",
    "context[]",
    "filter_action",
    "expires_in",
    "keywords_attributes[][keyword]",
    "keywords_attributes[][whole_word]",
]
API_ROUTES = {
    "verify_credentials": (["GET"], []),
    "create_app": (["POST"], ["client_name", "redirect_uris", "scopes", "website"]),
    "verify_app": (["GET"], []),
    "update_credentials": (["PATCH"], ["display_name", "note", "locked", "discoverable",
                                       "fields_attributes", "source[privacy]"]),
    "account_lookup": (["GET"], ["acct"]),
    "relationships": (["GET"], ["id[]", "id"]),
    "account_search": (["GET"], ["q", "limit", "offset", "resolve", "following"]),
    "account": (["GET"], []),
    "account_statuses": (["GET"], [*PAGING, "exclude_replies", "exclude_reblogs",
                                   "only_media", "pinned", "tagged"]),
    "followers": (["GET"], PAGING),
    "following": (["GET"], PAGING),
    "follow": (["POST"], ["reblogs", "notify"]),
    "unfollow": (["POST"], []),
    "instance_v1": (["GET"], []),
    "instance_v2": (["GET"], []),
    "statuses": (["POST"], ["status", "in_reply_to_id", "sensitive", "spoiler_text",
                            "visibility", "media_ids[]", "poll[options][]", "language",
                            "group"]),
    "status": (["GET", "PUT", "DELETE"], ["status", "spoiler_text", "sensitive", "media_ids[]",
                                          "media_attributes[][description]", "poll"]),
    "status_context": (["GET"], []),
    "status_source": (["GET"], []),
    "status_history": (["GET"], []),
    "favourite": (["POST"], []),
    "unfavourite": (["POST"], []),
    "reblog": (["POST"], ["visibility"]),
    "unreblog": (["POST"], []),
    "favourited_by": (["GET"], PAGING),
    "reblogged_by": (["GET"], PAGING),
    "timeline_home": (["GET"], [*PAGING, "local", "only_media"]),
    "timeline_public": (["GET"], [*PAGING, "local", "remote", "only_media"]),
    "timeline_tag": (["GET"], [*PAGING, "any[]", "all[]", "none[]"]),
    "timeline_list": (["GET"], PAGING),
    "timeline_group": (["GET"], PAGING),  # groups
    "timeline_top": (["GET"], PAGING),
    # Grouped notifications (api/notification_groups.py).
    "notification_groups": (["GET"], [*PAGING, "types[]", "exclude_types[]", "grouped_types[]",
                                      "account_id", "expand_accounts"]),
    "notification_unread_count": (["GET"], ["limit", "types[]", "exclude_types[]",
                                            "grouped_types[]", "account_id"]),
    "notification_group": (["GET"], ["expand_accounts"]),
    "notification_group_accounts": (["GET"], []),
    "notification_group_dismiss": (["POST"], []),
    # What apps ask for as they start (api/startup.py), and any other path.
    "preferences": (["GET"], []),
    "custom_emojis": (["GET"], []),
    "announcements": (["GET"], ["with_dismissed"]),
    "featured_tags": (["GET"], []),
    "trends": (["GET"], ["limit", "offset"]),
    "trend_tags": (["GET"], ["limit", "offset"]),
    "trend_statuses": (["GET"], ["limit", "offset"]),
    "trend_links": (["GET"], ["limit", "offset"]),
    "api_not_found": (["GET", "POST"], []),
    "notifications": (["GET"], [*PAGING, "types[]", "exclude_types[]", "account_id"]),
    "notifications_clear": (["POST"], []),
    "notification": (["GET"], []),
    "notification_dismiss": (["POST"], []),
    "search": (["GET"], ["q", "type", "limit", "offset", "resolve", "following", "account_id"]),
    "markers": (["GET", "POST"], ["timeline[]", "home[last_read_id]",
                                  "notifications[last_read_id]"]),
    "block": (["POST"], []),
    "unblock": (["POST"], []),
    "mute": (["POST"], ["notifications", "duration"]),
    "unmute": (["POST"], []),
    "blocks": (["GET"], PAGING),
    "mutes": (["GET"], PAGING),
    "follow_requests": (["GET"], PAGING),
    "follow_request_authorize": (["POST"], []),
    "follow_request_reject": (["POST"], []),
    "reports": (["POST"], ["account_id", "status_ids[]", "comment", "category", "forward",
                           "rule_ids[]"]),
    "favourites": (["GET"], PAGING),
    # Polls (api/polls.py) and keyword filters (api/filters.py).
    "poll": (["GET"], []),
    "poll_votes": (["POST"], ["choices[]"]),
    "filters": (["GET", "POST"], FILTER_FIELDS),
    "filter": (["GET", "PUT", "DELETE"], FILTER_FIELDS),
    "filter_keywords": (["GET", "POST"], ["keyword", "whole_word"]),
    "filter_keyword": (["GET", "DELETE"], []),
    "filters_v1": (["GET"], []),
    "bookmark": (["POST"], []),
    "unbookmark": (["POST"], []),
    "bookmarks": (["GET"], PAGING),
    "pin": (["POST"], []),
    "unpin": (["POST"], []),
    "tag_api": (["GET"], []),
    "tag_follow": (["POST"], []),
    "tag_unfollow": (["POST"], []),
    "followed_tags": (["GET"], ["max_id", "limit"]),
    "lists": (["GET", "POST"], ["title", "replies_policy", "exclusive"]),
    "list": (["GET", "PUT", "DELETE"], ["title", "replies_policy"]),
    "list_accounts": (["GET", "POST", "DELETE"], [*PAGING, "account_ids[]"]),
    "media_upload": (["POST"], ["file", "description", "focus"]),
    "media_upload_v1": (["POST"], ["file", "description", "focus"]),
    "media": (["GET", "PUT"], ["description", "focus"]),
    "conversations": (["GET"], PAGING),
    "conversation": (["DELETE"], []),
    "conversation_read": (["POST"], []),
    "oauth_authorize": (["GET", "POST"], ["response_type", "client_id", "redirect_uri",
                                          "scope", "state", "code_challenge",
                                          "code_challenge_method", "request"]),
    "oauth_token": (["POST"], ["grant_type", "code", "client_id", "client_secret",
                               "redirect_uri", "code_verifier", "scope"]),
    "oauth_revoke": (["POST"], ["token", "client_id", "client_secret"]),
    "oauth_server_metadata": (["GET"], []),
    "nodeinfo_links": (["GET"], []),
    "nodeinfo": (["GET"], []),
    "settings_apps": (["GET"], []),
    "revoke_app": (["POST"], []),
}  # fmt: skip

# Values for the API's parameters: ids at and past their range, numbers written every
# way, JSON words, control characters, long and odd text.
API_VALUES = [
    "", "x", "-1", "0", "1", str(MAX_ID + 1), "9223372036854775807", "9" * 5000, "1e18", "²",
    "\x00", "é🙂", "a" * 3000, "true", "[]", "<script>alert(1)</script>", "direct",
]  # fmt: skip
# A path argument's hostile values, written as they would be in a URL.
PATH_VALUES = ["0", "-1", "9" * 30, str(MAX_ID + 1), "%ED%A0%80", "1.5", "%00", "a" * 300,
               "1e3", "%D9%A3", "..", "%2F"]  # fmt: skip
# A JSON body's field with a value of every kind but the one expected.
JSON_VALUES = ["\ud800", [1, 2], ["\udfff"], {"a": 1}, MAX_ID + 1, -1, 1.5, None, True,
               "x" * 3000]  # fmt: skip
# Whole bodies that are not what an endpoint reads.
RAW_BODIES = [
    ("application/json", b'{"a":' * 3000 + b"1" + b"}" * 3000),
    ("application/json", b"[" * 100_000),
    ("application/json", b"[1, 2]"),
    ("application/json", b'{"\\ud800": "\\udfff"}'),
    ("application/json", b"\xff\xfe{}"),
    ("application/json", b'{"a": 1'),
    ("application/json; charset=latin-1", '{"status": "\xe9"}'),  # the client encodes it
    ("application/x-www-form-urlencoded", b"status=%ED%A0%80&title=%ED%A0%80&q=%00"),
    ("multipart/form-data", b"--x\r\n"),
    ("multipart/form-data; boundary=x", b"--x\r\nContent-Disposition: form-data\r\n\r\n"),
    ("text/plain", b"status=hello"),
]  # fmt: skip


def api_routes():
    """{route name: its path arguments' names} of every route of api/urls.py."""
    from api import urls

    def walk(patterns):
        for pattern in patterns:
            if hasattr(pattern, "url_patterns"):
                yield from walk(pattern.url_patterns)
            else:
                yield pattern.name, list(getattr(pattern.pattern, "converters", {}))

    return dict(walk(urls.urlpatterns))


API_PATH_ARGUMENTS = api_routes()


def test_every_api_route_is_fuzzed():
    assert set(API_PATH_ARGUMENTS) == set(API_ROUTES)


@pytest.fixture
def api_world(r, alice, bob, settings):
    """alice's token with every scope, and a real record for each path argument: bob,
    his status, alice's list, a conversation of theirs."""
    settings.THROTTLES = {name: (10**9, 1) for name in settings.THROTTLES}
    client_id, _ = oauth.create_app(r, "Fuzz", ["urn:ietf:wg:oauth:2.0:oob"], list(SCOPES))
    token = oauth.issue_token(r, client_id, list(SCOPES), uid=alice["id"])
    graph.follow(r, bob["id"], alice["id"])
    graph.follow(r, alice["id"], bob["id"])
    communities.create(r, alice["id"], "cats", "Cats", "", "public")
    real = {
        "account_id": str(bob["id"]),
        "status_id": str(statuses.post_status(r, bob["id"], "hello #tag")),
        "list_id": str(lists.create_list(r, alice["id"], "friends")[1]),
        "conversation_id": str(direct.start(r, alice["id"], [bob], "hi", "k").cid),
        "notification_id": "1",
        "media_id": "x",
        "tag": "tag",
        "client_id": client_id,
        "slug": "cats",  # groups: a public group of alice's, made above
        "group_key": "follow-0",  # a grouped notification's key (api/notification_groups.py)
        "filter_id": "1",  # keyword filters: alice has none, so a 404
        "keyword_id": "1",
    }
    real["poll_id"] = real["status_id"]  # a poll is named by its status (it has none)
    client = Client(raise_request_exception=False, HTTP_AUTHORIZATION=f"Bearer {token}")
    return client, real


def api_path(name, real, hostile=None):
    """Route ``name``'s path: its argument real, or ``hostile`` (raw URL text)."""
    arguments = API_PATH_ARGUMENTS[name]
    path = reverse(f"api:{name}", kwargs=dict.fromkeys(arguments, "ARG"))
    for argument in arguments:
        value = hostile if hostile is not None else quote(real[argument], safe="")
        path = path.replace("ARG", value, 1)
    return path


def api_send(client, method, path, data=None, raw=None, content_type=None):
    send = getattr(client, method.lower())
    if raw is not None:
        return send(path, raw, content_type=content_type)
    if method == "GET":
        return client.get(path, data or {})
    if method == "POST":
        return client.post(path, data or {})
    return send(path, urlencode(data or {}, doseq=True),
                content_type="application/x-www-form-urlencoded")  # fmt: skip


def collect(failures, response, *what):
    if response.status_code >= 500:
        failures.append((*what, response.status_code))


def test_every_api_parameter_with_every_value(api_world):
    client, real = api_world
    failures, total = [], 0
    for name, (methods, fields) in API_ROUTES.items():
        path = api_path(name, real)
        for method, field, value in itertools.product(methods, fields, API_VALUES):
            collect(failures, api_send(client, method, path, {field: value}),
                    name, method, field, value[:40])  # fmt: skip
            total += 1
    assert total >= 2000
    assert_no_5xx(failures, total)


def test_every_api_path_argument_with_hostile_ids(api_world):
    client, real = api_world
    failures, total = [], 0
    for name, (methods, _) in API_ROUTES.items():
        if not API_PATH_ARGUMENTS[name]:
            continue
        for method, value in itertools.product(methods, PATH_VALUES):
            path = api_path(name, real, hostile=value)
            collect(failures, api_send(client, method, path), name, method, value[:40])
            total += 1
    assert_no_5xx(failures, total)


def test_every_api_body_with_values_of_the_wrong_kind(api_world):
    client, real = api_world
    failures, total = [], 0
    for name, (methods, fields) in API_ROUTES.items():
        path = api_path(name, real)
        for method in [m for m in methods if m != "GET"]:
            for field, value in itertools.product(fields, JSON_VALUES):
                body = json.dumps({field: value})
                answer = api_send(client, method, path, raw=body,
                                  content_type="application/json")  # fmt: skip
                collect(failures, answer, name, method, field, repr(value)[:40])
                total += 1
            for content_type, raw in RAW_BODIES:
                answer = api_send(client, method, path, raw=raw, content_type=content_type)
                collect(failures, answer, name, method, content_type, raw[:30])
                total += 1
    assert_no_5xx(failures, total)


def test_random_mixes_of_hostile_api_values(api_world):
    client, real = api_world
    rng = random.Random(20261129)
    failures = []
    for _ in range(400):
        name = rng.choice(list(API_ROUTES))
        methods, fields = API_ROUTES[name]
        method = rng.choice(methods)
        hostile = rng.choice(PATH_VALUES) if rng.random() < 0.3 else None
        path = api_path(name, real, hostile=hostile)
        data = {field: rng.choice(API_VALUES) for field in fields if rng.random() < 0.6}
        if method != "GET" and rng.random() < 0.5:
            body = {field: rng.choice([*JSON_VALUES, *API_VALUES]) for field in data}
            answer = api_send(client, method, path, raw=json.dumps(body),
                              content_type="application/json")  # fmt: skip
        else:
            answer = api_send(client, method, path, data)
        collect(failures, answer, name, method, hostile, str(data)[:80])
    assert_no_5xx(failures, 400)


def test_every_form_with_bodies_it_does_not_expect(visitors):
    browsers, sid = visitors
    failures, total = [], 0
    for (method, template, _), (who, browser) in itertools.product(ENDPOINTS, browsers.items()):
        if method != "POST":
            continue
        path = path_for(template, "bob", sid)
        for content_type, raw in RAW_BODIES:
            answer = browser.post(path, raw, content_type=content_type)
            collect(failures, answer, who, template, content_type, raw[:30])
            total += 1
    assert_no_5xx(failures, total)

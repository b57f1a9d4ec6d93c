"""Input that could answer 5xx or break an account: ids out of the range
ids take, a stored value the code cannot read, lone surrogates, JSON nested without
bound, page cursors at their edges. Each answers a readable 4xx, and the pages go on
working."""

import json

import pytest
from django.test import Client

from api.common import MAX_JSON_BYTES
from socialsite.repository import direct, graph, keys, markers, notifications
from socialsite.repository.ids import MAX_ID, parse_id
from tests.support.helpers import bearer, log_in

MARKERS = "/api/v1/markers"
PAGES = ["/", "/notifications/", "/settings/", "/messages/", "/@alice/"]


@pytest.mark.parametrize(
    ("value", "parsed"),
    [("1", 1), (str(MAX_ID), MAX_ID), (7, 7), (str(MAX_ID + 1), None), ("92233720368547758", None),
     ("0", None), ("-1", None), ("²", None), (" 1", None), ("1.0", None), ("", None),
     (1.0, None), (True, None), ([1], None), (None, None), ("\ud800", None)],
)  # fmt: skip
def test_the_one_id_rule(value, parsed):
    assert parse_id(value) == parsed


def test_a_marker_past_the_range_of_ids_is_422_and_breaks_nothing(r, alice, token):
    client = log_in(Client(raise_request_exception=False), "alice")
    mine = bearer(token(alice))
    for value in ("9223372036854775807", str(MAX_ID + 1), "1e18", "99999999999999999999"):
        for name in ("notifications", "home"):
            answer = client.post(MARKERS, {f"{name}[last_read_id]": value}, **mine)
            assert answer.status_code == 422, (name, value)
            assert "must be an id" in answer.json()["error"]
    answer = client.post(
        MARKERS, {"notifications": {"last_read_id": [1]}}, content_type="application/json", **mine
    )
    assert answer.status_code == 422
    assert markers.get_markers(r, alice["id"]) == {}
    for page in PAGES:
        assert client.get(page).status_code == 200, page
    assert client.get(MARKERS, {"timeline[]": ["home", "notifications"]}, **mine).json() == {}


def test_a_stored_marker_the_code_cannot_read_counts_as_absent(r, alice, bob, token):
    # As an older version stored it: a float, which int() refuses.
    r.hset(keys.notifications_state(alice["id"]), "read", "9.2233720368547758e+18")
    r.hset(keys.markers(alice["id"]), mapping={"home_id": "9.2233720368547758e+18"})
    client = log_in(Client(raise_request_exception=False), "alice")
    for page in PAGES:
        assert client.get(page).status_code == 200, page
    mine = bearer(token(alice))
    got = client.get(MARKERS, {"timeline[]": ["home", "notifications"]}, **mine)
    assert got.status_code == 200 and got.json() == {}
    # A new notification counts as unread again, and marking it read repairs the mark.
    graph.follow(r, bob["id"], alice["id"])
    assert notifications.unread(r, alice["id"]).count == 1
    score = notifications.events(r, alice["id"])[0].score
    answer = client.post(MARKERS, {"notifications[last_read_id]": str(score)}, **mine)
    assert answer.status_code == 200
    assert notifications.unread(r, alice["id"]).count == 0


@pytest.mark.parametrize("before", ["0", "00", "-1", "x", str(MAX_ID + 1)])
def test_a_conversation_page_at_the_edge_of_its_cursor(r, alice, bob, before):
    graph.follow(r, bob["id"], alice["id"])
    cid = direct.start(r, alice["id"], [bob], "hello", "k1").cid
    client = log_in(Client(raise_request_exception=False), "alice")
    answer = client.get(f"/messages/{cid}/", {"before": before})
    assert answer.status_code in (200, 400), answer.status_code
    if before in ("0", "00"):
        assert answer.status_code == 200 and "hello" not in answer.content.decode()
    elif before == str(MAX_ID + 1):  # past every message: the newest page
        assert answer.status_code == 200 and "hello" in answer.content.decode()
    else:
        assert answer.status_code == 400
        assert "malformed" in answer.content.decode()


# --- bodies: lone surrogates, depth, size ----------------------------------------------

# JSON's escape of a lone surrogate: valid JSON, not Unicode text.
SURROGATE_BODIES = [
    ("post", "/api/v1/statuses", r'{"status": "\ud800"}'),
    ("post", "/api/v1/statuses", r'{"status": "x", "spoiler_text": "\ud800"}'),
    ("patch", "/api/v1/accounts/update_credentials", r'{"note": "\ud800"}'),
    ("post", "/api/v1/reports", r'{"account_id": "{bob}", "comment": "\udfff"}'),
    ("post", "/api/v1/apps", r'{"client_name": "\ud800", "redirect_uris": "https://a.example/"}'),
    ("post", "/api/v1/lists", r'{"title": "x", "\ud800": 1}'),
]


@pytest.mark.parametrize(("method", "path", "raw"), SURROGATE_BODIES)
def test_a_lone_surrogate_in_a_json_body_is_422(r, alice, bob, token, method, path, raw):
    client = Client(raise_request_exception=False)
    raw = raw.replace("{bob}", str(bob["id"]))
    send = getattr(client, method)
    answer = send(path, raw, content_type="application/json", **bearer(token(alice)))
    assert answer.status_code == 422, answer.content
    assert "lone surrogate" in answer.json()["error"]


@pytest.mark.parametrize("path", ["/api/v1/statuses", "/api/v1/lists", "/api/v1/apps"])
def test_json_nested_without_bound_is_422(alice, token, path):
    client = Client(raise_request_exception=False)
    for raw in ('{"a":' * 3000 + "1" + "}" * 3000, '{"a":' + "[" * 100 + "]" * 100 + "}"):
        answer = client.post(path, raw, content_type="application/json", **bearer(token(alice)))
        assert answer.status_code == 422, answer.content
        assert "nests deeper than" in answer.json()["error"]


def test_a_form_body_past_djangos_bounds_is_422_in_json(alice, token):
    client = Client(raise_request_exception=False)
    for raw in ("status=" + "x" * (3 * 2**20), "&".join(f"f{n}=1" for n in range(1500))):
        answer = client.post("/api/v1/statuses", raw, **bearer(token(alice)),
                             content_type="application/x-www-form-urlencoded")  # fmt: skip
        assert answer.status_code == 422 and "refused" in answer.json()["error"]


def test_a_json_body_past_its_size_is_422(alice, token):
    client = Client(raise_request_exception=False)
    raw = json.dumps({"status": "x" * (MAX_JSON_BYTES + 1)})
    answer = client.post("/api/v1/statuses", raw, content_type="application/json",
                         **bearer(token(alice)))  # fmt: skip
    assert answer.status_code == 422 and "KB" in answer.json()["error"]

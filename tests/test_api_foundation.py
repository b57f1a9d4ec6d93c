"""The client API's ground: tokens kept as digests, found with their user and the
request's rate limit in one round trip, scopes, errors as JSON, CORS, no cookies."""

import json

import pytest

from socialsite.repository import keys, oauth
from tests.support.helpers import bearer, log_in

VERIFY = "/api/v1/accounts/verify_credentials"


def test_a_token_is_kept_only_as_its_digest(r, alice, app):
    token = oauth.issue_token(r, app[0], ["read"], uid=alice["id"])
    every_key = list(r.scan_iter("oauth:*"))
    assert every_key, "no token stored"
    for key in every_key:
        dump = json.dumps(r.hgetall(key))
        assert token not in dump and token.partition(".")[2] not in dump
        assert app[1] not in dump  # nor the client secret


def test_a_token_names_its_user_and_scopes(r, client, alice, app):
    token = oauth.issue_token(r, app[0], ["read"], uid=alice["id"])
    response = client.get(VERIFY, **bearer(token))
    assert response.status_code == 200
    body = response.json()
    assert body["id"] == str(alice["id"]) and body["username"] == "alice"
    assert response["X-RateLimit-Limit"] == "300"
    assert response["X-RateLimit-Remaining"] == "299"


def test_the_token_user_and_rate_limit_cost_one_round_trip(r, client, alice, app, round_trips):
    token = oauth.issue_token(r, app[0], ["read"], uid=alice["id"])
    round_trips["n"] = 0
    client.get(VERIFY, **bearer(token))  # the scripts loaded
    before = round_trips["n"]
    assert client.get(VERIFY, **bearer(token)).status_code == 200
    assert round_trips["n"] - before == 1


@pytest.mark.parametrize(
    "header", ["", "Bearer ", "Bearer nonsense", "Bearer 1.made-up", "Basic x"]
)
def test_no_or_a_bad_token_is_401_in_json(client, alice, header):
    response = client.get(VERIFY, HTTP_AUTHORIZATION=header)
    assert response.status_code == 401
    assert response.json() == {"error": "The access token is invalid"}


def test_a_revoked_token_is_refused(r, client, alice, app):
    token = oauth.issue_token(r, app[0], ["read"], uid=alice["id"])
    oauth.revoke_token(r, token)
    assert client.get(VERIFY, **bearer(token)).status_code == 401


def test_revoking_every_token_of_a_user(r, client, alice, bob, app):
    other = oauth.create_app(r, "Other", ["urn:ietf:wg:oauth:2.0:oob"], ["read"])
    tokens = [oauth.issue_token(r, each, ["read"], uid=alice["id"]) for each in (app[0], other[0])]
    bobs = oauth.issue_token(r, app[0], ["read"], uid=bob["id"])
    assert [a["name"] for a in oauth.authorized_apps(r, alice["id"])] == ["Test app", "Other"]
    assert oauth.revoke_user_tokens(r, alice["id"], app[0]) == 1
    assert client.get(VERIFY, **bearer(tokens[0])).status_code == 401
    assert client.get(VERIFY, **bearer(tokens[1])).status_code == 200
    assert oauth.revoke_user_tokens(r, alice["id"]) == 1
    assert client.get(VERIFY, **bearer(tokens[1])).status_code == 401
    assert client.get(VERIFY, **bearer(bobs)).status_code == 200
    assert oauth.authorized_apps(r, alice["id"]) == []


def test_a_token_without_the_scope_is_403(r, client, alice, app):
    token = oauth.issue_token(r, app[0], ["write"], uid=alice["id"])
    response = client.get(VERIFY, **bearer(token))
    assert response.status_code == 403
    assert response.json() == {"error": "This action is outside the authorized scopes"}
    granular = oauth.issue_token(r, app[0], ["read:accounts"], uid=alice["id"])
    assert client.get(VERIFY, **bearer(granular)).status_code == 200


def test_an_apps_own_token_is_no_user(r, client, app):
    token = oauth.issue_token(r, app[0], ["read"])
    assert client.get(VERIFY, **bearer(token)).status_code == 422


def test_a_suspended_accounts_token_is_refused(r, client, alice, app):
    token = oauth.issue_token(r, app[0], ["read"], uid=alice["id"])
    r.hset(keys.user(alice["id"]), keys.SUSPENDED_FIELD, "1")
    response = client.get(VERIFY, **bearer(token))
    assert response.status_code == 403


def test_a_session_cookie_is_no_credential(r, client, alice):
    log_in(client, "alice")
    assert client.get(VERIFY).status_code == 401


def test_the_rate_limit_answers_429_in_json(r, client, alice, app, settings):
    settings.THROTTLES = {**settings.THROTTLES, "api": (2, 300)}
    token = oauth.issue_token(r, app[0], ["read"], uid=alice["id"])
    assert [client.get(VERIFY, **bearer(token)).status_code for _ in range(2)] == [200, 200]
    refused = client.get(VERIFY, **bearer(token))
    assert refused.status_code == 429
    assert refused.json() == {"error": "Too many requests"}
    assert int(refused["Retry-After"]) > 0


def test_cors_lets_browser_apps_call_with_a_token(r, client, alice, app):
    preflight = client.options(
        VERIFY, HTTP_ORIGIN="https://elk.example", HTTP_ACCESS_CONTROL_REQUEST_METHOD="GET"
    )
    assert preflight.status_code == 204
    assert preflight["Access-Control-Allow-Origin"] == "*"
    assert "Authorization" in preflight["Access-Control-Allow-Headers"]
    token = oauth.issue_token(r, app[0], ["read"], uid=alice["id"])
    response = client.get(VERIFY, HTTP_ORIGIN="https://elk.example", **bearer(token))
    assert response["Access-Control-Allow-Origin"] == "*"
    assert "Link" in response["Access-Control-Expose-Headers"]
    assert "Access-Control-Allow-Origin" not in client.get("/").headers


def test_an_authorization_code_works_once(r, alice, app):
    oob = "urn:ietf:wg:oauth:2.0:oob"
    oauth.store_code(r, "code1", app[0], alice["id"], oob, ["read"], "abc", "S256")
    assert oauth.peek_code(r, "code1")["uid"] == alice["id"]
    taken = oauth.take_code(r, "code1")
    assert taken["scopes"] == ["read"] and taken["challenge"] == "abc"
    assert oauth.take_code(r, "code1") is None


def test_an_authorization_code_expires_in_ten_minutes(r, alice, app):
    oauth.store_code(r, "code2", app[0], alice["id"], "urn:ietf:wg:oauth:2.0:oob", ["read"])
    key = next(iter(r.scan_iter("oauth:code:*")))
    assert 590 <= r.ttl(key) <= 600


def test_client_secrets_are_checked(r, app):
    stored = oauth.get_app(r, app[0])
    assert oauth.client_secret_matches(stored, app[1])
    assert not oauth.client_secret_matches(stored, app[1] + "x")
    assert not oauth.client_secret_matches(stored, "")

"""OAuth's password grant (``toot login_cli``), behind OAUTH_PASSWORD_GRANT (off by
default): refused clearly when off; when on, the password is checked as the log-in page
checks it, its throttles and a suspension included."""

import pytest
from django.test import Client

from socialsite.repository import moderation
from tests.support.helpers import PASSWORD, bearer
from tests.test_api_oauth import register


@pytest.fixture
def app(client):
    response = register(client, scopes="read write")
    assert response.status_code == 200, response.content
    return response.json()


def grant(client, app, username="alice", password=PASSWORD, **extra):
    return client.post(
        "/oauth/token",
        {"grant_type": "password", "client_id": app["client_id"],
         "client_secret": app["client_secret"], "username": username,
         "password": password, "scope": "read write", **extra},
    )  # fmt: skip


def test_the_password_grant_is_off_by_default(client, alice, app, settings):
    assert settings.OAUTH_PASSWORD_GRANT is False
    refused = grant(client, app)
    assert refused.status_code == 400
    assert refused.json()["error"] == "unsupported_grant_type"
    assert "turned off" in refused.json()["error_description"]
    metadata = client.get("/.well-known/oauth-authorization-server").json()
    assert "password" not in metadata["grant_types_supported"]


def test_the_password_grant_gives_a_token_when_on(client, alice, app, settings):
    settings.OAUTH_PASSWORD_GRANT = True
    response = grant(client, app)
    assert response.status_code == 200, response.content
    token = response.json()["access_token"]
    assert set(response.json()) == {"access_token", "token_type", "scope", "created_at"}
    me = client.get("/api/v1/accounts/verify_credentials", **bearer(token)).json()
    assert me["username"] == "alice"
    assert "password" in client.get("/.well-known/oauth-authorization-server").json()[
        "grant_types_supported"]  # fmt: skip
    wrong = grant(client, app, password="not the password at all")
    assert wrong.status_code == 400 and wrong.json()["error"] == "invalid_grant"
    nobody = grant(client, app, username="nobody")
    assert nobody.status_code == 400 and nobody.json()["error"] == "invalid_grant"
    bad_client = grant(client, {**app, "client_secret": "wrong"})
    assert bad_client.status_code == 401 and bad_client.json()["error"] == "invalid_client"


def test_the_password_grant_is_throttled_as_log_ins_are(alice, app, settings):
    settings.OAUTH_PASSWORD_GRANT = True
    client = Client(REMOTE_ADDR="203.0.113.7")
    settings.THROTTLES = {**settings.THROTTLES, "login_failures": (2, 300)}
    for _ in range(2):
        assert grant(client, app, password="wrong password here").status_code == 400
    refused = grant(client, app)
    assert refused.status_code == 429 and "Retry-After" in refused
    assert refused.json()["error"] == "invalid_grant"


def test_a_suspended_account_gets_no_token(client, r, alice, app, settings):
    settings.OAUTH_PASSWORD_GRANT = True
    moderation.suspend(r, alice["id"], reason="spam")
    refused = grant(client, app)
    assert refused.status_code == 400 and "suspended" in refused.json()["error_description"]

"""Apps and OAuth 2 over plain HTTP (Django's test client): registering an app, the
consent page, the authorization code grant with and without PKCE, client credentials,
revocation, every error as RFC 6749 says, the authorized apps in the settings, and the
revocation of every token by a password change or reset, a suspension and account
deletion. The whole flow with a client library in a real browser:
tests/test_api_oauth_browser.py."""

import base64
import hashlib
import html
import json
import re
import time
from urllib.parse import parse_qs, urlencode, urlsplit

import pytest
from django.test import Client

from accounts import tokens
from api.oauth_views import MAX_AUTHORIZE_FIELD
from socialsite.repository import emails, keys, leaving, limits, moderation, oauth, users
from tests.support.helpers import PASSWORD, csrf_token, log_in

OOB = "urn:ietf:wg:oauth:2.0:oob"
CALLBACK = "https://app.example/callback"
VERIFY_ACCOUNT = "/api/v1/accounts/verify_credentials"
VERIFY_APP = "/api/v1/apps/verify_credentials"


def bearer(token):
    return {"HTTP_AUTHORIZATION": f"Bearer {token}"}


def register(client, **fields):
    data = {
        "client_name": "Test app",
        "redirect_uris": f"{CALLBACK}\n{OOB}",
        "scopes": "read write follow",
        "website": "https://app.example/",
        **fields,
    }
    return client.post("/api/v1/apps", {k: v for k, v in data.items() if v is not None})


@pytest.fixture
def app(client):
    response = register(client)
    assert response.status_code == 200, response.content
    return response.json()


@pytest.fixture
def alice_client(alice):
    return log_in(Client(), "alice")


def challenge_of(verifier):
    digest = hashlib.sha256(verifier.encode()).digest()
    return base64.urlsafe_b64encode(digest).rstrip(b"=").decode()


def authorize_params(app, **params):
    return {
        "response_type": "code",
        "client_id": app["client_id"],
        "redirect_uri": CALLBACK,
        "scope": "read write",
        "state": "opaque-state",
        **params,
    }


def consent_form(page):
    """What the consent page's form sends: its CSRF token and its signed request."""
    found = re.search(r'<input type="hidden" name="request" value="([^"]+)"', page.content.decode())
    assert found, "the consent page has no request field"
    return {"request": html.unescape(found.group(1)), "csrfmiddlewaretoken": csrf_token(page)}


def authorize(client, app, **params):
    """Load the consent page, then press Authorize: the answer."""
    query = authorize_params(app, **params)
    page = client.get(f"/oauth/authorize?{urlencode(query)}")
    assert page.status_code == 200, page.content.decode()
    return client.post("/oauth/authorize", {**consent_form(page), "authorize": "1"})


def redirect_params(response):
    assert response.status_code == 302, response.content.decode()
    location = response["Location"]
    assert location.startswith(CALLBACK + "?"), location
    return {key: values[0] for key, values in parse_qs(urlsplit(location).query).items()}


def code_for(client, app, **params):
    return redirect_params(authorize(client, app, **params))["code"]


def exchange(client, app, code, **fields):
    data = {
        "grant_type": "authorization_code",
        "code": code,
        "client_id": app["client_id"],
        "client_secret": app["client_secret"],
        "redirect_uri": CALLBACK,
        **fields,
    }
    return client.post("/oauth/token", {k: v for k, v in data.items() if v is not None})


def token_for(client, alice_client, app, **params):
    response = exchange(client, app, code_for(alice_client, app, **params))
    assert response.status_code == 200, response.content
    return response.json()["access_token"]


def oauth_error(response, status, code):
    assert response.status_code == status, response.content
    assert response["Content-Type"].startswith("application/json")
    assert response.json()["error"] == code, response.json()


# --- registering apps -------------------------------------------------------------------


def test_registering_an_app_gives_its_credentials(r, client):
    response = register(client)
    assert response.status_code == 200
    body = response.json()
    assert body["name"] == "Test app" and body["website"] == "https://app.example/"
    assert body["redirect_uris"] == [CALLBACK, OOB]
    assert body["scopes"] == ["read", "write", "follow"]
    stored = oauth.get_app(r, body["client_id"])
    assert oauth.client_secret_matches(stored, body["client_secret"])
    assert response["Access-Control-Allow-Origin"] == "*"


def test_an_app_registers_with_a_json_body_too(client):
    body = {"client_name": "JSON app", "redirect_uris": [CALLBACK, OOB], "scopes": "read"}
    response = client.post("/api/v1/apps", json.dumps(body), content_type="application/json")
    assert response.status_code == 200, response.content
    assert response.json()["redirect_uris"] == [CALLBACK, OOB]


@pytest.mark.parametrize(
    "fields, message",
    [
        ({"client_name": ""}, "name can't be blank"),
        ({"client_name": "x" * 101}, "name is longer"),
        ({"redirect_uris": ""}, "Redirect URI can't be blank"),
        ({"redirect_uris": "/callback"}, "must be an absolute URI"),
        ({"redirect_uris": "https://app.example/cb#top"}, "cannot contain a fragment"),
        ({"redirect_uris": "javascript:alert(1)"}, "javascript"),
        ({"redirect_uris": "https://app.example/a b"}, "must be an absolute URI"),
        ({"scopes": "read admin:write"}, "admin:write"),
        ({"website": "javascript:alert(1)"}, "Website"),
    ],
)
def test_a_wrong_registration_is_422_saying_why(r, client, fields, message):
    response = register(client, **fields)
    assert response.status_code == 422
    assert message in response.json()["error"]
    assert list(r.scan_iter("oauth:app:*")) == []


def test_an_app_verifies_its_credentials(client, alice_client, app):
    token = token_for(client, alice_client, app)
    response = client.get(VERIFY_APP, **bearer(token))
    assert response.status_code == 200
    assert response.json()["name"] == "Test app"
    assert "client_secret" not in response.json()
    assert client.get(VERIFY_APP).status_code == 401


# --- the consent page --------------------------------------------------------------------


def test_a_visitor_logs_in_first_and_comes_back_to_the_same_request(client, alice, app):
    query = urlencode(authorize_params(app))
    response = client.get(f"/oauth/authorize?{query}")
    assert response.status_code == 302
    login = urlsplit(response["Location"])
    assert login.path == "/accounts/login/"
    back = parse_qs(login.query)["next"][0]
    assert back == f"/oauth/authorize?{query}"
    response = client.post(login.path + "?" + login.query,
                           {"username": "alice", "password": PASSWORD})  # fmt: skip
    assert response["Location"] == back
    assert client.get(back).status_code == 200


def test_the_consent_page_names_the_app_its_website_and_the_scopes_in_words(alice_client, app):
    query = urlencode(authorize_params(app, scope="read write:statuses"))
    page = alice_client.get(f"/oauth/authorize?{query}")
    html = page.content.decode()
    assert "Authorize Test app?" in html
    assert 'href="https://app.example/"' in html
    assert "read all your account" in html and "change your statuses" in html
    assert 'name="deny"' in html and 'name="csrfmiddlewaretoken"' in html
    assert 'name="request"' in html and "opaque-state" not in html  # one signed field


def test_the_app_name_is_escaped(client, alice_client):
    app = register(client, client_name="<script>alert(1)</script>").json()
    page = alice_client.get(f"/oauth/authorize?{urlencode(authorize_params(app))}")
    html = page.content.decode()
    assert "<script>alert(1)" not in html and "&lt;script&gt;alert(1)" in html


def test_the_consent_page_alone_may_send_its_form_to_the_app(alice_client, app):
    page = alice_client.get(f"/oauth/authorize?{urlencode(authorize_params(app))}")
    assert "form-action 'self' https://app.example;" in page["Content-Security-Policy"]
    other = alice_client.get("/settings/apps/")
    assert "form-action 'self';" in other["Content-Security-Policy"]


def test_an_apps_own_scheme_is_allowed_as_a_form_action(client, alice_client):
    app = register(client, redirect_uris="org.example.app:/oauth").json()
    query = urlencode(authorize_params(app, redirect_uri="org.example.app:/oauth"))
    page = alice_client.get(f"/oauth/authorize?{query}")
    assert "form-action 'self' org.example.app:;" in page["Content-Security-Policy"]
    answer = alice_client.post("/oauth/authorize", consent_form(page))
    assert answer.status_code == 302
    assert answer["Location"].startswith("org.example.app:/oauth?code=")


def test_the_oob_uri_gets_no_form_action_and_shows_the_code(r, client, alice_client, alice, app):
    query = urlencode(authorize_params(app, redirect_uri=OOB))
    page = alice_client.get(f"/oauth/authorize?{query}")
    assert "form-action 'self';" in page["Content-Security-Policy"]
    answer = alice_client.post("/oauth/authorize", consent_form(page))
    assert answer.status_code == 200
    html = answer.content.decode()
    code = html.split('class="oauth-code" value="')[1].split('"')[0]
    assert oauth.peek_code(r, code)["uid"] == alice["id"]
    token = exchange(client, app, code, redirect_uri=OOB)
    assert token.status_code == 200, token.content


def test_authorize_redirects_with_the_code_and_the_state(r, alice_client, alice, app):
    params = redirect_params(authorize(alice_client, app))
    assert params["state"] == "opaque-state"
    record = oauth.peek_code(r, params["code"])
    assert record["uid"] == alice["id"] and record["scopes"] == ["read", "write"]


def test_deny_redirects_with_access_denied_and_no_code(r, alice_client, app):
    query = authorize_params(app)
    page = alice_client.get(f"/oauth/authorize?{urlencode(query)}")
    answer = alice_client.post("/oauth/authorize", {**consent_form(page), "deny": "1"})
    back = redirect_params(answer)
    assert back["error"] == "access_denied" and back["state"] == "opaque-state"
    assert "code" not in back
    assert list(r.scan_iter("oauth:code:*")) == []


def test_the_consent_form_approves_only_the_request_its_page_was_shown_for(r, alice_client, app):
    verifier = "v" * 50
    query = authorize_params(app, code_challenge=challenge_of(verifier),
                             code_challenge_method="S256")  # fmt: skip
    page = alice_client.get(f"/oauth/authorize?{urlencode(query)}")
    token = csrf_token(page)
    # The hidden fields as the form once sent them, less the PKCE challenge: refused.
    bare = {k: v for k, v in query.items() if not k.startswith("code_challenge")}
    for form in (bare, {**bare, "request": "x"}, {**consent_form(page), "request": "x:y:z"}):
        answer = alice_client.post("/oauth/authorize", {**form, "authorize": "1",
                                                        "csrfmiddlewaretoken": token})  # fmt: skip
        assert answer.status_code == 400, form
        assert "consent form was changed" in answer.content.decode()
    assert list(r.scan_iter("oauth:code:*")) == []
    # The page's own form: a code bound to the challenge.
    code = redirect_params(
        alice_client.post("/oauth/authorize", {**consent_form(page), "authorize": "1"})
    )["code"]
    assert oauth.peek_code(r, code)["challenge"] == challenge_of(verifier)


def test_a_consent_form_shown_to_one_user_approves_nothing_for_another(r, app, alice, bob):
    page = log_in(Client(), "alice").get(f"/oauth/authorize?{urlencode(authorize_params(app))}")
    bob_client = log_in(Client(), "bob")
    bob_page = bob_client.get(f"/oauth/authorize?{urlencode(authorize_params(app))}")
    form = {**consent_form(page), "csrfmiddlewaretoken": csrf_token(bob_page), "authorize": "1"}
    assert bob_client.post("/oauth/authorize", form).status_code == 400
    assert list(r.scan_iter("oauth:code:*")) == []


def test_a_state_over_its_bound_is_400_never_a_huge_redirect(client, alice_client, app):
    fine = authorize_params(app, state="s" * MAX_AUTHORIZE_FIELD)
    assert alice_client.get(f"/oauth/authorize?{urlencode(fine)}").status_code == 200
    huge = urlencode(authorize_params(app, state="s" * 10_000))
    for who in (alice_client, client):  # logged in, and not: the log-in redirect keeps it
        answer = who.get(f"/oauth/authorize?{huge}")
        assert answer.status_code == 400 and "Location" not in answer
        assert "state is over 1024 characters" in answer.content.decode()


def test_the_consent_form_needs_its_csrf_token(r, alice):
    client = log_in(Client(enforce_csrf_checks=True), "alice")
    app = register(client).json()
    answer = client.post("/oauth/authorize", {**authorize_params(app), "authorize": "1"})
    assert answer.status_code == 403
    assert list(r.scan_iter("oauth:code:*")) == []


@pytest.mark.parametrize(
    "params, words",
    [
        ({"client_id": "no-such-app"}, "client_id"),
        ({"client_id": None}, "client_id"),
        ({"redirect_uri": "https://evil.example/steal"}, "redirect"),
    ],
)
def test_a_bad_client_or_redirect_uri_is_a_page_never_a_redirect(alice_client, app, params, words):
    query = {k: v for k, v in authorize_params(app, **params).items() if v is not None}
    response = alice_client.get(f"/oauth/authorize?{urlencode(query)}")
    assert response.status_code == 400
    html = response.content.decode()
    assert "This app&#39;s request is wrong" in html or "This app's request is wrong" in html
    assert words in html.lower()


@pytest.mark.parametrize(
    "params, code",
    [
        ({"scope": "read push"}, "invalid_scope"),  # push: not registered
        ({"scope": "read nonsense"}, "invalid_scope"),
        ({"response_type": "token"}, "unsupported_response_type"),
        ({"code_challenge": "x" * 43, "code_challenge_method": "plain"}, "invalid_request"),
        ({"code_challenge": "x" * 43}, "invalid_request"),  # no method means plain
    ],
)
def test_a_wrong_request_goes_back_to_the_app_with_its_error(r, alice_client, app, params, code):
    response = alice_client.get(f"/oauth/authorize?{urlencode(authorize_params(app, **params))}")
    back = redirect_params(response)
    assert back["error"] == code and back["state"] == "opaque-state"
    assert list(r.scan_iter("oauth:code:*")) == []


@pytest.mark.parametrize(
    "params",
    [
        {"response_type": None},
        {"scope": ""},
        {"scope": "read\x00write"},
        {"state": "\u00e9t\u00e9 <b>"},
        {"redirect_uri": "not a uri"},
        {"client_id": "\u00e9\u00e9"},
        {"code_challenge": "", "code_challenge_method": "S256"},
    ],
)
def test_odd_authorization_requests_get_a_readable_answer(alice_client, app, params):
    query = {k: v for k, v in authorize_params(app, **params).items() if v is not None}
    response = alice_client.get(f"/oauth/authorize?{urlencode(query)}")
    assert response.status_code in (200, 302, 400), response.status_code
    if response.status_code == 302:
        assert response["Location"].startswith(CALLBACK + "?error=")


# --- the token endpoint ------------------------------------------------------------------


def test_the_code_gives_a_token_for_the_user_and_its_scopes(client, alice_client, alice, app):
    response = exchange(client, app, code_for(alice_client, app))
    assert response.status_code == 200
    body = response.json()
    assert body["token_type"] == "Bearer" and body["scope"] == "read write"
    assert abs(body["created_at"] - time.time()) < 60
    assert "refresh_token" not in body and "expires_in" not in body
    assert response["Cache-Control"] == "no-store"
    assert response["Access-Control-Allow-Origin"] == "*"
    me = client.get(VERIFY_ACCOUNT, **bearer(body["access_token"]))
    assert me.status_code == 200 and me.json()["username"] == "alice"


def test_pkce_s256_with_the_right_verifier(client, alice_client, app):
    verifier = "v" * 20 + "erifier-of-at-least-43-characters-long"
    code = code_for(alice_client, app, code_challenge=challenge_of(verifier),
                    code_challenge_method="S256")  # fmt: skip
    response = exchange(client, app, code, code_verifier=verifier)
    assert response.status_code == 200, response.content


def test_pkce_with_a_wrong_verifier_is_refused_and_spends_the_code(client, alice_client, app):
    verifier = "right-verifier-" + "x" * 40
    code = code_for(alice_client, app, code_challenge=challenge_of(verifier),
                    code_challenge_method="S256")  # fmt: skip
    oauth_error(exchange(client, app, code, code_verifier="wrong-verifier-" + "x" * 40),
                400, "invalid_grant")  # fmt: skip
    oauth_error(exchange(client, app, code, code_verifier=verifier), 400, "invalid_grant")


def test_pkce_without_the_verifier_is_refused(client, alice_client, app):
    code = code_for(alice_client, app, code_challenge=challenge_of("v" * 50),
                    code_challenge_method="S256")  # fmt: skip
    oauth_error(exchange(client, app, code), 400, "invalid_request")


def test_a_code_works_once_and_its_reuse_revokes_the_token_it_gave(client, alice_client, app):
    """RFC 6749 4.1.2: a code used twice was seen by someone else; the token the
    first use gave is revoked."""
    code = code_for(alice_client, app)
    first = exchange(client, app, code)
    assert first.status_code == 200
    token = first.json()["access_token"]
    assert client.get(VERIFY_ACCOUNT, **bearer(token)).status_code == 200
    oauth_error(exchange(client, app, code), 400, "invalid_grant")
    assert client.get(VERIFY_ACCOUNT, **bearer(token)).status_code == 401


def test_a_code_expires(client, alice_client, app, monkeypatch):
    monkeypatch.setattr(limits, "OAUTH_CODE_SECONDS", 1)
    code = code_for(alice_client, app)
    time.sleep(1.2)
    oauth_error(exchange(client, app, code), 400, "invalid_grant")


def test_a_wrong_secret_or_client_is_401_invalid_client(client, alice_client, app):
    code = code_for(alice_client, app)
    oauth_error(exchange(client, app, code, client_secret="wrong"), 401, "invalid_client")
    oauth_error(exchange(client, app, code, client_id="nobody"), 401, "invalid_client")
    oauth_error(exchange(client, app, code, client_secret=None), 401, "invalid_client")
    # The code survives a request whose client failed: the right one still works.
    assert exchange(client, app, code).status_code == 200


def test_another_apps_code_is_refused(client, alice_client, app):
    other = register(client, client_name="Other").json()
    code = code_for(alice_client, app)
    oauth_error(exchange(client, other, code), 400, "invalid_grant")


def test_the_redirect_uri_must_be_the_authorizations(client, alice_client, app):
    code = code_for(alice_client, app)
    oauth_error(exchange(client, app, code, redirect_uri=OOB), 400, "invalid_request")


def test_an_unknown_or_missing_code_is_refused(client, app):
    oauth_error(exchange(client, app, "made-up"), 400, "invalid_grant")
    oauth_error(exchange(client, app, None), 400, "invalid_request")


def test_the_password_grant_is_not_offered(client, alice, app):
    response = client.post("/oauth/token", {
        "grant_type": "password", "username": "alice", "password": PASSWORD,
        "client_id": app["client_id"], "client_secret": app["client_secret"],
    })  # fmt: skip
    oauth_error(response, 400, "unsupported_grant_type")


def test_the_client_may_authenticate_with_http_basic(client, alice_client, app):
    code = code_for(alice_client, app)
    basic = base64.b64encode(f"{app['client_id']}:{app['client_secret']}".encode()).decode()
    response = client.post(
        "/oauth/token",
        {"grant_type": "authorization_code", "code": code, "redirect_uri": CALLBACK},
        HTTP_AUTHORIZATION=f"Basic {basic}",
    )
    assert response.status_code == 200, response.content


def test_a_json_token_request(client, alice_client, app):
    code = code_for(alice_client, app)
    body = {"grant_type": "authorization_code", "code": code, "redirect_uri": CALLBACK,
            "client_id": app["client_id"], "client_secret": app["client_secret"]}  # fmt: skip
    response = client.post("/oauth/token", json.dumps(body), content_type="application/json")
    assert response.status_code == 200, response.content
    bad = client.post("/oauth/token", "[1", content_type="application/json")
    oauth_error(bad, 400, "invalid_request")


def test_the_token_endpoint_takes_only_post(client):
    assert client.get("/oauth/token").status_code == 405


def test_client_credentials_give_the_apps_own_token(client, app):
    response = client.post("/oauth/token", {
        "grant_type": "client_credentials", "client_id": app["client_id"],
        "client_secret": app["client_secret"], "scope": "read",
    })  # fmt: skip
    assert response.status_code == 200, response.content
    token = response.json()["access_token"]
    assert token.startswith("0.")
    assert client.get(VERIFY_APP, **bearer(token)).json()["name"] == "Test app"
    assert client.get(VERIFY_ACCOUNT, **bearer(token)).status_code == 422
    wrong_scope = client.post("/oauth/token", {
        "grant_type": "client_credentials", "client_id": app["client_id"],
        "client_secret": app["client_secret"], "scope": "push",
    })  # fmt: skip
    oauth_error(wrong_scope, 400, "invalid_scope")


def test_a_token_without_the_scope_is_403(client, alice_client, app):
    token = token_for(client, alice_client, app, scope="write")
    response = client.get(VERIFY_ACCOUNT, **bearer(token))
    assert response.status_code == 403
    assert response.json() == {"error": "This action is outside the authorized scopes"}


# --- revocation ----------------------------------------------------------------------------


def revoke(client, app, token):
    return client.post("/oauth/revoke", {
        "client_id": app["client_id"], "client_secret": app["client_secret"], "token": token,
    })  # fmt: skip


def test_an_app_revokes_its_token(client, alice_client, app):
    token = token_for(client, alice_client, app)
    response = revoke(client, app, token)
    assert response.status_code == 200 and response.json() == {}
    assert client.get(VERIFY_ACCOUNT, **bearer(token)).status_code == 401
    assert revoke(client, app, token).status_code == 200  # again: the same answer


def test_an_app_cannot_revoke_another_apps_token(client, alice_client, app):
    other = register(client, client_name="Other").json()
    token = token_for(client, alice_client, app)
    assert revoke(client, other, token).status_code == 200
    assert client.get(VERIFY_ACCOUNT, **bearer(token)).status_code == 200
    oauth_error(revoke(client, {**app, "client_secret": "wrong"}, token), 401, "invalid_client")
    assert client.get(VERIFY_ACCOUNT, **bearer(token)).status_code == 200


# --- /settings/apps/ ----------------------------------------------------------------------


def test_settings_link_to_the_authorized_apps(alice_client):
    assert 'href="/settings/apps/"' in alice_client.get("/settings/").content.decode()


def test_the_authorized_apps_are_listed_and_revoked(client, alice_client, alice, bob, app):
    token = token_for(client, alice_client, app)
    bob_client = log_in(Client(), "bob")
    bobs = token_for(client, bob_client, app)
    page = alice_client.get("/settings/apps/")
    html = page.content.decode()
    assert "Test app" in html and f"/settings/apps/{app['client_id']}/revoke/" in html
    answer = alice_client.post(f"/settings/apps/{app['client_id']}/revoke/",
                               {"csrfmiddlewaretoken": csrf_token(page)})  # fmt: skip
    assert answer.status_code == 302 and answer["Location"] == "/settings/apps/"
    assert client.get(VERIFY_ACCOUNT, **bearer(token)).status_code == 401
    assert client.get(VERIFY_ACCOUNT, **bearer(bobs)).status_code == 200
    assert "No app can use your account" in alice_client.get("/settings/apps/").content.decode()


def test_revoking_an_app_needs_the_csrf_token(client, alice, app):
    alice_client = log_in(Client(enforce_csrf_checks=True), "alice")
    token = token_for(client, alice_client, app)
    answer = alice_client.post(f"/settings/apps/{app['client_id']}/revoke/")
    assert answer.status_code == 403
    assert client.get(VERIFY_ACCOUNT, **bearer(token)).status_code == 200


def test_the_authorized_apps_need_a_log_in(client):
    assert client.get("/settings/apps/")["Location"].startswith("/accounts/login/")
    assert client.post("/settings/apps/x/revoke/").status_code == 302


# --- every token revoked ---------------------------------------------------------------------


def test_a_password_change_revokes_every_token(r, client, alice_client, alice, app):
    token = token_for(client, alice_client, app)
    page = alice_client.get("/accounts/password/")
    response = alice_client.post("/accounts/password/", {
        "old_password": PASSWORD, "new_password1": "a new long passphrase 42",
        "new_password2": "a new long passphrase 42", "csrfmiddlewaretoken": csrf_token(page),
    })  # fmt: skip
    assert response.status_code == 302, response.content.decode()
    assert client.get(VERIFY_ACCOUNT, **bearer(token)).status_code == 401
    assert oauth.authorized_apps(r, alice["id"]) == []


def test_a_password_reset_revokes_every_token(r, client, alice_client, alice, app):
    token = token_for(client, alice_client, app)
    emails.set_address(r, alice["id"], "alice@example.org", verified=True)
    state = tokens.ResetState(alice["id"], users.get_password_hash(r, alice["id"]),
                              "alice@example.org")  # fmt: skip
    link = f"/accounts/reset/{tokens.uidb64(alice['id'])}/"
    link += f"{tokens.password_reset_tokens.make_token(state)}/"
    stranger = Client()
    response = stranger.post(link, {"new_password1": "a new long passphrase 42",
                                    "new_password2": "a new long passphrase 42"})  # fmt: skip
    assert response.status_code == 302, response.content.decode()
    assert client.get(VERIFY_ACCOUNT, **bearer(token)).status_code == 401


def test_a_suspension_revokes_every_token(r, client, alice_client, alice, app):
    token = token_for(client, alice_client, app)
    moderation.suspend(r, alice["id"])
    moderation.unsuspend(r, alice["id"])
    assert client.get(VERIFY_ACCOUNT, **bearer(token)).status_code == 401
    assert oauth.authorized_apps(r, alice["id"]) == []


def test_account_deletion_revokes_every_token(r, client, alice_client, alice, app):
    token = token_for(client, alice_client, app)
    assert leaving.delete_account(r, alice["id"]) is True
    assert oauth.token_info(r, token) is None
    assert not r.exists(keys.oauth_user_tokens(alice["id"]))
    assert client.get(VERIFY_ACCOUNT, **bearer(token)).status_code == 401


def test_a_code_given_before_a_password_change_gives_no_token(client, alice, app):
    """Else whoever authorized an app with a stolen password could keep it after the
    owner changed it, exchanging a code got before the change."""
    thief = log_in(Client(), "alice")
    code = code_for(thief, app)
    owner = log_in(Client(), "alice")
    page = owner.get("/accounts/password/")
    owner.post("/accounts/password/", {
        "old_password": PASSWORD, "new_password1": "a new long passphrase 42",
        "new_password2": "a new long passphrase 42", "csrfmiddlewaretoken": csrf_token(page),
    })  # fmt: skip
    oauth_error(exchange(client, app, code), 400, "invalid_grant")


def test_a_code_given_before_a_suspension_gives_no_token(r, client, alice_client, alice, app):
    code = code_for(alice_client, app)
    moderation.suspend(r, alice["id"])
    oauth_error(exchange(client, app, code), 400, "invalid_grant")


def test_a_code_given_before_the_account_was_deleted_gives_no_token(r, client, alice_client,
                                                                    alice, app):  # fmt: skip
    code = code_for(alice_client, app)
    leaving.begin_deletion(r, alice["id"])
    oauth_error(exchange(client, app, code), 400, "invalid_grant")
    assert oauth.authorized_apps(r, alice["id"]) == []


# --- the server's metadata ------------------------------------------------------------------


def test_the_server_metadata(client, settings):
    settings.SITE_URL = "https://social.example"
    body = client.get("/.well-known/oauth-authorization-server").json()
    assert body["authorization_endpoint"] == "https://social.example/oauth/authorize"
    assert body["token_endpoint"] == "https://social.example/oauth/token"
    assert body["code_challenge_methods_supported"] == ["S256"]
    assert body["grant_types_supported"] == ["authorization_code", "client_credentials"]
    assert "read:statuses" in body["scopes_supported"]

"""The headers every response carries (socialsite/security_headers.py and Django's
SecurityMiddleware), pages' Cache-Control, HTTPS's headers and redirect, and the stream
server's nosniff over a real socket."""

import pytest
from django.test import Client

from socialsite import security_headers
from socialsite_dev.streams import StreamConnection
from tests.support.helpers import log_in, post


def directives(response):
    """The response's Content-Security-Policy as {directive: [sources]}."""
    policy = {}
    for part in response["Content-Security-Policy"].split(";"):
        name, *sources = part.split()
        assert name not in policy, f"{name} given twice"
        policy[name] = sources
    return policy


@pytest.fixture
def logged_in(client, alice):
    return log_in(client, "alice")


def assert_every_response_headers(response):
    assert response["X-Content-Type-Options"] == "nosniff"
    assert response["X-Frame-Options"] == "DENY"
    assert response["Referrer-Policy"] == "same-origin"
    assert "camera=()" in response["Permissions-Policy"]
    assert "geolocation=()" in response["Permissions-Policy"]
    policy = directives(response)
    assert policy["default-src"] == ["'self'"]
    assert policy["frame-ancestors"] == ["'none'"]
    assert policy["object-src"] == ["'none'"]
    assert policy["base-uri"] == ["'none'"]
    assert policy["form-action"] == ["'self'"]
    # No inline script or style anywhere: neither is given a source beyond default-src.
    assert "script-src" not in policy and "style-src" not in policy
    assert "'unsafe-inline'" not in response["Content-Security-Policy"]


@pytest.mark.parametrize("path", ["/", "/@bob/", "/@bob/followers/", "/accounts/password/"])
def test_a_logged_in_viewers_pages_are_kept_by_no_cache(logged_in, bob, path):
    response = logged_in.get(path)
    assert response.status_code == 200
    assert response["Cache-Control"] == "private, no-store"
    assert_every_response_headers(response)


def test_a_status_page_is_kept_by_no_cache(logged_in, r, bob):
    response = logged_in.get(f"/@bob/{post(r, bob, 'hello')}/")
    assert response.status_code == 200
    assert response["Cache-Control"] == "private, no-store"


@pytest.mark.parametrize("path", ["/", "/accounts/login/", "/accounts/signup/", "/@bob/"])
def test_a_visitors_pages_are_kept_by_no_cache_too(client, bob, path):
    # The navigation bar depends on who is logged in; the forms carry CSRF tokens.
    response = client.get(path)
    assert response.status_code == 200
    assert response["Cache-Control"] == "private, no-store"
    assert_every_response_headers(response)


def test_error_pages_carry_the_headers(client):
    response = client.get("/no/such/page/")
    assert response.status_code == 404
    assert response["Cache-Control"] == "private, no-store"
    assert_every_response_headers(response)


def test_the_health_checks_keep_their_own_cache_control(client):
    for path in ("/healthz", "/readyz"):
        response = client.get(path)
        assert response.status_code == 200
        assert response["Cache-Control"] == "no-store"
        assert response["X-Content-Type-Options"] == "nosniff"


def test_a_page_that_sets_its_own_cache_control_keeps_it(rf):
    from django.http import HttpResponse

    def view(request):
        response = HttpResponse("<p>public</p>")
        response["Cache-Control"] = "public, max-age=60"
        return response

    response = security_headers.SecurityHeadersMiddleware(view)(rf.get("/"))
    assert response["Cache-Control"] == "public, max-age=60"
    assert "Content-Security-Policy" in response


def test_the_live_page_may_connect_to_the_stream_server_on_the_pages_host(logged_in, settings):
    settings.STREAM_PUBLIC_URL = ""
    settings.STREAM_PORT = 8123
    settings.ALLOWED_HOSTS = ["social.example.org", ".example.net", "127.0.0.1", "[::1]"]
    response = logged_in.get("/", HTTP_HOST="social.example.org")
    assert response.status_code == 200
    assert directives(response)["connect-src"] == [
        "'self'",
        "social.example.org:8123",
        "example.net:8123",
        "*.example.net:8123",
        "127.0.0.1:8123",
        # [::1] cannot be written in a CSP source.
    ]


def test_the_stream_server_behind_the_proxy_is_this_origin(logged_in, settings):
    settings.STREAM_PUBLIC_URL = "/stream"
    assert directives(logged_in.get("/"))["connect-src"] == ["'self'"]


def test_a_stream_server_of_its_own_is_named_by_its_origin(logged_in, settings):
    settings.STREAM_PUBLIC_URL = "https://stream.example.org/live"
    assert directives(logged_in.get("/"))["connect-src"] == [
        "'self'",
        "https://stream.example.org",
    ]


def test_pictures_served_here_need_no_other_image_source(logged_in):
    assert directives(logged_in.get("/"))["img-src"] == ["'self'", "data:"]


def test_pictures_from_another_host_are_allowed_by_its_origin(logged_in, settings):
    settings.MEDIA_URL = "https://media.example.org/pictures/"
    assert directives(logged_in.get("/"))["img-src"] == [
        "'self'",
        "data:",
        "https://media.example.org",
    ]


# --- under HTTPS=true (the settings it sets: tests/test_production_settings.py) -----------


@pytest.fixture
def https(settings):
    """The settings HTTPS=true gives, and a new client, whose middleware reads them."""
    settings.SECURE_SSL_REDIRECT = True
    settings.SECURE_HSTS_SECONDS = 31_536_000
    settings.SECURE_HSTS_INCLUDE_SUBDOMAINS = True
    settings.SECURE_HSTS_PRELOAD = True
    settings.SESSION_COOKIE_SECURE = True
    settings.CSRF_COOKIE_SECURE = True
    return Client()


def test_plain_http_is_redirected_to_https_except_the_health_checks(https):
    response = https.get("/accounts/login/")
    assert response.status_code == 301
    assert response["Location"] == "https://testserver/accounts/login/"
    # Load balancers probe the process itself, over plain HTTP.
    assert https.get("/healthz").status_code == 200
    assert https.get("/readyz").status_code == 200


def test_https_pages_send_hsts_and_secure_cookies(https, alice):
    page = https.get("/accounts/login/", secure=True)
    assert page.status_code == 200
    assert page["Strict-Transport-Security"] == "max-age=31536000; includeSubDomains; preload"
    assert page.cookies["csrftoken"]["secure"]
    response = https.post(
        "/accounts/login/",
        {"username": "alice", "password": "correct horse battery staple"},
        secure=True,
    )
    assert response.status_code == 302
    assert response.cookies["sessionid"]["secure"]
    assert response.cookies["sessionid"]["httponly"]


# --- the stream server (real sockets) ------------------------------------------------------


def test_every_stream_server_response_forbids_sniffing(stream_server):
    with StreamConnection(
        stream_server.port, "GET", "/statuses/sample.json?identifier=me&percent=100"
    ) as stream:
        assert stream.status == 200
        assert stream.headers["content-type"].startswith("application/x-ndjson")
        assert stream.headers["x-content-type-options"] == "nosniff"
    with StreamConnection(stream_server.port, "GET", "/live/home") as refused:
        assert refused.status == 401
        assert refused.headers["x-content-type-options"] == "nosniff"
    with StreamConnection(
        stream_server.port, "OPTIONS", "/live/home", headers={"Origin": "http://x.test"}
    ) as preflight:
        assert preflight.status == 204
        assert preflight.headers["x-content-type-options"] == "nosniff"
    with StreamConnection(stream_server.port, "GET", "/no/such/stream") as missing:
        assert missing.status == 404
        assert missing.headers["x-content-type-options"] == "nosniff"

"""The response headers Django's own middleware does not send: a Content-Security-Policy,
a Permissions-Policy, and ``Cache-Control: private, no-store`` on pages.

Django's SecurityMiddleware sends nosniff, Referrer-Policy, HSTS and the HTTPS redirect,
and XFrameOptionsMiddleware X-Frame-Options (settings.py); Django has no CSP before 6.0.

One middleware, and every header value is a string made when the settings are read
(again only when a test changes them): the home page's CPU is measured against
/healthz's, and a few dictionary writes per response are all this adds.
"""

import re
from urllib.parse import urlsplit

from django.conf import settings
from django.core.signals import setting_changed

# Browser features no page here uses; a script slipped into a page cannot use them either.
PERMISSIONS_POLICY = ", ".join(
    f"{feature}=()"
    for feature in (
        "accelerometer",
        "camera",
        "display-capture",
        "geolocation",
        "gyroscope",
        "magnetometer",
        "microphone",
        "payment",
        "usb",
    )
)

# Every page shows who is logged in (the navigation bar), and many carry a CSRF token:
# neither a shared cache nor the browser's disk may keep one.
PAGE_CACHE_CONTROL = "private, no-store"

# A host name CSP can name: letters, digits, dots and hyphens. IPv6 literals ([::1])
# cannot be written in a CSP source at all.
_CSP_HOST = re.compile(r"[A-Za-z0-9.-]+")


def stream_sources(stream_public_url, stream_port, allowed_hosts):
    """The CSP sources besides 'self' that the live page's script (static/js/live.js)
    connects to, as it finds the stream server.

    A path (production's "/stream", routed by the proxy) is this origin: none. A URL:
    its origin. Empty (development): the page's own host name on the stream port; the
    page's host is one of ALLOWED_HOSTS, so each of them on that port, without a
    scheme, which CSP takes as the page's own (http, or https and its upgrades).
    """
    if stream_public_url.startswith("/"):
        return []
    if stream_public_url:
        parts = urlsplit(stream_public_url)
        return [f"{parts.scheme}://{parts.netloc}"]
    sources = []
    for host in allowed_hosts:
        if host == "*":
            sources.append(f"*:{stream_port}")
        elif host.startswith(".") and _CSP_HOST.fullmatch(host[1:]):
            # ".example.org": the domain and its subdomains, as in ALLOWED_HOSTS.
            sources += [f"{host[1:]}:{stream_port}", f"*{host}:{stream_port}"]
        elif _CSP_HOST.fullmatch(host):
            sources.append(f"{host}:{stream_port}")
    return sources


def media_sources(media_url):
    """The CSP sources besides 'self' that pictures come from: MEDIA_URL's origin when
    it names another host (a CDN, a bucket), none for a path of this site."""
    if media_url.startswith("/"):
        return []
    parts = urlsplit(media_url)
    return [f"{parts.scheme}://{parts.netloc}"]


def content_security_policy(connect_sources, image_sources=(), form_sources=()):
    """The policy: everything from this origin only, no inline script or style, no
    plugins, no framing, forms posted here only. The favicon is a data: URL
    (base.html), pictures may come from MEDIA_URL's origin, and the live page's stream
    may be on another origin. ``form_sources``: where one response's form may end up
    besides (the OAuth consent page's redirect to the app)."""
    directives = [
        "default-src 'self'",
        "img-src " + " ".join(["'self'", "data:", *image_sources]),
        "connect-src " + " ".join(["'self'", *connect_sources]),
        "object-src 'none'",
        "base-uri 'none'",
        "form-action " + " ".join(["'self'", *form_sources]),
        "frame-ancestors 'none'",
    ]
    return "; ".join(directives)


class _Policy:
    """The header values of the current settings."""

    def __init__(self):
        self.load()

    def load(self):
        allowed_hosts = settings.ALLOWED_HOSTS
        if settings.DEBUG and not allowed_hosts:
            # What Django accepts then (HttpRequest.get_host).
            allowed_hosts = [".localhost", "127.0.0.1", "[::1]"]
        self.connect_sources = stream_sources(
            settings.STREAM_PUBLIC_URL, settings.STREAM_PORT, allowed_hosts
        )
        self.image_sources = media_sources(settings.MEDIA_URL)
        self.csp = content_security_policy(self.connect_sources, self.image_sources)

    def csp_with_form_sources(self, form_sources):
        """The policy of one response whose form may end up on ``form_sources`` too."""
        return content_security_policy(self.connect_sources, self.image_sources, form_sources)


_policy = _Policy()


def _settings_changed(setting, **kwargs):
    # Only tests change settings at run time (pytest-django's settings fixture).
    if setting in ("STREAM_PUBLIC_URL", "STREAM_PORT", "ALLOWED_HOSTS", "DEBUG", "MEDIA_URL"):
        _policy.load()


setting_changed.connect(_settings_changed)


# --- OAuth popups -------------------------------------------------------------
# Django sends Cross-Origin-Opener-Policy: same-origin on every response, which severs a
# page from a window of another origin that opened it. A web client on another origin
# logs in through a popup: the log-in page, the consent page and their redirects back to
# the app must keep ``window.opener``, or the app never hears the code. A popup opened
# by another origin keeps its opener only if every page it passes through is
# ``unsafe-none`` (``same-origin-allow-popups`` on the opened page severs it too: it
# only lets a page keep the popups it opens itself). Those pages alone; the rest stay
# strict.
OAUTH_POPUP_COOP = "unsafe-none"
OAUTH_AUTHORIZE_PATH = "/oauth/authorize"


def is_oauth_popup_page(request):
    """Whether ``request`` is one an OAuth popup passes through: the consent page
    (/oauth/authorize, either form) and the log-in page on the way to it."""
    if request.path.startswith(OAUTH_AUTHORIZE_PATH):
        return True
    if request.path != settings.LOGIN_URL:
        return False
    target = request.GET.get("next", "")
    if not target and request.method == "POST":
        try:
            target = request.POST.get("next", "")
        except Exception:  # noqa: BLE001 (a body that does not parse: not the popup's)
            return False
    return target.startswith(OAUTH_AUTHORIZE_PATH)


class SecurityHeadersMiddleware:
    """Send the Content-Security-Policy and Permissions-Policy on every response, and
    ``Cache-Control: private, no-store`` on every HTML response that sets no caching of
    its own (pages, error pages, redirects).

    Other responses (/healthz and /readyz, plain text) keep their own; static files
    never come through here (the proxy serves them, or runserver's static handler in
    development). A response with ``form_action_sources`` (a list of CSP sources) lets
    its forms end up there too: only that response, so no other page is loosened.
    """

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        response = self.get_response(request)
        headers = response.headers
        form_sources = getattr(response, "form_action_sources", None)
        if form_sources:
            headers["Content-Security-Policy"] = _policy.csp_with_form_sources(form_sources)
        else:
            headers["Content-Security-Policy"] = _policy.csp
        headers["Permissions-Policy"] = PERMISSIONS_POLICY
        if is_oauth_popup_page(request):
            # Before SecurityMiddleware's own, which only sets one that is missing.
            headers["Cross-Origin-Opener-Policy"] = OAUTH_POPUP_COOP
        if "Cache-Control" not in headers and headers.get("Content-Type", "").startswith(
            "text/html"
        ):
            headers["Cache-Control"] = PAGE_CACHE_CONTROL
        return response

"""Apps and OAuth 2: registering an app (/api/v1/apps), the consent page
(/oauth/authorize), the token and revocation endpoints, the server's metadata
(/.well-known/oauth-authorization-server, RFC 8414) and the authorized apps in the
settings (/settings/apps/). The protocol is oauthlib's (api/oauth_server.py).
"""

import json
import re
from urllib.parse import parse_qsl, urlencode, urlsplit

from django.conf import settings
from django.contrib import messages
from django.core import signing
from django.http import HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_GET, require_http_methods, require_POST
from oauthlib.oauth2.rfc6749 import errors

from accounts.decorators import login_required, redirect_to_login
from accounts.forms import LoginForm
from socialsite import throttling
from socialsite.acting import actor_of
from socialsite.actions import accounts as account_actions
from socialsite.connection import get_redis
from socialsite.repository import emails, oauth, users

from . import entities
from .auth import SCOPES, api_view
from .common import BadBody, json_object
from .oauth_server import (
    CODE_CHALLENGE_METHODS,
    OOB,
    PASSWORD_GRANT,
    code_guard,
    grant_types,
    server,
)
from .responses import error, json_response

# What an app may register: a name and website of a sensible length, a few redirect URIs.
APP_NAME_MAX = 100
WEBSITE_MAX = 500
REDIRECT_URI_MAX = 2000
REDIRECT_URIS_MAX = 10
# Schemes no app redirects to: they would run or show content instead.
REFUSED_SCHEMES = {"javascript", "data", "vbscript", "file", "blob", "filesystem", "about"}
_SCHEME = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*")
_HOST = re.compile(r"[A-Za-z0-9.-]+(:[0-9]{1,5})?")

# The authorization request's parameters the consent form carries back.
AUTHORIZE_FIELDS = ("response_type", "client_id", "redirect_uri", "scope", "state",
                    "code_challenge", "code_challenge_method")  # fmt: skip

# Each of them is at most this long: the state and the rest go back to the app in the
# Location header, and nginx answers 502 for a header over its buffer (4 or 8 KB).
# Mastodon's apps send under 100 characters; a registered redirect URI is shorter still.
MAX_AUTHORIZE_FIELD = 1024

# The consent form carries the request the page was shown for, signed (django.core.signing
# under SECRET_KEY) for the user it was shown to: the POST approves or denies that very
# request, never one whose hidden fields were changed (a PKCE challenge taken out). Good
# for an hour: time to read the page, not a link to keep.
CONSENT_SALT = "api.oauth.consent"
CONSENT_MAX_AGE = 3600

# The scopes in words, for the consent page.
SCOPE_WORDS = {
    "read": "read all your account's data: statuses, timelines, notifications, follows, lists",
    "write": "post, delete, favourite and repost statuses, follow people and change your "
    "account's data",
    "follow": "see and change whom you follow, block and mute",
    "push": "receive your notifications as push messages",
    "profile": "read your profile: your name, login and picture",
}
_GRANULAR_NOUNS = {
    "accounts": "account and profile",
    "blocks": "blocks",
    "bookmarks": "bookmarks",
    "conversations": "conversations",
    "favourites": "favourites",
    "filters": "filters",
    "follows": "follows",
    "lists": "lists",
    "media": "media uploads",
    "mutes": "mutes",
    "notifications": "notifications",
    "reports": "reports",
    "search": "search",
    "statuses": "statuses",
}


def scope_in_words(scope):
    """What ``scope`` lets an app do, in a few words."""
    if scope in SCOPE_WORDS:
        return SCOPE_WORDS[scope]
    verb, _, noun = scope.partition(":")
    words = _GRANULAR_NOUNS.get(noun, noun)
    if verb == "read":
        return f"read your {words}"
    return f"change your {words}"


def _request_data(request):
    """The request's parameters: its form or JSON body (apps send either), else its
    query. A dict of strings; a JSON list of redirect URIs is joined by newlines.
    BadBody for a JSON body that is not one (common.json_object)."""
    if request.content_type == "application/json":
        data = json_object(request)
        return {
            key: "\n".join(map(str, value)) if isinstance(value, list) else str(value)
            for key, value in data.items()
            if value is not None
        }
    if request.method == "POST":
        return {key: request.POST.get(key) for key in request.POST}
    return {key: request.GET.get(key) for key in request.GET}


# --- /api/v1/apps --------------------------------------------------------------------------


def _redirect_uri_problem(uri):
    """Why ``uri`` cannot be a redirect URI, or None."""
    if uri == OOB:
        return None
    if len(uri) > REDIRECT_URI_MAX or any(ch.isspace() or ord(ch) < 32 for ch in uri):
        return "must be an absolute URI"
    parts = urlsplit(uri)
    if not parts.scheme or not _SCHEME.fullmatch(parts.scheme):
        return "must be an absolute URI"
    if parts.scheme.lower() in REFUSED_SCHEMES:
        return f"cannot use the {parts.scheme.lower()}: scheme"
    if parts.fragment or "#" in uri:
        return "cannot contain a fragment"
    if parts.scheme.lower() in ("http", "https") and not parts.netloc:
        return "must be an absolute URI"
    return None


def _application(base, app, client_secret=None):
    """Mastodon's Application entity of ``app`` (a repository app record); with the
    credentials when just registered."""
    entity = {
        "id": app["client_id"],
        "name": app["name"],
        "website": app["website"] or None,
        "scopes": app["scopes"],
        "redirect_uri": "\n".join(app["redirect_uris"]),
        "redirect_uris": app["redirect_uris"],
        "vapid_key": "",
    }
    if client_secret is not None:
        entity.update(
            client_id=app["client_id"], client_secret=client_secret, client_secret_expires_at=0
        )
    return entity


def _is_website(url):
    parts = urlsplit(url)
    return len(url) <= WEBSITE_MAX and parts.scheme in ("http", "https") and bool(parts.netloc)


@api_view(methods=("POST",), public=True)
def create_app(request):
    """POST /api/v1/apps: register an app (client_name, redirect_uris, scopes, website)."""
    try:
        data = _request_data(request)
    except BadBody as bad:
        return error(422, f"Validation failed: {bad}")
    name = (data.get("client_name") or "").strip()
    if not name:
        return error(422, "Validation failed: Application name can't be blank")
    if len(name) > APP_NAME_MAX:
        return error(422, f"Validation failed: Application name is longer than {APP_NAME_MAX}")
    uris = [uri.strip() for uri in (data.get("redirect_uris") or "").splitlines() if uri.strip()]
    if not uris:
        return error(422, "Validation failed: Redirect URI can't be blank")
    if len(uris) > REDIRECT_URIS_MAX:
        return error(422, f"Validation failed: at most {REDIRECT_URIS_MAX} redirect URIs")
    for uri in uris:
        problem = _redirect_uri_problem(uri)
        if problem:
            return error(422, f"Validation failed: Redirect URI {problem}")
    scopes = (data.get("scopes") or "read").split()
    unknown = [scope for scope in scopes if scope not in SCOPES]
    if unknown:
        return error(422, f"Validation failed: Scopes {' '.join(unknown)} are not known")
    website = (data.get("website") or "").strip()
    if website and not _is_website(website):
        return error(422, "Validation failed: Website must be an http(s) URL")
    r = get_redis()
    client_id, client_secret = oauth.create_app(r, name, uris, list(dict.fromkeys(scopes)), website)
    app = oauth.get_app(r, client_id)
    return json_response(_application(entities.site_base(request), app, client_secret))


@api_view(user_required=False)
def verify_app(request):
    """GET /api/v1/apps/verify_credentials: the app of the token."""
    app = oauth.get_app(get_redis(), request.api_token["client_id"])
    if app is None:
        return error(401, "The access token is invalid")
    entity = _application(entities.site_base(request), app)
    return json_response(entity)


# --- /oauth/authorize --------------------------------------------------------------------


def _oauthlib_uri(request, params):
    return f"{entities.site_base(request)}/oauth/authorize?{urlencode(params)}"


def _fatal(request, exc):
    """A request whose client or redirect URI is wrong: said on a page, never
    redirected (RFC 6749 4.1.2.1)."""
    return _fatal_page(request, exc.description or exc.error)


def _fatal_page(request, description):
    return render(request, "oauth/error.html", {"description": description}, status=400)


def _signed_request(request, params):
    """The consent form's ``request`` field: ``params`` signed for the viewer."""
    return signing.dumps({"uid": request.user.id, "params": params}, salt=CONSENT_SALT)


def _consented_request(request):
    """The authorization request the consent form was shown for (its signed ``request``
    field), or None if the field is missing, changed, too old or was signed for
    another user."""
    try:
        signed = signing.loads(
            request.POST.get("request", ""), salt=CONSENT_SALT, max_age=CONSENT_MAX_AGE
        )
    except signing.BadSignature:  # SignatureExpired is one
        return None
    if not isinstance(signed, dict) or signed.get("uid") != request.user.id:
        return None
    params = signed.get("params")
    return params if isinstance(params, dict) else None


def _redirect(location):
    """A redirect to ``location``, whatever its scheme (apps register their own, such
    as ``tusky://``); Django's HttpResponseRedirect allows only http, https and ftp."""
    response = HttpResponse(status=302)
    response["Location"] = location
    return response


def form_action_source(redirect_uri):
    """The CSP source that lets a form post end at ``redirect_uri``: its origin, or
    its scheme for an app's own scheme; None for the oob URI or one that cannot be
    written in a policy."""
    if redirect_uri == OOB:
        return None
    parts = urlsplit(redirect_uri)
    scheme = parts.scheme.lower()
    if not _SCHEME.fullmatch(scheme):
        return None
    if scheme in ("http", "https"):
        return f"{scheme}://{parts.netloc}" if _HOST.fullmatch(parts.netloc) else None
    return f"{scheme}:"


def _code_page(request, location, denied=False):
    """The oob answer: the code shown for the user to copy into the app."""
    params = dict(parse_qsl(urlsplit(location).query))
    context = {"code": params.get("code"), "denied": denied or "error" in params}
    return render(request, "oauth/code.html", context)


@require_http_methods(["GET", "POST"])
def authorize(request):
    """GET: the consent page (after logging in, the query kept); POST: Authorize
    (redirect with the code and state, or the code shown for the oob URI) or Deny
    (``deny``: redirect with access_denied)."""
    if request.method == "GET":
        params = {key: request.GET[key] for key in AUTHORIZE_FIELDS if request.GET.get(key)}
        # Before the log-in redirect too: it carries the query in its Location.
        too_long = [key for key, value in params.items() if len(value) > MAX_AUTHORIZE_FIELD]
        if too_long:
            return _fatal_page(
                request, f"its {too_long[0]} is over {MAX_AUTHORIZE_FIELD} characters"
            )
    if not request.user.is_authenticated:
        return redirect_to_login(request) if request.method == "GET" else redirect("login")
    if request.method == "POST":
        params = _consented_request(request)
        if params is None:
            return _fatal_page(
                request,
                "the consent form was changed or is over an hour old. Start again from the app",
            )
    uri = _oauthlib_uri(request, params)
    try:
        scopes, credentials = server.validate_authorization_request(uri)
    except errors.FatalClientError as exc:
        return _fatal(request, exc)
    except errors.OAuth2Error as exc:
        if not exc.redirect_uri:
            return _fatal(request, exc)
        # The client and its redirect URI are sound: the error goes back to the app.
        return _send_back(request, exc.in_uri(exc.redirect_uri), exc.redirect_uri)
    redirect_uri = credentials["redirect_uri"]
    if request.method == "GET":
        return _consent_page(request, credentials, scopes, params)
    if "deny" in request.POST:
        denied = errors.AccessDeniedError(state=params.get("state"))
        return _send_back(request, denied.in_uri(redirect_uri), redirect_uri, denied=True)
    headers, _, _ = server.create_authorization_response(
        uri, scopes=scopes, credentials={"user": request.user.id, "guard": code_guard(request.user)}
    )
    return _send_back(request, headers["Location"], redirect_uri)


def _send_back(request, location, redirect_uri, denied=False):
    if redirect_uri == OOB:
        return _code_page(request, location, denied)
    return _redirect(location)


def _consent_page(request, credentials, scopes, params):
    app = credentials["request"].client.record
    context = {
        "app": app,
        "scopes": [(scope, scope_in_words(scope)) for scope in scopes],
        "signed_request": _signed_request(request, params),
    }
    response = render(request, "oauth/authorize.html", context)
    # The form posts here, and the answer redirects to the app: CSP's form-action
    # governs that redirect too, so this one response allows the app's origin.
    source = form_action_source(credentials["redirect_uri"])
    if source:
        response.form_action_sources = [source]
    return response


# --- /oauth/token, /oauth/revoke ------------------------------------------------------------


def _oauthlib_answer(headers, body, status):
    response = HttpResponse(body or "{}", status=status, content_type="application/json")
    for name, value in headers.items():
        if name.lower() != "content-type":
            response[name] = value
    response["Cache-Control"] = "no-store"
    return response


def _token_request(request):
    """(body, headers) for oauthlib: a JSON body as the form it stands for."""
    try:
        data = _request_data(request)
    except BadBody:
        return None, None
    headers = {"Content-Type": "application/x-www-form-urlencoded"}
    if request.META.get("HTTP_AUTHORIZATION"):
        headers["Authorization"] = request.META["HTTP_AUTHORIZATION"]
    return urlencode(data), headers


def _invalid_request(description):
    body = json.dumps({"error": "invalid_request", "error_description": description})
    return _oauthlib_answer({}, body, 400)


def _grant_error(error_code, description, status=400, headers=None):
    body = json.dumps({"error": error_code, "error_description": description})
    return _oauthlib_answer(headers or {}, body, status)


def _login_of(username):
    """The login name the password grant's ``username`` stands for: an email address
    (as Mastodon takes, and ``toot login_cli`` asks for) names its account's login;
    anything else is taken as a login name."""
    if "@" not in username.strip("@"):
        return username.lstrip("@")
    r = get_redis()
    uid = emails.owner(r, username)
    user = users.get_user(r, uid) if uid else None
    return user["login"] if user else username


def _password_user(request, data):
    """(the uid whose login and password ``data`` carries, or None; the error answer,
    or None): the password grant checks them as the log-in page does (its throttles on
    the address and the login, a suspended account refused), before oauthlib runs."""
    if not settings.OAUTH_PASSWORD_GRANT:
        return None, _grant_error(
            "unsupported_grant_type",
            "The password grant is turned off on this server: log in through the browser "
            "(the authorization code grant).",
        )
    attempt = throttling.count(request, "login")
    form = LoginForm(
        {"username": _login_of(data.get("username") or ""), "password": data.get("password") or ""},
        request=request,
        refusal=attempt,
    )
    if form.is_valid():
        return form.user.id, None
    if form.refusal is not None:
        return None, throttling.set_headers(
            _grant_error("invalid_grant", form.refusal.message, status=429), form.refusal
        )
    return None, _grant_error("invalid_grant", " ".join(form.non_field_errors()) or
                              LoginForm.error_message)  # fmt: skip


@csrf_exempt  # no cookie is read: the client authenticates with its own secret
@require_POST
def token(request):
    """POST /oauth/token: the authorization_code and client_credentials grants, and
    the password grant when OAUTH_PASSWORD_GRANT is on."""
    body, headers = _token_request(request)
    if body is None:
        return _invalid_request("The body is not a JSON object.")
    credentials = None
    data = dict(parse_qsl(body))
    if data.get("grant_type") == PASSWORD_GRANT:
        uid, refused = _password_user(request, data)
        if refused is not None:
            return refused
        credentials = {"checked_user": uid}
    uri = f"{entities.site_base(request)}/oauth/token"
    try:
        answer = server.create_token_response(uri, "POST", body, headers, credentials)
    except ValueError:  # oauthlib refuses a body it cannot decode
        return _invalid_request("The body cannot be decoded.")
    return _oauthlib_answer(*answer)


@csrf_exempt  # as token
@require_POST
def revoke(request):
    """POST /oauth/revoke: revoke a token of the calling app (RFC 7009)."""
    body, headers = _token_request(request)
    if body is None:
        return _invalid_request("The body is not a JSON object.")
    uri = f"{entities.site_base(request)}/oauth/revoke"
    try:
        answer = server.create_revocation_response(uri, "POST", body, headers)
    except ValueError:
        return _invalid_request("The body cannot be decoded.")
    return _oauthlib_answer(*answer)


@require_GET
def server_metadata(request):
    """GET /.well-known/oauth-authorization-server (RFC 8414), as Mastodon 4.3."""
    base = entities.site_base(request)
    return json_response(
        {
            "issuer": f"{base}/",
            "service_documentation": "https://docs.joinmastodon.org/",
            "authorization_endpoint": f"{base}/oauth/authorize",
            "token_endpoint": f"{base}/oauth/token",
            "revocation_endpoint": f"{base}/oauth/revoke",
            "app_registration_endpoint": f"{base}/api/v1/apps",
            "scopes_supported": list(SCOPES),
            "response_types_supported": ["code"],
            "response_modes_supported": ["query"],
            "grant_types_supported": list(grant_types()),
            "token_endpoint_auth_methods_supported": ["client_secret_basic", "client_secret_post"],
            "code_challenge_methods_supported": list(CODE_CHALLENGE_METHODS),
        }
    )


# --- /settings/apps/ -------------------------------------------------------------------------


@require_GET
@login_required
def settings_apps(request):
    """The apps holding tokens of the user, each with a Revoke button."""
    apps = oauth.authorized_apps(get_redis(), request.user.id)
    return render(request, "oauth/settings_apps.html", {"apps": apps})


@require_POST
@login_required
def revoke_app(request, client_id):
    """Revoke every token the user gave app ``client_id``."""
    revoked = account_actions.revoke_app(actor_of(request), client_id)
    if revoked:
        messages.success(request, "The app's access is revoked.")
    return redirect("api:settings_apps")

"""Who calls the client API, and with which rights.

A request is authenticated by its OAuth 2 access token only (``Authorization: Bearer``,
or ``access_token`` in the query as Mastodon allows for streaming), never by a session
cookie: that is what makes the API safe without CSRF tokens and open to every origin
(api/middleware.py). The token, its user and the request's use of THROTTLE_API are read
in one round trip (oauth.token_and_user).

Scopes are Mastodon's: ``read``, ``write``, ``follow``, ``push`` and the granular ones
(``read:statuses``, ``write:favourites``, ...); an endpoint names the granular scope it
needs and a token with it, or with its top-level scope, may call it.
"""

from functools import wraps

from django.conf import settings
from django.http import Http404
from django.views.decorators.csrf import csrf_exempt

from accounts.users import AnonymousUser, SiteUser
from socialsite import actions, throttling
from socialsite.connection import get_redis
from socialsite.repository import filters, oauth, throttles, users

from .responses import error, refusal_response

READ_SCOPES = ("read:accounts", "read:blocks", "read:bookmarks", "read:favourites",
               "read:filters", "read:follows", "read:lists", "read:mutes",
               "read:notifications", "read:search", "read:statuses")  # fmt: skip
WRITE_SCOPES = ("write:accounts", "write:blocks", "write:bookmarks", "write:conversations",
                "write:favourites", "write:filters", "write:follows", "write:lists",
                "write:media", "write:mutes", "write:notifications", "write:reports",
                "write:statuses")  # fmt: skip
# Mastodon's old "follow" scope: the granular scopes it stands for.
FOLLOW_SCOPES = ("read:blocks", "write:blocks", "read:follows", "write:follows",
                 "read:mutes", "write:mutes")  # fmt: skip
SCOPES = ("read", "write", "follow", "push", "profile", *READ_SCOPES, *WRITE_SCOPES)

INVALID_TOKEN = "The access token is invalid"  # noqa: S105 (a message, not a secret)
OUTSIDE_SCOPES = "This action is outside the authorized scopes"


def scope_allows(granted, required):
    """Whether a token with scopes ``granted`` may do what needs scope ``required``."""
    if required in granted:
        return True
    top = required.partition(":")[0]
    if top in granted and top != required:
        return True  # "read" covers "read:statuses"
    return "follow" in granted and required in FOLLOW_SCOPES


def bearer_token(request):
    """The access token the request carries, or None."""
    scheme, _, value = request.META.get("HTTP_AUTHORIZATION", "").partition(" ")
    if scheme.lower() == "bearer" and value.strip():
        return value.strip()
    return request.GET.get("access_token") or None


def api_view(scope=None, methods=("GET",), public=False, user_required=True):
    """Decorator for a client API view.

    ``scope``: the scope the token needs (403 without it). ``public``: the view also
    answers without a token (the instance, public timelines), as an anonymous reader.
    ``user_required``: an app's own token (client_credentials) is refused (422, as
    Mastodon). Every answer carries the X-RateLimit-* headers of THROTTLE_API; a
    refused one is 429. The view runs with ``request.user`` the token's user (a
    SiteUser, or an AnonymousUser), ``request.user_data`` its whole user hash (a dict,
    or None: its bio, pictures, privacy for the Account entity) and
    ``request.api_token`` its record (or None); a
    Http404 it raises is answered ``{"error": "Record not found"}``, an action's refusal
    as responses.refusal_response says.
    """

    def decorator(view):
        @csrf_exempt
        @wraps(view)
        def wrapper(request, *args, **kwargs):
            if request.method not in methods:
                return error(405, f"{request.method} is not allowed here")
            refused, counted = _authenticate(request, scope, public, user_required)
            if refused is None:
                try:
                    refused = view(request, *args, **kwargs)
                except Http404:
                    refused = error(404, "Record not found")
                except actions.Refused as refusal:
                    refused = refusal_response(refusal)
            return throttling.set_headers(refused, counted)

        return wrapper

    return decorator


def _authenticate(request, scope, public, user_required):
    """(an error response or None, the THROTTLE_API use counted or None); sets
    request.user and request.api_token."""
    request.user, request.api_token, request.user_data = AnonymousUser(), None, None
    token = bearer_token(request)
    if token is None:
        if not public:
            return error(401, INVALID_TOKEN), None
        counted = throttling.count(request, "api")  # anonymous: by address
        return _refusal(counted), counted
    limit = settings.THROTTLES.get("api")
    owner = token.partition(".")[0]
    reader, read_along = None, []
    # The user's keyword filters (api/common.filter_statuses) ride along too.
    keyword_filters = filters.Read()
    if owner.isdigit() and int(owner):
        read_along.append(keyword_filters)
        if limit is not None:
            reader = throttles.AccountHitRead("api", *limit, None, guard_key=oauth.token_key(token))
            read_along.append(reader)
    record, data = oauth.token_and_user(get_redis(), token, read_along)
    if record is None:
        return error(401, INVALID_TOKEN), None
    if record["uid"]:
        if data is None:
            return error(401, INVALID_TOKEN), None
        if users.is_hidden(data):
            return error(403, "Your login is currently disabled"), None
        request.user, request.user_data = SiteUser(data), data
        request.keyword_filters = keyword_filters.for_user(record["uid"])
    request.api_token = record
    if scope is not None and not scope_allows(record["scopes"], scope):
        return error(403, OUTSIDE_SCOPES), None
    if user_required and not record["uid"]:
        return error(422, "This method requires an authenticated user"), None
    if reader is not None:
        verdict = reader.verdict_for(record["uid"])
        counted = throttling.Counted("api", verdict) if verdict is not None else None
    else:
        counted = throttling.count(request, "api")  # an app's own token: by address
    return _refusal(counted), counted


def _refusal(counted):
    if throttling.is_refused(counted):
        return error(429, "Too many requests")
    return None

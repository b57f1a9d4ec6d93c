"""OAuth 2 as Mastodon speaks it, on oauthlib: the authorization code grant (with PKCE,
S256 only, as Mastodon: ``pkce_code_challenge_methods ['S256']``), the client
credentials grant and token revocation (RFC 7009). oauthlib owns the protocol; the
request validator below answers its questions from the repository (repository/oauth.py).

Tokens never expire and come without a refresh token (as Mastodon's); the token
response carries Mastodon's ``created_at``. A token is made by the repository
(``<uid>.<random>``, only its digest kept), so oauthlib's own token is replaced in
save_bearer_token, before oauthlib writes the response.
"""

import base64
import binascii
import time
from urllib.parse import unquote

from django.conf import settings
from django.utils.crypto import constant_time_compare
from oauthlib.oauth2 import (
    AuthorizationCodeGrant,
    BearerToken,
    ClientCredentialsGrant,
    RequestValidator,
    ResourceOwnerPasswordCredentialsGrant,
)
from oauthlib.oauth2.rfc6749 import errors
from oauthlib.oauth2.rfc6749.endpoints import (
    AuthorizationEndpoint,
    RevocationEndpoint,
    TokenEndpoint,
)

from accounts.users import SiteUser
from socialsite.connection import get_redis
from socialsite.repository import oauth, users

from .auth import scope_allows

OOB = "urn:ietf:wg:oauth:2.0:oob"
# Mastodon's default when an app or a request names no scope.
DEFAULT_SCOPES = ("read",)
GRANT_TYPES = ("authorization_code", "client_credentials")
# OAuth's password grant, only with settings.OAUTH_PASSWORD_GRANT (api/oauth_views.token
# checks the password as the log-in page does, throttles included, before oauthlib runs).
PASSWORD_GRANT = "password"  # noqa: S105 (a grant's name)


def grant_types():
    """The grants this server takes now."""
    return (*GRANT_TYPES, PASSWORD_GRANT) if settings.OAUTH_PASSWORD_GRANT else GRANT_TYPES


CODE_CHALLENGE_METHODS = ("S256",)


def code_guard(user):
    """What an authorization code of ``user`` (a SiteUser with its password hash)
    keeps to be checked at its exchange: the HMAC of the password hash that sessions
    keep too (accounts/auth.py)."""
    return user.get_session_auth_hash()


class App:
    """An app as oauthlib wants its client: an object with ``client_id``; the rest of
    the repository's record along."""

    def __init__(self, record):
        self.record = record
        self.client_id = record["client_id"]


def _basic_credentials(request):
    """(client_id, client_secret) from an ``Authorization: Basic`` header, or (None, None)."""
    scheme, _, value = (request.headers.get("Authorization") or "").partition(" ")
    if scheme.lower() != "basic":
        return None, None
    try:
        decoded = base64.b64decode(value.strip(), validate=True).decode()
    except (binascii.Error, UnicodeDecodeError):
        return None, None
    client_id, colon, secret = decoded.partition(":")
    if not colon:
        return None, None
    return unquote(client_id), unquote(secret)  # RFC 6749 2.3.1: form-encoded first


class SiteRequestValidator(RequestValidator):
    """oauthlib's questions, answered from Redis."""

    def _app(self, client_id, request):
        """The app ``client_id`` (read once per request), or None."""
        cached = getattr(request, "_site_app", None)
        if cached is not None and cached.client_id == client_id:
            return cached
        record = oauth.get_app(get_redis(), client_id) if client_id else None
        app = App(record) if record else None
        request._site_app = app
        return app

    # --- clients -----------------------------------------------------------------------

    def client_authentication_required(self, request, *args, **kwargs):
        return True  # every app has a secret (Mastodon's are confidential clients)

    def authenticate_client(self, request, *args, **kwargs):
        client_id, secret = request.client_id, request.client_secret
        if not client_id or not secret:
            client_id, secret = _basic_credentials(request)
        app = self._app(client_id, request)
        if app is None or not oauth.client_secret_matches(app.record, secret):
            return False
        request.client, request.client_id = app, app.client_id
        return True

    def authenticate_client_id(self, client_id, request, *args, **kwargs):
        return False  # never called: every client authenticates

    def validate_client_id(self, client_id, request, *args, **kwargs):
        app = self._app(client_id, request)
        if app is None:
            return False
        request.client = app
        return True

    # --- redirect URIs, response types, grant types, scopes ------------------------------

    def validate_redirect_uri(self, client_id, redirect_uri, request, *args, **kwargs):
        app = self._app(client_id, request)
        return app is not None and redirect_uri in app.record["redirect_uris"]

    def get_default_redirect_uri(self, client_id, request, *args, **kwargs):
        app = self._app(client_id, request)
        if app is not None and len(app.record["redirect_uris"]) == 1:
            return app.record["redirect_uris"][0]
        return None  # several: the request must say which

    def validate_response_type(self, client_id, response_type, client, request, *args, **kwargs):
        return response_type == "code"

    def validate_grant_type(self, client_id, grant_type, client, request, *args, **kwargs):
        return grant_type in grant_types()

    def validate_user(self, username, password, client, request, *args, **kwargs):
        """The password grant's user: the one the token view checked the password of
        (``checked_user``, handed in as a credential), never anyone else."""
        checked = (getattr(request, "extra_credentials", None) or {}).get("checked_user")
        if checked is None or not settings.OAUTH_PASSWORD_GRANT:
            return False
        request.user = checked
        return True

    def get_default_scopes(self, client_id, request, *args, **kwargs):
        return list(DEFAULT_SCOPES)

    def validate_scopes(self, client_id, scopes, client, request, *args, **kwargs):
        """Every scope asked for is one the app registered (or is covered by one:
        ``read`` covers ``read:statuses``)."""
        app = self._app(client_id, request)
        if app is None or not scopes:
            return False
        return all(scope_allows(app.record["scopes"], scope) for scope in scopes)

    def is_pkce_required(self, client_id, request):
        return False  # optional, as Mastodon: most apps send no challenge

    # --- authorization codes -------------------------------------------------------------

    def save_authorization_code(self, client_id, code, request, *args, **kwargs):
        oauth.store_code(
            get_redis(),
            code["code"],
            client_id,
            request.user,
            "" if request.using_default_redirect_uri else request.redirect_uri,
            request.scopes,
            request.code_challenge or "",
            request.code_challenge_method if request.code_challenge else "",
            guard=request.guard,
        )

    def validate_code(self, client_id, code, client, request, *args, **kwargs):
        """Take the code: it works once, even when the rest of the request then fails
        (a wrong verifier or redirect URI spends it: RFC 6749 4.1.2). A code whose user
        changed their password since, or is suspended or leaving, gives nothing: what
        revokes tokens ends the codes not yet exchanged too."""
        r = get_redis()
        record = oauth.take_code(r, code)
        if record is None:
            oauth.revoke_spent_code(r, code)  # used again: its token is revoked
            return False
        if record["client_id"] != client_id:
            return False
        data, password_hash = users.get_user_and_password_hash(r, record["uid"])
        if data is None or users.is_hidden(data):
            return False
        if not constant_time_compare(record["guard"], code_guard(SiteUser(data, password_hash))):
            return False
        request.user = record["uid"]
        request.scopes = record["scopes"]
        request.code_record = record
        return True

    def get_code_challenge(self, code, request):
        return request.code_record["challenge"] or None

    def get_code_challenge_method(self, code, request):
        return request.code_record["challenge_method"] or None

    def confirm_redirect_uri(self, client_id, code, redirect_uri, client, request, *args, **kwargs):
        """The redirect URI the authorization named, if it named one (RFC 6749 4.1.3);
        else any of the app's."""
        named = request.code_record["redirect_uri"]
        if named:
            return redirect_uri == named
        return redirect_uri is None or redirect_uri in client.record["redirect_uris"]

    def invalidate_authorization_code(self, client_id, code, request, *args, **kwargs):
        pass  # validate_code took it

    # --- tokens ----------------------------------------------------------------------------

    def save_bearer_token(self, token, request, *args, **kwargs):
        """Issue the repository's token in place of oauthlib's (see the module's
        docstring); an app's own token (client credentials) acts for user 0. The code
        it was given for is noted, so that its reuse revokes the token."""
        r = get_redis()
        token["access_token"] = oauth.issue_token(
            r, request.client_id, request.scopes, uid=request.user or 0
        )
        if request.grant_type == "authorization_code":
            oauth.note_code_spent(r, request.code, token["access_token"])
        token.pop("expires_in", None)
        token.pop("checked_user", None)  # the password grant's credential, not the app's
        token["created_at"] = int(time.time())

    def revoke_token(self, token, token_type_hint, request, *args, **kwargs):
        """Revoke ``token`` if it is the calling app's; any other answers the same
        (RFC 7009 2.2: an unknown token is no error)."""
        r = get_redis()
        record = oauth.token_info(r, token)
        if record is not None and record["client_id"] == request.client_id:
            oauth.revoke_token(r, token)


def _s256_only(request):
    """Refuse a PKCE challenge by any method but S256 (oauthlib takes "plain" too, and
    a challenge without a method as plain): a custom pre_auth validator."""
    if request.code_challenge is not None:
        if (request.code_challenge_method or "plain") not in CODE_CHALLENGE_METHODS:
            raise errors.UnsupportedCodeChallengeMethodError(request=request)
    return {}


def _placeholder_token(request):
    return "issued-in-save-bearer-token"  # noqa: S105 (replaced: SiteRequestValidator)


class SiteServer(AuthorizationEndpoint, TokenEndpoint, RevocationEndpoint):
    """The site's OAuth 2 server: /oauth/authorize, /oauth/token, /oauth/revoke."""

    def __init__(self, validator):
        code_grant = AuthorizationCodeGrant(validator, refresh_token=False, pre_auth=[_s256_only])
        credentials_grant = ClientCredentialsGrant(validator)
        password_grant = ResourceOwnerPasswordCredentialsGrant(validator, refresh_token=False)
        bearer = BearerToken(validator, token_generator=_placeholder_token)
        AuthorizationEndpoint.__init__(
            self,
            default_response_type="code",
            response_types={"code": code_grant},
            default_token_type=bearer,
        )
        TokenEndpoint.__init__(
            self,
            default_grant_type="authorization_code",
            grant_types={
                "authorization_code": code_grant,
                "client_credentials": credentials_grant,
                PASSWORD_GRANT: password_grant,
            },
            default_token_type=bearer,
        )
        RevocationEndpoint.__init__(self, validator, supported_token_types=("access_token",))


server = SiteServer(SiteRequestValidator())

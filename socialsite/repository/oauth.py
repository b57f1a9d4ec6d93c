"""OAuth 2 for the client API: registered apps, authorization codes, access tokens.

Secrets are kept only as their SHA-256 digests (a client secret, a code and a token are
256-bit random strings, so a plain digest cannot be reversed or guessed; a slow hash
would only slow every API call). An access token names its user: ``<uid>.<random>``,
so its key is put in that user's slot (keys.oauth_token) and read in the same round
trip as the user's hash (token_and_user). An app's own token (client_credentials)
names user 0.

The protocol itself (grant types, PKCE, redirect URIs, scopes) is oauthlib's, driven by
the site's request validator; this module only stores and finds things.
"""

import hashlib
import secrets
import time

from . import eviction, keys, limits, scripts, users


def _digest(secret):
    return hashlib.sha256(secret.encode()).hexdigest()


# --- apps ----------------------------------------------------------------------------


def create_app(r, name, redirect_uris, scopes, website=""):
    """Register an app: (client_id, client_secret). ``redirect_uris`` a list of URIs,
    ``scopes`` a list of scope names."""
    client_id = secrets.token_urlsafe(32)
    client_secret = secrets.token_urlsafe(32)
    r.hset(
        keys.oauth_app(client_id),
        mapping={
            "name": name,
            "website": website or "",
            "redirect_uris": "\n".join(redirect_uris),
            "scopes": " ".join(scopes),
            "secret": _digest(client_secret),
            "created": f"{time.time():.3f}",
        },
    )
    return client_id, client_secret


def get_app(r, client_id):
    """The app ``client_id`` as a dict (name, website, redirect_uris and scopes as
    lists, created), or None."""
    data = r.hgetall(keys.oauth_app(client_id)) if client_id else None
    if not data:
        return None
    return _decode_app(client_id, data)


def _decode_app(client_id, data):
    return {
        "client_id": client_id,
        "name": data.get("name", ""),
        "website": data.get("website", ""),
        "redirect_uris": [uri for uri in data.get("redirect_uris", "").split("\n") if uri],
        "scopes": data.get("scopes", "").split(),
        "secret": data.get("secret", ""),
        "created": float(data.get("created") or 0),
    }


def client_secret_matches(app, client_secret):
    """Whether ``client_secret`` is the secret of ``app`` (a get_app dict)."""
    return bool(client_secret) and secrets.compare_digest(app["secret"], _digest(client_secret))


# --- authorization codes ---------------------------------------------------------------


def store_code(
    r, code, client_id, uid, redirect_uri, scopes, challenge="", challenge_method="", guard=""
):
    """Keep authorization code ``code`` for limits.OAUTH_CODE_SECONDS. ``guard``: what
    the exchange compares with the user's state then (a value derived from the password
    hash), so that a password change ends the codes given before it as it ends tokens."""
    key = keys.oauth_code(_digest(code))
    pipe = r.pipeline(transaction=True)  # one key
    pipe.hset(
        key,
        mapping={
            "client_id": client_id,
            "uid": uid,
            "redirect_uri": redirect_uri or "",
            "scopes": " ".join(scopes),
            "challenge": challenge or "",
            "challenge_method": challenge_method or "",
            "guard": guard or "",
        },
    )
    pipe.expire(key, limits.OAUTH_CODE_SECONDS)
    pipe.execute()


def peek_code(r, code):
    """Authorization code ``code``'s record (client_id, uid as int, redirect_uri,
    scopes as a list, challenge, challenge_method, guard), or None if unknown or
    expired."""
    return _decode_code(r.hgetall(keys.oauth_code(_digest(code))))


def take_code(r, code):
    """Read and delete authorization code ``code`` at once: its record (as peek_code)
    for the one caller that took it, None for every other (a code works once)."""
    key = keys.oauth_code(_digest(code))
    pipe = r.pipeline(transaction=True)  # MULTI on one key: nobody reads it in between
    pipe.hgetall(key)
    pipe.delete(key)
    data, deleted = pipe.execute()
    return _decode_code(data) if deleted else None


def note_code_spent(r, code, token):
    """Note that authorization code ``code`` gave access token ``token``: for
    revoke_spent_code, until the code would have expired."""
    key = keys.oauth_spent_code(_digest(code))
    pipe = r.pipeline(transaction=True)  # one key
    pipe.hset(key, mapping={"uid": int(token.partition(".")[0]), "token": _digest(token)})
    pipe.expire(key, limits.OAUTH_CODE_SECONDS)
    pipe.execute()


def revoke_spent_code(r, code):
    """Authorization code ``code`` is used again: revoke the token its first use gave
    (RFC 6749 4.1.2: someone else has the code). Whether there was one."""
    noted = r.hgetall(keys.oauth_spent_code(_digest(code)))
    if not noted:
        return False
    uid = int(noted["uid"])
    pipe = r.pipeline(transaction=False)  # the token and its user's list: one slot
    pipe.delete(keys.oauth_token(uid, noted["token"]))
    if uid:
        pipe.hdel(keys.oauth_user_tokens(uid), noted["token"])
    pipe.execute()
    return True


def _decode_code(data):
    if not data:
        return None
    return {
        "client_id": data["client_id"],
        "uid": int(data["uid"]),
        "redirect_uri": data.get("redirect_uri", ""),
        "scopes": data.get("scopes", "").split(),
        "challenge": data.get("challenge", ""),
        "challenge_method": data.get("challenge_method", ""),
        "guard": data.get("guard", ""),
    }


# --- access tokens ---------------------------------------------------------------------


def _token_key(token):
    """The key of access token ``token``, or None for a string that is no token."""
    uid, dot, _ = token.partition(".")
    if not dot or not uid.isdigit() or len(token) > 200:
        return None
    return keys.oauth_token(int(uid), _digest(token))


def issue_token(r, client_id, scopes, uid=0):
    """A new access token for app ``client_id`` with ``scopes`` (a list), acting for
    user ``uid`` (0: the app itself). Returns the token; only its digest is kept."""
    uid = int(uid)
    token = f"{uid}.{secrets.token_urlsafe(32)}"
    digest = _digest(token)
    pipe = r.pipeline(transaction=False)  # the token and its user's list: one slot
    pipe.hset(
        keys.oauth_token(uid, digest),
        mapping={
            "uid": uid,
            "client_id": client_id,
            "scopes": " ".join(scopes),
            "created": f"{time.time():.3f}",
        },
    )
    if uid:
        pipe.hset(keys.oauth_user_tokens(uid), digest, client_id)
    pipe.execute()
    return token


def _decode_token(data):
    if not data:
        return None
    return {
        "uid": int(data["uid"]),
        "client_id": data["client_id"],
        "scopes": data.get("scopes", "").split(),
        "created": float(data.get("created") or 0),
    }


def token_info(r, token):
    """Access token ``token``'s record (uid, client_id, scopes, created), or None."""
    key = _token_key(token or "")
    return _decode_token(r.hgetall(key)) if key else None


def token_key(token):
    """The key of access token ``token`` (a guard for throttles.AccountHitRead), or None
    for a string that is no token."""
    return _token_key(token or "")


def token_and_user(r, token, read_along=()):
    """(token record, the user's public hash) in one round trip, both in the user's
    slot; (None, None) for an unknown token; (record, None) for an app's own token or a
    user who is gone. ``read_along``: objects with ``queue(pipe, uid)``, ``replies``
    and ``take(uid, replies)`` (throttles.AccountHitRead, filters.Read) whose reads of
    the user's keys ride in the same round trip, as sessions.load_with_user's. The user
    is noted seen today in the same round trip (eviction.queue_seen)."""
    key = _token_key(token or "")
    if key is None:
        return None, None
    uid = int(token.partition(".")[0])

    def fill(pipe):
        pipe.hgetall(key)
        pipe.hgetall(keys.user(uid))
        for reader in read_along:
            reader.queue(pipe, uid)
        if uid:
            noted[0] = eviction.queue_seen(pipe, uid)

    noted = [0]
    data, user, *along = scripts.run_pipeline(r, fill)
    if noted[0]:
        along = along[: -noted[0]]
    for reader in read_along:
        reader.take(uid, along[: reader.replies])
        along = along[reader.replies :]
    record = _decode_token(data)
    if record is None:
        return None, None
    return record, users.decode_user(user) if uid else None


def revoke_token(r, token):
    """Revoke access token ``token``. Revoking an unknown token does nothing (RFC 7009:
    the answer is the same)."""
    key = _token_key(token or "")
    if key is None:
        return
    uid = int(token.partition(".")[0])
    pipe = r.pipeline(transaction=False)
    pipe.delete(key)
    if uid:
        pipe.hdel(keys.oauth_user_tokens(uid), _digest(token))
    pipe.execute()


def authorized_apps(r, uid):
    """The apps holding tokens of user ``uid``: a list of get_app dicts (secret left
    out) with ``tokens`` (how many), oldest app first. Two round trips."""
    by_app = {}
    for client_id in r.hvals(keys.oauth_user_tokens(uid)):
        by_app[client_id] = by_app.get(client_id, 0) + 1
    if not by_app:
        return []
    pipe = r.pipeline(transaction=False)
    for client_id in by_app:
        pipe.hgetall(keys.oauth_app(client_id))
    apps = []
    for client_id, data in zip(by_app, pipe.execute(), strict=True):
        app = _decode_app(client_id, data) if data else _decode_app(client_id, {"name": "?"})
        app.pop("secret")
        app["tokens"] = by_app[client_id]
        apps.append(app)
    return sorted(apps, key=lambda app: app["created"])


def revoke_user_tokens(r, uid, client_id=None):
    """Revoke the tokens of user ``uid``: all of them, or those of app ``client_id``.
    Two round trips; repeating it is harmless. Returns how many were revoked."""
    held = r.hgetall(keys.oauth_user_tokens(uid))
    digests = [d for d, app in held.items() if client_id is None or app == client_id]
    if not digests:
        return 0
    pipe = r.pipeline(transaction=False)  # all in the user's slot
    for digest in digests:
        pipe.delete(keys.oauth_token(uid, digest))
    pipe.hdel(keys.oauth_user_tokens(uid), *digests)
    pipe.execute()
    return len(digests)

"""Logging in and out without ORM users, keeping Django's safeguards.

Modelled on django.contrib.auth's login(), logout() and get_user(): the session key is
cycled at login (no session fixation), the CSRF token rotated, the session flushed at
logout, and a hash derived from the password hash is kept in the session so that a
password change ends every other session of that user.
"""

from django.contrib.auth.hashers import check_password, make_password
from django.middleware.csrf import rotate_token
from django.utils.crypto import constant_time_compare

from socialsite.acting import actor_of
from socialsite.actions import Actor
from socialsite.actions import accounts as account_actions
from socialsite.connection import get_redis
from socialsite.repository import events, users

from .session_store import USER_ID_FIELD
from .users import AnonymousUser, SiteUser

SESSION_KEY = USER_ID_FIELD
HASH_SESSION_KEY = "_auth_user_hash"


def authenticate(login, password):
    """The user with this login (any case) and password, or None.

    For an unknown login the password is hashed anyway, so the answer takes as long
    as for a known one and timing does not reveal who has an account.
    """
    r = get_redis()
    uid = users.get_user_id(r, login)
    user, password_hash = users.get_user_and_password_hash(r, uid) if uid else (None, None)
    if user is None or not password_hash:
        make_password(password)
        return None

    def upgrade(raw_password):
        # check_password calls this when the stored hash uses outdated parameters.
        nonlocal password_hash
        password_hash = make_password(raw_password)
        account_actions.rehash_password(Actor(uid=uid, login=login), password_hash)

    if not check_password(password, password_hash, setter=upgrade):
        return None
    return SiteUser(user, password_hash)


def load_user(uid):
    """The SiteUser with id ``uid`` (with its password hash), or None."""
    data, password_hash = users.get_user_and_password_hash(get_redis(), uid)
    return SiteUser(data, password_hash) if data else None


def login(request, user):
    """Attach ``user`` to the request and its session, as django.contrib.auth.login."""
    session_auth_hash = user.get_session_auth_hash()
    anonymous_session = SESSION_KEY not in request.session
    if not anonymous_session:
        same_user = request.session[SESSION_KEY] == user.id
        same_hash = constant_time_compare(
            request.session.get(HASH_SESSION_KEY, ""), session_auth_hash
        )
        if not (same_user and same_hash):
            # Someone else's session, or a stale one: start from nothing (a new key).
            request.session.flush()
    request.session[SESSION_KEY] = user.id
    request.session[HASH_SESSION_KEY] = session_auth_hash
    if anonymous_session:
        # After the user is in, so that the new key names them (session_store).
        request.session.cycle_key()
    request.user = user
    rotate_token(request)


def logout(request):
    """Remove every trace of the user from the request and the session; the live pages
    of this session end at once (the stream server checks their sessions again)."""
    uid = request.session.get(SESSION_KEY)
    request.session.flush()
    request.user = AnonymousUser()
    if uid is not None:
        events.publish_relations_changed(get_redis(), [uid])


def get_user(request):
    """The logged-in user of this request, or an AnonymousUser.

    No Redis round trip of its own when the session's key names the user (the session
    store read the user with the session), else one. A session whose password hash no
    longer matches (the password changed) is flushed.
    """
    return user_from_session(request.session)


def user_from_session(session):
    """The user logged in to ``session`` (a SessionStore), or an AnonymousUser.

    What get_user does for a request, for code that has a session but no request:
    the streaming server authenticates the live pages' connections with it.
    """
    uid = session.get(SESSION_KEY)
    if uid is None:
        return AnonymousUser()
    loaded = getattr(session, "loaded_user", None)  # read with the session: session_store
    if loaded and loaded[0] == uid:
        user = SiteUser(loaded[1], loaded[2]) if loaded[1] else None
    else:
        user = load_user(uid)
    if user is None or user.hidden:
        # Gone, suspended or being deleted: no session of theirs stays logged in.
        session.flush()
        return AnonymousUser()
    if not constant_time_compare(session.get(HASH_SESSION_KEY, ""), user.get_session_auth_hash()):
        session.flush()
        return AnonymousUser()
    unread = getattr(session, "unread", None)  # read with the session: session_store
    if unread is not None:
        user.notifications = unread.for_user(uid)
    direct_unread = getattr(session, "direct_unread", None)  # read with the session too
    if direct_unread is not None:
        user.direct_unread = direct_unread.for_user(uid)
    return user


def change_password(request, user, new_password):
    """Set a new password (actions.accounts.change_password: it revokes every device
    cookie of the account, the caller giving this browser a new one, and every app's
    access token); keep this session logged in and end all the others."""
    password_hash = account_actions.change_password(actor_of(request), new_password)
    user.password_changed(password_hash)
    request.session.cycle_key()
    request.session[HASH_SESSION_KEY] = user.get_session_auth_hash()
    request.user = user
    # The other sessions' open live pages end at once (their password hash is stale).
    events.publish_relations_changed(get_redis(), [user.id])
    return user

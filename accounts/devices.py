"""Device cookies: a browser that has logged in to an account is let in past the
lock-out of its login name (OWASP, "Slow Down Online Guessing Attacks with Device
Cookies"; docs/accounts.md).

Anyone can fail a login name's log-ins until the per-name throttle refuses it for an
hour ("login_failures"). A successful log-in or sign-up therefore leaves a cookie in the
browser, signed with the site's key, that names the login, the account, a random nonce
and the account's device generation (repository/devices.py). A log-in attempt for that
login from that browser is counted against the cookie ("device_failures") instead of
against the name, so the owner gets in however many strangers failed; the cookie is
still locked out after its own failures, and the per-address throttle still applies.
A password change (or reset) revokes every cookie of the account.

The cookie lasts as long as a login may (SESSION_COOKIE_AGE), is HttpOnly, SameSite=Lax,
Secure as the session cookie is, and is sent only to the log-in page: no other request
carries it.
"""

import secrets

from django.conf import settings
from django.core import signing

from socialsite.connection import get_redis
from socialsite.repository import devices

COOKIE_NAME = "device"
_SALT = "accounts.devices"


def _signer():
    return signing.TimestampSigner(salt=_SALT)


def recognised(request, login):
    """(user id, nonce) of the request's device cookie if it is good for ``login`` (any
    case): signed by this site, no older than SESSION_COOKIE_AGE, issued for this login
    and naming the account's present device generation; else None. A round trip only
    for a cookie that passes the first three."""
    value = request.COOKIES.get(COOKIE_NAME)
    if not value:
        return None
    try:
        data = _signer().unsign_object(value, max_age=settings.SESSION_COOKIE_AGE)
    except (signing.BadSignature, ValueError):
        return None
    if not (
        isinstance(data, dict)
        and data.get("login") == login.lower()
        and type(data.get("uid")) is int
        and isinstance(data.get("nonce"), str)
        and isinstance(data.get("generation"), str)
    ):
        return None
    if devices.generation(get_redis(), data["uid"]) != data["generation"]:
        return None  # revoked by a password change, or the account is gone
    return data["uid"], data["nonce"]


def remember(response, user):
    """Give the browser ``response`` goes to a new device cookie of ``user`` (after a
    successful log-in, a sign-up, a password change); ``response``. One round trip."""
    generation = devices.generation(get_redis(), user.id)
    if generation is None:
        return response
    value = _signer().sign_object(
        {
            "login": user.login.lower(),
            "uid": user.id,
            "nonce": secrets.token_urlsafe(16),
            "generation": generation,
        }
    )
    response.set_cookie(
        COOKIE_NAME,
        value,
        max_age=settings.SESSION_COOKIE_AGE,
        path=settings.LOGIN_URL,
        secure=settings.SESSION_COOKIE_SECURE,
        httponly=True,
        samesite="Lax",
    )
    return response

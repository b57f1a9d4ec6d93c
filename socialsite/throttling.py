"""Throttles on the site's actions: whom each one counts, the 429 answer, and the
decorator that puts one on a view in one line (docs/operating.md, "Throttles").

After Mastodon's (config/initializers/rack_attack.rb): log-in attempts and sign-ups per
client address, failed log-ins per attempted login name (or, from a browser that logged
in to that account before, per device cookie: docs/accounts.md), the rest per account. The
numbers are settings (settings.THROTTLES: (limit, period in seconds), or None for
off); what each counts is THROTTLE_RULES below; the counting is the repository's
(repository/throttles.py: one key per counter, one script call per use, fixed windows).

The client address is REMOTE_ADDR, or with BEHIND_PROXY the last address of
X-Forwarded-For, the one the proxy appended (the ones before it are whatever the client
sent). IPv6 addresses count per /64, the block one subscriber gets. Loopback clients
are spared the per-address and log-in throttles unless BEHIND_PROXY, where every
request comes from the proxy's loopback address (docs/decisions/0026).

A throttled request is answered 429 with Retry-After and X-RateLimit-Limit,
-Remaining and -Reset (as Mastodon: -Reset is the window's end in ISO 8601), on a page
that says what was limited and when to try again; a form is shown again with what was
sent and the reason as its error. Pages that are not throttled cost nothing more.
"""

import datetime
import ipaddress
import math
from dataclasses import dataclass
from functools import wraps
from typing import TypeGuard

from django.conf import settings
from django.shortcuts import render

from socialsite.connection import get_redis
from socialsite.repository import throttles


@dataclass(frozen=True)
class Rule:
    """Whom a throttle counts: ``per`` "address", "login" (the attempted login name),
    "device" (a device cookie) or "account" (the logged-in user; an anonymous request
    is counted by address if
    ``anonymous_by_address``, else not at all); whether loopback clients are spared
    (without BEHIND_PROXY); and what it limits, for the page ("Too many ...")."""

    per: str
    spares_loopback: bool
    what: str
    anonymous_by_address: bool = False


THROTTLE_RULES = {
    "login": Rule("address", True, "log-in attempts from your network"),
    "login_failures": Rule("login", True, "failed log-ins for this login name"),
    # Instead of login_failures, for a browser with a device cookie of that login
    # (accounts/devices.py): the lock-out of the name does not stop its owner.
    "device_failures": Rule("device", True, "failed log-ins from this browser"),
    "signup": Rule("address", True, "sign-ups from your network"),
    "password_reset": Rule("address", True, "password reset requests from your network"),
    # Counted per address asked for (given as ``login``), whoever asks.
    "password_reset_target": Rule("login", False, "password reset requests for this address"),
    "email": Rule("account", False, "verification mails and changes of address"),
    "password_change": Rule("account", True, "attempts to change your password"),
    "statuses": Rule("account", False, "statuses posted"),
    "follows": Rule("account", False, "follows"),
    "deletions": Rule("account", False, "deletions"),
    "reports": Rule("account", False, "reports"),
    "search": Rule("account", False, "searches", anonymous_by_address=True),
    "autocomplete": Rule("account", False, "autocomplete requests", anonymous_by_address=True),
    "likes": Rule("account", False, "likes and unlikes"),
    "reposts": Rule("account", False, "reposts"),
    "messages": Rule("account", False, "direct messages sent"),
    "conversations": Rule("account", False, "conversations started"),
    # Each picture uploaded counts one (timeline/profile_settings.py).
    "media": Rule("account", False, "pictures uploaded"),
    # Groups: groups made, and joins and requests to join.
    "communities": Rule("account", False, "groups created"),
    "joins": Rule("account", False, "groups joined"),
    # Every client API request (api/auth.py): per account, an app's own token by address.
    "api": Rule("account", False, "API requests", anonymous_by_address=True),
}


@dataclass(frozen=True)
class Counted:
    """One use counted (or refused) by throttle ``name``: its repository Verdict and
    what a response says about it."""

    name: str
    verdict: throttles.Verdict

    def __post_init__(self):
        if not self.verdict.allowed:
            # Imported here: the stream server reads client addresses from this module,
            # and its metrics are not the pages'.
            from socialsite import metrics

            metrics.throttle_refused(self.name)

    @property
    def allowed(self):
        return self.verdict.allowed

    @property
    def message(self):
        """What was limited and when to try again, for the page."""
        verdict = self.verdict
        reset = datetime.datetime.fromtimestamp(verdict.reset_at, datetime.UTC)
        return (
            f"Too many {THROTTLE_RULES[self.name].what}: at most {verdict.limit} in"
            f" {duration(verdict.period_ms / 1000)}. Try again in"
            f" {duration(verdict.retry_after())}, at {reset:%H:%M} UTC."
        )

    def headers(self):
        """The X-RateLimit-* headers, and Retry-After when refused."""
        verdict = self.verdict
        reset = datetime.datetime.fromtimestamp(verdict.reset_at, datetime.UTC)
        headers = {
            "X-RateLimit-Limit": str(verdict.limit),
            "X-RateLimit-Remaining": str(verdict.remaining),
            "X-RateLimit-Reset": reset.isoformat(timespec="milliseconds").replace("+00:00", "Z"),
        }
        if not verdict.allowed:
            headers["Retry-After"] = str(verdict.retry_after())
        return headers


def duration(seconds):
    """'5 minutes', '3 hours', '1 hour 10 minutes', '40 seconds': rounded up."""
    seconds = math.ceil(seconds)
    if seconds < 60:
        return _plural(seconds, "second")
    minutes = math.ceil(seconds / 60)
    hours, minutes = divmod(minutes, 60)
    if not hours:
        return _plural(minutes, "minute")
    return _plural(hours, "hour") + (f" {_plural(minutes, 'minute')}" if minutes else "")


def _plural(number, unit):
    return f"{number} {unit}" if number == 1 else f"{number} {unit}s"


# --- whom a request counts as --------------------------------------------------------


def parse_address(text):
    """An ipaddress object for an address as REMOTE_ADDR or X-Forwarded-For give it
    (also "1.2.3.4:5678" and "[2001:db8::1]:443"); IPv4-mapped IPv6 as IPv4; None if
    it is no address."""
    text = text.strip()
    if text.startswith("[") and "]" in text:
        text = text[1 : text.index("]")]
    elif text.count(":") == 1:
        text = text.partition(":")[0]
    try:
        address = ipaddress.ip_address(text)
    except ValueError:
        return None
    if address.version == 6 and address.ipv4_mapped:
        return address.ipv4_mapped
    return address


def client_address(request):
    """The client's address: REMOTE_ADDR, or with BEHIND_PROXY the last address of
    X-Forwarded-For if it has one; None if neither is an address."""
    return address_from(
        request.META.get("REMOTE_ADDR", ""), request.META.get("HTTP_X_FORWARDED_FOR", "")
    )


def address_from(peer, forwarded_for):
    """The client's address from the connection's peer address and the request's
    X-Forwarded-For header (the pages' client_address, the stream server's): the peer,
    or with BEHIND_PROXY the last address of X-Forwarded-For if it has one; None if
    neither is an address."""
    remote = parse_address(peer or "")
    if settings.BEHIND_PROXY:
        return parse_address((forwarded_for or "").rpartition(",")[2]) or remote
    return remote


def address_bucket(address):
    """What the per-address throttles count an address as: an IPv4 address as it is,
    an IPv6 address as its /64 network (one subscriber's block), "unknown" for None."""
    if address is None:
        return "unknown"
    if address.version == 6:
        return str(ipaddress.IPv6Network((int(address) >> 64 << 64, 64)))
    return str(address)


def spared(request):
    """Whether the throttles that spare loopback spare this request: a loopback client,
    without BEHIND_PROXY."""
    if settings.BEHIND_PROXY:
        return False
    address = client_address(request)
    return address is not None and address.is_loopback


# --- counting ------------------------------------------------------------------------


def count(request, name, login=None, device=None):
    """Count one use of throttle ``name`` for this request now (one round trip, or
    none: see below); a Counted, or None if nothing is counted (the throttle is off,
    the request is spared, or an anonymous request where the throttle counts only
    accounts). ``login``: the attempted login name, for a per-login-name throttle;
    ``device``: (user id, nonce) of the request's good device cookie, for a
    per-device throttle.

    A logged-in request whose session is not read yet has its account's use counted
    in the session's own round trip (throttles.AccountHitRead).
    """
    limit = settings.THROTTLES.get(name)
    rule = THROTTLE_RULES[name]
    if limit is None or (rule.spares_loopback and spared(request)):
        return None
    if rule.per == "account":
        return _count_account(request, name, rule, limit)
    if rule.per == "login":
        counter = throttles.login_counter(name, login)
    elif rule.per == "device":
        counter = throttles.device_counter(name, *device)
    else:
        counter = _address_counter(request, name)
        if counter is None:
            return None
    return Counted(name, throttles.hit(get_redis(), counter, *limit))


def _address_counter(request, name):
    """The request's counter of per-address throttle ``name``; None if it is spared."""
    address = client_address(request)
    if address is not None and address.is_loopback and not settings.BEHIND_PROXY:
        return None
    return throttles.address_counter(name, address_bucket(address))


def _count_account(request, name, rule, limit):
    reader = None
    session = request.session
    if hasattr(session, "read_along") and session.session_key:
        reader = throttles.AccountHitRead(name, *limit, session.session_key)
        session.read_along(reader)  # nothing if the session is read already
    user = request.user
    if not user.is_authenticated:
        if not rule.anonymous_by_address:
            return None
        counter = _address_counter(request, name)
        return Counted(name, throttles.hit(get_redis(), counter, *limit)) if counter else None
    verdict = reader.verdict_for(user.id) if reader is not None else None
    if verdict is None:
        counter = throttles.account_counter(user.id, name)
        verdict = throttles.hit(get_redis(), counter, *limit)
    return Counted(name, verdict)


# Where a request keeps the throttle uses counted for it so far, by throttle name.
COUNTED_ATTRIBUTE = "throttles_counted"


def counted_for(request):
    """{throttle name: Counted or None} of the uses counted for ``request`` so far."""
    if not hasattr(request, COUNTED_ATTRIBUTE):
        setattr(request, COUNTED_ATTRIBUTE, {})
    return getattr(request, COUNTED_ATTRIBUTE)


def refund(counted):
    """Give back a use ``count`` counted, in its window (a log-in that succeeded is no
    failed log-in). Nothing for None or a refused use."""
    if counted is not None and counted.allowed:
        throttles.refund(get_redis(), counted.verdict)


def is_refused(counted: Counted | None) -> TypeGuard[Counted]:
    """Whether ``counted`` (a Counted, or None for nothing counted) refuses the request."""
    return counted is not None and not counted.allowed


# --- responses -----------------------------------------------------------------------


def set_headers(response, counted):
    """Put the X-RateLimit-* headers of ``counted`` (if any) on ``response``."""
    if counted is not None:
        for header, value in counted.headers().items():
            response[header] = value
    return response


def too_many_requests(request, counted, template="429.html", context=None):
    """The 429 answer to a request ``counted`` refused: ``template`` (the request's own
    form, shown again with what was sent) or a page saying what was limited and when
    to try again; the rate-limit headers and Retry-After."""
    context = {"refusal": counted, **(context or {})}
    response = render(request, template, context, status=429)
    response["Cache-Control"] = "no-store"
    return set_headers(response, counted)


def throttle(name, methods=("POST",), refused=None):
    """Decorator: each request of ``methods`` to the view counts one use of throttle
    ``name`` before the view runs; a refused one is answered by ``refused(request,
    counted, *args, **kwargs)`` (a form view's own 429 page: too_many_requests with
    its template), else the plain 429 page. Responses carry the X-RateLimit-* headers.

    Put it above login_required: the account's use is then counted in the round trip
    that reads the session, at no cost of its own. An anonymous request of a throttle
    that counts accounts only goes to the view uncounted (login_required sends it to
    log in).
    """

    def decorator(view):
        @wraps(view)
        def wrapper(request, *args, **kwargs):
            if request.method not in methods:
                return view(request, *args, **kwargs)
            counted = count(request, name)
            # Kept for the request's Actor (socialsite/acting.py): the action that
            # names this throttle finds its use counted already.
            counted_for(request)[name] = counted
            if is_refused(counted):
                if refused is None:
                    return too_many_requests(request, counted)
                return set_headers(refused(request, counted, *args, **kwargs), counted)
            return set_headers(view(request, *args, **kwargs), counted)

        return wrapper

    return decorator

"""Throttles: how many times something may be done in a period, counted in Redis.

One counter per throttle and subject (an account, a client address, an attempted login
name, a device cookie), each one key (keys.account_throttle, address_throttle,
login_throttle, device_throttle) changed
by one script call: a check is one round trip, exact under any concurrency, and fits a
Redis Cluster (no script touches two slots). A logged-in request counts its account's
use in the round trip that reads its session (AccountHitRead): no round trip of its own.

Windows are fixed and start at a counter's first use (throttle.lua;
docs/decisions/0025): at most ``limit`` uses are counted from then until ``period``
has passed, then the next use starts a new window. What a throttle counts and whom it
spares is the caller's choice (socialsite/throttling.py); this module only counts.

The time comes from ``clock`` (seconds since the epoch, as time.time), which tests
replace to move windows on without sleeping; the scripts take it as an argument.
"""

import math
import secrets
import time
from dataclasses import dataclass

from . import keys, scripts

# Seconds since the epoch, now. Tests replace it (monkeypatch) to control windows.
clock = time.time


def _now_ms():
    return int(clock() * 1000)


def _new_token():
    # Names one use, so that the same use sent again is not counted twice.
    return secrets.token_hex(8)


@dataclass(frozen=True)
class Verdict:
    """What a counter said about one use: ``allowed`` or refused, and the figures a
    response reports (X-RateLimit-* headers, the page that says when to try again)."""

    allowed: bool
    limit: int
    count: int  # uses counted in the window, this one included if allowed
    start_ms: int  # when the window began
    period_ms: int
    key: str  # the counter: refund() gives the use back
    token: str  # the use, for refund()

    @property
    def remaining(self):
        """Uses left in this window."""
        return max(0, self.limit - self.count)

    @property
    def reset_at(self):
        """When the window ends and the counter starts again (seconds since the epoch)."""
        return (self.start_ms + self.period_ms) / 1000

    def retry_after(self):
        """Whole seconds until the window ends, at least 1: the Retry-After header."""
        return max(1, math.ceil(self.reset_at - clock()))


def _verdict(reply, key, limit, period_ms, token):
    outcome, count, start = (int(value) for value in reply)
    if outcome < 0:
        return None
    return Verdict(outcome == 1, limit, count, start, period_ms, key, token)


def _call(key, limit, period_seconds, token, session_key=None, guard_key=None):
    """scripts.throttle's parameters."""
    return {"counter": key, "now_ms": _now_ms(), "limit": limit,
            "window_ms": int(period_seconds * 1000), "token": token,
            "session_key": session_key, "guard_key": guard_key}  # fmt: skip


def account_counter(uid, name):
    """The counter of throttle ``name`` for user ``uid``."""
    return keys.account_throttle(uid, name)


def address_counter(name, address):
    """The counter of throttle ``name`` for a client address (a string the caller
    makes: an IPv4 address, an IPv6 /64)."""
    return keys.address_throttle(name, address)


def login_counter(name, login):
    """The counter of throttle ``name`` for an attempted login name, any case."""
    return keys.login_throttle(name, login.lower())


def device_counter(name, uid, nonce):
    """The counter of throttle ``name`` for the device cookie ``nonce`` of user ``uid``."""
    return keys.device_throttle(name, uid, nonce)


def hit(r, counter, limit, period_seconds):
    """Count one use on ``counter`` if fewer than ``limit`` were counted in its window
    (``period_seconds`` long); a Verdict either way. One round trip."""
    token = _new_token()
    reply = scripts.throttle(r, **_call(counter, limit, period_seconds, token))
    return _verdict(reply, counter, limit, int(period_seconds * 1000), token)


def refund(r, verdict):
    """Give back the use ``verdict`` counted (a log-in that succeeded is no failed
    log-in), if its window still runs; True if given back. Nothing for a refused use."""
    if verdict is None or not verdict.allowed:
        return False
    return bool(
        scripts.unthrottle(r, counter=verdict.key, start_ms=verdict.start_ms, token=verdict.token)
    )


def uses(r, counter, period_seconds):
    """Uses counted on ``counter`` in its present window (0 once it has ended)."""
    start, count = r.hmget(counter, "start", "count")
    if start is None or _now_ms() >= int(start) + period_seconds * 1000:
        return 0
    return int(count)


class AccountHitRead:
    """One use of a user's throttle, counted along with the read of their session
    (sessions.load_with_user's ``read_along``): no round trip of its own.

    The use is counted only if the session exists (throttle.lua's guard key): a
    request whose session cookie names a user it cannot prove to be (any key made up
    to start with "42.") counts nothing against that user. ``verdict`` is None if
    nothing was counted; the caller uses it only if the request's user is ``uid``.

    With ``guard_key`` instead of a session, the same along the read of a client API
    token (oauth.token_and_user): counted only while the token exists.
    """

    replies = 1

    def __init__(self, name, limit, period_seconds, session_key, guard_key=None):
        self.name, self.limit, self.period_seconds = name, limit, period_seconds
        self.session_key, self.guard_key = session_key, guard_key
        self.token = _new_token()
        self.uid, self.verdict = None, None

    def queue(self, pipe, uid):
        counter = account_counter(uid, self.name)
        call = _call(counter, self.limit, self.period_seconds, self.token,
                     session_key=self.session_key, guard_key=self.guard_key)  # fmt: skip
        scripts.throttle.queue(pipe, **call)

    def take(self, uid, replies):
        counter = account_counter(uid, self.name)
        period_ms = int(self.period_seconds * 1000)
        self.uid = uid
        self.verdict = _verdict(replies[0], counter, self.limit, period_ms, self.token)

    def verdict_for(self, uid):
        """The verdict, if the use was counted for user ``uid``; else None."""
        return self.verdict if self.uid == uid else None

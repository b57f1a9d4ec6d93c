"""One log line per request, the request's id, and the logs as JSON (LOG_FORMAT=json).

Each request gets an id, sent back in ``X-Request-Id`` and shown on the error pages
(``{{ request_id() }}``), so that a person's report ("it said 5f0c...") finds the
request's line in the logs, and, in JSON, every other line logged while it was served
(a 500's traceback). Behind a proxy (BEHIND_PROXY) the proxy's own X-Request-Id
(nginx: ``proxy_set_header X-Request-Id $request_id;``) is kept, so that the proxy's
access log and the site's share it.

The line says the method, path, view name, status, duration in milliseconds and Redis
round trips; the same figures go to the metrics (socialsite/metrics.py).

No secret reaches a log line: every line (this one, Django's "Not Found: <path>", any
other) goes through ``redact``, which hides the secret part of the mailed links' paths
(``/accounts/reset/<uidb64>/<token>/``, ``/accounts/verify/<token>/``) and the value of
a query parameter that carries one (``access_token``, ``code``, ``state``...).
"""

import datetime
import json
import logging
import os
import re
import threading
import time

from django.conf import settings

from socialsite import metrics
from socialsite.repository.client import round_trips

log = logging.getLogger("socialsite.requests")

# What an id given by the proxy may be: nginx's $request_id is 32 hex digits.
_GIVEN_ID = re.compile(r"[A-Za-z0-9._-]{1,128}")
# The view name of a request no URL pattern matched (a 404 of the resolver).
UNMATCHED = "unmatched"

# What stands in a log line for a secret.
REDACTED = "[redacted]"
# The secret parts of paths: the mailed links' tokens (accounts/urls.py). The reset
# link's uidb64 names the account, not a secret; Django's own next step there,
# ``set-password``, is kept.
_SECRET_PATHS = (
    re.compile(r"(/accounts/reset/[^/\s?]+/)(?!set-password/)[^/\s?]+"),
    re.compile(r"(/accounts/verify/)[^/\s?]+"),
)
# Query parameters (and form-like ``name=value`` text) whose value is a secret: the
# API's access token, OAuth's code, state, client secret and PKCE verifier, any token.
_SECRET_PARAMS = re.compile(
    r"((?:access_token|code|state|client_secret|code_verifier|token|password)=)[^&\s\"']+",
    re.IGNORECASE,
)


def redact(text):
    """``text`` (a path, a URL, a log message) with the secrets it may carry replaced by
    REDACTED."""
    for pattern in _SECRET_PATHS:
        text = pattern.sub(rf"\g<1>{REDACTED}", text)
    return _SECRET_PARAMS.sub(rf"\g<1>{REDACTED}", text)


class RedactSecrets(logging.Filter):
    """A handler's filter: each record's message is written with ``redact`` applied
    (the arguments merged in first: Django logs the path as one)."""

    def filter(self, record):
        message = record.getMessage()
        cleaned = redact(message)
        if cleaned != message:
            record.msg, record.args = cleaned, None
        if isinstance(getattr(record, "path", None), str):
            record.path = redact(record.path)
        return True


class _Current(threading.local):
    request_id = ""


_current = _Current()


def current_request_id():
    """The id of the request this thread is serving, or "" outside one."""
    return _current.request_id


def _request_id(request):
    if settings.BEHIND_PROXY:
        given = request.META.get("HTTP_X_REQUEST_ID", "")
        if given and _GIVEN_ID.fullmatch(given):
            return given
    return os.urandom(8).hex()


class RequestLogMiddleware:
    """First of the middleware: times the request, counts its Redis round trips, and
    logs, counts and labels its answer, whatever answered it."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        started = time.perf_counter()
        trips_before = round_trips()
        request_id = _current.request_id = request.request_id = _request_id(request)
        try:
            response = self.get_response(request)
        finally:
            _current.request_id = ""
        seconds = time.perf_counter() - started
        trips = round_trips() - trips_before
        match = request.resolver_match
        view = match.view_name if match is not None else UNMATCHED
        status = response.status_code
        response["X-Request-Id"] = request_id
        metrics.request_served(view, status, seconds, trips)
        milliseconds = round(seconds * 1000, 1)
        log.info(
            "%s %s %s %d %.1fms redis=%d id=%s", request.method, request.path, view, status,
            milliseconds, trips, request_id,
            extra={"request_id": request_id, "method": request.method, "path": request.path,
                   "view": view, "status": status, "duration_ms": milliseconds,
                   "redis_round_trips": trips},
        )  # fmt: skip
        return response


# The fields a request's line carries besides its message, in JSON.
REQUEST_FIELDS = ("method", "path", "view", "status", "duration_ms", "redis_round_trips")


class JsonFormatter(logging.Formatter):
    """A log record as one JSON object: time (UTC, ISO 8601), level, logger, message,
    the request's id when logged while serving one, a request line's fields, and a
    traceback's text under "exception"."""

    def format(self, record):
        entry = {
            "time": datetime.datetime.fromtimestamp(record.created, datetime.UTC).isoformat(
                timespec="milliseconds"
            ),
            "level": record.levelname,
            "logger": record.name,
            "message": record.getMessage(),
        }
        request_id = getattr(record, "request_id", None) or current_request_id()
        if request_id:
            entry["request_id"] = request_id
        for field in REQUEST_FIELDS:
            if hasattr(record, field):
                entry[field] = getattr(record, field)
        if record.exc_info:
            entry["exception"] = self.formatException(record.exc_info)
        elif record.exc_text:
            entry["exception"] = record.exc_text
        return json.dumps(entry)

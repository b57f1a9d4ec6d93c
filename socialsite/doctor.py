"""``manage.py doctor``: whether this installation can keep its data and serve, each
problem as a plain sentence (docs/operating.md, "The doctor"); and the Redis checks
each web process logs once at start-up (socialsite/wsgi.py)."""

import logging
import os
import urllib.error
import urllib.request
from urllib.parse import urlsplit

from django.conf import settings

from socialsite import connection
from socialsite.repository import server_checks
from socialsite.repository.client import OUTAGE_ERRORS
from socialsite.repository.server_checks import OK, PROBLEM, UNCHECKED, Finding

log = logging.getLogger(__name__)

# What production needs from the environment: the settings make up a value for each in
# development (DEBUG), which would split sessions, data or links between servers.
REQUIRED_IN_PRODUCTION = {
    "SECRET_KEY": "sessions and links signed on one server would not be valid on another",
    "REDIS_URL": "each server would start a Redis of its own",
    "SITE_URL": "links in mail would lead to the development address",
}
# Seconds the doctor waits on Redis and on the stream server.
TIMEOUT = 3.0


def run_checks():
    """Every Finding, in the order an operator would fix them."""
    findings = settings_findings()
    findings += redis_findings()
    findings.append(stream_finding())
    findings += workers_findings()
    return findings


def settings_findings():
    if settings.DEBUG:
        return [Finding("DEBUG", UNCHECKED, (
            "DEBUG is on (development): the site makes up its key, its Redis and its "
            "address, so SECRET_KEY, REDIS_URL and SITE_URL are not checked."
        ))]  # fmt: skip
    findings = []
    for name, why in REQUIRED_IN_PRODUCTION.items():
        if not os.environ.get(name, "").strip():
            findings.append(Finding(name, PROBLEM, f"{name} is not set with DEBUG off: {why}."))
        else:
            findings.append(Finding(name, OK, f"{name} is set."))
    return findings


def redis_findings(timeout=TIMEOUT):
    return server_checks.check_redis(connection.redis_url(), settings.REDIS_CLUSTER, timeout)


def stream_health_url():
    """Where the stream server's /health is, as browsers reach the server."""
    public = settings.STREAM_PUBLIC_URL
    if public.startswith(("http://", "https://")):
        return f"{public}/health"
    if public:
        return f"{settings.SITE_URL}{public}/health"
    site = urlsplit(settings.SITE_URL)
    host = f"[{site.hostname}]" if ":" in site.hostname else site.hostname
    return f"{site.scheme}://{host}:{settings.STREAM_PORT}/health"


def stream_finding(timeout=TIMEOUT):
    url = stream_health_url()
    try:
        with urllib.request.urlopen(url, timeout=timeout) as response:  # noqa: S310 - http(s)
            status = response.status
    except urllib.error.HTTPError as error:
        status = error.code
    except (OSError, ValueError) as error:
        return Finding("stream server", PROBLEM, (
            f"The stream server does not answer at {url} ({error}): live pages and the "
            "streaming API are down. Start manage.py stream, or set STREAM_PUBLIC_URL to "
            "where it is."
        ))  # fmt: skip
    if status != 200:
        return Finding("stream server", PROBLEM, (
            f"The stream server at {url} answers {status}: it is not subscribed to Redis, "
            "so live pages get nothing."
        ))  # fmt: skip
    return Finding("stream server", OK, f"The stream server answers at {url}.")


def workers_findings(timeout=TIMEOUT):
    try:
        return server_checks.check_workers(connection.new_redis(timeout, retries=0))
    except OUTAGE_ERRORS as error:
        return [
            Finding(item, UNCHECKED, f"Redis does not answer ({error}).")
            for item in ("fan-out workers", "mail senders")
        ]


def log_redis_checks():
    """Log the Redis checks (a web process, once at start-up): problems as warnings.
    Never raises: a Redis that is down now is /readyz's to report."""
    try:
        findings = redis_findings(timeout=settings.REDIS_TIMEOUT_MS / 1000)
    except Exception as error:  # noqa: BLE001 - a start-up check must not stop start-up
        log.warning("Redis checks: could not run (%s: %s)", type(error).__name__, error)
        return
    for finding in findings:
        level = logging.WARNING if finding.state == PROBLEM else logging.INFO
        log.log(level, "Redis check, %s: %s %s", finding.item, finding.state, finding.sentence)

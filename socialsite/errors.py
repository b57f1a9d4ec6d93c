"""Error pages a person can read, for the cases Django leaves bare."""

import logging
import sys

from django.conf import settings
from django.core.exceptions import BadRequest
from django.http import HttpResponse, JsonResponse
from django.shortcuts import render
from django.template import loader
from django.views.defaults import bad_request as django_bad_request
from django.views.defaults import server_error as django_server_error

from socialsite import metrics
from socialsite.repository.client import OUTAGE_ERRORS

log = logging.getLogger(__name__)

# What a 503 tells browsers and proxies: try again after this many seconds.
RETRY_AFTER_SECONDS = 5


def bad_request(request, exception):
    """400: our own BadRequest messages are written for people, so show them.

    Other 400s (SuspiciousOperation and the like) keep Django's page, which shows no
    detail on purpose.
    """
    if type(exception) is BadRequest:
        return render(request, "400.html", {"exception": str(exception)}, status=400)
    return django_bad_request(request, exception)


class MethodNotAllowedPageMiddleware:
    """Give 405 answers (require_POST and friends) a body saying what happened.

    Django sends them empty; the Allow header it sets is kept.
    """

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        response = self.get_response(request)
        if response.status_code == 405 and not response.content:
            page = render(request, "405.html", status=405)
            page["Allow"] = response.get("Allow", "")
            return page
        return response


def service_unavailable(request, error):
    """503 for a request that met a Redis outage: the site is briefly unavailable, and
    for a POST, what was sent may or may not have been saved.

    Rendered without the request's context: anything that reads the session or the
    user would go to Redis again.
    """
    metrics.redis_error(error)
    page = loader.render_to_string("503.html", {"was_post": request.method == "POST"})
    response = HttpResponse(page, status=503)
    response["Retry-After"] = str(RETRY_AFTER_SECONDS)
    response["Cache-Control"] = "no-store"
    return response


# What a 503 in maintenance tells browsers and proxies: a backup takes minutes.
MAINTENANCE_RETRY_AFTER_SECONDS = 300


# The client API's paths (api/): its answers are JSON, errors included.
API_PATHS = ("/api/", "/oauth/")
MAINTENANCE_MESSAGE = "The site is read-only for maintenance: nothing was saved; try again later"


class MaintenanceMiddleware:
    """With MAINTENANCE on, answer every request that could write (anything but GET,
    HEAD and OPTIONS) with 503 and a page saying nothing was saved, before the session
    or the view is reached: a backup taken meanwhile is of one moment
    (docs/operating.md#backups-and-restore). Pages still read."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        if settings.MAINTENANCE and request.method not in ("GET", "HEAD", "OPTIONS"):
            if request.path.startswith(API_PATHS):
                # Apps read errors as Mastodon gives them, not as a page.
                response = JsonResponse({"error": MAINTENANCE_MESSAGE}, status=503)
            else:
                page = loader.render_to_string("503.html", {"maintenance": True})
                response = HttpResponse(page, status=503)
            response["Retry-After"] = str(MAINTENANCE_RETRY_AFTER_SECONDS)
            response["Cache-Control"] = "no-store"
            return response
        return self.get_response(request)


class RedisOutageMiddleware:
    """Answer 503 rather than 500 when a view meets a Redis outage (even with DEBUG on);
    server_error does the same for one met outside the view (the session's save)."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        return self.get_response(request)

    def process_exception(self, request, exception):
        if isinstance(exception, OUTAGE_ERRORS):
            log.warning("Redis unreachable during %s %s: %s", request.method, request.path,
                        exception)  # fmt: skip
            return service_unavailable(request, exception)
        return None


def server_error(request):
    """handler500: a Redis outage met outside a view is a 503 too; anything else is
    Django's 500 page (templates/500.html)."""
    if isinstance(sys.exc_info()[1], OUTAGE_ERRORS):
        return service_unavailable(request, sys.exc_info()[1])
    return django_server_error(request)

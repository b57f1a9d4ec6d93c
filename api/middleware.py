"""CORS for the client API, so that browser apps (Elk, Phanpy, ...) on other origins can
call it, and find it: the discovery documents (OAuth metadata, NodeInfo) are open too.
Safe to open to every origin: the API honours only the token a request carries, never
a cookie (api/auth.py), so another site's page can do nothing with a visitor's session.

Every answer under /api/ is JSON: an error page the site would draw (a 404 no view
matched, a 500, a 413, the maintenance 503) is answered as Mastodon's ``{"error": ...}``
with the same status, since apps read every answer there as JSON."""

from http import HTTPStatus

from django.http import HttpResponse

from .responses import error

CORS_PATHS = ("/api/", "/oauth/token", "/oauth/revoke", "/.well-known/", "/nodeinfo/")
ALLOWED_METHODS = "GET, POST, PUT, PATCH, DELETE, OPTIONS"
ALLOWED_HEADERS = "Authorization, Content-Type, Idempotency-Key"
EXPOSED_HEADERS = "Link, X-RateLimit-Limit, X-RateLimit-Remaining, X-RateLimit-Reset, Retry-After"


class CorsMiddleware:
    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        if not request.path.startswith(CORS_PATHS):
            return self.get_response(request)
        if request.method == "OPTIONS" and "HTTP_ACCESS_CONTROL_REQUEST_METHOD" in request.META:
            response = HttpResponse(status=204)  # a preflight: answered here, no view runs
            response["Access-Control-Allow-Methods"] = ALLOWED_METHODS
            response["Access-Control-Allow-Headers"] = ALLOWED_HEADERS
            response["Access-Control-Max-Age"] = "86400"
        else:
            response = self.get_response(request)
        if request.path.startswith("/api/"):
            response = json_errors(response)
        response["Access-Control-Allow-Origin"] = "*"
        response["Access-Control-Expose-Headers"] = EXPOSED_HEADERS
        return response


def _message(status):
    if status == 404:
        return "Record not found"
    try:
        return HTTPStatus(status).phrase
    except ValueError:
        return "Error"


def json_errors(response):
    """``response`` itself, or for an error page (HTML) its status as Mastodon's JSON
    error, its Retry-After kept."""
    if response.status_code < 400 or not response.get("Content-Type", "").startswith("text/html"):
        return response
    headers = {"Retry-After": response["Retry-After"]} if "Retry-After" in response else None
    return error(response.status_code, _message(response.status_code), headers=headers)

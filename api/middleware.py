"""CORS for the client API, so that browser apps (Elk, Phanpy, ...) on other origins can
call it. Safe to open to every origin: the API honours only the token a request
carries, never a cookie (api/auth.py), so another site's page can do nothing with a
visitor's session."""

from django.http import HttpResponse

CORS_PATHS = ("/api/", "/oauth/token", "/oauth/revoke")
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
        response["Access-Control-Allow-Origin"] = "*"
        response["Access-Control-Expose-Headers"] = EXPOSED_HEADERS
        return response

"""HEAD answered as GET without a body, for every page at once.

RFC 9110 (9.3.2): a HEAD request gets the status and header fields a GET would, and no
body. Django leaves that to each view: require_GET and require_http_methods(["GET",
"POST"]) refuse HEAD with 405. Rather than list HEAD beside GET on every view (and on
every view written later), this middleware runs a HEAD request through the views as a
GET and drops the body of the answer, as Werkzeug's routing and Django's class-based
views (View.head = View.get) do. A view therefore never sees "HEAD", and its method
decorators need not know of it. The one thing a view must ask (``is_head``): whether to
mark something read because it was shown, which a HEAD shows nobody.
"""


def is_head(request):
    """Whether ``request`` is a HEAD answered as a GET. A page that marks what it shows
    read (the notifications, a conversation, the home page's marker) marks nothing for
    one: link checkers, monitors and prefetching send HEAD, and nobody reads the answer."""
    return request.META.get("REQUEST_METHOD") == "HEAD"


class HeadAsGetMiddleware:
    """Outermost in MIDDLEWARE, so that every other middleware sees the GET too (and the
    Content-Length CommonMiddleware gives a GET's answer is kept on the HEAD's)."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        if request.method != "HEAD":
            return _head_allowed(self.get_response(request))
        request.method = "GET"
        try:
            response = self.get_response(request)
        finally:
            request.method = "HEAD"
        return _without_body(_head_allowed(response))


def _head_allowed(response):
    """A 405's Allow header names HEAD wherever it names GET: they go together here."""
    if response.status_code == 405:
        allowed = [method.strip() for method in response.get("Allow", "").split(",")]
        if "GET" in allowed and "HEAD" not in allowed:
            response["Allow"] = ", ".join([*allowed, "HEAD"])
    return response


def _without_body(response):
    if response.streaming:
        # Never read: a download made as it is sent (the account's export) is not
        # made at all. Its generator is closed with the response.
        response.streaming_content = []
        return response
    if not response.has_header("Content-Length"):
        response["Content-Length"] = str(len(response.content))
    response.content = b""
    return response

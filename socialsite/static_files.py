"""Static files and pictures are open to pages of other origins, as Mastodon serves
them: a web client on another origin shows avatars, headers, the default avatar
(/static/api/avatar-missing.png) and images, drawing some on a canvas (CORS) or from a
page that requires CORP (``Cross-Origin-Embedder-Policy: require-corp``). Neither
header gives another origin anything it could not fetch already: these files are
public and carry no cookie's data.

nginx sends the same headers in production (deploy/nginx/socialsite.conf); media's
view sends them where Django serves pictures; in development Django's static handler
answers before any middleware runs, so ``./run``'s runserver wraps it
(socialsite/management/commands/runserver.py), and so do the tests' live server.
"""

from django.contrib.staticfiles.handlers import StaticFilesHandler

CROSS_ORIGIN_HEADERS = {
    "Access-Control-Allow-Origin": "*",
    "Cross-Origin-Resource-Policy": "cross-origin",
}


def open_to_other_origins(response):
    """``response`` with CROSS_ORIGIN_HEADERS."""
    for name, value in CROSS_ORIGIN_HEADERS.items():
        response[name] = value
    return response


class CrossOriginStaticFilesHandler(StaticFilesHandler):
    """Django's development static handler, its files open to other origins."""

    def get_response(self, request):
        return open_to_other_origins(super().get_response(request))

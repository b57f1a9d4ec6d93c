"""JSON answers of the client API, errors as Mastodon gives them: ``{"error": "..."}``."""

import json

from django.http import HttpResponse


def json_response(data, status=200, headers=None):
    """``data`` as a JSON response (UTF-8, not escaped to ASCII), never cached by a
    shared cache: every answer depends on the token."""
    response = HttpResponse(
        json.dumps(data, ensure_ascii=False, separators=(",", ":")),
        content_type="application/json; charset=utf-8",
        status=status,
        headers=headers,
    )
    response["Cache-Control"] = "private, no-store"
    return response


def error(status, message, headers=None):
    """An API error: ``{"error": message}`` with HTTP ``status``."""
    return json_response({"error": message}, status=status, headers=headers)

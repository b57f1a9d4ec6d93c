"""JSON answers of the client API, errors as Mastodon gives them: ``{"error": "..."}``."""

import json

from django.http import HttpResponse

from socialsite import actions


def json_response(data, status=200, headers=None):
    """``data`` as a JSON response (UTF-8, not escaped to ASCII), never cached by a
    shared cache: every answer depends on the token."""
    return json_text_response(
        json.dumps(data, ensure_ascii=False, separators=(",", ":")), status, headers
    )


def json_text_response(text, status=200, headers=None):
    """``text`` (JSON already) as json_response answers."""
    response = HttpResponse(
        text,
        content_type="application/json; charset=utf-8",
        status=status,
        headers=headers,
    )
    response["Cache-Control"] = "private, no-store"
    return response


def error(status, message, headers=None):
    """An API error: ``{"error": message}`` with HTTP ``status``."""
    return json_response({"error": message}, status=status, headers=headers)


def refusal_response(refusal):
    """The API's answer to an action's refusal (socialsite/actions), as Mastodon words
    its own: NotFound "Record not found" (404, whatever the reason: a status the caller
    may not see is as one that is not there), Invalid a 422 "Validation failed",
    NotAllowed a 403 "This action is not allowed" with the reason, EmailUnverified 403,
    Throttled 429 with Retry-After, Busy 409."""
    if isinstance(refusal, actions.NotFound):
        return error(404, "Record not found")
    if isinstance(refusal, actions.Throttled):
        retry = {k: v for k, v in refusal.counted.headers().items() if k == "Retry-After"}
        return error(429, refusal.message, headers=retry)
    if isinstance(refusal, actions.Invalid):
        message = refusal.message
        if not message.startswith("Validation failed"):
            message = f"Validation failed: {message}"
        return error(422, message)
    if isinstance(refusal, actions.Busy):
        return error(409, refusal.message)
    if isinstance(refusal, actions.NotAllowed):
        return error(403, f"This action is not allowed: {refusal.message}")
    return error(403, refusal.message)  # EmailUnverified

"""Posting keys: each showing of a status form carries a fresh one, so that the same form
sent twice (a retry after an error, a double click) posts once (statuses.post_status)."""

import re
import secrets

# What new_posting_key makes: 22 URL-safe characters.
POSTING_KEY = re.compile(r"[A-Za-z0-9_-]{22}")


def new_posting_key():
    """A fresh key for one showing of the status form."""
    return secrets.token_urlsafe(16)


def posting_key_of(request):
    """The form's posting key, or None if it has none or not one this site made (the
    status is then posted without the protection: nothing is refused for it)."""
    key = request.POST.get("posting_key", "")
    return key if POSTING_KEY.fullmatch(key) else None

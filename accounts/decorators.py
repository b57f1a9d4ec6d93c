from functools import wraps
from urllib.parse import urlencode

from django.conf import settings
from django.shortcuts import redirect


def login_required(view):
    """Send anonymous visitors to the login page, to come back here afterwards."""

    @wraps(view)
    def wrapper(request, *args, **kwargs):
        if request.user.is_authenticated:
            return view(request, *args, **kwargs)
        # After logging in, come back to this page; for a POST, to the page it came from.
        target = request.get_full_path() if request.method == "GET" else "/"
        return redirect(f"{settings.LOGIN_URL}?{urlencode({'next': target})}")

    return wrapper

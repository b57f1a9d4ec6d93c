from functools import wraps
from urllib.parse import urlencode

from django.conf import settings
from django.shortcuts import redirect, render


def login_required(view):
    """Send anonymous visitors to the login page, to come back here afterwards."""

    @wraps(view)
    def wrapper(request, *args, **kwargs):
        if request.user.is_authenticated:
            return view(request, *args, **kwargs)
        return redirect_to_login(request)

    return wrapper


def redirect_to_login(request):
    """The login page, to come back here afterwards; for a POST, to the page it came
    from. (For a view that must ask the session to read something along before it
    looks at the user, and so checks the user itself.)"""
    target = request.get_full_path() if request.method == "GET" else "/"
    return redirect(f"{settings.LOGIN_URL}?{urlencode({'next': target})}")


def verified_email_required(view):
    """Under EMAIL_VERIFICATION=required, refuse the action (403) to an account whose
    address is not verified yet, saying why and offering to send the link again. Put it
    below login_required."""

    @wraps(view)
    def wrapper(request, *args, **kwargs):
        if request.user.must_verify_email:
            return render(request, "accounts/verify_first.html", status=403)
        return view(request, *args, **kwargs)

    return wrapper

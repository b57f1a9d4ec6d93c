"""Where an action sends the browser afterwards: the ``next`` it was given, if safe."""

import unicodedata

from django.http import HttpResponseRedirect
from django.utils.http import url_has_allowed_host_and_scheme


def safe_next(request, default="/"):
    """The ``next`` parameter (POST, then GET) if it is a path on this site, else
    ``default``.

    Only local paths are followed ("/@alice/", "/?before=12"): never another host, a
    scheme, a protocol-relative "//host", or text with control characters (a newline
    would make the Location header invalid). Anything else is ignored rather than
    refused: the action itself succeeded, only where to go next was odd.
    """
    target = request.POST.get("next") or request.GET.get("next")
    if (
        target
        and target.startswith("/")
        and not any(unicodedata.category(char)[0] == "C" for char in target)
        and url_has_allowed_host_and_scheme(
            target, allowed_hosts=set(), require_https=request.is_secure()
        )
    ):
        return target
    return default


def redirect_to_next(request, default="/"):
    """A redirect to ``safe_next(request, default)``.

    HttpResponseRedirect, not django.shortcuts.redirect: redirect() takes a string
    without "/" or "." for the name of a URL pattern and fails on an unknown one.
    """
    return HttpResponseRedirect(safe_next(request, default))

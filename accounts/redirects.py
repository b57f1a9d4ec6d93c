"""Where an action sends the browser next: shared by the apps' views, which do not
import each other."""

from django.utils.http import url_has_allowed_host_and_scheme


def safe_next(request, default="/"):
    """The ``next`` parameter if it points into this site, else ``default``."""
    target = request.POST.get("next") or request.GET.get("next")
    if target and url_has_allowed_host_and_scheme(
        target, allowed_hosts={request.get_host()}, require_https=request.is_secure()
    ):
        return target
    return default

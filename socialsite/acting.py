"""The pages' side of the actions (socialsite/actions): the Actor a request stands for,
and the one page each kind of refusal gets when a view does not answer it itself.

A view that has a form to show again catches the refusals it can say in the form
(Invalid, Throttled for the status form); every other refusal goes up to
RefusalPagesMiddleware, which answers it as the site always has: NotFound the 404 page,
NotAllowed the 403 page with its reason, EmailUnverified the page offering the link
again, Throttled the 429 page, Invalid the 400 page, Busy a 409 saying to try again.
"""

from django.shortcuts import render

from socialsite import throttling
from socialsite.actions import (
    Actor,
    Busy,
    EmailUnverified,
    Invalid,
    NotAllowed,
    NotFound,
    Refused,
    Throttled,
)


def actor_of(request) -> Actor:
    """The Actor of a request's logged-in user (pages and API alike: both put a SiteUser
    on ``request.user``), or of its visitor (uid 0) when none is logged in. Each
    throttle use it is asked for is counted for this request, except one a page's
    throttle decorator counted already: that one is taken, once."""
    user = request.user
    # A page's throttle decorator counted its use in the round trip that read the
    # session (throttling.throttle): the action finds it there, at no cost. Taken, not
    # kept: an act that counts a throttle twice (one use per picture) counts twice.
    counted_before = throttling.counted_for(request)

    def count(name):
        if name in counted_before:
            return counted_before.pop(name)
        return throttling.count(request, name)

    return Actor(
        # A visitor (signing up: no account yet) acts as uid 0, which names no account
        # (ids start at 1); their throttles count their address.
        uid=user.id or 0,
        login=user.login,
        must_verify_email=user.must_verify_email,
        is_moderator=user.is_moderator,
        count=count,
    )


def refusal_page(request, refusal: Refused):
    """The page answering ``refusal`` (see the module's docstring)."""
    if isinstance(refusal, NotFound):
        context = {"request_path": request.path, "exception": refusal.message}
        return render(request, "404.html", context, status=404)
    if isinstance(refusal, Throttled):
        return throttling.too_many_requests(request, refusal.counted)
    if isinstance(refusal, EmailUnverified):
        return render(request, "accounts/verify_first.html", status=403)
    if isinstance(refusal, NotAllowed):
        return render(request, "403.html", {"exception": refusal.message}, status=403)
    if isinstance(refusal, Busy):
        return render(request, "400.html", {"exception": refusal.message}, status=409)
    if isinstance(refusal, Invalid):
        return render(request, "400.html", {"exception": refusal.message}, status=400)
    return render(request, "400.html", {"exception": refusal.message}, status=400)


class RefusalPagesMiddleware:
    """Answer a Refused that a page's view let through with its page (refusal_page)."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        return self.get_response(request)

    def process_exception(self, request, exception):
        if isinstance(exception, Refused):
            return refusal_page(request, exception)
        return None

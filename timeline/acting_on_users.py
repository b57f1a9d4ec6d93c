"""What the pages' buttons on a user share (follow, block, mute, answer a request...):
run the act's action (socialsite/actions/relations.py) on the user a URL names, flash
what came of it and go back to the page the form came from.

A refusal the page says as a flash message (oneself, a block in the way, another follow
still in progress) is flashed here, once for every button; the others (no such user,
throttled, address not verified) go up to socialsite.acting.RefusalPagesMiddleware.
"""

from collections.abc import Callable, Mapping
from enum import Enum

from django.contrib import messages
from django.http import HttpRequest, HttpResponse
from django.urls import reverse

from socialsite.acting import actor_of
from socialsite.actions import Actor, Busy, Invalid, NotAllowed
from socialsite.redirects import redirect_to_next

from .lookups import user_or_404

# Result -> (message level, text with "{login}" for the other user's).
Messages = Mapping[Enum, tuple[int, str]]


def act_on_user(
    request: HttpRequest,
    login: str,
    act: Callable[[Actor, int], Enum],
    results: Messages,
    back: str | None = None,
) -> HttpResponse:
    """Run ``act(actor, other id)`` on the user ``login`` (404 for none shown); flash
    what its result means (``results``), or the refusal it raised; go back where the
    form said (``next``), else to ``back`` (a URL name) or their profile."""
    other = user_or_404(login)
    try:
        result = act(actor_of(request), other["id"])
    except (Invalid, NotAllowed, Busy) as refusal:
        messages.error(request, refusal.message)
    else:
        level, text = results[result]
        messages.add_message(request, level, text.format(login=other["login"]))
    fallback = reverse(back) if back else reverse("profile", args=[other["login"]])
    return redirect_to_next(request, fallback)

"""Pinned statuses: Pin and Unpin in one's own status's more menu; the
profile shows the pinned ones above its first page (views.profile). Each view: one
action, a message, back where the form said."""

from django.contrib import messages
from django.urls import reverse
from django.views.decorators.http import require_POST

from accounts.decorators import login_required
from socialsite.acting import actor_of
from socialsite.actions import Invalid
from socialsite.actions import statuses as statuses_actions
from socialsite.redirects import redirect_to_next
from socialsite.repository import pins
from socialsite.throttling import throttle

PIN_MESSAGES = {
    pins.PinResult.PINNED: (messages.SUCCESS, "Pinned to your profile."),
    pins.PinResult.ALREADY_PINNED: (messages.INFO, "It is pinned already."),
    pins.PinResult.UNPINNED: (messages.SUCCESS, "Unpinned."),
    pins.PinResult.NOT_PINNED: (messages.INFO, "It was not pinned."),
}


def _act(request, status_id, act):
    try:
        result = act(actor_of(request), status_id)
    except Invalid as refused:  # not one's own, not public, too many: said, not a page
        messages.error(request, str(refused))
    else:
        messages.add_message(request, *PIN_MESSAGES[result])
    return redirect_to_next(request, reverse("profile", args=[request.user.login]))


@require_POST
@throttle("likes")
@login_required
def pin(request, status_id):
    return _act(request, status_id, statuses_actions.pin)


@require_POST
@throttle("likes")
@login_required
def unpin(request, status_id):
    return _act(request, status_id, statuses_actions.unpin)

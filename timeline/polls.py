"""Polls: voting on a page (the status component's poll, templates/_status.html, sends
the page's one actions form here with ``choice_<id>``, the options chosen). The vote is
actions.polls.vote's, as the API's is."""

from django.contrib import messages
from django.urls import reverse
from django.views.decorators.http import require_POST

from accounts.decorators import login_required
from socialsite.acting import actor_of
from socialsite.actions import Invalid, NotAllowed
from socialsite.actions import polls as poll_actions
from socialsite.redirects import redirect_to_next
from socialsite.throttling import throttle


@require_POST
@throttle("likes")
@login_required
def vote(request, status_id):
    """Vote in status ``status_id``'s poll; what happened said, back where the form
    came from. A poll one may not see is the 404 page (the middleware's)."""
    choices = []
    for value in request.POST.getlist(f"choice_{int(status_id)}"):
        if not value.isdigit() or len(value) > 2:
            messages.error(request, "Your vote was not counted: that is not an option.")
            return redirect_to_next(request, reverse("home"))
        choices.append(int(value))
    try:
        poll_actions.vote(actor_of(request), status_id, choices)
    except (Invalid, NotAllowed) as refusal:
        messages.error(request, f"Your vote was not counted: {refusal.message}")
    else:
        messages.success(request, "Your vote is counted.")
    return redirect_to_next(request, reverse("home"))

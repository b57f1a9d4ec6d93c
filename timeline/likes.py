"""Likes: liking and unliking a status, who likes a status, what a user likes. Each view:
checks, one repository call, a response (see views.py)."""

from django.conf import settings
from django.contrib import messages
from django.shortcuts import render
from django.urls import reverse
from django.views.decorators.http import require_GET, require_POST

from accounts.decorators import login_required
from socialsite.acting import actor_of
from socialsite.actions import statuses as statuses_actions
from socialsite.connection import get_redis
from socialsite.query import page_cursor
from socialsite.redirects import redirect_to_next
from socialsite.repository import likes, visibility
from socialsite.throttling import throttle

from .lookups import no_such_status, user_or_404

LIKE_MESSAGES = {
    likes.LikeResult.LIKED: (messages.SUCCESS, "You like this status."),
    likes.LikeResult.ALREADY_LIKED: (messages.INFO, "You already like this status."),
    likes.LikeResult.UNLIKED: (messages.SUCCESS, "You no longer like this status."),
    likes.LikeResult.NOT_LIKED: (messages.INFO, "You did not like this status."),
}


def _act(request, status_id, act):
    """Like or unlike (``act``, an action), flash what happened and go back where the
    form said; a refusal is its own page (socialsite/acting.py)."""
    result = act(actor_of(request), status_id)
    messages.add_message(request, *LIKE_MESSAGES[result])
    return redirect_to_next(request, reverse("home"))


@require_POST
@throttle("likes")
@login_required
def like(request, status_id):
    return _act(request, status_id, statuses_actions.like)


@require_POST
@throttle("likes")
@login_required
def unlike(request, status_id):
    return _act(request, status_id, statuses_actions.unlike)


@require_GET
def status_likes(request, login, status_id):
    """Who likes a status, the latest like first, as the followers list."""
    before = page_cursor(request)
    r = get_redis()
    status, refused = likes.status_for_viewer(r, request.user.id, status_id)
    # BLOCKED: the viewer blocks the author, and sees the status (and who likes it).
    if status is None or status["author"]["login"].lower() != login.lower():
        raise no_such_status()
    page = likes.likers_page(r, status["id"], before=before, count=settings.TIMELINE_PAGE_SIZE)
    return render(request, "timeline/status_likes.html", {"status": status, "page": page})


@require_GET
def user_likes(request, login):
    """The statuses a user likes, the latest like first, those the viewer may not see
    left out; nothing of an account whose statuses the viewer may not see (as its
    profile)."""
    before = page_cursor(request)
    user = user_or_404(login)
    r = get_redis()
    viewer = request.user
    rel = visibility.relationship(r, viewer.id, user["id"])
    seen = visibility.statuses_visibility(viewer.id, user, rel)
    if seen is not visibility.Visibility.VISIBLE:
        context = {"profile": user, "seen": seen.value}
        return render(request, "timeline/status_hidden.html", context, status=403)
    page = likes.liked_page(
        r, user["id"], viewer.id, before=before, count=settings.TIMELINE_PAGE_SIZE
    )
    return render(request, "timeline/user_likes.html", {"profile": user, "page": page})

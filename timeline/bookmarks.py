"""Bookmarks: bookmarking a status from its more menu, letting a bookmark go,
and /bookmarks/, one's own bookmarks, the latest first. Each view: checks, one action
or repository read, a response (see views.py)."""

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
from socialsite.repository import bookmarks
from socialsite.throttling import throttle

BOOKMARK_MESSAGES = {
    bookmarks.BookmarkResult.BOOKMARKED: (messages.SUCCESS, "Bookmarked."),
    bookmarks.BookmarkResult.ALREADY_BOOKMARKED: (messages.INFO, "It is already bookmarked."),
    bookmarks.BookmarkResult.UNBOOKMARKED: (messages.SUCCESS, "Bookmark removed."),
    bookmarks.BookmarkResult.NOT_BOOKMARKED: (messages.INFO, "It was not bookmarked."),
}


def _act(request, status_id, act):
    result = act(actor_of(request), status_id)
    messages.add_message(request, *BOOKMARK_MESSAGES[result])
    return redirect_to_next(request, reverse("bookmarks_page"))


@require_POST
@throttle("likes")
@login_required
def bookmark(request, status_id):
    return _act(request, status_id, statuses_actions.bookmark)


@require_POST
@throttle("likes")
@login_required
def unbookmark(request, status_id):
    return _act(request, status_id, statuses_actions.unbookmark)


@require_GET
@login_required
def bookmarks_page(request):
    """The reader's bookmarks, the latest first, each with "Remove bookmark" in its menu;
    those they may not see any more left out."""
    page = bookmarks.bookmarks_page(
        get_redis(), request.user.id, before=page_cursor(request), count=settings.TIMELINE_PAGE_SIZE
    )
    marked = frozenset(item["id"] for item in page.items)
    return render(request, "timeline/bookmarks.html", {"page": page, "bookmarked": marked})

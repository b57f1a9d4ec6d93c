"""The pages and actions of the social network. Each view: checks, one repository call,
a response. All Redis work happens in socialsite.repository."""

import re
import secrets

from django.conf import settings
from django.contrib import messages
from django.core.exceptions import BadRequest, PermissionDenied
from django.http import Http404
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_GET, require_POST

from accounts.decorators import login_required
from socialsite.connection import get_redis
from socialsite.form_markup import BlankForm
from socialsite.redirects import redirect_to_next
from socialsite.repository import graph, statuses, timelines, users

from .forms import StatusForm

# What new_posting_key makes: 22 URL-safe characters.
POSTING_KEY = re.compile(r"[A-Za-z0-9_-]{22}")

# Where a rejected post's text waits to be shown again in the form (Post/Redirect/Get).
DRAFT_SESSION_KEY = "status_draft"


def _cursor(request):
    """The ``before`` cursor of a paged list, or None for the first page."""
    if not request.META.get("QUERY_STRING"):
        return None  # the first page, most often: no QueryDict to build
    value = request.GET.get("before")
    if value is None:
        return None
    # isascii(): str.isdigit() also accepts digits such as "²" that int() refuses.
    if not (value.isascii() and value.isdigit()) or len(value) > 20:
        raise BadRequest("The page link is malformed: 'before' must be a number.")
    return int(value)


def _user_or_404(login):
    user = users.get_user_by_login(get_redis(), login)
    if user is not None and users.is_suspended(user):
        raise Http404("This account is suspended.")
    if user is None or users.is_hidden(user):  # hidden: being deleted
        raise Http404(f"There is no user @{login}.")
    return user


def new_posting_key():
    """A fresh key for one showing of the status form: the same form sent twice (a
    retry after an error, a double click) posts once (statuses.post_status)."""
    return secrets.token_urlsafe(16)


def posting_key_of(request):
    """The form's posting key, or None if it has none or not one this site made (the
    status is then posted without the protection: nothing is refused for it)."""
    key = request.POST.get("posting_key", "")
    return key if POSTING_KEY.fullmatch(key) else None


@require_GET
def home(request):
    before = _cursor(request)  # first: a malformed link must not cost the saved draft
    count = settings.TIMELINE_PAGE_SIZE
    # The page's ids are read with the session and its user: one round trip in all.
    ids_read = timelines.HomeIdsRead(before, count)
    request.session.read_along(ids_read)
    if not request.user.is_authenticated:
        return render(request, "timeline/landing.html")
    draft = request.session.pop(DRAFT_SESSION_KEY, None)
    form = StatusForm(draft) if draft else BlankForm(StatusForm)
    page = timelines.home_page(
        get_redis(), request.user.id, before=before, count=count, ids_read=ids_read
    )
    # The newest page (no cursor) gets live updates; an older page stays as it is.
    context = {"form": form, "page": page, "live": before is None, "posting_key": new_posting_key()}
    return render(request, "timeline/home.html", context)


@require_POST
@login_required
def post_status(request):
    form = StatusForm(request.POST)
    if not form.is_valid():
        # Keep the text: the home page shows it again with the form's errors.
        request.session[DRAFT_SESSION_KEY] = {
            "message": request.POST.get("message", ""),
            "location": request.POST.get("location", ""),
        }
        messages.error(request, "Your status was not posted.")
        return redirect("home")
    statuses.post_status(
        get_redis(),
        request.user.id,
        form.cleaned_data["message"],
        inline_limit=settings.INLINE_FANOUT_LIMIT,
        posting_key=posting_key_of(request),
        location=form.cleaned_data["location"],
    )
    messages.success(request, "Your status is posted.")
    return redirect("home")


@require_POST
@login_required
def delete_status(request, status_id):
    result = statuses.delete_status(get_redis(), request.user.id, status_id)
    if result is statuses.DeleteResult.NOT_FOUND:
        raise Http404("There is no such status.")
    if result is statuses.DeleteResult.NOT_OWNER:
        raise PermissionDenied("You can only delete your own statuses.")
    messages.success(request, "Your status is deleted.")
    return redirect_to_next(request, reverse("profile", args=[request.user.login]))


@require_GET
def profile(request, login):
    user = _user_or_404(login)
    r = get_redis()
    page = timelines.profile_page(
        r, user["id"], before=_cursor(request), count=settings.TIMELINE_PAGE_SIZE
    )
    viewer = request.user
    is_following = (
        viewer.is_authenticated
        and viewer.id != user["id"]
        and graph.is_following(r, viewer.id, user["id"])
    )
    context = {"profile": user, "page": page, "is_following": is_following}
    return render(request, "timeline/profile.html", context)


def _user_list(request, login, read_page, title):
    user = _user_or_404(login)
    page = read_page(
        get_redis(), user["id"], before=_cursor(request), count=settings.TIMELINE_PAGE_SIZE
    )
    context = {"profile": user, "page": page, "title": title}
    return render(request, "timeline/user_list.html", context)


@require_GET
def followers(request, login):
    return _user_list(request, login, graph.followers_page, "Followers")


@require_GET
def following(request, login):
    return _user_list(request, login, graph.following_page, "Following")


@require_GET
def status_detail(request, login, status_id):
    r = get_redis()
    status = statuses.get_status(r, status_id)
    if status is None or status["login"].lower() != login.lower():
        raise Http404("There is no such status.")
    status["author"] = users.get_user(r, status["uid"])
    if status["author"] is None or users.is_hidden(status["author"]):
        raise Http404("There is no such status.")
    return render(request, "timeline/status_detail.html", {"status": status})


FOLLOW_MESSAGES = {
    graph.FollowResult.FOLLOWED: (messages.SUCCESS, "You now follow @{login}."),
    graph.FollowResult.ALREADY_FOLLOWING: (messages.INFO, "You already follow @{login}."),
    graph.FollowResult.UNFOLLOWED: (messages.SUCCESS, "You no longer follow @{login}."),
    graph.FollowResult.NOT_FOLLOWING: (messages.INFO, "You were not following @{login}."),
    graph.FollowResult.SELF: (messages.ERROR, "You cannot follow or unfollow yourself."),
}


def _follow_action(request, login, action):
    other = _user_or_404(login)
    try:
        result = action(get_redis(), request.user.id, other["id"])
    except graph.LockBusy:
        messages.error(request, "Another follow of yours is still in progress. Try again.")
    else:
        level, text = FOLLOW_MESSAGES[result]
        messages.add_message(request, level, text.format(login=other["login"]))
    return redirect_to_next(request, reverse("profile", args=[other["login"]]))


@require_POST
@login_required
def follow(request, login):
    return _follow_action(request, login, graph.follow)


@require_POST
@login_required
def unfollow(request, login):
    return _follow_action(request, login, graph.unfollow)

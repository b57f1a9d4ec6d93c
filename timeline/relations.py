"""Blocks, mutes and private accounts: the actions on a profile, and the settings pages
that list them. Each view: checks, one repository call, a response (see views.py)."""

from django.contrib import messages
from django.core.exceptions import BadRequest
from django.http import Http404
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from accounts.decorators import login_required
from socialsite.connection import get_redis
from socialsite.redirects import redirect_to_next
from socialsite.repository import blocks, graph, privacy, users

from .forms import MUTE_DURATIONS, MuteForm, PrivacyForm, mute_until
from .views import _cursor, _user_or_404

BLOCK_MESSAGES = {
    blocks.BlockResult.BLOCKED: (
        messages.SUCCESS,
        "You blocked @{login}. Neither of you follows the other now; they cannot follow "
        "you or see your statuses, and you will not see theirs on your home page.",
    ),
    blocks.BlockResult.ALREADY_BLOCKED: (messages.INFO, "You already block @{login}."),
    blocks.BlockResult.UNBLOCKED: (messages.SUCCESS, "You no longer block @{login}."),
    blocks.BlockResult.NOT_BLOCKED: (messages.INFO, "You were not blocking @{login}."),
    blocks.BlockResult.SELF: (messages.ERROR, "You cannot block or unblock yourself."),
}

MUTE_MESSAGES = {
    blocks.MuteResult.MUTED: (messages.SUCCESS, "You muted @{login} {duration}."),
    blocks.MuteResult.MUTE_CHANGED: (messages.SUCCESS, "You now mute @{login} {duration}."),
    blocks.MuteResult.UNMUTED: (messages.SUCCESS, "You no longer mute @{login}."),
    blocks.MuteResult.NOT_MUTED: (messages.INFO, "You were not muting @{login}."),
    blocks.MuteResult.SELF: (messages.ERROR, "You cannot mute or unmute yourself."),
}

APPROVE_MESSAGES = {
    graph.FollowResult.FOLLOWED: (messages.SUCCESS, "@{login} now follows you."),
    graph.FollowResult.ALREADY_FOLLOWING: (messages.INFO, "@{login} already follows you."),
    graph.FollowResult.NO_REQUEST: (messages.INFO, "@{login} no longer asks to follow you."),
    graph.FollowResult.BLOCKED: (messages.ERROR, "You block @{login}: unblock them first."),
    graph.FollowResult.BLOCKING: (messages.ERROR, "@{login} blocks you."),
}

BUSY = "Another follow of yours (or theirs) is still in progress. Try again."


def _act(request, login, act, results):
    """Run ``act(r, viewer id, other id)`` on the user ``login``; flash what its result
    means (``results``: result -> (level, text)) and go back where the form said."""
    other = _user_or_404(login)
    try:
        result = act(get_redis(), request.user.id, other["id"])
    except graph.LockBusy:
        messages.error(request, BUSY)
    else:
        level, text = results[result]
        messages.add_message(request, level, text.format(login=other["login"]))
    return redirect_to_next(request, reverse("profile", args=[other["login"]]))


@require_POST
@login_required
def block(request, login):
    return _act(request, login, blocks.block, BLOCK_MESSAGES)


@require_POST
@login_required
def unblock(request, login):
    return _act(request, login, blocks.unblock, BLOCK_MESSAGES)


@require_POST
@login_required
def mute(request, login):
    form = MuteForm(request.POST)
    if not form.is_valid():
        choices = ", ".join(label for label, _ in MUTE_DURATIONS.values())
        raise BadRequest(f"Choose how long to mute: {choices}.")
    label, duration_ms = MUTE_DURATIONS[form.cleaned_data["duration"]]
    results = {
        result: (level, text.replace("{duration}", label))
        for result, (level, text) in MUTE_MESSAGES.items()
    }

    def act(r, uid, other_uid):
        return blocks.mute(r, uid, other_uid, duration_ms=duration_ms)

    return _act(request, login, act, results)


@require_POST
@login_required
def unmute(request, login):
    return _act(request, login, blocks.unmute, MUTE_MESSAGES)


# --- settings ------------------------------------------------------------------------------


@require_http_methods(["GET", "POST"])
@login_required
def settings_page(request):
    r = get_redis()
    uid = request.user.id
    if request.method == "POST":
        form = PrivacyForm(request.POST)
        if form.is_valid():
            private = form.cleaned_data["private"]
            approved = privacy.set_private(r, uid, private)
            if private:
                messages.success(
                    request,
                    "Your account is private: only the followers you approve see your statuses.",
                )
            else:
                messages.success(
                    request,
                    "Your account is public: everyone sees your statuses."
                    + (f" {approved} waiting request(s) approved." if approved else ""),
                )
            return redirect("settings")
    else:
        form = PrivacyForm(initial={"private": privacy.is_private(r, uid)})
    context = {"form": form, "requests": privacy.request_count(r, uid)}
    return render(request, "timeline/settings.html", context, status=400 if form.errors else 200)


def _settings_list(request, kind, read_page):
    page = read_page(get_redis(), request.user.id, before=_cursor(request), count=30)
    if kind == "mutes":
        for person in page.items:
            person["until"] = mute_until(person["mute_ends"])
    return render(request, "timeline/settings_list.html", {"kind": kind, "page": page})


@require_GET
@login_required
def settings_blocks(request):
    return _settings_list(request, "blocks", blocks.blocks_page)


@require_GET
@login_required
def settings_mutes(request):
    return _settings_list(request, "mutes", blocks.mutes_page)


@require_GET
@login_required
def settings_requests(request):
    return _settings_list(request, "requests", privacy.requests_page)


def _answer(request, login, answer):
    requester = users.get_user_by_login(get_redis(), login)
    if requester is None:
        raise Http404(f"There is no user @{login}.")
    try:
        result = answer(get_redis(), request.user.id, requester["id"])
    except graph.LockBusy:
        messages.error(request, BUSY)
    else:
        level, text = result
        messages.add_message(request, level, text.format(login=requester["login"]))
    return redirect_to_next(request, reverse("settings_requests"))


@require_POST
@login_required
def approve_request(request, login):
    def answer(r, uid, requester_uid):
        return APPROVE_MESSAGES[privacy.approve(r, uid, requester_uid)]

    return _answer(request, login, answer)


@require_POST
@login_required
def reject_request(request, login):
    def answer(r, uid, requester_uid):
        if privacy.reject(r, uid, requester_uid):
            return messages.SUCCESS, "You rejected the request of @{login}."
        return messages.INFO, "@{login} no longer asks to follow you."

    return _answer(request, login, answer)

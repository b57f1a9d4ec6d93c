"""Blocks, mutes and private accounts: the buttons on a profile, and the settings pages
that list them. Each button's view: its form read, one action
(socialsite/actions/relations.py), a flash message and a redirect (acting_on_users)."""

from urllib.parse import urlsplit

from django.contrib import messages
from django.core.exceptions import BadRequest
from django.shortcuts import redirect, render
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from accounts.decorators import login_required
from socialsite.acting import actor_of
from socialsite.actions import Invalid
from socialsite.actions import relations as relation_actions
from socialsite.actions import settings as settings_actions
from socialsite.connection import get_redis
from socialsite.query import page_cursor
from socialsite.redirects import safe_next
from socialsite.repository import blocks, graph, privacy

from .acting_on_users import act_on_user
from .forms import MUTE_DURATIONS, MuteForm, PrivacyForm, TimeZoneForm, mute_until
from .lookups import user_or_404

BLOCK_MESSAGES = {
    blocks.BlockResult.BLOCKED: (
        messages.SUCCESS,
        "You blocked @{login}. Neither of you follows the other now; they cannot follow "
        "you or see your statuses, and you will not see theirs on your home page.",
    ),
    blocks.BlockResult.ALREADY_BLOCKED: (messages.INFO, "You already block @{login}."),
    blocks.BlockResult.UNBLOCKED: (messages.SUCCESS, "You no longer block @{login}."),
    blocks.BlockResult.NOT_BLOCKED: (messages.INFO, "You were not blocking @{login}."),
}

MUTE_MESSAGES = {
    blocks.MuteResult.MUTED: (messages.SUCCESS, "You muted @{login} {duration}."),
    blocks.MuteResult.MUTE_CHANGED: (messages.SUCCESS, "You now mute @{login} {duration}."),
    blocks.MuteResult.UNMUTED: (messages.SUCCESS, "You no longer mute @{login}."),
    blocks.MuteResult.NOT_MUTED: (messages.INFO, "You were not muting @{login}."),
}

REJECT_MESSAGES = {
    relation_actions.RejectResult.REJECTED: (
        messages.SUCCESS,
        "You rejected the request of @{login}.",
    ),
    relation_actions.RejectResult.NO_REQUEST: (
        messages.INFO,
        "@{login} no longer asks to follow you.",
    ),
}

APPROVE_MESSAGES = {
    graph.FollowResult.FOLLOWED: (messages.SUCCESS, "@{login} now follows you."),
    graph.FollowResult.ALREADY_FOLLOWING: (messages.INFO, "@{login} already follows you."),
    graph.FollowResult.NO_REQUEST: (messages.INFO, "@{login} no longer asks to follow you."),
}


@require_POST
@login_required
def block(request, login):
    return act_on_user(request, login, relation_actions.block, BLOCK_MESSAGES)


@require_POST
@login_required
def unblock(request, login):
    return act_on_user(request, login, relation_actions.unblock, BLOCK_MESSAGES)


@require_http_methods(["GET", "POST"])
@login_required
def mute(request, login):
    """GET: the choice of how long to mute (a status's more menu links here); POST: the
    mute, from this page or a profile's menu."""
    if request.method == "GET":
        return _mute_choice(request, user_or_404(login))
    form = MuteForm(request.POST)
    if not form.is_valid():
        choices = ", ".join(label for label, _ in MUTE_DURATIONS.values())
        raise BadRequest(f"Choose how long to mute: {choices}.")
    label, duration_ms = MUTE_DURATIONS[form.cleaned_data["duration"]]
    results = {
        result: (level, text.replace("{duration}", label))
        for result, (level, text) in MUTE_MESSAGES.items()
    }

    def act(actor, other_uid):
        return relation_actions.mute(actor, other_uid, duration_ms=duration_ms)

    return act_on_user(request, login, act, results)


def _mute_choice(request, other):
    """The page asking how long to mute ``other``; its form goes back to the page the
    reader came from (``next``, else the Referer on this site, else the profile)."""
    came_from = urlsplit(request.META.get("HTTP_REFERER", ""))
    back = came_from.path if came_from.netloc == request.get_host() else ""
    if came_from.query:
        back += f"?{came_from.query}"
    form = MuteForm(initial={"duration": "forever"})
    context = {"other": other, "form": form, "next": safe_next(request, back or "")}
    return render(request, "timeline/mute.html", context)


@require_POST
@login_required
def unmute(request, login):
    return act_on_user(request, login, relation_actions.unmute, MUTE_MESSAGES)


# --- settings ------------------------------------------------------------------------------


@require_http_methods(["GET", "POST"])
@login_required
def settings_page(request):
    """GET/POST /settings/: who sees the statuses (private account), the theme and the
    time zone. The display name is the profile editor's (timeline/profile_settings.py)."""
    r = get_redis()
    uid = request.user.id
    theme = request.user.theme
    zone_form = None
    if request.method == "POST" and request.POST.get("time_zone_form") == "1":
        # The time zone's form (the reader's zone, in which pages show times).
        zone_form = TimeZoneForm(request.POST)
        if zone_form.is_valid():
            zone = zone_form.cleaned_data["time_zone"]
            try:
                settings_actions.set_time_zone(actor_of(request), zone)
            except Invalid as refusal:
                zone_form.add_error("time_zone", refusal.message)
            else:
                messages.success(request, f"The pages now show times in {zone}.")
                return redirect("settings")
        form = PrivacyForm(initial={"private": privacy.is_private(r, uid), "theme": theme})
    elif request.method == "POST" and request.POST.get("privacy_form") != "1":
        # Another form, or none: an unticked checkbox sends nothing, so reading this as
        # the privacy form would make the account public.
        was = {"private": "on"} if privacy.is_private(r, uid) else {}
        form = PrivacyForm({"theme": theme, **was})
        form.is_valid()
        form.add_error(
            None,
            "This was not the privacy form, so nothing changed: "
            "use the form under Privacy and theme.",
        )
    elif request.method == "POST":
        form = PrivacyForm(request.POST)
        if form.is_valid():
            _save_settings(request, r, form.cleaned_data, theme)
            return redirect("settings")
    else:
        form = PrivacyForm(initial={"private": privacy.is_private(r, uid), "theme": theme})
    if zone_form is None:
        zone_form = TimeZoneForm(initial={"time_zone": request.user.time_zone})
    context = {"form": form, "zone_form": zone_form, "requests": privacy.request_count(r, uid)}
    status = 400 if form.errors or zone_form.errors else 200
    return render(request, "timeline/settings.html", context, status=status)


THEME_NAMES = {"": "System", "light": "Light", "dark": "Dark"}


def _save_settings(request, r, data, theme_before):
    """Apply the settings form's ``data``: the privacy when it changed (or when nothing
    else did: sending the form as it was says again what it is), the theme when it did."""
    private, theme = data["private"], data["theme"]
    if theme != theme_before:
        settings_actions.set_theme(actor_of(request), theme)
        messages.success(request, f"Theme: {THEME_NAMES[theme]}.")
    if private != privacy.is_private(r, request.user.id) or theme == theme_before:
        approved = relation_actions.set_private(actor_of(request), private).approved
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


def _settings_list(request, kind, read_page):
    page = read_page(get_redis(), request.user.id, before=page_cursor(request), count=30)
    if kind == "mutes":
        for person in page.items:
            person["until"] = mute_until(person["mute_ends"], request.user.time_zone)
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


@require_POST
@login_required
def approve_request(request, login):
    return act_on_user(
        request, login, relation_actions.approve, APPROVE_MESSAGES, "settings_requests"
    )


@require_POST
@login_required
def reject_request(request, login):
    return act_on_user(
        request, login, relation_actions.reject, REJECT_MESSAGES, "settings_requests"
    )

"""The Top timeline's pages: /top/ (the home's statuses from the last TOP_WINDOW, most
important first, each saying why: socialsite/repository/ranking.py) beside Latest, and
/settings/top/ (the reader's weights and the tab their home opens with, with a preview).
"""

from django import forms
from django.conf import settings
from django.contrib import messages
from django.shortcuts import redirect, render

from accounts.decorators import login_required, redirect_to_login
from socialsite.acting import actor_of
from socialsite.actions import Invalid
from socialsite.actions import settings as settings_actions
from socialsite.connection import get_redis
from socialsite.query import page_cursor
from socialsite.repository import ranking

# How many statuses the settings page's preview shows.
PREVIEW_SIZE = 10

LEVEL_CHOICES = [("less", "Less"), ("normal", "Normal"), ("more", "More")]
LEVEL_OF = {level: name for name, level in settings_actions.TOP_LEVELS.items()}


def weights_of(user):
    """The reader's ranking.Weights (their settings; the defaults until they choose)."""
    return ranking.Weights.unpack(getattr(user, "top_weights", ""))


def top_page(request, read=None):
    """A page of the reader's Top timeline (GET /top/, and / for a reader whose home
    opens with Top). Round trips, the first page: the session's, which reads the home's
    newest TOP_CANDIDATES entries (home_page.lua), the follows and affinities along
    (``read``: ranking.TopRead; without it, two more); the statuses and authors this
    process has not read lately; the likers (one pipeline, none when no candidate has
    likes); the snapshot written (none when all fit on one page). A later page: the
    session's, which reads the snapshot with the hidden authors along; the statuses;
    the authors not shown lately."""
    before = page_cursor(request)
    user = request.user
    page = ranking.rank_page(
        get_redis(),
        user.id,
        weights_of(user),
        before=before,
        count=settings.TIMELINE_PAGE_SIZE,
        candidates=settings.TOP_CANDIDATES,
        window=settings.TOP_WINDOW,
        read=read,
    )
    context = {
        "page": page,
        "tab": "top",
        "live": before is None or page.refreshed,
        "window_hours": settings.TOP_WINDOW // 3600,
    }
    return render(request, "timeline/top.html", context)


def top(request):
    # What the page reads first rides in the session's round trip (ranking.TopRead):
    # asked for before anything looks at the user, so the login check is here.
    read = ranking.TopRead(page_cursor(request), settings.TOP_CANDIDATES)
    request.session.read_along(read)
    if not request.user.is_authenticated:
        return redirect_to_login(request)
    return top_page(request, read)


class TopSettingsForm(forms.Form):
    """/settings/top/: three plain weights, two things to hide, the home's tab."""

    people = forms.ChoiceField(
        label="Favour people I talk with",
        choices=LEVEL_CHOICES,
        widget=forms.RadioSelect,
        help_text="Whose statuses you like, repost, reply to or whose profile you open.",
    )
    popular = forms.ChoiceField(
        label="Favour popular statuses",
        choices=LEVEL_CHOICES,
        widget=forms.RadioSelect,
        help_text="Likes, reposts and replies; those of people you follow count three times.",
    )
    newest = forms.ChoiceField(
        label="Favour the newest",
        choices=LEVEL_CHOICES,
        widget=forms.RadioSelect,
        help_text="A status's weight halves every 24, 12 or 6 hours.",
    )
    hide_reposts = forms.BooleanField(
        label="Hide reposts of people I do not follow", required=False
    )
    hide_replies = forms.BooleanField(label="Hide replies", required=False)
    home_tab = forms.ChoiceField(
        label="Your home opens with",
        choices=[("latest", "Latest"), ("top", "Top")],
        widget=forms.RadioSelect,
    )

    @classmethod
    def initial_of(cls, user):
        weights = weights_of(user)
        return {
            "people": LEVEL_OF[weights.people],
            "popular": LEVEL_OF[weights.popular],
            "newest": LEVEL_OF[weights.newest],
            "hide_reposts": weights.hide_reposts,
            "hide_replies": weights.hide_replies,
            "home_tab": getattr(user, "home_tab", "latest"),
        }


def _weights(form):
    data = form.cleaned_data
    return settings_actions.top_weights(
        data["people"], data["popular"], data["newest"], data["hide_reposts"], data["hide_replies"]
    )


@login_required
def top_settings(request):
    """GET/POST /settings/top/: the reader's weights and home tab. POST saves them
    (settings.set_top); GET with ``preview`` shows the first PREVIEW_SIZE statuses Top
    would show with the choices in the query, unsaved (a ranking: the first page's
    round trips, without the snapshot)."""
    preview, preview_liked = None, frozenset()
    status = 200
    if request.method == "POST":
        form = TopSettingsForm(request.POST)
        if form.is_valid():
            try:
                settings_actions.set_top(
                    actor_of(request), _weights(form), form.cleaned_data["home_tab"]
                )
            except Invalid as refusal:
                form.add_error(refusal.field, refusal.message)
            else:
                messages.success(request, "Top now ranks by your choices.")
                return redirect("top_settings")
        status = 400
    elif "preview" in request.GET:
        form = TopSettingsForm(request.GET)
        if form.is_valid():
            ranked, preview_liked = ranking.rank(
                get_redis(),
                request.user.id,
                _weights(form),
                candidates=settings.TOP_CANDIDATES,
                window=settings.TOP_WINDOW,
            )
            preview = []
            for item in ranked[:PREVIEW_SIZE]:
                item.status.pop("top_via", None)
                preview.append({**item.status, "top_why": item.why})
        else:
            status = 400
    else:
        form = TopSettingsForm(initial=TopSettingsForm.initial_of(request.user))
    context = {
        "form": form,
        "preview": preview,
        "preview_liked": preview_liked,
        "window_hours": settings.TOP_WINDOW // 3600,
    }
    return render(request, "timeline/settings_top.html", context, status=status)

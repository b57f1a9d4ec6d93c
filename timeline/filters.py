"""Keyword filters' settings pages (/settings/filters/): the reader's filters, the form
making one, the form changing one, and deleting one, through the filters actions
(socialsite/actions/filters.py), whose refusals they say beside the field. Filters are
their owner's alone: another user's filter id is a plain 404. Where the filters apply to
the pages: timeline/jinja_helpers.page_filters."""

from django import forms
from django.contrib import messages
from django.shortcuts import redirect, render
from django.views.decorators.http import require_http_methods, require_POST

from accounts.decorators import login_required
from socialsite.acting import actor_of
from socialsite.actions import Invalid
from socialsite.actions import filters as filter_actions
from socialsite.connection import get_redis
from socialsite.repository import filters, limits

CONTEXT_CHOICES = [
    ("home", "Home, Top and lists"),
    ("notifications", "Notifications"),
    ("public", "Hashtags and groups"),
    ("thread", "Threads"),
    ("account", "Profiles"),
]
ACTION_CHOICES = [
    ("warn", "Collapse them behind \u201cFiltered\u201d and the filter's title"),
    ("hide", "Hide them completely"),
]
# Mastodon's choices of expiry; "keep" (on the edit form) leaves it as it is.
EXPIRY_CHOICES = [
    ("", "Never"),
    ("1800", "In 30 minutes"),
    ("3600", "In 1 hour"),
    ("21600", "In 6 hours"),
    ("43200", "In 12 hours"),
    ("86400", "In 1 day"),
    ("604800", "In 1 week"),
]
KEEP = "keep"


class FilterForm(forms.Form):
    """A filter as its page edits it: its keywords one per line, whole words or not for
    all of them (the API sets it keyword by keyword)."""

    title = forms.CharField(
        label="Title",
        max_length=limits.FILTER_TITLE_LENGTH,
        widget=forms.TextInput(attrs={"maxlength": limits.FILTER_TITLE_LENGTH}),
    )
    keywords = forms.CharField(
        label="Keywords or phrases, one per line",
        required=False,
        widget=forms.Textarea(attrs={"rows": 5}),
    )
    whole_word = forms.BooleanField(label="Whole words only", required=False, initial=True)
    context = forms.MultipleChoiceField(
        label="Where", choices=CONTEXT_CHOICES, widget=forms.CheckboxSelectMultiple
    )
    filter_action = forms.ChoiceField(
        label="What to do", choices=ACTION_CHOICES, widget=forms.RadioSelect, initial="warn"
    )
    expires_in = forms.ChoiceField(label="Expires", choices=EXPIRY_CHOICES, required=False)

    def __init__(self, *args, editing=False, **kwargs):
        super().__init__(*args, **kwargs)
        if editing:
            self.fields["expires_in"].choices = [(KEEP, "As it is"), *EXPIRY_CHOICES]

    def keyword_changes(self):
        lines = self.cleaned_data["keywords"].splitlines()
        whole = self.cleaned_data["whole_word"]
        return [filter_actions.KeywordChange(line.strip(), whole) for line in lines if line.strip()]

    def expiry(self):
        value = self.cleaned_data.get("expires_in") or ""
        if value == KEEP:
            return filter_actions.UNCHANGED
        return int(value) if value else None


def _initial(found):
    return {
        "title": found.title,
        "keywords": "\n".join(k.keyword for k in found.keywords),
        "whole_word": all(k.whole_word for k in found.keywords) if found.keywords else True,
        "context": list(found.context),
        "filter_action": found.action,
        "expires_in": KEEP,
    }


def _refused_in(form, refused):
    """Say the action's Invalid ``refused`` in ``form``: beside its field, else above."""
    field = {"keywords_attributes": "keywords"}.get(refused.field, refused.field)
    form.add_error(field if field in form.fields else None, refused.message)


def _page(request, form, found=None, status=200):
    mine = filters.get_filters(get_redis(), request.user.id)
    context = {
        "filters": mine,
        "form": form,
        "editing": found,
        "most": limits.FILTERS_PER_USER,
        "now_ms": filters.now_ms(),
    }
    return render(request, "timeline/settings_filters.html", context, status=status)


@require_http_methods(["GET", "POST"])
@login_required
def filters_page(request):
    """GET: the reader's filters and the form making one. POST: make one, then back to
    the list; a refusal shows the form again with what was typed and the reason."""
    if request.method == "GET":
        return _page(request, FilterForm())
    form = FilterForm(request.POST)
    if not form.is_valid():
        return _page(request, form, status=400)
    try:
        made = filter_actions.create_filter(
            actor_of(request),
            form.cleaned_data["title"],
            form.cleaned_data["context"],
            form.cleaned_data["filter_action"],
            form.keyword_changes(),
            form.expiry(),
        )
    except Invalid as refused:
        _refused_in(form, refused)
        return _page(request, form, status=400)
    messages.success(request, f"Your filter \u201c{made.title}\u201d is on.")
    return redirect("settings_filters")


@require_http_methods(["GET", "POST"])
@login_required
def edit_filter(request, filter_id):
    """GET: the filter's form, filled in. POST: change it, then back to the list. 404 for
    no filter of the reader's."""
    actor = actor_of(request)
    found = filter_actions.get_filter(actor, filter_id)  # NotFound: the 404 page
    if request.method == "GET":
        return _page(request, FilterForm(initial=_initial(found), editing=True), found)
    form = FilterForm(request.POST, editing=True)
    if not form.is_valid():
        return _page(request, form, found, status=400)
    try:
        changed = filter_actions.update_filter(
            actor,
            filter_id,
            title=form.cleaned_data["title"],
            context=form.cleaned_data["context"],
            action=form.cleaned_data["filter_action"],
            keywords=form.keyword_changes(),
            replace_keywords=True,
            expires_in=form.expiry(),
        )
    except Invalid as refused:
        _refused_in(form, refused)
        return _page(request, form, found, status=400)
    messages.success(request, f"Your filter \u201c{changed.title}\u201d is saved.")
    return redirect("settings_filters")


@require_POST
@login_required
def delete_filter(request, filter_id):
    """Delete the reader's filter; 404 for none of theirs (a delete sent twice)."""
    gone = filter_actions.delete_filter(actor_of(request), filter_id)
    messages.success(request, f"Your filter \u201c{gone.title}\u201d is deleted.")
    return redirect("settings_filters")

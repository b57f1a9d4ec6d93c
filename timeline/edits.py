"""Editing a status (decision 0074): the edit page (one's own status's menu links here:
its text, content warning, sensitive mark, its images' descriptions and which it keeps),
and a status's history page (its versions, newest first), which the "Edited" marker of
the status component links to. Both work without JavaScript."""

from django import forms
from django.contrib import messages
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_GET, require_http_methods

from accounts.decorators import login_required
from media import attachments
from socialsite.acting import actor_of
from socialsite.actions import Invalid, NotFound
from socialsite.actions import statuses as statuses_actions
from socialsite.connection import get_redis
from socialsite.repository import likes, statuses
from socialsite.throttling import throttle

from .lookups import no_such_status

# What a version in a status's history keeps (statuses.status_history).
VERSION_FIELDS = ("message", "entities", "spoiler", "sensitive", "media")


class EditStatusForm(forms.Form):
    message = forms.CharField(
        label="Your status", required=False, widget=forms.Textarea(attrs={"rows": 4})
    )
    spoiler_text = forms.CharField(
        label="Content warning",
        required=False,
        max_length=attachments.SPOILER_MAX_LENGTH,
        help_text="Shown instead of the text and images until a reader opens it.",
    )
    sensitive = forms.BooleanField(
        label="Sensitive: hide the text and images until opened", required=False
    )

    def __init__(self, *args, images=(), **kwargs):
        super().__init__(*args, **kwargs)
        self.images = list(images)
        for number, image in enumerate(self.images, start=1):
            self.fields[f"keep_{image['id']}"] = forms.BooleanField(
                label=f"Keep image {number}", required=False, initial=True
            )
            self.fields[f"alt_{image['id']}"] = forms.CharField(
                label=f"Description of image {number}",
                required=False,
                max_length=attachments.ALT_MAX_LENGTH,
                initial=image["alt"],
                widget=forms.Textarea(attrs={"rows": 2}),
            )

    def image_fields(self):
        """(image, its keep field, its description field) for the template."""
        return [(image, self[f"keep_{image['id']}"], self[f"alt_{image['id']}"])
                for image in self.images]  # fmt: skip

    def change(self):
        data = self.cleaned_data
        kept = [image["id"] for image in self.images if data.get(f"keep_{image['id']}")]
        return statuses_actions.StatusEdit(
            text=data["message"],
            spoiler_text=data["spoiler_text"],
            sensitive=data["sensitive"],
            media_ids=tuple(kept) if self.images else None,
            descriptions=tuple((i["id"], data.get(f"alt_{i['id']}") or "") for i in self.images),
        )


def _own_status(request, status_id):
    """The viewer's own status ``status_id`` (not a repost), or the 404 of a missing one."""
    status = statuses.own_status(get_redis(), request.user.id, status_id)
    if status is None:
        raise no_such_status()
    return status


@require_http_methods(["GET", "POST"])
@throttle("statuses", methods=("POST",))
@login_required
def edit_status(request, status_id):
    """GET: the edit form, filled with the status as it is; POST: the edit (the action
    statuses.edit), then the status's page; its refusals said in the form."""
    status = _own_status(request, status_id)
    images = attachments.media_of(status)
    if request.method == "GET":
        initial = {
            "message": status.get("message") or "",
            "spoiler_text": status.get("spoiler") or "",
            "sensitive": status.get("sensitive") == "1",
        }
        form = EditStatusForm(initial=initial, images=images)
    else:
        form = EditStatusForm(request.POST, images=images)
        if form.is_valid():
            try:
                statuses_actions.edit(actor_of(request), status_id, form.change())
            except Invalid as refused:
                field = refused.field if refused.field in form.fields else None
                form.add_error(field, str(refused))
            except NotFound:
                raise no_such_status() from None
            else:
                messages.success(request, "Your status is edited.")
                return redirect(reverse("status_detail", args=[status["login"], status_id]))
    context = {"status": status, "form": form, "has_poll": bool(status.get("poll"))}
    return render(request, "timeline/edit_status.html", context, status=400 if form.errors else 200)


@require_GET
def status_history(request, status_id):
    """A status's versions, newest first, each with when it was written: to anyone who
    may see the status (a 404 to others, as a missing one)."""
    r = get_redis()
    status, _ = likes.status_for_viewer(r, request.user.id, status_id)
    if status is None or status.get("repost_of"):
        raise no_such_status()
    versions = [
        {"status": status, "at": float(status.get("edited") or 0) / 1000 or status["posted"]}
    ]
    for version in reversed(statuses.status_history(r, status_id)):
        shown = {**status, **{name: version.get(name) or "" for name in VERSION_FIELDS}}
        versions.append({"status": shown, "at": int(version.get("at") or 0) / 1000})
    return render(request, "timeline/status_history.html", {"status": status, "versions": versions})

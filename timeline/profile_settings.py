"""/settings/profile/: the profile form (name, bio, website, avatar, header). The form
says every problem of its fields at once; the profile action (socialsite/actions/
profiles.py) checks again, decodes the pictures and saves; a redirect."""

from django.contrib import messages
from django.http import Http404
from django.shortcuts import redirect, render
from django.views.decorators.http import require_http_methods

from accounts.decorators import login_required
from media import files
from socialsite import actions, throttling
from socialsite.acting import actor_of
from socialsite.actions import profiles as profile_actions
from socialsite.actions import uploads as upload_actions
from socialsite.connection import get_redis
from socialsite.repository import users

from .forms import ProfileForm, pictures_sent

TEMPLATE = "timeline/settings_profile.html"
CHOOSE_AGAIN = " Pictures are not kept from a form that was refused: choose them again."


def _initial(user):
    return {
        "name": user["name"],
        "bio": user.get("bio", ""),
        "website": user.get("website", ""),
    }


def _page(request, user, form, status=200):
    return render(request, TEMPLATE, {"form": form, "profile": user}, status=status)


@require_http_methods(["GET", "POST"])
@login_required
def edit_profile(request):
    r = get_redis()
    user = users.get_user(r, request.user.id)
    if user is None:
        raise Http404("There is no such account any more.")
    if request.method == "GET":
        return _page(request, user, ProfileForm(initial=_initial(user)))
    actor = actor_of(request)
    try:
        # Each picture counted before any is read, as for a status's images.
        upload_actions.count_pictures(actor, pictures_sent(request.FILES))
    except actions.Throttled as refusal:
        form = ProfileForm(request.POST)
        form.is_valid()
        form.add_error(None, refusal.message + CHOOSE_AGAIN)
        context = {"form": form, "profile": user}
        return throttling.too_many_requests(request, refusal.counted, TEMPLATE, context)
    form = ProfileForm(request.POST, request.FILES)
    if form.is_valid():
        data = form.cleaned_data
        change = profile_actions.ProfileChange(
            name=data["name"],
            bio=data["bio"],
            website=data["website"],
            avatar=data["avatar"],
            header=data["header"],
            remove_avatar=data["remove_avatar"],
            remove_header=data["remove_header"],
        )
        try:
            profile_actions.update_profile(actor, change)
        except actions.Invalid as refused:
            form.add_error(refused.field if refused.field in form.fields else None, refused.message)
        except files.StorageFailed:
            form.add_error(
                None,
                "Your pictures could not be stored just now, so nothing was changed. Try"
                " again in a moment." + CHOOSE_AGAIN,
            )
            return _page(request, user, form, status=503)
        else:
            messages.success(request, "Your profile is saved.")
            return redirect("edit_profile")
    if request.FILES:
        form.add_error(None, "Your profile was not saved." + CHOOSE_AGAIN)
    return _page(request, user, form, status=400)

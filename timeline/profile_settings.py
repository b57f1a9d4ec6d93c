"""/settings/profile/: the profile form (name, bio, website, avatar, header). Checks,
one call that changes the profile (media/pictures.py), a redirect."""

from django.contrib import messages
from django.http import Http404
from django.shortcuts import redirect, render
from django.views.decorators.http import require_http_methods

from accounts.decorators import login_required
from media import files, pictures
from socialsite import throttling
from socialsite.connection import get_redis
from socialsite.repository import keys, profiles, users

from .forms import ProfileForm, pictures_sent

TEMPLATE = "timeline/settings_profile.html"
CHOOSE_AGAIN = " Pictures are not kept from a form that was refused: choose them again."


def _initial(user):
    return {
        "name": user["name"],
        "bio": user.get(keys.BIO_FIELD, ""),
        "website": user.get(keys.WEBSITE_FIELD, ""),
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
    for _ in range(pictures_sent(request.FILES)):
        counted = throttling.count(request, "media")
        if throttling.is_refused(counted):
            form = ProfileForm(request.POST)
            form.is_valid()
            form.add_error(None, counted.message + CHOOSE_AGAIN)
            context = {"form": form, "profile": user}
            return throttling.too_many_requests(request, counted, TEMPLATE, context)
    form = ProfileForm(request.POST, request.FILES)
    if not form.is_valid():
        if request.FILES:
            form.add_error(None, "Your profile was not saved." + CHOOSE_AGAIN)
        return _page(request, user, form, status=400)
    data = form.cleaned_data
    try:
        pictures.change_profile(
            r,
            user["id"],
            bio=data["bio"],
            website=data["website"],
            avatar=data["avatar"],
            header=data["header"],
            remove_avatar=data["remove_avatar"],
            remove_header=data["remove_header"],
        )
    except files.StorageFailed:
        form.add_error(
            None,
            "Your pictures could not be stored just now, so nothing was changed. Try again"
            " in a moment." + CHOOSE_AGAIN,
        )
        return _page(request, user, form, status=503)
    except profiles.AccountGone:
        raise Http404("There is no such account any more.") from None
    if data["name"] != user["name"]:
        users.change_name(r, user["id"], data["name"])
    messages.success(request, "Your profile is saved.")
    return redirect("edit_profile")

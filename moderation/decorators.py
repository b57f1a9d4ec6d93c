from functools import wraps

from django.http import Http404


def moderator_required(view):
    """Let moderators through; anyone else (visitors included) is answered 404, as if
    there were nothing here. Whether the viewer is a moderator is read with their
    session (accounts.users.SiteUser.is_moderator), so it costs nothing."""

    @wraps(view)
    def wrapper(request, *args, **kwargs):
        if not getattr(request.user, "is_moderator", False):
            raise Http404("There is nothing here.")
        return view(request, *args, **kwargs)

    return wrapper


def moderator_action(view):
    """A moderator's decision, sent by a form (POST). Anyone but a moderator is answered
    404 whatever the method (moderator_required, checked first: a GET must not tell
    them the address exists); a moderator's GET or HEAD is answered 404 too, as the
    page of an address with no page."""

    @moderator_required
    @wraps(view)
    def wrapper(request, *args, **kwargs):
        if request.method != "POST":
            raise Http404("There is no page here: this address takes a moderator's decision.")
        return view(request, *args, **kwargs)

    return wrapper

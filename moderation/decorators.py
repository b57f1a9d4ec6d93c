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

"""What the pages look up before they act: the user a URL names, and the one answer for
a status id that names nothing the viewer may see (a paged list's cursor:
socialsite.query.page_cursor)."""

from django.http import Http404

from socialsite.actions import statuses as statuses_actions
from socialsite.connection import get_redis
from socialsite.repository import users

# What a page taking a status id answers for one that is not there.
NO_SUCH_STATUS = statuses_actions.NO_SUCH_STATUS


def user_or_404(login):
    """The user dict of ``login``; Http404 for none, a suspended account or one being
    deleted."""
    user = users.get_user_by_login(get_redis(), login)
    if user is not None and users.is_suspended(user):
        raise Http404("This account is suspended.")
    if user is None or users.is_hidden(user):  # hidden: being deleted
        raise Http404(f"There is no user @{login}.")
    return user


def no_such_status():
    """The 404 of a status id that names nothing the viewer may see: deleted, never
    posted, or one they may not see (a private account's they do not follow, one whose
    author blocks them, a suspended author's). All alike, word for word, so that no page
    tells a protected status from a missing one (Mastodon answers 404 to all)."""
    return Http404(NO_SUCH_STATUS)

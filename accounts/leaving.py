"""Leaving the site: /settings/delete/ deletes the account, /settings/export/ downloads
its data first. The work is the repository's (repository/leaving.py)."""

import json

from django.contrib import messages
from django.http import Http404, StreamingHttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_GET, require_http_methods

from media import pictures
from socialsite.connection import get_redis
from socialsite.repository import emails, keys, leaving, users

from . import auth
from .decorators import login_required
from .forms import DeleteAccountForm


@require_http_methods(["GET", "POST"])
@login_required
def delete_account(request):
    """GET: what deleting the account removes, and the form; POST: the password, then
    the deletion (finished by the fan-out workers for a big account)."""
    form = DeleteAccountForm(request.user, request.POST or None)
    if request.method == "POST" and form.is_valid():
        leaving.delete_account(get_redis(), request.user.id)
        # The avatar and header the deletion's first step let go (profiles.forget_pictures).
        pictures.delete_unused(get_redis())
        auth.logout(request)
        messages.success(
            request,
            "Your account is deleted: your statuses and follows are going, your sessions "
            "have ended.",
        )
        return redirect("home")
    status = 400 if form.errors else 200
    return render(request, "accounts/delete.html", {"form": form}, status=status)


# Items written per chunk of the download: few writes, little memory.
_ITEMS_PER_CHUNK = 200


def _json_list(items):
    """The items of a JSON array, one a line, in chunks of _ITEMS_PER_CHUNK."""
    lines, first = [], True
    for item in items:
        lines.append(("\n  " if first else ",\n  ") + json.dumps(item))
        first = False
        if len(lines) == _ITEMS_PER_CHUNK:
            yield "".join(lines)
            lines = []
    yield "".join(lines) + ("\n" if not first else "")


def _export(r, uid, account):
    """The download's JSON text, piece by piece: the account, then its statuses,
    whom it follows and who follows it, each read from Redis a page at a time."""
    yield '{\n"account": ' + json.dumps(account) + ',\n"statuses": ['
    yield from _json_list(leaving.export_statuses(r, uid))
    yield '],\n"following": ['
    yield from _json_list(leaving.export_following(r, uid))
    yield '],\n"followers": ['
    yield from _json_list(leaving.export_followers(r, uid))
    yield "]\n}\n"


@require_GET
@login_required
def export_account(request):
    """The account's statuses, follows and followers as a JSON file to download,
    streamed: a big account is read and sent a page at a time."""
    r = get_redis()
    user = users.get_user(r, request.user.id)
    if user is None:  # deleted since this request's session was read
        raise Http404("There is no such account any more.")
    account = {field: user[field] for field in users.PUBLIC_FIELDS}
    # The profile's own words; its pictures are files, not in this JSON.
    account["bio"] = user.get(keys.BIO_FIELD, "")
    account["website"] = user.get(keys.WEBSITE_FIELD, "")
    email = emails.get(r, user["id"])
    account["email"] = email.address or None
    account["email_verified"] = email.verified
    response = StreamingHttpResponse(
        _export(r, user["id"], account), content_type="application/json; charset=utf-8"
    )
    response["Content-Disposition"] = f'attachment; filename="socialsite-{user["login"]}.json"'
    response["Cache-Control"] = "no-store"
    return response

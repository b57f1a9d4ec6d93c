"""Leaving the site: /settings/delete/ deletes the account (the action
socialsite.actions.accounts.delete_account), /settings/export/ downloads its data
first (read from repository/leaving.py)."""

import io
import json
import logging
import time
import zipfile

from django.contrib import messages
from django.core.files.storage import default_storage
from django.http import Http404, StreamingHttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_GET, require_http_methods

from media import attachments
from socialsite.acting import actor_of
from socialsite.actions import accounts as account_actions
from socialsite.connection import get_redis
from socialsite.repository import emails, leaving, users

from . import auth
from .decorators import login_required
from .forms import DeleteAccountForm

logger = logging.getLogger(__name__)


@require_http_methods(["GET", "POST"])
@login_required
def delete_account(request):
    """GET: what deleting the account removes, and the form; POST: the password, then
    the deletion (finished by the fan-out workers for a big account)."""
    form = DeleteAccountForm(request.user, request.POST or None)
    if request.method == "POST" and form.is_valid():
        account_actions.delete_account(actor_of(request))
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


def _export(r, uid, account, pictures_out):
    """The export's JSON text, piece by piece: the account, then its statuses, whom it
    follows and who follows it, each read from Redis a page at a time. The storage names
    of the statuses' images are appended to ``pictures_out`` as they pass, so that their
    files follow the JSON without reading the statuses twice (a name is ~60 bytes)."""

    def statuses_noting_pictures():
        for status in leaving.export_statuses(r, uid):
            pictures_out.extend(attachments.original_names(status))
            yield status

    yield '{\n"account": ' + json.dumps(account) + ',\n"statuses": ['
    yield from _json_list(statuses_noting_pictures())
    yield '],\n"following": ['
    yield from _json_list(leaving.export_following(r, uid))
    yield '],\n"followers": ['
    yield from _json_list(leaving.export_followers(r, uid))
    # The direct conversations the account is in: members and the messages it sees.
    yield '],\n"conversations": ['
    yield from _json_list(leaving.export_conversations(r, uid))
    # Bookmarks (the statuses kept, by id) and pinned statuses.
    yield '],\n"bookmarks": ['
    yield from _json_list(leaving.export_bookmarks(r, uid))
    yield '],\n"pinned": ['
    yield from _json_list(leaving.export_pinned(r, uid))
    yield "]\n}\n"


# Bytes of a picture read at once while it is copied into the zip.
_FILE_CHUNK = 256 * 1024


class _Pending(io.RawIOBase):
    """What the zip writer has written and not yet been sent: a write-only stream with
    no seek or tell, so that zipfile writes each member's sizes after its data (a data
    descriptor) and never goes back."""

    def __init__(self):
        self.chunks = []

    def writable(self):
        return True

    def write(self, data):
        self.chunks.append(bytes(data))
        return len(data)

    def take(self):
        data = b"".join(self.chunks)
        self.chunks.clear()
        return data


def _zip_export(r, uid, account, login):
    """The export as a zip, in pieces as it is made: ``socialsite-<login>.json`` (the
    account's data), then its pictures under their storage names, which the JSON names
    (the account's ``avatar`` and ``header``, each status's ``media``). Pictures are
    stored as they are (JPEG and WebP gain nothing from deflating); a file the storage
    cannot read is left out and logged, since a download under way cannot turn into an
    error page."""
    out = _Pending()
    names = [account[field] for field in ("avatar", "header") if account[field]]
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as archive:
        with archive.open(f"socialsite-{login}.json", "w", force_zip64=True) as member:
            for piece in _export(r, uid, account, names):
                member.write(piece.encode())
                if out.chunks:
                    yield out.take()
        for name in dict.fromkeys(names):
            try:
                source = default_storage.open(name, "rb")
            except OSError:
                logger.warning("export of user %s: picture %s could not be read", uid, name)
                continue
            info = zipfile.ZipInfo(name, date_time=time.localtime()[:6])
            info.compress_type = zipfile.ZIP_STORED
            with source, archive.open(info, "w", force_zip64=True) as member:
                while chunk := source.read(_FILE_CHUNK):
                    member.write(chunk)
                    yield out.take()
    yield out.take()


@require_GET
@login_required
def export_account(request):
    """The account's statuses, follows, followers, conversations, bookmarks and pinned
    statuses as JSON, with its pictures (avatar,
    header, its statuses' images), in one zip to download, streamed: a big account is
    read and sent a page, or a piece of a file, at a time."""
    r = get_redis()
    user = users.get_user(r, request.user.id)
    if user is None:  # deleted since this request's session was read
        raise Http404("There is no such account any more.")
    account = {field: user[field] for field in users.PUBLIC_FIELDS}
    account["bio"] = user.get("bio", "")
    account["website"] = user.get("website", "")
    # The pictures' storage names: the zip holds each file under its name.
    account["avatar"] = user.get("avatar") or None
    account["header"] = user.get("header") or None
    email = emails.get(r, user["id"])
    account["email"] = email.address or None
    account["email_verified"] = email.verified
    response = StreamingHttpResponse(
        _zip_export(r, user["id"], account, user["login"]), content_type="application/zip"
    )
    response["Content-Disposition"] = f'attachment; filename="socialsite-{user["login"]}.zip"'
    response["Cache-Control"] = "no-store"
    return response

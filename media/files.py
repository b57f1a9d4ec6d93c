"""Pictures' files, kept through Django's storage API (settings.STORAGES["default"]):
files under MEDIA_ROOT by default, any backend by setting (docs/media.md).

Every file gets a new random name (FOLDERS' folder, 22 random URL-safe characters, the
encoding's extension): nothing about it (an account, a status id, an order) can be
guessed, which is what keeps a private account's pictures private (docs/media.md).
Names are never reused, so a file's URL can be cached for good.
"""

import logging
import re
import secrets

from django.conf import settings
from django.core.files.base import ContentFile
from django.core.files.storage import default_storage

logger = logging.getLogger(__name__)

# What a stored file's name looks like: its kind's folder, then a random token.
FOLDERS = ("avatars", "headers", "attachments")
NAME = re.compile(r"(?:avatars|headers|attachments)/[A-Za-z0-9_-]{22}\.(?:jpg|webp)")
CONTENT_TYPES = {"jpg": "image/jpeg", "webp": "image/webp"}


class StorageFailed(Exception):
    """The storage backend refused or failed a write; nothing written was kept."""


def new_name(folder, encoded):
    """A fresh random name in ``folder`` for ``encoded`` (images.Encoded)."""
    assert folder in FOLDERS
    return f"{folder}/{secrets.token_urlsafe(16)}.{encoded.extension}"


def save_all(folder, renditions, names=None):
    """Save each of ``renditions`` (images.Encoded) under a new name in ``folder``, or
    under ``names`` (from new_name: given when they must be known, and listed, before
    the files exist); their names, in order. All or nothing: if one write fails, those
    made are deleted and StorageFailed is raised."""
    if names is None:
        names = [new_name(folder, encoded) for encoded in renditions]
    saved = []
    try:
        for encoded, name in zip(renditions, names, strict=True):
            stored = default_storage.save(name, ContentFile(encoded.data))
            saved.append(stored)
            if stored != name:  # a backend that renamed it: the random name is the contract
                raise OSError(f"the storage renamed {name} to {stored}")
    except Exception as error:
        delete_all(saved)
        logger.exception("Pictures could not be stored")
        raise StorageFailed(str(error)) from error
    return saved


def delete_all(names):
    """Delete the files ``names`` (missing ones are fine: deleting is retried). A
    failure is logged, not raised: the account or status goes on without them."""
    for name in names:
        if not name:
            continue
        try:
            default_storage.delete(name)
        except Exception:
            logger.exception("The picture %s could not be deleted", name)


def exists(name):
    return default_storage.exists(name)


def url(name):
    """Where a browser fetches the stored file ``name``."""
    return default_storage.url(name)


def absolute_url(name):
    """Where anyone fetches the stored file ``name``, as a full URL: the storage's own
    when it is one (MEDIA_URL on another origin, a bucket), else on SITE_URL, the site's
    address as people reach it (the streaming API's clients have no page to resolve a
    path against)."""
    found = url(name)
    if found.startswith("/"):
        return settings.SITE_URL.rstrip("/") + found
    return found

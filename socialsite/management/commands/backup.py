"""``manage.py backup DIR``: every key of every Redis master and the pictures, into a new
directory readable by its owner only, with a manifest (docs/operating.md#backups-and-restore).

The directory holds password hashes and addresses: it is made 0700 and every file in it
0600, whatever the umask. The manifest is written last, so a backup cut short has none
and ``restore`` refuses it.
"""

import datetime
import hashlib
import json
import os
import shutil
from pathlib import Path

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError

from socialsite.connection import redis_url
from socialsite.repository import backup, client

MANIFEST = "manifest.json"
REDIS_FILE = "redis.data"
MEDIA_DIR = "media"
FORMAT = "socialsite-backup/1"
FILESYSTEM_STORAGE = "django.core.files.storage.FileSystemStorage"


def binary_client():
    """A client of the site's Redis that returns bytes, with redis-py's patient defaults."""
    return client.connect(redis_url(), cluster=settings.REDIS_CLUSTER, decode=False)


def media_on_disk():
    """MEDIA_ROOT when pictures are kept on this host's disk, else None (a bucket keeps
    its own copies)."""
    if settings.STORAGES["default"]["BACKEND"] != FILESYSTEM_STORAGE:
        return None
    return Path(settings.MEDIA_ROOT)


def sha256_of(path):
    digest = hashlib.sha256()
    with open(path, "rb") as source:
        for block in iter(lambda: source.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


class Command(BaseCommand):
    help = "Back up every Redis key (all masters) and the pictures into a new directory."

    def add_arguments(self, parser):
        parser.add_argument("directory", help="a directory that does not exist yet, or is empty")
        parser.add_argument(
            "--batch", type=int, default=1000, help="keys read per round trip (default 1000)"
        )

    def handle(self, *args, directory, batch, **options):
        target = Path(directory)
        if target.exists() and (not target.is_dir() or any(target.iterdir())):
            raise CommandError(f"{target} exists and is not an empty directory: name a new one")
        target.mkdir(mode=0o700, parents=True, exist_ok=True)
        target.chmod(0o700)

        redis_path = target / REDIS_FILE
        descriptor = os.open(redis_path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(descriptor, "wb") as out:
            try:
                report = backup.dump(binary_client(), out, batch=max(1, batch))
            except client.OUTAGE_ERRORS as error:
                raise CommandError(
                    f"Redis could not be read ({error}): {target} is incomplete (it has no "
                    f"{MANIFEST}); remove it and try again"
                ) from None
            out.flush()
            os.fsync(out.fileno())

        media = {"included": False, "files": 0, "bytes": 0}
        root = media_on_disk()
        if root is not None:
            media["included"] = True
            if root.is_dir():
                media.update(self.copy_media(root, target / MEDIA_DIR))

        manifest = {
            "format": FORMAT,
            "created": datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"),
            "redis": {
                "file": REDIS_FILE,
                "cluster": settings.REDIS_CLUSTER,
                "keys": report.keys,
                "bytes": report.bytes,
                "sha256": report.sha256,
                "masters": report.masters,
            },
            "media": media,
        }
        descriptor = os.open(target / MANIFEST, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(descriptor, "w") as out:
            json.dump(manifest, out, indent=2)
            out.write("\n")
        masters = ", ".join(f"{m['address']}: {m['keys']:,}" for m in report.masters)
        pictures = f"{media['files']:,} files" if media["included"] else "not on this disk"
        self.stdout.write(
            f"Backed up {report.keys:,} keys ({masters}) and pictures ({pictures}) to {target}."
        )

    def copy_media(self, root, destination):
        """Copy the pictures, directories 0700 and files 0600; their count and bytes."""
        files = size = 0
        for folder, _, names in os.walk(root):
            relative = Path(folder).relative_to(root)
            (destination / relative).mkdir(mode=0o700, exist_ok=True)
            (destination / relative).chmod(0o700)
            for name in names:
                copy = destination / relative / name
                shutil.copyfile(Path(folder) / name, copy)
                copy.chmod(0o600)
                files += 1
                size += copy.stat().st_size
        return {"files": files, "bytes": size}

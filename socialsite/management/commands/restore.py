"""``manage.py restore DIR``: put a backup (``manage.py backup``) back into the site's
Redis, which must be empty unless --force, and its pictures back into MEDIA_ROOT
(docs/operating.md#backups-and-restore)."""

import json
import os
import shutil
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError
from redis.exceptions import ResponseError

from socialsite import memory
from socialsite.repository import backup, client

from .backup import FORMAT, MANIFEST, MEDIA_DIR, binary_client, media_on_disk, sha256_of


class Command(BaseCommand):
    help = "Restore a backup made by `manage.py backup` into an empty Redis (or cluster)."

    def add_arguments(self, parser):
        parser.add_argument("directory", help="a directory `manage.py backup` wrote")
        parser.add_argument(
            "--force",
            action="store_true",
            help="restore into a Redis that has keys: the backup's replace those of the "
            "same name, the others stay",
        )
        parser.add_argument(
            "--batch", type=int, default=1000, help="keys written per round trip (default 1000)"
        )

    def handle(self, *args, directory, force, batch, **options):
        source = Path(directory)
        try:
            manifest = json.loads((source / MANIFEST).read_text())
        except FileNotFoundError:
            raise CommandError(
                f"{source} has no {MANIFEST}: not a backup, or one that did not finish"
            ) from None
        if manifest.get("format") != FORMAT:
            raise CommandError(f"{source}: unknown backup format {manifest.get('format')!r}")
        data = source / manifest["redis"]["file"]
        if sha256_of(data) != manifest["redis"]["sha256"]:
            raise CommandError(f"{data} does not match its manifest (damaged or changed)")

        rb = binary_client()
        try:
            existing = backup.key_count(rb)
            if existing and not force:
                raise CommandError(
                    f"the Redis has {existing:,} keys already; restore into an empty one, or "
                    "with --force to replace the keys the backup has (the others stay)"
                )
            with open(data, "rb") as records:
                report = backup.restore(rb, records, replace=force, batch=max(1, batch))
        except (*client.OUTAGE_ERRORS, ResponseError) as error:
            versions = {m.get("redis_version") for m in manifest["redis"]["masters"]}
            raise CommandError(
                f"the restore stopped: {error}. The backup was made from Redis "
                f"{', '.join(sorted(v for v in versions if v))}: RESTORE needs the same or a "
                "newer one. Run it again with --force once the cause is fixed."
            ) from None
        memory.forget_all()

        pictures = "none in the backup"
        root = media_on_disk()
        if manifest["media"]["included"] and (source / MEDIA_DIR).is_dir():
            if root is None:
                pictures = f"not restored: MEDIA_STORAGE is not the disk; copy {source / MEDIA_DIR}"
            else:
                pictures = f"{self.copy_media(source / MEDIA_DIR, root):,} files"
        self.stdout.write(
            f"Restored {report.keys:,} keys of {manifest['redis']['keys']:,} "
            f"({report.expired:,} expired since the backup) and pictures ({pictures}). "
            "Restart the site's processes."
        )

    def copy_media(self, backup_root, root):
        """Copy the pictures missing from ``root`` (a picture's name is never reused, so
        one there is the same), with the modes the storage would give them."""
        copied = 0
        for folder, _, names in os.walk(backup_root):
            relative = Path(folder).relative_to(backup_root)
            (root / relative).mkdir(parents=True, exist_ok=True)
            for name in names:
                destination = root / relative / name
                if not destination.exists():
                    shutil.copyfile(Path(folder) / name, destination)
                    copied += 1
        return copied

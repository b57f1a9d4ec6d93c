"""Uploads no status shows yet: an image's files are stored only after it is listed here,
and the status that shows it takes it off in its own write (queue_attached, in posting's
round trip); what stays listed past its age (a process that died between storing the
files and writing the status, an upload never attached) is swept by the app
(media/uploads.py), which deletes its files unless a status names them.

An upload is named by its id, the random token of its original's storage name, and kept
with what a status keeps of it (its media item: storage names, sizes, alt text,
placeholders) and its uploader: enough for a client to upload first and attach later
(Mastodon's POST /api/v2/media, then media_ids[]). Both keys are in the uploader's
shard (keys.pending_uploads, keys.pending_upload_items): every write is in one slot, and
posting's clearing goes to the node of the poster's own keys.
"""

import json
import time

from . import keys, scripts
from .client import round_trip


def _now_ms(now):
    return int((time.time() if now is None else now) * 1000)


def add_pending(r, uid, items, now=None):
    """List the uploads ``items`` ({upload id: media item dict}) of user ``uid`` as
    pending, stored at ``now``: one round trip. Written again, an upload keeps its
    first time (a retry does not make it younger)."""
    if not items:
        return

    def fill(pipe):
        pipe.hset(
            keys.pending_upload_items(uid),
            mapping={
                upload_id: json.dumps({"u": int(uid), "m": item}, separators=(",", ":"))
                for upload_id, item in items.items()
            },
        )
        pipe.zadd(keys.pending_uploads(uid), dict.fromkeys(items, _now_ms(now)), nx=True)

    scripts.run_pipeline(r, fill)


def queue_attached(pipe, uid, upload_ids):
    """Queue, on ``pipe``, taking the uploads ``upload_ids`` of ``uid`` off the pending
    ones: in the round trip that writes the status showing them, after its hash."""
    if upload_ids:
        pipe.zrem(keys.pending_uploads(uid), *upload_ids)
        pipe.hdel(keys.pending_upload_items(uid), *upload_ids)


def forget_pending(r, uid, upload_ids):
    """Take the uploads ``upload_ids`` of ``uid`` off the pending ones (their files are
    deleted, or a status shows them). One round trip."""
    if upload_ids:
        scripts.run_pipeline(r, lambda pipe: queue_attached(pipe, uid, upload_ids))


def get_pending(r, uid, upload_ids, newer_than_ms=None):
    """{upload id: {"item": media item dict, "at": when stored (ms)}} for each of
    ``upload_ids`` that ``uid`` uploaded and no status shows yet, stored after
    ``newer_than_ms`` when given; the others are left out (gone, swept, another's, or
    too old to attach). One round trip."""
    if not upload_ids:
        return {}
    upload_ids = list(upload_ids)

    def fill(pipe):
        pipe.hmget(keys.pending_upload_items(uid), upload_ids)
        for upload_id in upload_ids:
            pipe.zscore(keys.pending_uploads(uid), upload_id)

    packed, *scores = scripts.run_pipeline(r, fill)
    found = {}
    for upload_id, entry, score in zip(upload_ids, packed, scores, strict=True):
        if entry is None or score is None:
            continue
        try:
            entry = json.loads(entry)
        except ValueError:
            continue
        if int(entry.get("u", -1)) != int(uid) or not isinstance(entry.get("m"), dict):
            continue
        if newer_than_ms is not None and score <= newer_than_ms:
            continue
        found[upload_id] = {"item": entry["m"], "at": int(score)}
    return found


def describe_pending(r, uid, upload_id, alt, newer_than_ms=None):
    """Set the alt text of pending upload ``upload_id`` of ``uid`` (stored after
    ``newer_than_ms`` when given) to ``alt``; its media item as changed, or None when it
    is not a pending upload of theirs (attached, swept, another's, too old). Two round
    trips: the entry read, then replaced if unchanged (a change made meanwhile by
    another request is read again: the last one wins, none is half applied)."""
    for _ in range(3):

        def fill(pipe):
            pipe.hget(keys.pending_upload_items(uid), upload_id)
            pipe.zscore(keys.pending_uploads(uid), upload_id)

        entry, score = scripts.run_pipeline(r, fill)
        if entry is None or score is None:
            return None
        if newer_than_ms is not None and score <= newer_than_ms:
            return None
        try:
            decoded = json.loads(entry)
        except ValueError:
            return None
        if int(decoded.get("u", -1)) != int(uid) or not isinstance(decoded.get("m"), dict):
            return None
        item = {**decoded["m"], "a": alt}
        new_entry = json.dumps({"u": int(uid), "m": item}, separators=(",", ":"))
        replaced = scripts.replace_pending_upload(
            r, uid=uid, upload_id=upload_id, entry=entry, new_entry=new_entry
        )
        if replaced:
            return item
    return None


def expired(r, before_ms, count=100):
    """Up to ``count`` uploads of each shard stored before ``before_ms`` that no status
    took off the pending ones: a list of {"id", "uid", "item", "at"}, oldest first in
    each shard. One round trip, a second when any is found. An entry whose item does
    not read is given with uid None and item None (to be forgotten)."""
    shards = range(keys.USER_SHARDS)

    def fill(pipe):
        for index in shards:
            pipe.zrangebyscore(
                keys.pending_uploads_of_shard(index), "-inf", f"({before_ms}",
                start=0, num=count, withscores=True,
            )  # fmt: skip

    found = [
        (index, upload_id, int(score))
        for index, listed in zip(shards, scripts.run_pipeline(r, fill), strict=True)
        for upload_id, score in listed
    ]
    if not found:
        return []

    def read(pipe):
        for index, upload_id, _ in found:
            pipe.hget(keys.pending_upload_items_of_shard(index), upload_id)

    due = []
    for (index, upload_id, at), entry in zip(found, round_trip(r, read), strict=True):
        uid = item = None
        try:
            decoded = json.loads(entry) if isinstance(entry, str) else None
            if isinstance(decoded, dict) and isinstance(decoded.get("m"), dict):
                uid, item = int(decoded["u"]), decoded["m"]
        except (ValueError, TypeError, KeyError):
            pass
        due.append({"id": upload_id, "uid": uid, "shard": index, "item": item, "at": at})
    return due


def forget_expired(r, entry):
    """Take the entry ``entry`` (one of expired's) off its shard's pending uploads."""

    def fill(pipe):
        pipe.zrem(keys.pending_uploads_of_shard(entry["shard"]), entry["id"])
        pipe.hdel(keys.pending_upload_items_of_shard(entry["shard"]), entry["id"])

    scripts.run_pipeline(r, fill)


def count(r):
    """How many uploads wait for a status, in every shard. One round trip."""

    def fill(pipe):
        for index in range(keys.USER_SHARDS):
            pipe.zcard(keys.pending_uploads_of_shard(index))

    return sum(scripts.run_pipeline(r, fill))

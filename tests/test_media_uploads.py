"""Uploads no status shows yet (repository/uploads.py, media/attachments.py): listed
before their files are stored, taken off by the status's own write, swept with their
files past MEDIA_PENDING_MAX_AGE unless a status names them (by the fan-out workers and
``manage.py pictures sweep``); and the functions Mastodon's POST /api/v2/media will use:
store an upload, read it back, attach uploads to a status. On real storage (a MEDIA_ROOT
of the test's own), on a single server and on a cluster (--redis=cluster)."""

import io
import json
import os
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import blurhash
import pytest
from django.core.files.storage import default_storage
from django.core.management import call_command

from media import attachments, files
from socialsite.repository import keys, statuses, uploads
from tests.support.helpers import stored_files
from tests.test_media_images import png

DAY = 24 * 60 * 60


@pytest.fixture
def picture():
    return attachments.prepare(png((300, 200), colour=(10, 120, 200)))


def poster(r, uid, message="with images", **extra):
    """The ``post`` the media functions call: the status written with its media field,
    taking its uploads off the pending ones in its own write."""

    def post(media, upload_ids):
        return statuses.post_status(
            r, uid, message, pending_uploads=upload_ids, **{keys.STATUS_MEDIA_FIELD: media},
            **extra,
        )  # fmt: skip

    return post


def media(r, sid):
    return json.loads(statuses.get_status(r, sid)[keys.STATUS_MEDIA_FIELD])


def test_a_posts_uploads_are_pending_from_before_their_files_until_its_write(
    r, alice, media_root, picture, monkeypatch
):
    seen = {}
    real_save = default_storage.save

    def save(name, content, **kwargs):
        seen.setdefault("pending before the first file", uploads.count(r))
        return real_save(name, content, **kwargs)

    def post(media_field, upload_ids):
        seen["pending when posting"] = uploads.count(r)
        seen["files when posting"] = len(stored_files(media_root))
        return poster(r, alice["id"])(media_field, upload_ids)

    monkeypatch.setattr(default_storage, "save", save)
    sid = attachments.post_with_images(r, alice["id"], [picture, picture], ["a", "b"], post)
    assert seen == {
        "pending before the first file": 2,
        "pending when posting": 2,
        "files when posting": 4,
    }
    assert uploads.count(r) == 0
    assert r.hlen(keys.pending_upload_items(alice["id"])) == 0
    kept = media(r, sid)
    assert stored_files(media_root) == sorted(item[part] for item in kept for part in "op")


def test_posting_with_images_costs_one_round_trip_more(r, alice, media_root, picture,
                                                       round_trips, redis_backend):  # fmt: skip
    statuses.post_status(r, alice["id"], "warm")  # scripts loaded, connections made
    before = round_trips["n"]
    statuses.post_status(r, alice["id"], "plain", **{keys.STATUS_MEDIA_FIELD: ""})
    plain = round_trips["n"] - before
    before = round_trips["n"]
    attachments.post_with_images(r, alice["id"], [picture], [""], poster(r, alice["id"]))
    with_images = round_trips["n"] - before
    # The pending list's write, and the check that the status is this post's
    # (statuses.stored_media, as before the pending list). On a cluster the statuses'
    # slots differ, so each pipeline may reach one node more or less.
    if redis_backend.cluster:
        assert with_images <= plain + 2 + len(redis_backend.nodes) - 1
    else:
        assert with_images == plain + 2


def test_a_failed_status_write_deletes_the_files_and_forgets_the_uploads(
    r, alice, media_root, picture
):
    gone = statuses.post_status(r, alice["id"], "parent")
    statuses.delete_status(r, alice["id"], gone)
    with pytest.raises(statuses.ParentGone):
        attachments.post_with_images(
            r, alice["id"], [picture], [""], poster(r, alice["id"], in_reply_to=gone)
        )
    assert stored_files(media_root) == [] and uploads.count(r) == 0


def test_a_storage_failure_lists_nothing(r, alice, media_root, picture, monkeypatch):
    def failing_save(name, content, **kwargs):
        raise OSError("disk full")

    monkeypatch.setattr(default_storage, "save", failing_save)
    with pytest.raises(files.StorageFailed):
        attachments.post_with_images(r, alice["id"], [picture], [""], poster(r, alice["id"]))
    with pytest.raises(files.StorageFailed):
        attachments.store_pending(r, alice["id"], picture)
    assert uploads.count(r) == 0 and stored_files(media_root) == []


def test_the_same_form_twice_forgets_the_second_posts_uploads(r, alice, media_root, picture):
    post = poster(r, alice["id"], posting_key="k" * 22)
    first = attachments.post_with_images(r, alice["id"], [picture], [""], post)
    again = attachments.post_with_images(r, alice["id"], [picture], [""], post)
    assert again == first
    assert uploads.count(r) == 0
    (item,) = media(r, first)
    assert stored_files(media_root) == sorted([item["o"], item["p"]])


def test_uploads_whose_status_was_never_made_are_swept_after_their_age(
    r, alice, media_root, picture
):
    # A process that died between storing the files and writing the status.
    upload_id = attachments.store_pending(r, alice["id"], picture, "never posted")
    assert len(stored_files(media_root)) == 2 and uploads.count(r) == 1
    assert attachments.sweep_pending(r, max_age=DAY) == 0  # not a day old yet
    assert len(stored_files(media_root)) == 2
    later = time.time() + DAY + 1
    assert attachments.sweep_pending(r, max_age=DAY, now=later) == 1
    assert stored_files(media_root) == [] and uploads.count(r) == 0
    assert attachments.pending_upload(r, alice["id"], upload_id) is None
    assert attachments.sweep_pending(r, max_age=DAY, now=later) == 0  # again: nothing


# A posting process killed between storing its files and writing its status.
DYING_POSTER = textwrap.dedent("""
    import os, django
    django.setup()
    from media import attachments
    from socialsite.connection import get_redis
    from tests.test_media_images import png

    def post(media, upload_ids):
        os._exit(9)  # killed: no except, no finally runs

    attachments.post_with_images(
        get_redis(), {uid}, [attachments.prepare(png())], ["lost"], post
    )
""")


def test_a_poster_killed_between_its_files_and_its_status_leaves_them_to_the_sweep(
    r, alice, media_root, redis_backend
):
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "tests.settings",
        "REDIS_URL": redis_backend.url,
        "REDIS_CLUSTER": "true" if redis_backend.cluster else "false",
        "MEDIA_ROOT": str(media_root),
    }
    died = subprocess.run(
        [sys.executable, "-c", DYING_POSTER.format(uid=alice["id"])],
        env=env, cwd=Path(__file__).resolve().parent.parent, capture_output=True, timeout=60,
    )  # fmt: skip
    assert died.returncode == 9, died.stderr.decode()
    assert len(stored_files(media_root)) == 2  # the files no status names
    assert r.zcard(keys.profile(alice["id"])) == 0 and uploads.count(r) == 1
    assert attachments.sweep_pending(r, max_age=DAY) == 0
    assert attachments.sweep_pending(r, max_age=DAY, now=time.time() + DAY + 1) == 1
    assert stored_files(media_root) == [] and uploads.count(r) == 0


def test_the_sweep_keeps_the_files_a_status_names(r, alice, bob, media_root, picture):
    # The status's write took place but its clearing did not (a cluster node lost it):
    # the status names the files, so they stay; the pending mark goes.
    shown = attachments.store_pending(r, alice["id"], picture, "shown")
    unshown = attachments.store_pending(r, alice["id"], picture, "not shown")
    bobs = attachments.store_pending(r, bob["id"], picture, "bob's")
    item = attachments.pending_upload(r, alice["id"], shown)
    pending = uploads.get_pending(r, alice["id"], [shown])[shown]["item"]
    statuses.post_status(
        r, alice["id"], "cleared lost", **{keys.STATUS_MEDIA_FIELD: json.dumps([pending])}
    )
    assert item["url"].endswith(pending["o"])
    later = time.time() + DAY + 1
    assert attachments.sweep_pending(r, max_age=DAY, now=later) == 2
    assert stored_files(media_root) == sorted([pending["o"], pending["p"]])
    assert uploads.count(r) == 0
    assert attachments.pending_upload(r, alice["id"], unshown) is None
    assert attachments.pending_upload(r, bob["id"], bobs) is None


def test_an_entry_that_does_not_read_is_forgotten(r, alice):
    r.zadd(keys.pending_uploads(alice["id"]), {"broken": 1})
    r.hset(keys.pending_upload_items(alice["id"]), "broken", "not json")
    r.zadd(keys.pending_uploads(alice["id"]), {"itemless": 1})
    assert attachments.sweep_pending(r, max_age=DAY) == 0
    assert uploads.count(r) == 0 and r.hlen(keys.pending_upload_items(alice["id"])) == 0


def test_an_upload_is_stored_read_back_and_attached(r, alice, media_root, picture):
    first = attachments.store_pending(r, alice["id"], picture, "first <alt>")
    second = attachments.store_pending(r, alice["id"], picture)
    shown = attachments.pending_upload(r, alice["id"], first)
    assert shown["id"] == first
    assert shown["alt"] == "first <alt>"
    assert (shown["original_width"], shown["original_height"]) == (300, 200)
    assert blurhash.components(shown["blurhash"]) == (4, 4)
    assert abs(shown["uploaded_at"] - time.time()) < 60
    assert shown["url"] == files.url(f"attachments/{first}.jpg")
    assert uploads.count(r) == 2

    sid = attachments.attach_pending(r, alice["id"], [second, first], poster(r, alice["id"]))
    kept = media(r, sid)
    assert [attachments.upload_id(item) for item in kept] == [second, first]
    assert [item["a"] for item in kept] == ["", "first <alt>"]
    assert uploads.count(r) == 0
    assert attachments.pending_upload(r, alice["id"], first) is None
    # Attached, they are a status's files: the sweep leaves them, its deletion frees them.
    assert attachments.sweep_pending(r, max_age=0, now=time.time() + 1) == 0
    assert len(stored_files(media_root)) == 4
    with pytest.raises(attachments.UploadsNotFound):  # attached once only
        attachments.attach_pending(r, alice["id"], [first], poster(r, alice["id"]))


def test_only_the_uploaders_young_enough_uploads_may_be_attached(
    r, alice, bob, media_root, picture
):
    mine = attachments.store_pending(r, alice["id"], picture)
    bobs = attachments.store_pending(r, bob["id"], picture)
    assert attachments.pending_upload(r, alice["id"], bobs) is None
    assert attachments.pending_upload(r, alice["id"], "no-such-upload") is None
    with pytest.raises(attachments.UploadsNotFound) as refused:
        attachments.attach_pending(r, alice["id"], [mine, bobs], poster(r, alice["id"]))
    assert refused.value.upload_ids == [bobs]
    assert r.zcard(keys.profile(alice["id"])) == 0  # nothing posted
    time.sleep(0.01)
    assert attachments.pending_upload(r, alice["id"], mine, max_age=0) is None
    with pytest.raises(attachments.UploadsNotFound):
        attachments.attach_pending(r, alice["id"], [mine], poster(r, alice["id"]), max_age=0)
    assert uploads.count(r) == 2


def test_a_retried_listing_keeps_the_first_time(r, alice):
    uploads.add_pending(r, alice["id"], {"u1": {"o": "attachments/u1.jpg"}}, now=1000)
    uploads.add_pending(r, alice["id"], {"u1": {"o": "attachments/u1.jpg"}}, now=2000)
    assert r.zscore(keys.pending_uploads(alice["id"]), "u1") == 1_000_000


def test_the_fanout_workers_sweep_uploads_past_the_age(r, alice, media_root, picture, settings):
    attachments.store_pending(r, alice["id"], picture)
    call_command("fanout", "--exit-when-idle", stdout=io.StringIO())
    assert len(stored_files(media_root)) == 2  # younger than a day
    settings.MEDIA_PENDING_MAX_AGE = 0
    time.sleep(0.01)
    call_command("fanout", "--exit-when-idle", stdout=io.StringIO())
    assert stored_files(media_root) == [] and uploads.count(r) == 0


def test_manage_py_pictures_counts_and_sweeps_pending_uploads(r, alice, media_root, picture):
    attachments.store_pending(r, alice["id"], picture)
    out = io.StringIO()
    call_command("pictures", "pending", stdout=out)
    assert "1 upload(s) wait for a status." in out.getvalue()
    out = io.StringIO()
    call_command("pictures", "sweep", stdout=out)
    assert "Deleted the files of 0 upload(s)" in out.getvalue()
    time.sleep(0.01)
    out = io.StringIO()
    call_command("pictures", "sweep", "--older-than", "0", stdout=out)
    assert "Deleted the files of 1 upload(s)" in out.getvalue()
    assert stored_files(media_root) == []


@pytest.mark.parametrize(
    ("value", "expected"), [("", DAY), ("3600", 3600), ("90s", 90), ("12h", 43200), ("2d", 172800)]
)
def test_the_age_is_written_as_the_throttles_periods_are(monkeypatch, value, expected):
    from socialsite.settings import env_duration

    monkeypatch.setenv("MEDIA_PENDING_MAX_AGE", value)
    assert env_duration("MEDIA_PENDING_MAX_AGE", DAY) == expected


@pytest.mark.parametrize("value", ["0", "1w", "-5", "a day", "1.5h"])
def test_a_wrong_age_is_refused_at_start(monkeypatch, value):
    from django.core.exceptions import ImproperlyConfigured

    from socialsite.settings import env_duration

    monkeypatch.setenv("MEDIA_PENDING_MAX_AGE", value)
    with pytest.raises(ImproperlyConfigured, match="MEDIA_PENDING_MAX_AGE"):
        env_duration("MEDIA_PENDING_MAX_AGE", DAY)


def test_an_image_kept_without_a_blurhash_gives_an_empty_one():
    kept = {"o": "attachments/o.jpg", "p": "attachments/p.jpg", "w": 8, "h": 6, "pw": 8,
            "ph": 6, "a": "", "c": "#808080"}  # fmt: skip
    (shown,) = attachments.media_of({keys.STATUS_MEDIA_FIELD: json.dumps([kept])})
    assert shown["blurhash"] == "" and shown["id"] == "o"

"""A status's images and content warning in its hash (keys.STATUS_MEDIA_FIELD and the
others): kept as the strings given, read back with the status, and their file names
listed in keys.UNUSED_PICTURES for the app to delete when the status goes, by its
author, a moderator, or the account's deletion (inline or by the workers). On a
single server and on a cluster (--redis=cluster)."""

import json

from socialsite.repository import keys, leaving, moderation, statuses
from socialsite.repository.worker import work_until_idle

MEDIA = [
    {"o": "attachments/o1.jpg", "p": "attachments/p1.jpg", "w": 800, "h": 600,
     "pw": 640, "ph": 480, "a": "first", "c": "#102030"},
    {"o": "attachments/o2.webp", "p": "attachments/p2.webp", "w": 10, "h": 10,
     "pw": 10, "ph": 10, "a": "", "c": "#ffffff"},
]  # fmt: skip
NAMES = ["attachments/o1.jpg", "attachments/p1.jpg", "attachments/o2.webp", "attachments/p2.webp"]


def post_with_images(r, user, message="", media=MEDIA, **fields):
    return statuses.post_status(
        r, user["id"], message, **{keys.STATUS_MEDIA_FIELD: json.dumps(media), **fields}
    )


def unused(r):
    return sorted(r.zrange(keys.UNUSED_PICTURES, 0, -1))


def test_the_fields_are_kept_as_given_and_read_back(r, alice):
    sid = post_with_images(
        r, alice, "", **{keys.STATUS_SENSITIVE_FIELD: "1", keys.STATUS_SPOILER_FIELD: "Birds"}
    )
    status = statuses.get_status(r, sid)
    assert json.loads(status[keys.STATUS_MEDIA_FIELD]) == MEDIA
    assert status[keys.STATUS_SENSITIVE_FIELD] == "1"
    assert status[keys.STATUS_SPOILER_FIELD] == "Birds"
    assert status["message"] == ""
    assert statuses.media_names(status) == NAMES


def test_empty_fields_are_not_written(r, alice):
    sid = statuses.post_status(
        r, alice["id"], "plain", **{keys.STATUS_MEDIA_FIELD: "", keys.STATUS_SENSITIVE_FIELD: ""}
    )
    status = statuses.get_status(r, sid)
    assert keys.STATUS_MEDIA_FIELD not in status and keys.STATUS_SENSITIVE_FIELD not in status
    assert statuses.media_names(status) == []


def test_a_field_that_does_not_read_names_nothing():
    assert statuses.media_names({keys.STATUS_MEDIA_FIELD: "not json"}) == []
    assert statuses.media_names({keys.STATUS_MEDIA_FIELD: '{"o": 1}'}) == []


def test_deleting_a_status_lists_its_files(r, alice):
    sid = post_with_images(r, alice)
    other = statuses.post_status(r, alice["id"], "no images")
    assert statuses.delete_status(r, alice["id"], other) is statuses.DeleteResult.DELETED
    assert unused(r) == []
    assert statuses.delete_status(r, alice["id"], sid) is statuses.DeleteResult.DELETED
    assert unused(r) == sorted(NAMES)
    assert statuses.get_status(r, sid) is None


def test_someone_elses_delete_lists_nothing(r, alice, bob):
    sid = post_with_images(r, alice)
    assert statuses.delete_status(r, bob["id"], sid) is statuses.DeleteResult.NOT_OWNER
    assert unused(r) == []


def test_a_moderators_delete_lists_its_files(r, alice, bob):
    sid = post_with_images(r, alice)
    assert moderation.delete_status(r, sid, by="bob", by_uid=bob["id"]) is moderation.Result.DONE
    assert unused(r) == sorted(NAMES)


def test_deleting_the_account_lists_its_statuses_files(r, alice):
    post_with_images(r, alice, media=MEDIA[:1])
    post_with_images(r, alice, media=MEDIA[1:])
    statuses.post_status(r, alice["id"], "plain")
    assert leaving.delete_account(r, alice["id"]) is True
    assert unused(r) == sorted(NAMES)


def test_an_account_deleted_by_the_workers_lists_them_too(r, alice):
    for _ in range(3):
        post_with_images(r, alice, media=MEDIA[:1])
    assert leaving.delete_account(r, alice["id"], inline_budget=1) is False
    work_until_idle(r)
    assert unused(r) == sorted(NAMES[:2])  # the same two names: one entry each

"""Profiles in the user hash (repository/profiles.py): changed in one step that says what
it replaced, refused for an account being deleted, and a deleted account's pictures
listed for the app to delete."""

import json

import pytest

from socialsite.repository import keys, leaving, profiles, users
from tests.support.helpers import make_user


def test_a_change_returns_what_it_replaced(r, alice):
    first = profiles.update_profile(
        r,
        alice["id"],
        {keys.AVATAR_FIELD: "avatars/a.jpg", keys.AVATAR_SMALL_FIELD: "avatars/b.jpg"},
    )
    assert first == {keys.AVATAR_FIELD: "", keys.AVATAR_SMALL_FIELD: ""}
    second = profiles.update_profile(
        r, alice["id"], {keys.AVATAR_FIELD: "avatars/c.jpg", keys.AVATAR_SMALL_FIELD: ""}
    )
    assert second == {keys.AVATAR_FIELD: "avatars/a.jpg", keys.AVATAR_SMALL_FIELD: "avatars/b.jpg"}
    user = users.get_user(r, alice["id"])
    assert user[keys.AVATAR_FIELD] == "avatars/c.jpg"
    assert keys.AVATAR_SMALL_FIELD not in user


def test_a_gone_account_is_not_brought_back(r):
    with pytest.raises(profiles.AccountGone):
        profiles.update_profile(r, 999, {keys.BIO_FIELD: "hello"})
    assert not r.exists(keys.user(999))


def test_a_leaving_account_is_not_changed(r, alice):
    leaving.begin_deletion(r, alice["id"])
    with pytest.raises(profiles.AccountGone):
        profiles.update_profile(r, alice["id"], {keys.AVATAR_FIELD: "avatars/a.jpg"})
    assert not r.hexists(keys.user(alice["id"]), keys.AVATAR_FIELD)


def test_the_bio_is_parsed_as_a_status_is(r, alice, bob):
    bio = "Maker of #things with @bob, see https://example.org and @nobody"
    packed = json.loads(profiles.parse_bio(r, bio))
    assert packed["m"] == [[bio.index("@bob"), bio.index("@bob") + 4, bob["id"]]]
    assert len(packed["h"]) == 1 and len(packed["u"]) == 1
    assert profiles.parse_bio(r, "plain words") == ""


def test_the_small_avatar_travels_with_a_pages_authors(r, alice):
    profiles.update_profile(r, alice["id"], {keys.AVATAR_SMALL_FIELD: "avatars/s.jpg"})
    author = users.get_authors(r, [alice["id"]])[alice["id"]]
    assert author[keys.AVATAR_SMALL_FIELD] == "avatars/s.jpg"


def test_deleting_an_account_lists_its_pictures_for_deletion(r, alice, bob):
    names = {
        keys.AVATAR_FIELD: "avatars/a.jpg",
        keys.AVATAR_SMALL_FIELD: "avatars/b.jpg",
        keys.HEADER_FIELD: "headers/c.jpg",
    }
    profiles.update_profile(r, alice["id"], names)
    profiles.update_profile(r, bob["id"], {keys.AVATAR_FIELD: "avatars/bob.jpg"})
    assert leaving.delete_account(r, alice["id"]) is True
    assert sorted(profiles.unused_pictures(r)) == sorted(names.values())
    profiles.forget_unused(r, list(names.values()))
    assert profiles.unused_pictures(r) == []
    assert users.get_user(r, bob["id"])[keys.AVATAR_FIELD] == "avatars/bob.jpg"


def test_the_step_is_harmless_when_repeated(r):
    carol = make_user(r, "carol")
    profiles.update_profile(r, carol["id"], {keys.HEADER_FIELD: "headers/c.jpg"})
    assert profiles.forget_pictures(r, carol["id"], 10) == 1
    assert profiles.forget_pictures(r, carol["id"], 10) == 0
    assert profiles.unused_pictures(r) == ["headers/c.jpg"]

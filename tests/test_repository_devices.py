"""The device generation (repository/devices.py): what every device cookie of an
account names, replaced to revoke them all."""

from socialsite.repository import devices, keys, leaving, users
from tests.support.helpers import make_user


def test_a_new_account_has_the_empty_generation(r):
    alice = make_user(r, "alice")
    assert devices.generation(r, alice["id"]) == ""


def test_revoking_gives_a_new_generation_each_time(r):
    alice, bob = make_user(r, "alice"), make_user(r, "bob")
    assert devices.revoke_all(r, alice["id"]) is True
    first = devices.generation(r, alice["id"])
    assert first != ""
    assert devices.revoke_all(r, alice["id"]) is True
    assert devices.generation(r, alice["id"]) not in ("", first)
    assert devices.generation(r, bob["id"]) == ""  # another account's stay


def test_no_account_has_no_generation_and_is_not_made_one(r):
    alice = make_user(r, "alice")
    assert devices.generation(r, 999) is None
    assert leaving.delete_account(r, alice["id"]) is True
    assert devices.generation(r, alice["id"]) is None
    assert devices.revoke_all(r, alice["id"]) is False
    assert not r.exists(keys.credentials(alice["id"]))


def test_a_password_hash_upgrade_revokes_nothing(r):
    alice = make_user(r, "alice")
    devices.revoke_all(r, alice["id"])
    generation = devices.generation(r, alice["id"])
    users.set_password_hash(r, alice["id"], "argon2$another")
    assert devices.generation(r, alice["id"]) == generation

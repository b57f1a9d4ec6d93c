"""Accounts' addresses in the repository (emails.py): unique in any case, private, a
verified one kept until its replacement is verified, freed for others."""

from socialsite.repository import emails, keys, leaving, users, worker
from tests.support.helpers import make_user


def test_an_address_is_one_accounts_in_any_case_and_kept_out_of_the_public_hash(r):
    alice, bob = make_user(r, "alice"), make_user(r, "bob")
    assert emails.set_address(r, alice["id"], "Alice@Example.org")
    assert not emails.set_address(r, bob["id"], "alice@EXAMPLE.org")
    assert emails.owner(r, "ALICE@example.org") == alice["id"]
    assert emails.get(r, alice["id"]) == emails.Email("Alice@Example.org", False, "")
    assert emails.get(r, bob["id"]) == emails.Email("", False, "")
    public = users.get_user(r, alice["id"])
    assert "Alice@Example.org" not in public.values()
    assert public[keys.EMAIL_STATE_FIELD] == "unverified"
    assert emails.set_address(r, alice["id"], "Alice@Example.org")  # again: idempotent


def test_a_verified_address_stays_until_the_new_one_is_verified(r):
    alice = make_user(r, "alice")
    emails.set_address(r, alice["id"], "old@example.org", verified=True)
    assert emails.change(r, alice["id"], "new@example.org") == "pending"
    assert emails.get(r, alice["id"]) == emails.Email("old@example.org", True, "new@example.org")
    assert emails.owner(r, "new@example.org") is None  # asking holds nothing
    assert emails.verify(r, alice["id"], "new@example.org") == "verified"
    assert emails.get(r, alice["id"]) == emails.Email("new@example.org", True, "")
    assert emails.owner(r, "old@example.org") is None
    assert emails.verify(r, alice["id"], "new@example.org") == "stale"  # once


def test_an_unverified_address_is_replaced_at_once(r):
    alice = make_user(r, "alice")
    emails.set_address(r, alice["id"], "typo@example.og")
    assert emails.change(r, alice["id"], "right@example.org") == "set"
    assert emails.get(r, alice["id"]) == emails.Email("right@example.org", False, "")
    assert emails.owner(r, "typo@example.og") is None
    assert emails.change(r, alice["id"], "RIGHT@example.org") == "same"


def test_a_pending_address_taken_meanwhile_is_not_verified(r):
    alice, bob = make_user(r, "alice"), make_user(r, "bob")
    emails.set_address(r, alice["id"], "alice@example.org", verified=True)
    emails.change(r, alice["id"], "shared@example.org")
    emails.set_address(r, bob["id"], "shared@example.org")
    assert emails.verify(r, alice["id"], "shared@example.org") == "taken"
    assert emails.get(r, alice["id"]).address == "alice@example.org"
    assert emails.change(r, alice["id"], "SHARED@example.org") == "taken"


def test_get_many_reads_several_accounts(r):
    alice, bob = make_user(r, "alice"), make_user(r, "bob")
    emails.set_address(r, alice["id"], "a@example.org", verified=True)
    found = emails.get_many(r, [alice["id"], bob["id"], alice["id"]])
    assert found == {
        alice["id"]: emails.Email("a@example.org", True, ""),
        bob["id"]: emails.Email("", False, ""),
    }


def test_deleting_the_account_frees_its_address(r):
    alice = make_user(r, "alice")
    emails.set_address(r, alice["id"], "alice@example.org", verified=True)
    leaving.delete_account(r, alice["id"])
    worker.work_until_idle(r)
    assert emails.owner(r, "alice@example.org") is None
    assert r.exists(keys.credentials(alice["id"])) == 0
    dinah = make_user(r, "dinah")
    assert emails.set_address(r, dinah["id"], "alice@example.org")


def test_an_address_is_not_given_to_a_deleted_account(r):
    alice = make_user(r, "alice")
    r.delete(keys.user(alice["id"]))
    assert not emails.set_address(r, alice["id"], "alice@example.org")
    assert emails.owner(r, "alice@example.org") is None

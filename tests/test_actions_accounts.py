"""The accounts app's actions (socialsite/actions/accounts.py) called directly: changing
the email address, sending its link again, leaving the site. (Their one door each, the
pages, is tested in tests/test_email_settings.py and tests/test_views_leaving.py.)"""

import pytest

from socialsite.actions import Actor, Invalid, NotFound
from socialsite.actions import accounts as account_actions
from socialsite.actions.profiles import ProfileChange, update_profile
from socialsite.repository import emails, graph, mail, users, worker
from tests.support.helpers import post, stored_files
from tests.test_media_images import png

Outcome = account_actions.EmailOutcome


def actor(user):
    return Actor(uid=user["id"], login=user["login"])


@pytest.fixture
def verifying(settings):
    settings.EMAIL_VERIFICATION = "optional"


def test_a_verified_address_changes_once_the_new_one_is_verified(r, alice, verifying):
    emails.set_address(r, alice["id"], "alice@example.org", verified=True)
    done = account_actions.change_email(actor(alice), " new@example.org ")
    assert done == account_actions.EmailChanged(
        Outcome.PENDING, "new@example.org", "alice@example.org"
    )
    assert emails.get(r, alice["id"]) == emails.Email("alice@example.org", True, "new@example.org")
    assert mail.backlog(r) == 2  # the link to the new address, the notice to the old
    assert account_actions.resend_verification(actor(alice)) == "new@example.org"
    assert mail.backlog(r) == 3


def test_the_same_verified_address_sends_nothing(r, alice, verifying):
    emails.set_address(r, alice["id"], "alice@example.org", verified=True)
    done = account_actions.change_email(actor(alice), "ALICE@example.org")
    assert done.outcome is Outcome.SAME and mail.backlog(r) == 0
    assert account_actions.resend_verification(actor(alice)) is None


def test_an_unverified_address_is_replaced_at_once(r, alice, verifying):
    emails.set_address(r, alice["id"], "alice@example.org")
    done = account_actions.change_email(actor(alice), "new@example.org")
    assert done.outcome is Outcome.LINK_SENT and mail.backlog(r) == 1
    assert emails.get(r, alice["id"]) == emails.Email("new@example.org", False, "")


def test_without_verification_the_address_is_set_and_the_former_told(r, alice, settings):
    settings.EMAIL_VERIFICATION = "off"
    emails.set_address(r, alice["id"], "alice@example.org")
    done = account_actions.change_email(actor(alice), "new@example.org")
    assert done.outcome is Outcome.SET and mail.backlog(r) == 1  # the notice only
    assert emails.get(r, alice["id"]).address == "new@example.org"


@pytest.mark.parametrize("mode", ["off", "optional"])
@pytest.mark.parametrize("address", ["BOB@example.org", "not an address", "x" * 250 + "@a.io"])
def test_an_address_taken_or_malformed_is_invalid(r, alice, bob, settings, mode, address):
    settings.EMAIL_VERIFICATION = mode
    emails.set_address(r, bob["id"], "bob@example.org")
    with pytest.raises(Invalid) as refused:
        account_actions.change_email(actor(alice), address)
    assert refused.value.field == "email"
    assert emails.get(r, alice["id"]) == emails.Email("", False, "") and mail.backlog(r) == 0


def test_deleting_hides_the_account_at_once_and_its_pictures_files_go(r, alice, bob, media_root):
    update_profile(actor(alice), ProfileChange(avatar=png(), header=png((1800, 900))))
    assert len(stored_files(media_root)) == 3
    graph.follow(r, bob["id"], alice["id"])
    post(r, alice, "goodbye")
    done = account_actions.delete_account(actor(alice))
    assert done in (account_actions.Deletion.DONE, account_actions.Deletion.UNDER_WAY)
    assert users.get_user_id(r, "alice") is None
    assert stored_files(media_root) == []
    worker.work_until_idle(r)
    assert users.get_user(r, alice["id"]) is None
    with pytest.raises(NotFound):
        account_actions.delete_account(actor(alice))  # a retry: gone already


def test_a_small_account_is_gone_before_the_action_returns(r, alice):
    assert account_actions.delete_account(actor(alice)) is account_actions.Deletion.DONE

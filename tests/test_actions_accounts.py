"""The accounts app's actions (socialsite/actions/accounts.py) called directly: changing
the email address, sending its link again, leaving the site, signing up, changing and
resetting the password, verifying an address, revoking an app, an operator setting an
address. (Their one door each, the pages or the command, is tested in
tests/test_email_settings.py, test_email_accounts.py, test_views_accounts.py,
test_views_leaving.py and test_api_oauth.py; the last test here drives the pages and
sees the API's answer.)"""

import time

import pytest
from django.contrib.auth.hashers import make_password

from accounts import auth
from socialsite import throttling
from socialsite.actions import Actor, Invalid, NotAllowed, NotFound, Throttled
from socialsite.actions import accounts as account_actions
from socialsite.actions.moderation import command_line_actor
from socialsite.actions.profiles import ProfileChange, update_profile
from socialsite.repository import devices, emails, graph, mail, oauth, throttles, users, worker
from tests.support.helpers import PASSWORD, bearer, log_in, post, stored_files
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


# --- signing up, passwords, verification, apps, the operator's address ---------------------


def counting(counted, refused=()):
    """An Actor count function putting each use in ``counted``, refusing those named
    in ``refused``."""

    def count(name):
        counted.append(name)
        if name not in refused:
            return None
        now = int(time.time() * 1000)
        return throttling.Counted(name, throttles.Verdict(False, 1, 1, now, 3_600_000, "k", "t"))

    return count


def visitor(counted, refused=()):
    return Actor(uid=0, login="", count=counting(counted, refused))


def test_sign_up_makes_the_account_and_mails_its_link(r, verifying):
    counted = []
    uid = account_actions.sign_up(
        visitor(counted), "dora", "Dora", "dora@example.org", "a long pass phrase"
    )
    assert counted == ["signup"]
    assert users.get_user(r, uid)["login"] == "dora"
    assert emails.get(r, uid) == emails.Email("dora@example.org", False, "")
    assert mail.backlog(r) == 1  # the verification link
    assert auth.authenticate("dora", "a long pass phrase").id == uid


def test_sign_up_throttled_makes_nothing(r):
    with pytest.raises(Throttled):
        account_actions.sign_up(
            visitor([], refused={"signup"}), "dora", "Dora", "d@example.org", "a pass phrase"
        )
    assert users.get_user_id(r, "dora") is None


def test_sign_up_racing_for_a_login_or_an_address(r, alice, verifying):
    with pytest.raises(Invalid) as refused:
        account_actions.sign_up(visitor([]), "ALICE", "A", "a@example.org", "a pass phrase")
    assert (
        refused.value.field == "username" and refused.value.message == "That login name is taken."
    )
    emails.set_address(r, alice["id"], "taken@example.org")
    uid = account_actions.sign_up(visitor([]), "dora", "Dora", "taken@example.org", "a phrase")
    assert emails.get(r, uid).address == "" and mail.backlog(r) == 0  # asked for one later


def test_change_password_revokes_devices_and_apps_tokens(r, alice, token):
    issued = token(alice)
    generation = devices.generation(r, alice["id"])
    new_hash = account_actions.change_password(actor(alice), "another pass phrase")
    assert users.get_user_and_password_hash(r, alice["id"])[1] == new_hash
    assert devices.generation(r, alice["id"]) != generation
    assert oauth.authorized_apps(r, alice["id"]) == []
    assert oauth.token_info(r, issued) is None
    assert auth.authenticate("alice", "another pass phrase") is not None


def test_reset_password_ends_every_session_too(r, client, alice, token):
    log_in(client, "alice")
    token(alice)
    account_actions.reset_password(account_actions.link_actor(alice["id"]), "a reset phrase")
    assert client.get("/settings/email/").status_code == 302  # logged out
    assert oauth.authorized_apps(r, alice["id"]) == []
    assert auth.authenticate("alice", "a reset phrase") is not None
    assert auth.authenticate("alice", PASSWORD) is None


def test_rehash_password_changes_the_hash_only(r, alice, token):
    token(alice)
    account_actions.rehash_password(actor(alice), make_password(PASSWORD))
    assert auth.authenticate("alice", PASSWORD) is not None
    assert len(oauth.authorized_apps(r, alice["id"])) == 1


def test_verify_email_says_what_it_did(r, alice, bob, verifying):
    emails.set_address(r, alice["id"], "alice@example.org")
    link = account_actions.link_actor(alice["id"])
    Verification = account_actions.Verification
    assert account_actions.verify_email(link, "ALICE@example.org") is Verification.VERIFIED
    assert emails.get(r, alice["id"]).verified
    assert account_actions.verify_email(link, "alice@example.org") is Verification.STALE
    emails.change(r, alice["id"], "new@example.org")
    emails.set_address(r, bob["id"], "new@example.org")  # bob took it meanwhile
    assert account_actions.verify_email(link, "new@example.org") is Verification.TAKEN


def test_revoke_app_revokes_that_apps_tokens_only(r, alice, bob, app, token):
    other = oauth.create_app(r, "Other app", ["urn:ietf:wg:oauth:2.0:oob"], "read")
    token(alice), token(alice), token(bob)
    oauth.issue_token(r, other[0], "read", uid=alice["id"])
    assert account_actions.revoke_app(actor(alice), app[0]) == 2
    assert [each["client_id"] for each in oauth.authorized_apps(r, alice["id"])] == [other[0]]
    assert account_actions.revoke_app(actor(alice), app[0]) == 0
    assert len(oauth.authorized_apps(r, bob["id"])) == 1


def test_set_address_is_an_operators_act(r, alice, bob, verifying):
    operator = command_line_actor()
    assert account_actions.set_address(operator, "alice", " a@example.org ") == alice["id"]
    assert emails.get(r, alice["id"]) == emails.Email("a@example.org", False, "")
    assert mail.backlog(r) == 1  # its link
    account_actions.set_address(operator, "alice", "b@example.org", verified=True)
    assert emails.get(r, alice["id"]) == emails.Email("b@example.org", True, "")
    assert mail.backlog(r) == 1
    with pytest.raises(NotAllowed):
        account_actions.set_address(actor(bob), "alice", "c@example.org")
    with pytest.raises(NotFound, match="There is no account @nobody."):
        account_actions.set_address(operator, "nobody", "c@example.org")
    with pytest.raises(Invalid, match="'nope' is not an email address."):
        account_actions.set_address(operator, "alice", "nope")
    with pytest.raises(Invalid, match="B@example.org belongs to another account."):
        account_actions.set_address(operator, "bob", "B@example.org")


# --- the pages act, the API sees it -------------------------------------------------------


def test_the_pages_password_change_and_app_revocation_end_the_apis_access(
    r, client, alice, app, token
):
    """Every act that takes an account's apps away (a password changed, reset, or an
    app revoked on /settings/apps/) does it through its action: the API refuses the
    token at once."""
    log_in(client, "alice")
    headers = bearer(token(alice))
    assert client.get("/api/v1/accounts/verify_credentials", **headers).status_code == 200
    answer = client.post(
        "/accounts/password/",
        {"old_password": PASSWORD, "new_password1": "n3w pass phrase!",
         "new_password2": "n3w pass phrase!"},
    )  # fmt: skip
    assert answer.status_code == 302
    assert client.get("/api/v1/accounts/verify_credentials", **headers).status_code == 401
    headers = bearer(token(alice))
    assert client.post(f"/settings/apps/{app[0]}/revoke/").status_code == 302
    assert client.get("/api/v1/accounts/verify_credentials", **headers).status_code == 401

"""/settings/email/ (see, change, resend), the email throttles, and the address seen by
moderators, exported, freed by deletion and set by an operator."""

import re
from io import StringIO

import pytest
from django.core.management import CommandError, call_command
from django.test import Client

from accounts import mail as account_mail
from socialsite.repository import emails, mail, moderation, worker
from tests.support.helpers import PASSWORD, exported, log_in, make_user


def send_all(r):
    return mail.send_waiting(r, "test-worker", account_mail.send)


def verified(r, login, address):
    user = make_user(r, login)
    emails.set_address(r, user["id"], address, verified=True)
    return user


def test_the_page_shows_the_address_and_whether_it_is_verified(r):
    alice = verified(r, "alice", "alice@example.org")
    client = log_in(Client(), "alice")
    html = client.get("/settings/email/").content.decode()
    assert "alice@example.org" in html and "(verified)" in html
    emails.set_address(r, alice["id"], "alice@example.net")
    html = client.get("/settings/email/").content.decode()
    assert "alice@example.net" in html and "not verified yet" in html
    assert 'name="resend"' in html
    assert Client().get("/settings/email/").status_code == 302  # log in first


def test_a_change_needs_the_password_and_takes_effect_when_verified(r, smtp_server):
    alice = verified(r, "alice", "alice@example.org")
    client = log_in(Client(), "alice")
    wrong = client.post("/settings/email/", {"email": "new@example.org", "password": "nope"})
    assert wrong.status_code == 400 and "That is not your password." in wrong.content.decode()
    done = client.post("/settings/email/", {"email": "new@example.org", "password": PASSWORD})
    assert done.status_code == 302
    state = emails.get(r, alice["id"])
    assert state == emails.Email("alice@example.org", True, "new@example.org")
    assert send_all(r) == 2
    by_address = {message["To"]: message for message in smtp_server.received()}
    notice = by_address["alice@example.org"].get_body(("plain",)).get_content()
    assert "being changed to new@example.org" in notice
    text = by_address["new@example.org"].get_body(("plain",)).get_content()
    link = re.search(r"http://testserver(/accounts/verify/\S+)", text).group(1)
    assert client.post(link).status_code == 302
    assert emails.get(r, alice["id"]) == emails.Email("new@example.org", True, "")
    assert emails.owner(r, "alice@example.org") is None  # the old one is free
    assert emails.owner(r, "NEW@example.org") == alice["id"]


def test_another_accounts_address_is_refused(r):
    verified(r, "bob", "bob@example.org")
    verified(r, "alice", "alice@example.org")
    client = log_in(Client(), "alice")
    taken = client.post("/settings/email/", {"email": "BOB@example.org", "password": PASSWORD})
    assert taken.status_code == 400
    assert "That address belongs to another account." in taken.content.decode()


def test_an_account_without_an_address_adds_one(r, smtp_server):
    alice = make_user(r, "alice")
    client = log_in(Client(), "alice")
    assert "has no email address yet" in client.get("/settings/email/").content.decode()
    client.post("/settings/email/", {"email": "alice@example.org", "password": PASSWORD})
    assert emails.get(r, alice["id"]) == emails.Email("alice@example.org", False, "")
    send_all(r)
    assert [m["To"] for m in smtp_server.received()] == ["alice@example.org"]


def test_resends_and_changes_are_throttled_per_account(r, settings, smtp_server):
    settings.THROTTLES = {**settings.THROTTLES, "email": (2, 3600)}
    alice = make_user(r, "alice")
    emails.set_address(r, alice["id"], "alice@example.org")
    client = log_in(Client(), "alice")
    for _ in range(2):
        assert client.post("/settings/email/", {"resend": "1"}).status_code == 302
    refused = client.post("/settings/email/", {"resend": "1"})
    assert refused.status_code == 429 and int(refused["Retry-After"]) >= 1
    assert "Too many verification mails and changes of address" in refused.content.decode()
    assert mail.backlog(r) == 2


def test_reset_requests_are_throttled_per_client_address(r, settings):
    settings.THROTTLES = {**settings.THROTTLES, "password_reset": (2, 1800)}
    client = Client(REMOTE_ADDR="203.0.113.9")
    for n in range(2):
        assert (
            client.post("/accounts/password/reset/", {"email": f"{n}@example.org"}).status_code
            == 302
        )
    refused = client.post("/accounts/password/reset/", {"email": "x@example.org"})
    assert refused.status_code == 429 and int(refused["Retry-After"]) >= 1
    assert "Too many password reset requests" in refused.content.decode()


def test_reset_mail_to_one_address_is_bounded_whoever_asks(r, settings, smtp_server):
    settings.THROTTLES = {**settings.THROTTLES, "password_reset_target": (2, 1800)}
    verified(r, "alice", "alice@example.org")
    for n in range(4):
        response = Client(REMOTE_ADDR=f"203.0.113.{n + 1}").post(
            "/accounts/password/reset/", {"email": "alice@example.org"}
        )
        assert response.status_code == 302  # the same answer: nothing is told
    send_all(r)
    assert len(smtp_server.received()) == 2


def test_moderators_see_a_reported_accounts_address_nobody_else_does(r):
    mod = make_user(r, "mod")
    moderation.add_moderator(r, mod["id"])
    bob = verified(r, "bob", "bob@example.org")
    carol = make_user(r, "carol")
    moderation.file_report(r, carol, bob, next(iter(moderation.REASONS)))
    html = log_in(Client(), "mod").get("/moderation/").content.decode()
    assert "bob@example.org" in html and "(verified)" in html
    dave = verified(r, "dave", "dave@example.org")
    moderation.suspend(r, dave["id"], reason="spam")
    assert "dave@example.org" in log_in(Client(), "mod").get("/moderation/").content.decode()
    for client in (log_in(Client(), "carol"), Client()):
        for path in ("/@bob/", "/moderation/", "/search/?q=bob"):
            assert "bob@example.org" not in client.get(path).content.decode()


def test_the_export_includes_the_address(r):
    verified(r, "alice", "alice@example.org")
    response = log_in(Client(), "alice").get("/settings/export/")
    account = exported(response)[0]["account"]
    assert account["email"] == "alice@example.org" and account["email_verified"] is True


def test_deleting_an_account_frees_its_address(r):
    alice = verified(r, "alice", "alice@example.org")
    client = log_in(Client(), "alice")
    assert client.post("/settings/delete/", {"password": PASSWORD}).status_code == 302
    worker.work_until_idle(r)
    assert emails.owner(r, "alice@example.org") is None
    dinah = make_user(r, "dinah")
    assert emails.set_address(r, dinah["id"], "Alice@example.org")
    assert alice["id"] != dinah["id"]


def test_an_operator_sets_an_address(r, smtp_server):
    alice = make_user(r, "alice")
    out = StringIO()
    call_command("accounts", "email", "alice", "Alice@Example.org", "--verified", stdout=out)
    assert "verified" in out.getvalue()
    assert emails.get(r, alice["id"]) == emails.Email("Alice@Example.org", True, "")
    call_command("accounts", "email", "alice", "other@example.org", stdout=StringIO())
    assert emails.get(r, alice["id"]) == emails.Email("other@example.org", False, "")
    assert emails.owner(r, "alice@example.org") is None
    send_all(r)
    assert [m["To"] for m in smtp_server.received()] == ["other@example.org"]
    bob = make_user(r, "bob")
    with pytest.raises(CommandError, match="belongs to another account"):
        call_command("accounts", "email", "bob", "OTHER@example.org")
    with pytest.raises(CommandError, match="not an email address"):
        call_command("accounts", "email", "bob", "nope")
    with pytest.raises(CommandError, match="no account"):
        call_command("accounts", "email", "nobody", "n@example.org")
    assert emails.get(r, bob["id"]).address == ""

"""Email addresses on accounts, through the pages and a real SMTP server (aiosmtpd): sign-up
-> verification mail -> link -> verified; the "required" mode's limits; the banner;
password reset by mail; the email settings page; forged Host headers."""

import re
import time

import pytest
from django.test import Client

from accounts import mail as account_mail
from socialsite.repository import devices, emails, keys, mail, statuses, timelines, users
from tests.support.helpers import PASSWORD, log_in, make_user

NEW_PASSWORD = "a brand new passphrase 42"


def send_all(r):
    return mail.send_waiting(r, "test-worker", account_mail.send)


def link_in(message, path):
    """The link to ``path`` in a mail's plain-text part (with SITE_URL, the tests'
    http://testserver), as a path the test client can open."""
    text = message.get_body(("plain",)).get_content()
    match = re.search(rf"http://testserver({re.escape(path)}\S+)", text)
    assert match, text
    return match.group(1)


def sign_up(client, login="dinah", email="dinah@example.org"):
    form = {"username": login, "name": login.title(), "email": email,
            "password1": PASSWORD, "password2": PASSWORD}  # fmt: skip
    return client.post("/accounts/signup/", form)


def verify_through_mail(client, r, smtp_server):
    send_all(r)
    message = smtp_server.received()[-1]
    link = link_in(message, "/accounts/verify/")
    page = client.get(link)
    assert page.status_code == 200 and "Verify" in page.content.decode()
    return link, client.post(link)


# --- sign-up and verification ------------------------------------------------------------


def test_sign_up_mails_a_link_that_verifies_the_address_once(client, r, smtp_server):
    assert sign_up(client).status_code == 302
    assert "A link to verify dinah@example.org is on its way." in client.get("/").content.decode()
    uid = users.get_user_id(r, "dinah")
    assert emails.get(r, uid) == emails.Email("dinah@example.org", False, "")
    assert smtp_server.received() == []  # the page only queued it
    link, response = verify_through_mail(client, r, smtp_server)
    assert response.status_code == 302
    assert emails.get(r, uid).verified
    # The address is not in the public hash; its state is.
    assert "dinah@example.org" not in users.get_user(r, uid).values()
    again = client.post(link)
    assert again.status_code == 400 and "does not work" in again.content.decode()
    assert Client().get(link).status_code == 400


def test_a_verification_link_expires(client, r, smtp_server, settings):
    sign_up(client)
    send_all(r)
    link = link_in(smtp_server.received()[0], "/accounts/verify/")
    settings.EMAIL_VERIFICATION_TIMEOUT = -1
    assert client.post(link).status_code == 400
    assert not emails.get(r, users.get_user_id(r, "dinah")).verified


def test_a_forged_verification_link_is_refused(client, r):
    sign_up(client)
    assert client.get("/accounts/verify/not-a-token/").status_code == 400
    assert client.post("/accounts/verify/eyJ1IjoxfQ:1abc:def/").status_code == 400


def test_sign_up_needs_an_address_unique_in_any_case(client, r):
    form = {"username": "erin", "name": "Erin", "password1": PASSWORD, "password2": PASSWORD}
    response = client.post("/accounts/signup/", form)
    assert response.status_code == 400 and users.get_user_id(r, "erin") is None
    bad = client.post("/accounts/signup/", {**form, "email": "not an address"})
    assert bad.status_code == 400 and "valid email address" in bad.content.decode()
    assert sign_up(Client(), "frank", "Frank@Example.org").status_code == 302
    taken = sign_up(Client(), "gina", "frank@EXAMPLE.org")
    assert taken.status_code == 400
    assert "That address belongs to another account." in taken.content.decode()
    assert users.get_user_id(r, "gina") is None


@pytest.fixture
def required(settings):
    settings.EMAIL_VERIFICATION = "required"


def test_required_an_unverified_account_reads_but_cannot_post_follow_like_or_repost(
    client, r, smtp_server, required
):
    bob = make_user(r, "bob")
    sid = statuses.post_status(r, bob["id"], "hello")
    sign_up(client)
    home = client.get("/")
    assert home.status_code == 200
    assert "Verify your email address to post" in home.content.decode()
    assert client.get("/@bob/").status_code == 200
    for path, data in [
        ("/statuses/", {"message": "Hi"}),
        ("/@bob/follow/", {}),
        (f"/statuses/{sid}/like/", {}),
        (f"/statuses/{sid}/repost/", {}),
    ]:
        refused = client.post(path, data)
        assert refused.status_code == 403, path
        assert "Until your email address is verified" in refused.content.decode()
        assert 'name="resend"' in refused.content.decode()
    uid = users.get_user_id(r, "dinah")
    assert timelines.profile_ids(r, uid) == []
    verify_through_mail(client, r, smtp_server)
    assert client.post("/statuses/", {"message": "Hi"}).status_code == 302
    assert len(timelines.profile_ids(r, uid)) == 1


def test_required_an_account_without_an_address_is_asked_for_one_and_can_post(client, r, required):
    make_user(r, "old_timer")  # made before addresses: none
    log_in(client, "old_timer")
    assert "Add an address" in client.get("/").content.decode()
    assert client.post("/statuses/", {"message": "still here"}).status_code == 302


def test_optional_shows_a_banner_until_verified_and_lets_everything_be_done(client, r, smtp_server):
    sign_up(client)
    assert "Please verify your email address" in client.get("/").content.decode()
    assert client.post("/statuses/", {"message": "Hi"}).status_code == 302
    verify_through_mail(client, r, smtp_server)
    assert "email-notice" not in client.get("/").content.decode()


def test_off_sends_no_verification_mail_and_shows_no_banner(client, r, smtp_server, settings):
    settings.EMAIL_VERIFICATION = "off"
    sign_up(client)
    send_all(r)
    assert smtp_server.received() == []
    assert "email-notice" not in client.get("/").content.decode()


# --- password reset -----------------------------------------------------------------------


def verified_user(r, login="alice", address="alice@example.org"):
    user = make_user(r, login)
    emails.set_address(r, user["id"], address, verified=True)
    return user


def ask_reset(client, address, **extra):
    response = client.post("/accounts/password/reset/", {"email": address}, **extra)
    assert response.status_code == 302
    assert response["Location"] == "/accounts/password/reset/sent/"
    return response


def test_the_log_in_page_links_to_the_reset_form(client):
    html = client.get("/accounts/login/").content.decode()
    assert 'href="/accounts/password/reset/">Forgot your password?</a>' in html
    assert client.get("/accounts/password/reset/").status_code == 200


def test_reset_mail_sets_a_new_password_once_and_ends_every_session(r, smtp_server):
    alice = verified_user(r)
    elsewhere = log_in(Client(), "alice")
    assert sessions_of(r, alice) == 1
    client = Client()
    ask_reset(client, "ALICE@example.org")
    assert send_all(r) == 1
    link = link_in(smtp_server.received()[0], "/accounts/reset/")
    page = client.get(link)
    assert page.status_code == 200 and 'name="new_password1"' in page.content.decode()
    weak = client.post(link, {"new_password1": "short", "new_password2": "short"})
    assert weak.status_code == 400
    done = client.post(link, {"new_password1": NEW_PASSWORD, "new_password2": NEW_PASSWORD})
    assert done.status_code == 302 and done["Location"] == "/accounts/login/"
    assert sessions_of(r, alice) == 0
    assert devices.generation(r, alice["id"]) not in ("", None)  # device cookies revoked
    assert 'href="/accounts/login/"' in elsewhere.get("/").content.decode()  # logged out
    log_in(Client(), "alice", NEW_PASSWORD)
    old = Client().post("/accounts/login/", {"username": "alice", "password": PASSWORD})
    assert old.status_code == 400
    # Once: the password it was made for has changed.
    other = "another fine passphrase"
    again = client.post(link, {"new_password1": other, "new_password2": other})
    assert again.status_code == 400 and "does not work" in again.content.decode()


def sessions_of(r, user):
    return r.zcard(keys.user_sessions(user["id"]))


def test_a_reset_link_expires_after_an_hour(r, smtp_server, settings):
    verified_user(r)
    client = Client()
    ask_reset(client, "alice@example.org")
    send_all(r)
    link = link_in(smtp_server.received()[0], "/accounts/reset/")
    settings.PASSWORD_RESET_TIMEOUT = -1
    assert client.get(link).status_code == 400
    form = {"new_password1": NEW_PASSWORD, "new_password2": NEW_PASSWORD}
    assert client.post(link, form).status_code == 400
    log_in(Client(), "alice")  # unchanged


def test_an_unknown_or_unverified_address_gets_the_same_answer_and_no_mail(r, smtp_server):
    unverified = make_user(r, "bob")
    emails.set_address(r, unverified["id"], "bob@example.org")
    ask_reset(Client(), "nobody@example.org")
    ask_reset(Client(), "bob@example.org")
    send_all(r)
    assert smtp_server.received() == []


def test_a_forged_host_header_does_not_reach_the_links(r, smtp_server, settings):
    settings.ALLOWED_HOSTS = ["testserver", "evil.example"]
    verified_user(r)
    ask_reset(Client(), "alice@example.org", HTTP_HOST="evil.example")
    send_all(r)
    text = smtp_server.received()[0].get_body(("plain",)).get_content()
    assert "evil.example" not in text
    assert "http://testserver/accounts/reset/" in text


def test_with_the_mail_server_down_the_reset_page_answers_at_once(r, smtp_server):
    verified_user(r)
    smtp_server.stop()
    started = time.monotonic()
    ask_reset(Client(), "alice@example.org")
    assert time.monotonic() - started < 2
    assert mail.backlog(r) == 1


def test_a_bad_reset_link_is_a_readable_400(client):
    for link in ("/accounts/reset/xx/yy/", "/accounts/reset/MQ/1-abc/", "/accounts/reset/%FF/z/"):
        response = client.get(link)
        assert response.status_code == 400 and "does not work" in response.content.decode()


def test_with_verification_off_an_address_changes_at_once_and_gets_reset_mail(
    r, smtp_server, settings
):
    settings.EMAIL_VERIFICATION = "off"
    alice = make_user(r, "alice")
    emails.set_address(r, alice["id"], "old@example.org")
    client = log_in(Client(), "alice")
    form = {"email": "new@example.org", "password": PASSWORD}
    assert client.post("/settings/email/", form).status_code == 302
    assert emails.get(r, alice["id"]).address == "new@example.org"
    ask_reset(Client(), "new@example.org")
    send_all(r)
    assert sorted(m["To"] for m in smtp_server.received()) == ["new@example.org", "old@example.org"]

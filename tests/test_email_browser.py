"""The whole password reset flow through the pages, in a real headless Chromium against
live_server, the mail sent by a worker's sending step through a real SMTP server."""

import re

try:
    from playwright.sync_api import expect
except ImportError:  # pragma: no cover - the browser fixture skips (or fails with CI=true)
    expect = None

from accounts import mail as account_mail
from socialsite.repository import emails, mail
from tests.support.helpers import log_in_browser, make_user

NEW_PASSWORD = "a brand new passphrase 42"


def label(text):
    return re.compile(rf"^{re.escape(text)}:?$")


def test_a_forgotten_password_is_reset_through_the_pages(
    r, browser_contexts, live_server, smtp_server, settings
):
    settings.SITE_URL = live_server.url
    alice = make_user(r, "alice")
    emails.set_address(r, alice["id"], "alice@example.org", verified=True)
    page = browser_contexts().new_page()
    page.goto("/accounts/login/")
    page.get_by_role("link", name="Forgot your password?").click()
    page.get_by_label(label("Your account's email address")).fill("alice@example.org")
    page.get_by_role("button", name="Send me a link").click()
    expect(page).to_have_url(re.compile(r"/accounts/password/reset/sent/$"))
    expect(page.get_by_role("heading", name="Check your mail")).to_be_visible()

    assert mail.send_waiting(r, "browser-test", account_mail.send) == 1
    [message] = smtp_server.received()
    text = message.get_body(("plain",)).get_content()
    link = re.search(rf"{re.escape(live_server.url)}/accounts/reset/\S+", text).group(0)

    page.goto(link)
    page.get_by_label(label("New password")).fill(NEW_PASSWORD)
    page.get_by_label(label("New password again")).fill(NEW_PASSWORD)
    page.get_by_role("button", name="Set password").click()
    expect(page).to_have_url(re.compile(r"/accounts/login/$"))
    expect(page.locator("ul.messages")).to_contain_text("Your password is changed.")
    log_in_browser(page, "alice", NEW_PASSWORD)

    # The link worked once.
    page.goto(link)
    expect(page.get_by_role("heading")).to_have_text("This password reset link does not work")

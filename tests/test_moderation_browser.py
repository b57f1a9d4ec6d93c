"""Reporting and suspending in a real headless Chromium against live_server: bob
reports alice's status from its page, a moderator suspends her from the queue, and
her profile is gone and she cannot log in.

Debian's chromium, as in tests/test_browser.py: without one the test is skipped,
except with CI=true, where it fails.
"""

import re

import pytest

try:
    from playwright.sync_api import expect
except ImportError:  # pragma: no cover - the browser fixture skips (or fails with CI=true)
    expect = None

from socialsite.repository import moderation, users
from tests.support.helpers import PASSWORD, account_menu, flash, log_in_browser, make_user, post

TIMEOUT_MS = 15_000


@pytest.fixture
def new_page(browser_contexts):
    """A page in a fresh browser context (cookies of its own) on the live server."""
    return lambda: browser_contexts().new_page()


def test_bob_reports_a_moderator_suspends_alice_is_gone(r, new_page, alice, bob):
    expect.set_options(timeout=TIMEOUT_MS)
    mod = make_user(r, "mod", "Moe Derator")
    moderation.add_moderator(r, mod["id"])
    # alice is logged in, and stays so until the suspension.
    alice_page = new_page()
    log_in_browser(alice_page, "alice")
    sid = post(r, alice, "Buy followers now!!! cheap-followers.example")

    # bob reports the status from its own page.
    bob_page = new_page()
    log_in_browser(bob_page, "bob")
    bob_page.goto(f"/@alice/{sid}/")
    bob_page.locator(f"#status-{sid} details.menu summary").click()  # the status's more menu
    bob_page.get_by_role("link", name="Report this status").click()
    expect(bob_page).to_have_url(re.compile(rf"/@alice/report/\?status={sid}$"))
    expect(bob_page.get_by_role("checkbox", name=re.compile("Buy followers"))).to_be_checked()
    bob_page.get_by_label("Spam").check()
    bob_page.get_by_label(re.compile("Anything the moderators should know")).fill("a spam bot")
    bob_page.get_by_role("button", name="Send the report").click()
    expect(bob_page).to_have_url(re.compile(r"/@alice/$"))
    expect(flash(bob_page)).to_have_text(
        ["Thank you: your report about @alice is with the moderators."]
    )

    # The moderator finds it in the queue and suspends her.
    mod_page = new_page()
    log_in_browser(mod_page, "mod")
    account_menu(mod_page).get_by_role("link", name="Moderation").click()
    report = mod_page.locator("article.report").filter(has_text="Buy followers now")
    expect(report).to_have_count(1)
    expect(report).to_contain_text("Reported by @bob")
    expect(report).to_contain_text("a spam bot")
    report.locator("form").last.get_by_label("Reason").fill("spam account")
    report.get_by_role("button", name="Suspend @alice").click()
    expect(flash(mod_page)).to_have_text(
        ["@alice is suspended; the open reports about the account are closed."]
    )
    expect(mod_page.locator("article.report")).to_have_count(0)
    expect(mod_page.locator(".suspended-list")).to_contain_text("@alice")

    # Her profile and status are gone for bob; her own session has ended.
    response = bob_page.goto("/@alice/")
    assert response.status == 404
    expect(bob_page.get_by_text("This account is suspended.")).to_be_visible()
    assert bob_page.goto(f"/@alice/{sid}/").status == 404
    alice_page.goto("/")
    nav = alice_page.get_by_role("navigation")
    expect(nav.get_by_role("link", name="Log in")).to_be_visible()
    expect(nav.get_by_role("button", name="Log out")).to_have_count(0)

    # And she cannot log in again.
    alice_page.goto("/accounts/login/")
    alice_page.get_by_label(re.compile(r"^Login name:?$")).fill("alice")
    alice_page.get_by_label(re.compile(r"^Password:?$")).fill(PASSWORD)
    alice_page.get_by_role("button", name="Log in").click()
    expect(alice_page.get_by_text(re.compile("This account is suspended"))).to_be_visible()
    expect(alice_page.get_by_role("button", name="Log out")).to_have_count(0)
    assert users.is_suspended(users.get_user(r, alice["id"]))

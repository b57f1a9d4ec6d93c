"""Blocks and private accounts end to end in a real headless Chromium (Playwright's sync
API) against live_server, each person in a browser context of their own.

carol blocks bob from his profile: bob, on carol's profile, is told he is blocked and
sees none of her statuses. alice changes her display name on /settings/, then makes her
account private there; bob asks to follow her ("Requested"); alice approves him on
/settings/requests/; bob then sees her statuses on her profile and his home page.

The browser is Debian's chromium (see tests/test_browser.py); without one the test is
skipped, except when CI=true: there it fails.
"""

import re

try:
    from playwright.sync_api import expect
except ImportError:  # pragma: no cover - depends on the environment; the browser
    expect = None  # fixture then skips (or fails when CI=true)

from tests.support.helpers import flash, log_in_browser, make_user, post

TIMEOUT_MS = 15_000


def test_a_block_and_a_private_account_in_a_real_browser(r, open_page):
    alice, bob, carol = (make_user(r, login) for login in ("alice", "bob", "carol"))
    expect.set_options(timeout=TIMEOUT_MS)
    as_alice, as_bob, as_carol = open_page(), open_page(), open_page()
    for page, login in ((as_alice, "alice"), (as_bob, "bob"), (as_carol, "carol")):
        log_in_browser(page, login)
    post(r, carol, "carol's news")
    post(r, alice, "alice, for her followers")

    # carol blocks bob from his profile.
    as_carol.goto("/@bob/")
    as_carol.locator(".profile-actions details.menu summary").click()  # the more menu
    as_carol.get_by_role("button", name="Block @bob").click()
    expect(flash(as_carol)).to_contain_text(["You blocked @bob."])
    expect(as_carol.get_by_role("button", name="Unblock")).to_be_visible()
    expect(as_carol.get_by_role("button", name="Follow", exact=True)).to_have_count(0)

    # bob, on carol's profile: blocked, nothing of hers, no Follow button.
    as_bob.goto("/@carol/")
    expect(as_bob.get_by_role("heading", name="You are blocked")).to_be_visible()
    expect(as_bob.get_by_text("carol's news")).to_have_count(0)
    expect(as_bob.get_by_role("button", name="Follow", exact=True)).to_have_count(0)

    # alice gives herself a new display name in the profile editor; her profile shows it.
    as_alice.goto("/settings/")
    as_alice.get_by_role("link", name="Edit your profile").click()
    as_alice.get_by_label(re.compile(r"^Display name:?$")).fill("Alice in Chains")
    as_alice.get_by_role("button", name="Save profile").click()
    expect(flash(as_alice)).to_contain_text(["Your profile is saved."])
    as_alice.goto("/@alice/")
    expect(as_alice.get_by_role("heading", name="Alice in Chains")).to_be_visible()

    # alice makes her account private.
    as_alice.goto("/settings/")
    as_alice.get_by_label(re.compile(r"^Private account:?$")).check()
    as_alice.get_by_role("button", name="Save").click()
    expect(flash(as_alice)).to_contain_text(["Your account is private"])
    expect(as_alice.get_by_label(re.compile(r"^Private account:?$"))).to_be_checked()

    # bob sees her profile without its statuses, and asks to follow.
    as_bob.goto("/@alice/")
    expect(as_bob.get_by_role("heading", name="These statuses are protected")).to_be_visible()
    expect(as_bob.get_by_text("alice, for her followers")).to_have_count(0)
    as_bob.get_by_role("button", name="Follow", exact=True).click()
    expect(flash(as_bob)).to_contain_text(["you asked to follow them"])
    expect(as_bob.get_by_role("button", name="Requested")).to_be_visible()

    # alice approves him from her requests.
    as_alice.goto("/settings/")
    as_alice.get_by_role("link", name="Follow requests").click()
    request = as_alice.locator("ul.requests li").filter(has_text="@bob")
    request.get_by_role("button", name="Approve").click()
    expect(flash(as_alice)).to_have_text(["@bob now follows you."])
    expect(as_alice.get_by_text("Nobody is waiting for an answer.")).to_be_visible()

    # bob now sees her statuses, on her profile and at home.
    as_bob.goto("/@alice/")
    expect(
        as_bob.locator("article.status").filter(has_text="alice, for her followers")
    ).to_have_count(1)
    expect(as_bob.get_by_role("button", name="Unfollow")).to_be_visible()
    as_bob.goto("/")
    expect(
        as_bob.locator("article.status").filter(has_text="alice, for her followers")
    ).to_have_count(1)

"""Full-text search of statuses in a real headless Chromium (Playwright) against
live_server: alice lets her public statuses be found on the settings page, bob finds
her status from the navigation's search box, a phrase and an operator narrow it, and
at 390 px the setting's checkbox and the results' links are big enough to touch.

Skipped without a browser, except with CI=true (see tests/test_browser.py)."""

import re

try:
    from playwright.sync_api import expect
except ImportError:  # pragma: no cover - the browser fixture then skips (or fails in CI)
    expect = None

from tests.support.helpers import log_in_browser, post
from tests.test_browser import flash

TIMEOUT_MS = 15_000


def test_a_status_found_once_its_author_allows_it(browser_contexts, live_server, r, alice, bob):
    expect.set_options(timeout=TIMEOUT_MS)
    post(r, alice, "Green tea at noon, always")
    post(r, alice, "Tea that is green")

    author = browser_contexts(viewport={"width": 390, "height": 844}).new_page()
    log_in_browser(author, "alice")
    author.goto("/settings/")
    box = author.get_by_label("Let my public statuses be found by search")
    expect(box).not_to_be_checked()
    touch = box.locator("xpath=..").bounding_box()
    assert touch["height"] >= 44, touch  # the label is the touch target
    box.check()
    author.locator("#search-settings").get_by_role("button", name="Apply").click()
    expect(flash(author)).to_have_text(["Your public statuses can now be found by search."])
    expect(author.get_by_label("Let my public statuses be found by search")).to_be_checked()

    reader = browser_contexts(viewport={"width": 900, "height": 800}).new_page()
    log_in_browser(reader, "bob")
    nav_box = reader.locator("header").get_by_role("combobox")
    nav_box.fill("green tea")
    nav_box.press("Enter")
    expect(reader).to_have_url(re.compile(r"/search/\?q=green\+tea$"))
    found = reader.locator(".search-statuses article.status")
    expect(found).to_have_count(2)
    expect(found.first).to_contain_text("Tea that is green")

    form = reader.locator("form.search-page-form")
    form.get_by_role("searchbox").fill('"green tea" from:alice')
    form.get_by_role("button", name="Search").click()
    expect(found).to_have_count(1)
    expect(found.first).to_contain_text("Green tea at noon")
    expect(reader.locator(".search-people")).to_have_count(0)  # an operator: statuses only

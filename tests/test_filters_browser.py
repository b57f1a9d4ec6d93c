"""Keyword filters end to end in a real headless Chromium (Playwright's sync API) against
live_server: dan makes a hide filter on /settings/filters/ and alice's status with its
keyword leaves his home page; a warn filter collapses it behind "Filtered: <title>",
which opens with a click, without a script.

The browser and its skipping rules are those of tests/test_browser.py.
"""

import re

try:
    from playwright.sync_api import expect
except ImportError:  # pragma: no cover - depends on the environment
    expect = None

from socialsite.repository import graph
from tests.support.helpers import flash, log_in_browser, make_user, post

TIMEOUT_MS = 15_000


def test_a_hide_filter_and_a_warn_filter_in_a_real_browser(r, open_page):
    alice = make_user(r, "alice", "Alice Liddell")
    dan = make_user(r, "dan", "Dan Reader")
    expect.set_options(timeout=TIMEOUT_MS)
    graph.follow(r, dan["id"], alice["id"])
    post(r, alice, "The dragon wins the season finale")
    post(r, alice, "Tea in the garden")
    as_dan = open_page()
    log_in_browser(as_dan, "dan")
    as_dan.goto("/")
    expect(as_dan.locator("article.status")).to_have_count(2)

    # The settings page's link, then a hide filter for the home timeline.
    as_dan.goto("/settings/")
    as_dan.get_by_role("link", name="Filters").click()
    expect(as_dan.get_by_role("heading", name="Filters", level=1)).to_be_visible()
    as_dan.get_by_label(re.compile(r"^Title:?$")).fill("Spoilers")
    as_dan.get_by_label(re.compile(r"^Keywords or phrases")).fill("Dragon\nfinale")
    as_dan.get_by_label("Home, Top and lists").check()
    as_dan.get_by_label("Hide them completely").check()
    as_dan.get_by_role("button", name="Make the filter").click()
    expect(flash(as_dan)).to_have_text(["Your filter \u201cSpoilers\u201d is on."])
    expect(as_dan.locator(".filter-item")).to_contain_text("Dragon")

    as_dan.goto("/")
    expect(as_dan.locator("article.status")).to_have_count(1)
    expect(as_dan.locator("#timeline")).not_to_contain_text("dragon")
    expect(as_dan.locator("#timeline")).to_contain_text("Tea in the garden")

    # Changed to a warning: collapsed behind its title, opened with a click.
    as_dan.goto("/settings/filters/")
    as_dan.locator(".filter-item").get_by_role("link", name="Edit").click()
    as_dan.get_by_label(re.compile(r"Collapse them")).check()
    as_dan.get_by_role("button", name="Save").click()
    expect(flash(as_dan)).to_have_text(["Your filter \u201cSpoilers\u201d is saved."])
    as_dan.goto("/")
    collapsed = as_dan.locator("details.filtered")
    expect(collapsed.locator("summary.filtered-summary")).to_contain_text("Filtered: Spoilers")
    expect(collapsed.locator("article.status")).to_be_hidden()
    collapsed.locator("summary.filtered-summary").click()
    expect(collapsed.locator("article.status")).to_be_visible()
    expect(collapsed).to_contain_text("The dragon wins the season finale")

    # Deleted: the status is back as any other.
    as_dan.goto("/settings/filters/")
    as_dan.locator(".filter-item").get_by_role("button", name="Delete").click()
    expect(flash(as_dan)).to_have_text(["Your filter \u201cSpoilers\u201d is deleted."])
    as_dan.goto("/")
    expect(as_dan.locator("details.filtered")).to_have_count(0)
    expect(as_dan.locator("article.status")).to_have_count(2)

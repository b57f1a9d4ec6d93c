"""Search and autocomplete in a real headless Chromium (Playwright) against live_server:
a new user finds alice from the navigation's search box, follows her from the results,
then mentions her through the status form's completions, by keyboard and by mouse,
makes a list with her on it and reads her status there (the whole flow).

Skipped without a browser, except with CI=true (see tests/test_browser.py)."""

import re

import pytest

try:
    from playwright.sync_api import expect
except ImportError:  # pragma: no cover - the browser fixture then skips (or fails in CI)
    expect = None

from tests.support.helpers import account_menu, post
from tests.test_browser import flash, sign_up

TIMEOUT_MS = 15_000


@pytest.fixture
def page(browser_contexts):
    return browser_contexts(viewport={"width": 900, "height": 800}).new_page()


def test_search_follow_and_complete_a_mention(page, live_server, r, alice, bob):
    expect.set_options(timeout=TIMEOUT_MS)
    post(r, bob, "Building with #redis today")
    sign_up(page, "newbie", "New Person")

    # The navigation's search box, on the home page (a combobox: it suggests as one types).
    nav_box = page.locator("header").get_by_role(
        "combobox", name="Search people, tags and statuses"
    )
    nav_box.fill("ali")
    nav_box.press("Enter")
    expect(page).to_have_url(re.compile(r"/search/\?q=ali$"))
    people = page.locator(".search-people li")
    expect(people).to_have_count(1)
    expect(people.first).to_contain_text("Alice Liddell")
    expect(people.first).to_contain_text("@alice")

    # Follow her from the results: back on the same results, now following.
    people.first.get_by_role("button", name="Follow", exact=True).click()
    expect(flash(page)).to_have_text(["You now follow @alice."])
    expect(page).to_have_url(re.compile(r"/search/\?q=ali&page=1$"))
    expect(
        page.locator(".search-people li").first.get_by_role("button", name="Unfollow")
    ).to_be_visible()

    # The status form offers @alice for "@al"; the keyboard picks it.
    page.goto("/")
    box = page.locator('textarea[name="message"]')
    expect(box).to_have_attribute("aria-autocomplete", "list")
    box.press_sequentially("@al")
    options = page.get_by_role("listbox", name="Completions").get_by_role("option")
    expect(options).to_have_count(1)
    expect(options.first).to_contain_text("@alice")
    expect(box).to_have_attribute("aria-activedescendant", "completions-0-0")
    box.press("ArrowDown")  # one option: down comes back to it
    expect(options.first).to_have_attribute("aria-selected", "true")
    box.press("Enter")
    expect(box).to_have_value("@alice ")
    expect(page.get_by_role("listbox", name="Completions")).to_be_hidden()
    expect(box).not_to_have_attribute("aria-activedescendant", re.compile("."))

    # Escape closes the list and leaves the text alone; a click picks a tag.
    box.press_sequentially("#re")
    expect(options).to_have_count(1)
    box.press("Escape")
    expect(page.get_by_role("listbox", name="Completions")).to_be_hidden()
    expect(box).to_have_value("@alice #re")
    box.press_sequentially("d")
    options.first.click()
    expect(box).to_have_value("@alice #redis ")

    # The form posts as ever.
    page.get_by_role("button", name="Post").click()
    expect(page.locator(".status").first).to_contain_text("@alice #redis")
    # A list with alice on it, from the navigation's Lists link; her status shows there.
    post(r, alice, "Down the rabbit hole, for the list")
    account_menu(page).get_by_role("link", name="Lists").click()
    page.get_by_label(re.compile(r"^List name:?$")).fill("Wonderland")
    page.get_by_role("button", name="Make the list").click()
    expect(page.get_by_role("heading", name="Wonderland", level=1)).to_be_visible()
    page.locator("form.add-member").get_by_label(re.compile(r"^Login name:?$")).fill("alice")
    page.get_by_role("button", name="Add to the list").click()
    expect(flash(page)).to_have_text(["@alice is on \u201cWonderland\u201d now."])
    listed = page.locator("article.status").filter(has_text="Down the rabbit hole")
    expect(listed).to_have_count(1)

"""Bookmarks, pinned statuses and followed hashtags in a real headless
Chromium: a status bookmarked from its more menu without JavaScript and found on
/bookmarks/, one's own status pinned from its menu and shown first on the profile under
"Pinned", a tag followed from its page; each page passes axe-core, and the new controls
measure at least 44 px on a 390 px phone."""

import pytest

try:
    from axe_playwright_python.sync_playwright import Axe
    from playwright.sync_api import expect
except ImportError:  # pragma: no cover - the browser fixture skips (or fails with CI=true)
    Axe = expect = None

from socialsite.repository import bookmarks, followed_tags, graph, pins
from tests.support.helpers import log_in_browser, make_user, post
from tests.test_accessibility_browser import assert_no_violations

PHONE = {"width": 390, "height": 844}


@pytest.fixture
def axe():
    return Axe()


@pytest.fixture
def people(r):
    alice = make_user(r, "alice", "Alice Liddell")
    bob = make_user(r, "bob", "Bob Builder")
    graph.follow(r, bob["id"], alice["id"])
    return alice, bob


def test_bookmark_from_the_menu_without_javascript(r, people, browser_contexts, axe):
    alice, bob = people
    sid = post(r, alice, "A status worth keeping #keep")
    page = browser_contexts(viewport=PHONE, java_script_enabled=False).new_page()
    log_in_browser(page, "bob")
    page.goto("/")
    article = page.locator(f"#status-{sid}")
    article.locator("details.menu summary").click()
    item = article.get_by_role("button", name="Bookmark")
    assert item.bounding_box()["height"] >= 44
    item.click()
    expect(page.locator("ul.messages")).to_contain_text("Bookmarked")
    assert bookmarks.bookmarked_of(r, bob["id"], [sid]) == {sid}
    page.goto("/bookmarks/")
    expect(page.locator(f"#status-{sid}")).to_have_count(1)
    page.locator(f"#status-{sid} details.menu summary").click()
    page.locator(f"#status-{sid}").get_by_role("button", name="Remove bookmark").click()
    expect(page.locator("ul.messages")).to_contain_text("Bookmark removed.")
    expect(page.locator(f"#status-{sid}")).to_have_count(0)


def test_the_new_pages_pass_axe(r, people, browser_contexts, axe):
    alice, bob = people
    sid = post(r, alice, "Kept and pinned #launch")
    post(r, alice, "Another one")
    bookmarks.bookmark(r, bob["id"], sid)
    pins.pin(r, alice["id"], sid)
    followed_tags.follow(r, bob["id"], "launch")
    page = browser_contexts(viewport=PHONE).new_page()
    log_in_browser(page, "bob")
    for path in ("/bookmarks/", "/@alice/", "/tags/launch/"):
        page.goto(path)
        assert_no_violations(axe, page)
    page.goto("/tags/launch/")
    button = page.get_by_role("button", name="Unfollow #launch")
    assert button.bounding_box()["height"] >= 44


def test_pin_from_ones_own_menu_shows_it_first(r, people, browser_contexts):
    alice, _ = people
    old = post(r, alice, "The one to pin")
    post(r, alice, "A newer one")
    page = browser_contexts(viewport=PHONE).new_page()
    log_in_browser(page, "alice")
    page.goto("/@alice/")
    page.locator(f"#status-{old} details.menu summary").click()
    page.locator(f"#status-{old}").get_by_role("button", name="Pin to profile").click()
    expect(page.locator("ul.messages")).to_contain_text("Pinned to your profile.")
    pinned = page.locator("section.pinned")
    expect(pinned.get_by_role("heading", name="Pinned")).to_be_visible()
    expect(pinned.locator(f"#status-{old}")).to_have_count(1)
    assert pins.pinned_ids(r, alice["id"]) == [old]

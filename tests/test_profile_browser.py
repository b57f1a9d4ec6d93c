"""A profile made through the form in a real headless Chromium (Playwright's sync API)
against live_server: alice uploads an avatar and a header, writes a bio, and sees them
on her profile, the pictures loaded from the site's media URL; bob, without an avatar,
has one made of his initials in her followers list. Both pages pass axe-core.

The browser is Debian's chromium (see tests/test_browser.py); without one the test is
skipped, except when CI=true: there it fails.
"""

import io

import pytest
from PIL import Image

try:
    from axe_playwright_python.sync_playwright import Axe
    from playwright.sync_api import expect
except ImportError:  # pragma: no cover - the browser fixture skips (or fails with CI=true)
    Axe = expect = None

from socialsite.repository import graph, keys, users
from tests.support.helpers import log_in_browser, make_user
from tests.test_accessibility_browser import assert_no_violations

TIMEOUT_MS = 15_000


def png_bytes(size, colour):
    buffer = io.BytesIO()
    Image.new("RGB", size, colour).save(buffer, "PNG")
    return buffer.getvalue()


def natural_width(page, selector):
    return page.locator(selector).evaluate("img => img.complete ? img.naturalWidth : 0")


@pytest.fixture
def axe():
    return Axe()


def test_an_avatar_uploaded_through_the_form_shows_on_the_profile(
    r, browser_contexts, media_root, axe
):
    alice = make_user(r, "alice", "Alice Liddell")
    bob = make_user(r, "bob", "Bob Builder")
    graph.follow(r, bob["id"], alice["id"])
    expect.set_options(timeout=TIMEOUT_MS)
    page = browser_contexts().new_page()
    log_in_browser(page, "alice")

    page.goto("/settings/")
    page.get_by_role("link", name="Edit your profile").click()
    page.get_by_label("Bio").fill("Curious about #rabbits, friend of @bob")
    page.get_by_label("Avatar:", exact=True).set_input_files(
        {"name": "me.png", "mimeType": "image/png", "buffer": png_bytes((800, 600), "teal")}
    )
    page.get_by_label("Header:", exact=True).set_input_files(
        {"name": "wide.png", "mimeType": "image/png", "buffer": png_bytes((1800, 900), "navy")}
    )
    page.get_by_role("button", name="Save profile").click()
    expect(page.locator("ul.messages")).to_contain_text("Your profile is saved.")

    page.goto("/@alice/")
    saved = users.get_user(r, alice["id"])
    avatar = page.locator("section.profile-card img.avatar-large")
    expect(avatar).to_have_attribute("src", f"/media/{saved[keys.AVATAR_FIELD]}")
    expect(avatar).to_have_attribute("alt", "")
    page.wait_for_load_state("load")
    assert natural_width(page, "section.profile-card img.avatar-large") == 400
    assert natural_width(page, "section.profile-card img.profile-header") == 1500
    bio = page.locator("section.profile-card p.bio")
    expect(bio).to_contain_text("Curious about #rabbits, friend of @bob")
    expect(bio.get_by_role("link", name="@bob")).to_have_attribute("href", "/@bob/")
    expect(page.locator("section.profile-card .joined")).to_contain_text("Joined")
    assert_no_violations(axe, page)

    # bob has no avatar: his initials stand in, with nothing to fetch.
    page.goto("/@alice/followers/")
    expect(page.locator("ul.user-list .avatar-made")).to_have_text("BB")
    assert_no_violations(axe, page)

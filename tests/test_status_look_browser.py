"""The status component's look in a real headless Chromium (Playwright's sync API)
against live_server (templates/_status.html, the status part of static/css/site.css):

- its action buttons (Reply, Repost, Like, the more menu) each draw an icon, have an
  accessible name and measure at least 44 x 44 CSS px on a 390 px wide phone;
- a status with images shows them as thumbnails on the home timeline, and one behind a
  content warning says it has images and shows them blurred until "Show";
- the more menu opens from the keyboard, and its items work without JavaScript (Delete
  posts from it).

The pages pass axe-core. The screenshots go to LOOK_DIR when it is set (the look
lanes' /tmp/look/status). The browser is Debian's chromium (see tests/test_browser.py);
without one the test is skipped, except when CI=true: there it fails.
"""

import os
import re
from pathlib import Path

import pytest

try:
    from axe_playwright_python.sync_playwright import Axe
    from playwright.sync_api import expect
except ImportError:  # pragma: no cover - the browser fixture skips (or fails with CI=true)
    Axe = expect = None

from media import attachments
from socialsite.repository import graph, likes, reposts, statuses
from tests.support.helpers import log_in_browser, make_user, post
from tests.test_accessibility_browser import assert_no_violations
from tests.test_media_images import png

PHONE = {"width": 390, "height": 844}
DESKTOP = {"width": 1280, "height": 900}


@pytest.fixture
def axe():
    return Axe()


def screenshot(page, name):
    """Keep a picture of ``page`` under LOOK_DIR, when set."""
    where = os.environ.get("LOOK_DIR")
    if where:
        Path(where).mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(Path(where) / f"{name}.png"), full_page=True)


def images(*shapes):
    """A status's media field: a stored image of each (width, height) in ``shapes``."""
    colours = [(200, 60, 40), (40, 120, 200), (60, 160, 80), (220, 180, 60)]
    prepared = [
        attachments.prepare(png(size, colour=colours[n % 4])) for n, size in enumerate(shapes)
    ]
    return attachments.store(prepared, [f"Picture {n + 1}" for n in range(len(shapes))])[0]


@pytest.fixture
def timeline(r, media_root):
    """bob's home page: alice's statuses (text, images, images behind a warning), liked
    and reposted by him, and one of his own."""
    alice = make_user(r, "alice", "Alice Liddell")
    bob = make_user(r, "bob", "Bob Builder")
    graph.follow(r, bob["id"], alice["id"])
    ids = {}
    ids["text"] = post(
        r, alice, "Reading chapter 8 of Redis in Action tonight: a whole social network #redis"
    )
    ids["one"] = post(r, alice, "The harbour this morning", media=images((1200, 800)))
    ids["four"] = post(
        r, alice, "Four of the walk", media=images((800, 600), (600, 800), (900, 900), (1600, 500))
    )
    ids["warned"] = post(
        r, alice, "What the film's ending looks like", media=images((800, 600), (800, 600)),
        spoiler="Spoilers for the film", sensitive="1",
    )  # fmt: skip
    ids["own"] = post(r, bob, "My own status, to delete from its menu")
    likes.like(r, bob["id"], ids["text"])
    reposts.repost(r, bob["id"], ids["one"])
    likes.like(r, alice["id"], ids["own"])
    return ids


def test_action_buttons_have_an_icon_a_name_and_44_px_on_a_phone(timeline, browser_contexts, axe):
    page = browser_contexts(viewport=PHONE).new_page()
    log_in_browser(page, "bob")
    page.goto("/")
    article = page.locator(f"#status-{timeline['text']}")
    controls = {
        "Reply": article.get_by_role("link", name="Reply"),
        "Repost": article.get_by_role("button", name="Repost", exact=True),
        "Like": article.get_by_role("button", name="Like", exact=False),
        "More": article.locator("summary", has=page.locator("svg.icon")),
    }
    for name, control in controls.items():
        expect(control).to_have_count(1)
        expect(control.locator("svg.icon use")).to_have_count(1)
        box = control.bounding_box()
        assert box["width"] >= 44 and box["height"] >= 44, (name, box)
    expect(controls["More"]).to_have_attribute("aria-label", "More actions for @alice's status")
    # Their state: liked and not reposted, as aria-pressed; and the count beside the icon.
    expect(controls["Like"]).to_have_attribute("aria-pressed", "true")
    expect(controls["Like"]).to_have_accessible_name("Like 1 like")
    expect(controls["Repost"]).to_have_attribute("aria-pressed", "false")
    screenshot(page, "home-390")
    assert_no_violations(axe, page)
    page.set_viewport_size(DESKTOP)
    screenshot(page, "home-1280")
    # The dark theme (the reader's choice: <html data-theme="dark">): tokens only.
    page.evaluate("document.documentElement.dataset.theme = 'dark'")
    screenshot(page, "home-1280-dark")


def test_statuses_with_images_show_thumbnails_on_the_home_timeline(timeline, browser_contexts, axe):
    page = browser_contexts(viewport=DESKTOP).new_page()
    log_in_browser(page, "bob")
    page.goto("/")
    one = page.locator(f"#status-{timeline['one']}")
    four = page.locator(f"#status-{timeline['four']}")
    expect(one.locator("a.media-link img.media-image")).to_have_count(1)
    expect(four.locator("a.media-link img.media-image")).to_have_count(4)
    # In their own shape, within a bound: the single one keeps its 3:2.
    thumbnail = one.locator("img.media-image")
    thumbnail.scroll_into_view_if_needed()
    box = thumbnail.bounding_box()
    assert abs(box["width"] / box["height"] - 1.5) < 0.05, box
    for n in range(4):
        picture = four.locator("img.media-image").nth(n)
        expect(picture).to_be_visible()
        expect(picture).to_have_attribute("alt", f"Picture {n + 1}")
        assert picture.get_attribute("width") and picture.get_attribute("height")

    # Behind a warning: the warning, a hint of the images, blurred previews, and Show.
    warned = page.locator(f"#status-{timeline['warned']}")
    summary = warned.locator(".content-warning > summary")
    expect(summary).to_contain_text("Spoilers for the film")
    expect(summary.locator(".cw-hint")).to_have_text("2 images")
    expect(summary.locator(".cw-preview img")).to_have_count(2)
    expect(summary.locator(".cw-preview img").first).to_be_visible()
    expect(warned.locator("a.media-link img")).to_have_count(2)
    expect(warned.locator("a.media-link img").first).to_be_hidden()
    expect(warned.locator(".message")).to_be_hidden()
    screenshot(page, "images-1280")
    assert_no_violations(axe, page)
    summary.get_by_text("Show").click()
    expect(warned.locator("a.media-link img").first).to_be_visible()
    expect(warned.locator(".message")).to_be_visible()
    expect(summary.locator(".cw-preview")).to_be_hidden()
    page.set_viewport_size(PHONE)
    screenshot(page, "images-390")


def test_the_more_menu_opens_by_keyboard(timeline, browser_contexts, axe):
    page = browser_contexts(viewport=PHONE).new_page()
    log_in_browser(page, "bob")
    page.goto("/")
    article = page.locator(f"#status-{timeline['text']}")
    menu = article.locator("details.menu")
    items = menu.locator(".menu-items")
    expect(items).to_be_hidden()
    menu.locator("summary").focus()
    page.keyboard.press("Enter")
    expect(items).to_be_visible()
    for name in ("Copy link", "Liked by…", "Mute @alice…", "Block @alice", "Report this status"):
        item = items.get_by_role("button", name=name).or_(items.get_by_role("link", name=name))
        expect(item).to_be_visible()
        box = item.bounding_box()
        assert box["height"] >= 44, (name, box)
    page.keyboard.press("Tab")
    expect(items.get_by_role("link", name="Copy link")).to_be_focused()
    screenshot(page, "menu-390")
    assert_no_violations(axe, page)
    # Escape closes it and gives the focus back to its button (static/js/status.js).
    page.keyboard.press("Escape")
    expect(items).to_be_hidden()
    expect(menu.locator("summary")).to_be_focused()


def test_the_more_menu_works_without_javascript(r, timeline, browser_contexts):
    page = browser_contexts(viewport=PHONE, java_script_enabled=False).new_page()
    log_in_browser(page, "bob")
    page.goto("/")
    own = page.locator(f"#status-{timeline['own']}")
    own.locator("details.menu summary").click()
    own.get_by_role("button", name="Delete").click()
    expect(page.locator("ul.messages")).to_contain_text("deleted")
    expect(page.locator(f"#status-{timeline['own']}")).to_have_count(0)
    assert statuses.get_status(r, timeline["own"]) is None

    # Mute from another's status: its menu leads to the choice of how long, which comes
    # back to the home page.
    page.locator(f"#status-{timeline['text']} details.menu summary").click()
    page.locator(f"#status-{timeline['text']}").get_by_role("link", name="Mute @alice…").click()
    expect(page).to_have_url(re.compile(r"/@alice/mute/$"))
    page.get_by_label("Mute").select_option("1d")
    page.get_by_role("button", name="Mute @alice").click()
    expect(page).to_have_url(re.compile(r"/$"))
    expect(page.locator("ul.messages")).to_contain_text("You muted @alice for 1 day.")


def test_a_profile_shows_follow_and_keeps_mute_and_block_in_its_menu(
    r, timeline, browser_contexts, axe
):
    page = browser_contexts(viewport=PHONE).new_page()
    log_in_browser(page, "bob")
    page.goto("/@alice/")
    card = page.locator(".profile-card")
    expect(card.get_by_role("button", name="Unfollow")).to_be_visible()  # bob follows her
    block = card.get_by_role("button", name="Block @alice")
    expect(block).to_be_hidden()
    card.locator("details.menu summary").click()
    for name in ("Mute for 1 hour", "Mute for 1 day", "Mute for 7 days", "Block @alice"):
        expect(card.get_by_role("button", name=name)).to_be_visible()
    screenshot(page, "profile-menu-390")
    assert_no_violations(axe, page)
    card.get_by_role("button", name="Mute for 1 day").click()
    expect(page.locator("ul.messages")).to_contain_text("You muted @alice for 1 day.")
    page.set_viewport_size(DESKTOP)
    screenshot(page, "profile-1280")
    page.goto("/settings/")
    screenshot(page, "settings-1280")


def test_settings_offer_the_devices_time_zone(r, timeline, browser_contexts, axe):
    page = browser_contexts(viewport=PHONE, timezone_id="Europe/Paris").new_page()
    log_in_browser(page, "bob")
    page.goto("/settings/")
    offer = page.locator(".time-zone-offer")
    expect(offer).to_contain_text("This device is set to Europe/Paris.")
    screenshot(page, "settings-zone-390")
    assert_no_violations(axe, page)
    offer.get_by_role("button", name="Use it").click()
    expect(page.get_by_label("Time zone")).to_have_value("Europe/Paris")
    page.get_by_role("button", name="Set time zone").click()
    expect(page.locator("ul.messages")).to_contain_text("The pages now show times in Europe/Paris.")
    expect(offer).to_be_hidden()
    page.goto("/")
    when = page.locator(f"#status-{timeline['text']} a.when")
    expect(when).to_have_attribute("data-full", re.compile(r" CET$"))
    when.focus()  # the absolute time shows on keyboard focus too
    screenshot(page, "time-focus-390")

"""The Top timeline in a real headless Chromium: the home's Latest and Top tabs, the
"why" lines, the settings page's preview and the choice of the tab the home opens with,
and Top's live bar, which offers new statuses on Latest instead of reordering.

The browser and its skipping rules are those of tests/test_browser.py; the live
updates come from a real ``manage.py stream`` process, as in tests/test_live_browser.py.
"""

import re
import time

import pytest

try:
    from playwright.sync_api import expect
except ImportError:  # pragma: no cover - depends on the environment
    expect = None

from socialsite.repository import graph, keys, likes
from socialsite.repository import statuses as statuses_repository
from tests.support.helpers import post

TIMEOUT_MS = 15_000


@pytest.fixture(scope="module")
def stream_server_options(live_server):
    return {"site_port": int(live_server.url.rsplit(":", 1)[1])}


def test_the_home_tabs_top_and_its_settings(browser, live_person, r, alice, bob, carol):
    expect.set_options(timeout=TIMEOUT_MS)
    graph.follow(r, bob["id"], alice["id"])
    graph.follow(r, bob["id"], carol["id"])
    liked = post(r, alice, "Liked by someone bob follows")
    # Ten hours old: 3 * 2 ** (-10 / 12) = 1.68, above a new status's 1; with "favour
    # the newest: more" (a 6-hour half-life), 0.94, below.
    r.hset(keys.status(liked), "posted", time.time() - 10 * 3600)
    statuses_repository._known.forget(liked)
    likes.like(r, carol["id"], liked)
    post(r, carol, "Newer, with no likes")
    page = live_person("bob").new_page()

    # Latest is the home, as before, with the two tabs.
    page.goto("/")
    tabs = page.get_by_role("navigation", name="Home timeline")
    expect(tabs.get_by_role("link", name="Latest")).to_have_attribute("aria-current", "page")
    expect(page.locator("article.status p.message").first).to_have_text("Newer, with no likes")
    expect(page.locator(".top-why")).to_have_count(0)

    # Top: the liked status first, each saying why.
    tabs.get_by_role("link", name="Top").click()
    expect(page).to_have_url(re.compile(r"/top/$"))
    tabs = page.get_by_role("navigation", name="Home timeline")
    expect(tabs.get_by_role("link", name="Top")).to_have_attribute("aria-current", "page")
    statuses = page.locator("article.status")
    expect(statuses.locator("p.message")).to_have_text(
        ["Liked by someone bob follows", "Newer, with no likes"]
    )
    expect(statuses.locator(".top-why")).to_have_text(
        ["Why: liked by 1 person you follow", "Why: new"]
    )
    expect(page.locator("#top-timeline")).to_have_attribute("data-live", "connected")
    page.evaluate("window.sameDocument = true")

    # A new status does not move Top: a bar offers it on Latest.
    post(r, alice, "Just posted")
    bar = page.locator(".top-live-bar")
    expect(bar).to_have_text("1 new status on Latest")
    expect(statuses).to_have_count(2)
    assert page.evaluate("window.sameDocument === true")
    bar.click()
    expect(page).to_have_url(re.compile(r"/$"))
    expect(page.locator("article.status p.message").first).to_have_text("Just posted")

    # The settings: a preview, then the home opening with Top.
    page.goto("/settings/top/")
    page.get_by_role("radio", name="More").nth(2).check()  # favour the newest: more
    page.get_by_role("button", name="Preview").click()
    preview = page.locator(".top-preview article.status p.message")
    expect(preview.first).to_have_text("Just posted")
    page.get_by_role("radio", name="Top").check()
    page.get_by_role("button", name="Save").click()
    expect(page.locator("ul.messages li.message")).to_have_text(["Top now ranks by your choices."])
    page.goto("/")
    tabs = page.get_by_role("navigation", name="Home timeline")
    expect(tabs.get_by_role("link", name="Top")).to_have_attribute("aria-current", "page")
    tabs.get_by_role("link", name="Latest").click()
    expect(page).to_have_url(re.compile(r"/latest/$"))
    expect(page.locator("article.status")).to_have_count(3)

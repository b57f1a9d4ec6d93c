"""Likes in a real headless Chromium: bob likes alice's status from his home page and
sees "1 like" and the Like button pressed; a status that reaches his open home page live has a Like
button that works too (its CSRF token filled in by static/js/live.js); alice sees the
notifications, one entry per status.

The pages come from pytest-django's live_server (in this process), the live updates
from a real ``manage.py stream`` process, as in test_live_browser.py.
"""

import pytest

try:
    from playwright.sync_api import expect
except ImportError:  # pragma: no cover - the browser fixture then skips (or fails on CI)
    expect = None

from socialsite.repository import graph, statuses

TIMEOUT_MS = 15_000


@pytest.fixture(scope="module")
def stream_server_options(live_server):
    return {"site_port": int(live_server.url.rsplit(":", 1)[1])}


def test_bob_likes_from_his_home_page_and_alice_is_notified(browser, live_person, r, alice, bob):
    expect.set_options(timeout=TIMEOUT_MS)
    graph.follow(r, bob["id"], alice["id"])
    first = statuses.post_status(r, alice["id"], "Tea at five?")

    bob_home = live_person("bob").new_page()
    bob_home.goto("/")
    article = bob_home.locator(f"#status-{first}")
    article.get_by_role("button", name="Like", exact=True).click()
    expect(bob_home.get_by_text("You like this status.")).to_be_visible()
    article = bob_home.locator(f"#status-{first}")
    expect(article.locator(".like-count")).to_have_text("1 like")
    expect(article.get_by_role("button", name="Like 1 like", pressed=True)).to_be_visible()

    # A status arriving live: its Like form gets the page's CSRF token.
    expect(bob_home.locator("#timeline")).to_have_attribute("data-live", "connected")
    second = statuses.post_status(r, alice["id"], "Or at six.")
    bar = bob_home.locator(".live-bar")
    expect(bar).to_have_text("1 new status")
    bar.click()
    live = bob_home.locator(f"#status-{second}")
    live.get_by_role("button", name="Like", exact=True).click()
    expect(bob_home.get_by_text("You like this status.")).to_be_visible()
    expect(bob_home.locator(f"#status-{second} .like-count")).to_have_text("1 like")

    alice_page = live_person("alice").new_page()
    alice_page.goto("/notifications/")
    entry = alice_page.locator(".notification.like").first
    expect(entry).to_contain_text("liked your status")
    expect(entry).to_contain_text("Bob Builder")
    expect(alice_page.locator(".notification.like")).to_have_count(2)  # two statuses

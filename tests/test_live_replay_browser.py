"""The live page in a real headless Chromium across its stream's ups and downs: the
unread badge follows notifications through the same connection, and a status posted
while the stream server was down appears, once, when the page reconnects (the browser's
Last-Event-ID, streaming/replay.py).

A module of its own: a test restarts the module's stream server.
"""

import pytest

try:
    from playwright.sync_api import expect
except ImportError:  # pragma: no cover - depends on the environment; the browser
    expect = None  # fixture then skips (or fails when CI=true)

from socialsite.repository import graph
from streaming import replay
from tests.support.helpers import log_in_browser, post

# The browser waits 5 s (the stream's retry) before reconnecting: room for that.
TIMEOUT_MS = 30_000


@pytest.fixture(scope="module")
def stream_server_options(live_server):
    """The site's port, for the stream server's CORS check."""
    return {"site_port": int(live_server.url.rsplit(":", 1)[1])}


@pytest.fixture
def home_of(browser_contexts, stream_server, settings):
    """Open a user's home page, logged in, once its live connection is open."""
    settings.STREAM_PORT = stream_server.port
    settings.STREAM_PUBLIC_URL = ""

    def open_home(login):
        page = browser_contexts().new_page()
        log_in_browser(page, login)
        page.goto("/")
        expect(page.locator("#timeline")).to_have_attribute("data-live", "connected")
        page.evaluate("window.sameDocument = true")  # lost on any reload
        return page

    return open_home


def test_the_badge_counts_a_mention_while_the_page_is_open(
    browser, home_of, r, stream_server, alice, bob
):
    expect.set_options(timeout=TIMEOUT_MS)
    page = home_of("alice")
    badge = page.locator(".unread-count")
    expect(badge).to_be_hidden()
    post(r, bob, "@alice are you there?")
    expect(badge).to_have_text("1")
    expect(badge).to_be_visible()
    post(r, bob, "@alice hello again")
    expect(badge).to_have_text("2")
    assert page.evaluate("window.sameDocument === true")
    # One stream for statuses and counts alike: no second connection was opened. (The
    # page that logging in landed on had one too, until page.goto left it: the server
    # counts it until it finds it closed.)
    stream_server.wait_until(lambda health: health["clients"] == 1, 10, "to count one client")


def test_a_status_posted_while_the_stream_was_down_appears_once(
    browser, home_of, r, stream_server, alice, bob
):
    expect.set_options(timeout=TIMEOUT_MS)
    graph.follow(r, alice["id"], bob["id"])
    page = home_of("alice")
    timeline = page.locator("#timeline")
    bar = page.locator(".live-bar")
    seen = post(r, bob, "seen live")
    expect(bar).to_have_text("1 new status")

    stream_server.stop()
    expect(timeline).not_to_have_attribute("data-live", "connected")
    missed = post(r, bob, "@alice posted while the stream was down")
    stream_server.start()

    expect(timeline).to_have_attribute("data-live", "connected")
    expect(bar).to_have_text("2 new statuses")
    expect(page.locator(".unread-count")).to_have_text("1")
    bar.click()
    expect(page.locator("article.status")).to_have_count(2)
    expect(page.locator(f"#status-{missed}")).to_have_count(1)
    expect(page.locator(f"#status-{seen}")).to_have_count(1)
    # Nothing more comes in twice: a later status makes it three.
    later = post(r, bob, "after the reconnection")
    expect(bar).to_have_text("1 new status")
    bar.click()
    expect(page.locator("article.status")).to_have_count(3)
    expect(page.locator(f"#status-{later}")).to_have_count(1)
    assert page.evaluate("window.sameDocument === true")
    assert stream_server.health()["clients"] == 1


def test_more_missed_statuses_than_a_replay_sends_offer_the_newest_page(
    browser, home_of, r, stream_server, alice, bob
):
    expect.set_options(timeout=TIMEOUT_MS)
    graph.follow(r, alice["id"], bob["id"])
    page = home_of("alice")
    more = page.locator(".live-more")
    expect(more).to_be_hidden()

    stream_server.stop()
    expect(page.locator("#timeline")).not_to_have_attribute("data-live", "connected")
    missed = [post(r, bob, f"missed {n}") for n in range(replay.LIVE_REPLAY_MAX + 1)]
    stream_server.start()

    expect(page.locator(".live-bar")).to_have_text(f"{replay.LIVE_REPLAY_MAX} new statuses")
    expect(more).to_be_visible()
    expect(more).to_have_text("More new statuses: load the newest")
    more.click()
    expect(page.locator(f"#status-{missed[-1]}")).to_have_count(1)  # the reloaded page
    expect(more).to_be_hidden()

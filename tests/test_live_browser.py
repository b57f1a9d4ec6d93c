"""Live updates in a real headless Chromium: no reload needed to see or lose a status.

alice and bob are logged in side by side (a browser context each, so their own
cookies), bob in two tabs. bob posts from one tab; alice's home page, and bob's other
tab, show "1 new status" and, on a click, the status, all without reloading. bob
deletes it from the status the script built (its Delete form must work), and it
disappears from alice's page without a reload.

The pages come from pytest-django's live_server; the live updates from a real
``manage.py stream`` process on another port, found through settings.STREAM_PORT as
in development. The browser is Debian's chromium (CHROMIUM_PATH points elsewhere).
Without a browser the test is skipped, except when CI=true: there it fails.
"""

import pytest

try:
    from playwright.sync_api import expect
except ImportError:  # pragma: no cover - depends on the environment; the browser
    expect = None  # fixture then skips (or fails when CI=true)

from socialsite.repository import graph

TIMEOUT_MS = 15_000


@pytest.fixture(scope="module")
def stream_server_options(live_server):
    """This module's stream_server (tests/conftest.py): the site's port, for the CORS
    check (its SECRET_KEY, to read the site's signed sessions, it always has)."""
    return {"site_port": int(live_server.url.rsplit(":", 1)[1])}


def open_home(context):
    """A tab on the home page, once its live connection is open."""
    page = context.new_page()
    page.goto("/")
    expect(page.locator("#timeline")).to_have_attribute("data-live", "connected")
    # Lost on any reload: proves that what follows happens without one.
    page.evaluate("window.sameDocument = true")
    return page


def not_reloaded(page):
    return page.evaluate("window.sameDocument === true")


def test_statuses_appear_and_disappear_without_a_reload(browser, live_person, r, alice, bob):
    # browser first: without one the test is skipped before expect is needed.
    expect.set_options(timeout=TIMEOUT_MS)
    graph.follow(r, alice["id"], bob["id"])
    alice_home = open_home(live_person("alice"))
    bob_context = live_person("bob")
    bob_home, bob_other_tab = open_home(bob_context), open_home(bob_context)

    # bob posts from one tab (which reloads, as the form posts).
    text = "Live <b>from</b> Chromium & co"
    bob_home.locator('textarea[name="message"]').fill(text)
    bob_home.get_by_role("button", name="Post").click()
    expect(bob_home.locator("ul.messages li.message")).to_have_text(["Your status is posted."])

    # alice's page offers it without a reload, and shows it on a click.
    bar = alice_home.locator(".live-bar")
    expect(bar).to_have_text("1 new status")
    expect(alice_home.locator("article.status")).to_have_count(0)
    bar.click()
    expect(bar).to_be_hidden()
    status = alice_home.locator("article.status")
    expect(status).to_have_count(1)
    expect(status.locator("p.message")).to_have_text(text)  # text, not markup
    expect(status.locator("p.message b")).to_have_count(0)
    # The made avatar's initials are hidden from screen readers: the name says who.
    expect(status.locator("a.author")).to_have_accessible_name("Bob Builder @bob")
    expect(status.locator("a.author .avatar-made")).to_have_text("BB")
    expect(status.locator("a.author")).to_have_attribute("href", "/@bob/")
    expect(status.locator("time")).to_have_text("now")
    expect(status.get_by_role("button", name="Delete")).to_have_count(0)  # not hers
    expect(alice_home.locator("#timeline .empty")).to_have_count(0)
    assert not_reloaded(alice_home)

    # bob's other tab shows his own status with a Delete button, and it works.
    expect(bob_other_tab.locator(".live-bar")).to_have_text("1 new status")
    bob_other_tab.locator(".live-bar").click()
    own = bob_other_tab.locator("article.status")
    expect(own).to_have_count(1)
    assert not_reloaded(bob_other_tab)
    own.locator("details.menu summary").click()  # the status's more menu
    own.get_by_role("button", name="Delete").click()
    expect(bob_other_tab.locator("ul.messages li.message")).to_have_text(
        ["Your status is deleted."]
    )

    # alice's page loses it at once, still without a reload.
    expect(alice_home.locator("article.status")).to_have_count(0)
    assert not_reloaded(alice_home)


def test_the_live_script_is_only_on_the_newest_page(live_person, alice):
    page = live_person("alice").new_page()
    page.goto("/")
    expect(page.locator('script[src$="js/live.js"]')).to_have_count(1)
    page.goto("/?before=1")
    expect(page.locator('script[src$="js/live.js"]')).to_have_count(0)

"""A conversation in a real headless Chromium: alice posts with a tag and a link, bob
replies mentioning carol, carol's unread badge goes up on her open home page without a
reload, she opens the notification and the thread, where alice's status reads "1 reply",
and the tag's page lists alice's status.

The pages come from pytest-django's live_server (in this process), the live updates
from a real ``manage.py stream`` process, as in test_live_browser.py.
"""

import re

import pytest

try:
    from playwright.sync_api import expect
except ImportError:  # pragma: no cover - the browser fixture then skips (or fails on CI)
    expect = None

from socialsite.repository import statuses

TIMEOUT_MS = 15_000


@pytest.fixture(scope="module")
def stream_server_options(live_server):
    return {"site_port": int(live_server.url.rsplit(":", 1)[1])}


def test_a_reply_that_mentions_carol_reaches_her_badge_live(
    browser, live_person, r, alice, bob, carol
):
    expect.set_options(timeout=TIMEOUT_MS)
    walk = "Who is up for a #walk? https://example.org/the-long-way-round-the-park"
    parent = statuses.post_status(r, alice["id"], walk)

    carol_home = live_person("carol").new_page()
    carol_home.goto("/")
    expect(carol_home.locator("#timeline")).to_have_attribute("data-live", "connected")
    carol_home.evaluate("window.sameDocument = true")
    badge = carol_home.locator(".notifications-link .unread-count")
    expect(badge).to_be_hidden()

    # bob replies from alice's status page, whose form starts with "@alice ".
    bob_page = live_person("bob").new_page()
    bob_page.goto(f"/@alice/{parent}/")
    message = bob_page.locator('#reply textarea[name="message"]')
    expect(message).to_have_value("@alice ")
    message.fill("@alice count me in, and @carol too")
    bob_page.get_by_role("button", name="Reply").click()
    expect(bob_page.locator("ul.messages li.message")).to_have_text(["Your reply is posted."])
    expect(bob_page.locator(".thread .focus article.status .replying-to")).to_have_text(
        "Replying to @alice"
    )

    # carol's badge goes up without a reload.
    expect(badge).to_have_text("1")
    expect(badge).to_be_visible()
    assert carol_home.evaluate("window.sameDocument === true")

    # She opens her notifications (which marks them seen), then the thread.
    carol_home.locator(".notifications-link").click()
    entry = carol_home.locator("li.notification")
    expect(entry).to_have_count(1)
    expect(entry.locator(".what")).to_contain_text(re.compile(r"Bob Builder\s+mentioned you"))
    expect(carol_home.locator(".notifications-link .unread-count")).to_be_hidden()
    entry.locator("a.quoted").click()
    expect(carol_home).to_have_url(re.compile(r"/@bob/\d+/$"))
    ancestor = carol_home.locator(".ancestors article.status")
    expect(ancestor.locator("p.message")).to_have_text(
        "Who is up for a #walk? example.org/the-long-way-round\u2026"
    )
    expect(
        ancestor.locator('p.message a[rel="nofollow noopener noreferrer ugc"]')
    ).to_have_attribute("href", "https://example.org/the-long-way-round-the-park")
    expect(ancestor.locator(".reply-count")).to_have_text("1 reply")
    expect(carol_home.locator(".focus p.message")).to_have_text(
        "@alice count me in, and @carol too"
    )

    # The tag links to its page, which lists alice's status.
    ancestor.locator("p.message a.hashtag").click()
    expect(carol_home).to_have_url(re.compile(r"/tags/walk/$"))
    expect(carol_home.locator("article.status p.message")).to_have_count(1)
    expect(carol_home.locator("article.status .author")).to_contain_text("@alice")

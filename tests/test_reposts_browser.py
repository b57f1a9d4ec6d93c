"""Reposts in a real headless Chromium, against live_server: bob and carol both repost
alice's status with the Repost button on alice's profile; dave, who follows alice, bob
and carol, sees it once on his home timeline, under "↻ Bob Builder and 1 other
reposted", likes it there, and alice's page of the status reads "1 like" (the page
works without JavaScript: these are plain forms)."""

import re

import pytest

try:
    from playwright.sync_api import expect
except ImportError:  # pragma: no cover - the browser fixture then skips (or fails on CI)
    expect = None

from socialsite.repository import graph, keys, statuses
from tests.support.helpers import log_in_browser, make_user

TIMEOUT_MS = 15_000


@pytest.fixture
def person(browser_contexts):
    """A page of a logged-in user, in a browser context of their own."""

    def logged_in(login):
        page = browser_contexts().new_page()
        log_in_browser(page, login)
        return page

    return logged_in


def test_two_reposts_reach_dave_once_with_both_reposters_counted(
    browser, person, r, alice, bob, carol
):
    expect.set_options(timeout=TIMEOUT_MS)
    dave = make_user(r, "dave", "Dave Diver")
    for followed in (alice, bob, carol):
        graph.follow(r, dave["id"], followed["id"])
    sid = statuses.post_status(r, alice["id"], "A status worth passing on")

    for reposter in ("bob", "carol"):
        page = person(reposter)
        page.goto("/@alice/")
        article = page.locator(f"#status-{sid}")
        article.get_by_role("button", name="Repost").click()
        expect(page.locator("ul.messages li.message")).to_have_text("You reposted the status.")
        expect(page).to_have_url(re.compile(r"/@alice/$"))
        expect(
            page.locator(f"#status-{sid}").get_by_role(
                "button", name=re.compile("^Repost"), pressed=True
            )
        ).to_be_visible()

    home = person("dave")
    home.goto("/")
    shown = home.locator("#timeline article.status")
    expect(shown).to_have_count(1)
    expect(shown.locator(".message")).to_have_text("A status worth passing on")
    expect(shown.locator(".reposted-by")).to_have_text("↻ Bob Builder and 1 other reposted")
    assert int(r.hget(keys.status_counts(sid), "reposts")) == 2

    shown.get_by_role("button", name="Like", exact=True).click()
    expect(home.get_by_text("You like this status.")).to_be_visible()
    shown = home.locator("#timeline article.status")
    expect(shown).to_have_count(1)
    expect(shown.get_by_role("button", name="Like 1 like", pressed=True)).to_be_visible()

    author = person("alice")
    author.goto(f"/@alice/{sid}/")
    expect(author.locator(f"#status-{sid} .like-count")).to_have_text("1 like")
    expect(author.locator(f"#status-{sid} .repost-count")).to_have_text("2 reposts")

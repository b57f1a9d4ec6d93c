"""An evicted home in a real headless Chromium: someone away for months logs in and their
home page shows the statuses of the people they follow at once, in order, rebuilt
within the request (eviction.py, decision 0055); their lists too."""

import time

import pytest

try:
    from playwright.sync_api import expect
except ImportError:  # pragma: no cover - the browser fixture then skips (or fails on CI)
    expect = None

from socialsite.repository import eviction, graph, lists, statuses
from tests.support.helpers import log_in_browser, make_user


@pytest.fixture
def page(browser_contexts):
    return browser_contexts().new_page()


def test_someone_back_after_months_sees_their_whole_home_at_once(r, page):
    away = make_user(r, "away")["id"]
    author = make_user(r, "author")["id"]
    graph.follow(r, away, author)
    _, lid = lists.create_list(r, away, "Close friends")
    lists.add_member(r, away, lid, author)
    sids = [statuses.post_status(r, author, f"news number {n}") for n in range(3)]
    eviction.note_seen(r, away, time.time() - 120 * 86400)
    assert eviction.sweep(r, 30 * 86400) == 1
    later = statuses.post_status(r, author, "posted while they were away")

    log_in_browser(page, "away")
    page.goto("/")
    articles = page.locator("#timeline article")
    expect(articles).to_have_count(4)
    shown = [int(a.get_attribute("id").removeprefix("status-")) for a in articles.all()]
    assert shown == [later, *sids[::-1]]
    page.goto(f"/lists/{lid}/")
    expect(page.get_by_text("posted while they were away")).to_be_visible()

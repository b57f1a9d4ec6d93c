"""The Top timeline's pages: /top/ with its tabs, "why" lines and pager; / opening with
Top when the reader chose it, Latest at /latest/; /settings/top/ saving and previewing.

Every test runs the real views against real Redis (see conftest.py).
"""

import re

import pytest
from django.test import Client

from socialsite.repository import graph, keys, likes
from tests.support.helpers import csrf_token, log_in, post


def html(response):
    return response.content.decode()


def ids_on(response):
    return [
        int(sid) for sid in re.findall(r'<article class="status" id="status-(\d+)"', html(response))
    ]


@pytest.fixture
def as_bob(bob):
    browser = log_in(Client(), "bob")
    browser.get("/")  # shows (and so ends) the welcome message
    return browser


@pytest.fixture
def home(r, alice, bob, carol):
    """bob follows alice and carol; alice's status is liked by carol (someone bob
    follows), carol's is newer."""
    graph.follow(r, bob["id"], alice["id"])
    graph.follow(r, bob["id"], carol["id"])
    liked = post(r, alice, "liked by carol")
    likes.like(r, carol["id"], liked)
    newer = post(r, carol, "newer, no likes")
    return liked, newer


def test_top_shows_the_ranking_with_why_lines_and_tabs(as_bob, home):
    liked, newer = home
    page = as_bob.get("/top/")
    assert page.status_code == 200
    assert ids_on(page) == [liked, newer]
    body = html(page)
    assert '<p class="top-why">Why: liked by 1 person you follow</p>' in body
    assert '<p class="top-why">Why: new</p>' in body
    assert '<a href="/top/" aria-current="page">Top</a>' in body
    assert '<a href="/">Latest</a>' in body
    assert 'data-latest-url="/"' in body and "js/live.js" in body
    # Latest is unchanged, with the tabs, and no "why" line.
    latest = as_bob.get("/")
    assert ids_on(latest) == [newer, liked]
    assert "top-why" not in html(latest)
    assert '<a href="/" aria-current="page">Latest</a>' in html(latest)


def test_top_pages_through_its_snapshot(r, settings, as_bob, alice, bob):
    settings.TIMELINE_PAGE_SIZE = 2
    graph.follow(r, bob["id"], alice["id"])
    posted = [post(r, alice, f"status {i}") for i in range(5)]
    seen, url = [], "/top/"
    while url:
        page = as_bob.get(url)
        seen += ids_on(page)
        found = re.search(r'<a rel="next" href="\?before=(\d+)">', html(page))
        url = f"/top/?before={found.group(1)}" if found else None
        if found:
            likes.like(r, bob["id"], posted[0])  # scores move; the pages do not
    assert sorted(seen) == sorted(posted) and len(seen) == 5


def test_a_malformed_cursor_is_a_400(as_bob):
    assert as_bob.get("/top/?before=abc").status_code == 400


def test_top_asks_visitors_to_log_in(client):
    response = Client().get("/top/")
    assert response.status_code == 302 and "/login/" in response.url


def test_settings_save_the_weights_and_the_home_tab(r, as_bob, bob, home):
    liked, newer = home
    page = as_bob.get("/settings/top/")
    assert page.status_code == 200
    form = {
        "csrfmiddlewaretoken": csrf_token(page),
        "people": "normal",
        "popular": "less",
        "newest": "more",
        "hide_replies": "on",
        "home_tab": "top",
    }
    response = as_bob.post("/settings/top/", form)
    assert response.status_code == 302 and response.url == "/settings/top/"
    assert r.hget(keys.user(bob["id"]), "top_weights") == "1,0.5,2,0,1"
    assert r.hget(keys.user(bob["id"]), "home_tab") == "top"
    # / opens with Top now; Latest is at /latest/.
    home_page = as_bob.get("/")
    assert '<a href="/top/" aria-current="page">Top</a>' in html(home_page)
    assert '<a href="/latest/">Latest</a>' in html(home_page)
    assert "top-why" in html(home_page)
    latest = as_bob.get("/latest/")
    assert ids_on(latest) == [newer, liked]
    assert '<a href="/latest/" aria-current="page">Latest</a>' in html(latest)
    # And back.
    as_bob.post("/settings/top/", {**form, "home_tab": "latest"})
    assert r.hget(keys.user(bob["id"]), "home_tab") is None
    assert "top-why" not in html(as_bob.get("/"))


def test_settings_refuse_a_level_not_offered(as_bob):
    page = as_bob.get("/settings/top/")
    form = {"csrfmiddlewaretoken": csrf_token(page), "people": "lots", "popular": "normal",
            "newest": "normal", "home_tab": "latest"}  # fmt: skip
    response = as_bob.post("/settings/top/", form)
    assert response.status_code == 400
    assert "Select a valid choice" in html(response)


def test_the_preview_ranks_with_the_choices_unsaved(r, as_bob, bob, home):
    liked, newer = home
    preview = as_bob.get(
        "/settings/top/?people=normal&popular=less&newest=more&home_tab=latest&preview=1"
    )
    assert preview.status_code == 200
    assert "Preview: the first 2 on Top" in html(preview)
    assert ids_on(preview) == [liked, newer]
    assert r.hget(keys.user(bob["id"]), "top_weights") is None


def test_the_settings_page_links_to_top(as_bob):
    assert 'href="/settings/top/"' in html(as_bob.get("/settings/"))

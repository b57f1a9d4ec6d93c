"""The frame of every page (templates/_site_header.html): drawn from what it shows and
remembered by the process (timeline/jinja_helpers.site_header_markup), so each test
asks for the same frame twice or more and checks what the second drawing gives.

Every test runs the real views against real Redis (see conftest.py).
"""

import re

from django.test import Client

from tests.support.helpers import log_in, post

CSRF_INPUT = re.compile(r'name="csrfmiddlewaretoken" value="([^"]+)"')


def header(response):
    page = response.content.decode()
    return page[page.index('<header class="site-header">') : page.index("</header>")]


def current_tabs(response):
    return re.findall(r'href="([^"]+)" aria-current="page"', header(response))


UNREAD_BADGE = re.compile(r'class="unread-count" data-version="(\d+)"( hidden)?>([^<]*)<')


def unread_badge(response):
    return UNREAD_BADGE.search(header(response))


def test_each_reader_gets_their_own_frame(as_alice, as_bob):
    for _ in range(2):
        alice_frame, bob_frame = header(as_alice.get("/")), header(as_bob.get("/"))
        assert "Account menu of @alice" in alice_frame and "@bob" not in alice_frame
        assert "Account menu of @bob" in bob_frame and "@alice" not in bob_frame
        assert 'href="/@alice/"' in alice_frame and 'href="/@bob/"' in bob_frame


def test_a_visitor_gets_the_logged_out_frame(as_alice):
    as_alice.get("/")
    for _ in range(2):
        frame = header(Client().get("/explore/"))
        assert "Log in" in frame and "Sign up" in frame
        assert "Account menu" not in frame and "csrfmiddlewaretoken" not in frame


def test_the_current_tab_follows_the_page(as_alice):
    for _ in range(2):
        assert current_tabs(as_alice.get("/")) == ["/"]
        assert current_tabs(as_alice.get("/explore/")) == ["/explore/"]
        assert current_tabs(as_alice.get("/@alice/")) == ["/@alice/"]
        # A page that is no tab marks none.
        assert current_tabs(as_alice.get("/settings/")) == []


def test_the_unread_badge_is_current_on_the_next_page(r, alice, bob, as_alice, as_bob):
    as_alice.get("/")  # the frame without news, remembered
    version, hidden, _ = unread_badge(as_alice.get("/")).groups()
    assert hidden
    sid = post(r, alice, "like this")
    as_bob.post(f"/statuses/{sid}/like/")
    version_after, hidden, count = unread_badge(as_alice.get("/")).groups()
    assert not hidden and count == "1" and int(version_after) > int(version)
    as_alice.get("/notifications/")  # reading them clears the badge
    assert unread_badge(as_alice.get("/")).group(2)


def test_the_log_out_form_carries_the_pages_token(alice):
    browser = log_in(Client(enforce_csrf_checks=True), "alice")
    maskings = set()
    for _ in range(3):
        response = browser.get("/")
        tokens = CSRF_INPUT.findall(response.content.decode())
        in_frame = CSRF_INPUT.findall(header(response))
        # One masking per page: the frame's form and the page's others share it...
        assert len(in_frame) == 1 and set(tokens) == set(in_frame)
        maskings.add(in_frame[0])
    # ...and each page has its own (BREACH): no token is remembered with the frame.
    assert len(maskings) == 3
    response = browser.post("/accounts/logout/", {"csrfmiddlewaretoken": in_frame[0]})
    assert response.status_code == 302
    assert "Log in" in header(browser.get("/explore/"))

"""Views of blocks, mutes and private accounts: the profile's buttons, /settings/ and its
lists, and what a blocked viewer or a stranger to a private account sees.

Every test runs the real views against real Redis (see conftest.py).
"""

import re

import pytest
from django.test import Client

from socialsite.repository import blocks, graph, privacy, timelines, users
from tests.support.helpers import answer_of, csrf_token, log_in, make_user, post

FORM_EXPIRED = "That form has expired"

# (path, who the path names): every POST of this page and the settings pages.
ACTIONS = [
    "/@bob/block/",
    "/@bob/unblock/",
    "/@bob/mute/",
    "/@bob/unmute/",
    "/settings/",
    "/settings/requests/bob/approve/",
    "/settings/requests/bob/reject/",
]
PAGES = ["/settings/", "/settings/blocks/", "/settings/mutes/", "/settings/requests/"]


def html(response):
    return response.content.decode()


def status_ids(response):
    return [int(sid) for sid in re.findall(r'data-status-id="(\d+)"', html(response))]


def flash(response):
    """The flash messages a redirect's next page shows."""
    return re.findall(r'<li class="message[^"]*">([^<]*)</li>', html(response))


def logged_in(login):
    """A browser logged in as ``login``, its "Welcome back" message read."""
    browser = log_in(Client(), login)
    browser.get("/settings/")
    return browser


@pytest.fixture
def as_alice(alice):
    return logged_in("alice")


@pytest.fixture
def as_bob(bob):
    return logged_in("bob")


# --- what every URL asks ------------------------------------------------------------------


@pytest.mark.parametrize("path", ACTIONS + PAGES)
def test_a_visitor_is_sent_to_log_in(client, alice, bob, path):
    response = client.post(path) if path in ACTIONS else client.get(path)
    assert response.status_code == 302
    assert response["Location"].startswith("/accounts/login/?next=")


@pytest.mark.parametrize("path", ACTIONS)
def test_every_action_needs_a_csrf_token(r, alice, bob, path):
    browser = log_in(Client(enforce_csrf_checks=True), "alice")
    response = browser.post(path, {"duration": "1h", "private": "on"})
    assert response.status_code == 403 and FORM_EXPIRED in html(response)
    assert blocks.hidden_authors(r, alice["id"]) == set()
    assert not privacy.is_private(r, alice["id"])


def test_actions_work_with_the_token_from_the_profile_page(r, alice, bob):
    browser = log_in(Client(enforce_csrf_checks=True), "alice")
    token = csrf_token(browser.get("/@bob/"))
    response = browser.post("/@bob/block/", {"csrfmiddlewaretoken": token})
    assert response.status_code == 302
    assert blocks.is_blocking(r, alice["id"], bob["id"])


@pytest.mark.parametrize("path", ["/@nobody/block/", "/@nobody/unblock/", "/@nobody/mute/",
                                  "/@nobody/unmute/", "/settings/requests/nobody/approve/",
                                  "/settings/requests/nobody/reject/"])  # fmt: skip
def test_an_unknown_login_is_404(as_alice, path):
    assert as_alice.post(path).status_code == 404


@pytest.mark.parametrize("path", PAGES)
def test_settings_pages_only_answer_get_and_post_where_meant(as_alice, path):
    assert as_alice.get(path).status_code == 200
    assert as_alice.put(path).status_code == 405


def test_blocking_or_muting_oneself_is_refused(r, as_alice, alice):
    for action, text in [("block", "block or unblock"), ("mute", "mute or unmute")]:
        response = as_alice.post(f"/@alice/{action}/", follow=True)
        assert f"You cannot {text} yourself." in flash(response)
    assert blocks.hidden_authors(r, alice["id"]) == set()
    assert blocks.blocks_page(r, alice["id"]).items == []


def test_a_mute_for_an_unknown_duration_is_a_readable_400(r, as_alice, alice, bob):
    response = as_alice.post("/@bob/mute/", {"duration": "a fortnight"})
    assert response.status_code == 400
    assert "Choose how long to mute" in html(response)
    assert blocks.hidden_authors(r, alice["id"]) == set()


# --- block --------------------------------------------------------------------------------


def test_block_from_the_profile_and_unblock_from_the_list(r, as_alice, alice, bob):
    graph.follow(r, alice["id"], bob["id"])
    page = html(as_alice.get("/@bob/"))
    assert 'action="/@bob/block/"' in page and "Unfollow" in page
    response = as_alice.post("/@bob/block/", follow=True)
    assert response.redirect_chain[-1][0] == "/@bob/"
    assert flash(response)[0].startswith("You blocked @bob.")
    page = html(response)
    assert 'action="/@bob/unblock/"' in page and "You block @bob" in page
    assert 'action="/@bob/follow/"' not in page and 'action="/@bob/unfollow/"' not in page
    listed = as_alice.get("/settings/blocks/")
    assert "@bob" in html(listed) and 'action="/@bob/unblock/"' in html(listed)
    response = as_alice.post("/@bob/unblock/", {"next": "/settings/blocks/"}, follow=True)
    assert response.redirect_chain[-1][0] == "/settings/blocks/"
    assert flash(response) == ["You no longer block @bob."]
    assert "You block nobody." in html(response)


def test_the_blocked_user_sees_you_are_blocked_and_cannot_follow(r, alice, bob, as_bob):
    sid = post(r, alice, "not for bob")
    blocks.block(r, alice["id"], bob["id"])
    profile = as_bob.get("/@alice/")
    assert profile.status_code == 403
    assert "You are blocked" in html(profile) and status_ids(profile) == []
    assert "not for bob" not in html(profile)
    assert 'action="/@alice/follow/"' not in html(profile)
    status = as_bob.get(f"/@alice/{sid}/")
    assert answer_of(status) == answer_of(as_bob.get("/@alice/999999/"))
    response = as_bob.post("/@alice/follow/", follow=True)
    assert flash(response) == ["@alice has blocked you: you cannot follow them."]
    assert not graph.is_following(r, bob["id"], alice["id"])
    # A visitor still sees alice's public profile.
    assert status_ids(Client().get("/@alice/")) == [sid]


def test_the_blocker_may_still_look_but_not_follow(r, alice, bob, as_alice):
    sid = post(r, bob, "bob's")
    blocks.block(r, alice["id"], bob["id"])
    assert status_ids(as_alice.get("/@bob/")) == [sid]
    assert as_alice.get(f"/@bob/{sid}/").status_code == 200
    response = as_alice.post("/@bob/follow/", follow=True)
    assert flash(response) == ["You block @bob: unblock them before following them."]


def test_a_blocked_authors_statuses_leave_the_home_page(r, alice, bob, carol, as_alice):
    graph.follow(r, alice["id"], bob["id"])
    graph.follow(r, alice["id"], carol["id"])
    post(r, bob, "bob's")
    by_carol = post(r, carol, "carol's")
    as_alice.post("/@bob/block/")
    post(r, bob, "bob's after")
    assert status_ids(as_alice.get("/")) == [by_carol]


# --- mute ---------------------------------------------------------------------------------


def test_mute_for_a_day_then_unmute(r, alice, bob, as_alice):
    graph.follow(r, alice["id"], bob["id"])
    sid = post(r, bob, "muted soon")
    response = as_alice.post("/@bob/mute/", {"duration": "1d"}, follow=True)
    assert flash(response) == ["You muted @bob for 1 day."]
    assert "You mute @bob until" in html(response) and 'action="/@bob/unmute/"' in html(response)
    assert status_ids(as_alice.get("/")) == []
    assert graph.is_following(r, alice["id"], bob["id"])
    mutes = html(as_alice.get("/settings/mutes/"))
    assert "@bob" in mutes
    assert re.search(r'<span class="person-note until">until \d+ \w+ \d{4}, \d\d:\d\d UTC', mutes)
    response = as_alice.post("/@bob/unmute/", {"next": "/settings/mutes/"}, follow=True)
    assert flash(response) == ["You no longer mute @bob."]
    assert status_ids(as_alice.get("/")) == [sid]


def test_a_status_menu_leads_to_the_choice_of_how_long_to_mute(r, alice, bob, as_alice):
    graph.follow(r, alice["id"], bob["id"])
    post(r, bob, "hello")
    assert 'href="/@bob/mute/">' in html(as_alice.get("/"))  # the status's more menu
    page = as_alice.get("/@bob/mute/", HTTP_REFERER="http://testserver/?before=7")
    assert page.status_code == 200
    text = html(page)
    assert "<h1>Mute @bob</h1>" in text and 'name="csrfmiddlewaretoken"' in text
    for value in ("1h", "1d", "7d", "forever"):
        assert f'<option value="{value}"' in text
    # The form goes back where the reader came from, never to another site.
    assert 'name="next" value="/?before=7"' in text
    elsewhere = html(as_alice.get("/@bob/mute/", HTTP_REFERER="http://evil.example/x"))
    assert 'name="next"' not in elsewhere and 'href="/@bob/">Cancel' in elsewhere
    response = as_alice.post("/@bob/mute/", {"duration": "7d", "next": "/?before=7"})
    assert response.status_code == 302 and response["Location"] == "/?before=7"
    assert blocks.mute_ends_at(r, alice["id"], bob["id"]) is not None
    assert as_alice.get("/@nobody/mute/").status_code == 404
    assert Client().get("/@bob/mute/").status_code == 302  # to the log-in page


def test_a_mute_ends_in_the_readers_time_zone(r, alice, bob, as_alice):
    as_alice.post("/settings/", {"time_zone_form": "1", "time_zone": "Europe/Paris"})
    as_alice.post("/@bob/mute/", {"duration": "1d"})
    profile = html(as_alice.get("/@bob/"))
    assert re.search(r"You mute @bob until \d+ \w+ \d{4}, \d\d:\d\d CE", profile)


def test_a_mute_without_duration_lasts_until_unmuted(r, alice, bob, as_alice):
    response = as_alice.post("/@bob/mute/", follow=True)
    assert flash(response) == ["You muted @bob until you unmute them."]
    assert blocks.mute_ends_at(r, alice["id"], bob["id"]) == 0


def test_the_muted_user_notices_nothing(r, alice, bob, as_bob):
    graph.follow(r, alice["id"], bob["id"])
    graph.follow(r, bob["id"], alice["id"])
    sid = post(r, alice, "alice's")

    def bobs_view():
        pages = [as_bob.get(path) for path in ("/@alice/", "/", f"/@alice/{sid}/")]
        # The same but for the per-showing values: CSRF token and posting key.
        return [(p.status_code, re.sub(r'value="[\w-]{22,64}"', "", html(p))) for p in pages]

    before = bobs_view()
    blocks.mute(r, alice["id"], bob["id"])
    assert bobs_view() == before


# --- private accounts -----------------------------------------------------------------------


def test_settings_make_an_account_private_and_public(r, alice, as_alice):
    page = html(as_alice.get("/settings/"))
    assert 'name="private"' in page and "checked" not in page
    response = as_alice.post("/settings/", {"privacy_form": "1", "private": "on"}, follow=True)
    assert flash(response)[0].startswith("Your account is private")
    assert privacy.is_private(r, alice["id"])
    assert re.search(r'<input type="checkbox" name="private"[^>]* checked', html(response))
    response = as_alice.post("/settings/", {"privacy_form": "1"}, follow=True)
    assert flash(response)[0].startswith("Your account is public")
    assert not privacy.is_private(r, alice["id"])


def test_the_display_name_is_changed_in_the_profile_editor_everywhere_at_once(r, alice, as_alice):
    """One place edits the display name: the profile editor (timeline/profile_settings.py);
    the settings page links to it and has no name form of its own."""
    page = html(as_alice.get("/settings/"))
    assert 'href="/settings/profile/"' in page and 'name="name"' not in page
    assert 'value="Alice' in html(as_alice.get("/settings/profile/"))
    response = as_alice.post(
        "/settings/profile/", {"name": "Wonder <b>Land</b>", "bio": "", "website": ""},
        follow=True,
    )  # fmt: skip
    assert flash(response) == ["Your profile is saved."]
    assert users.get_user(r, alice["id"])["name"] == "Wonder <b>Land</b>"
    assert "<bdi>Wonder &lt;b&gt;Land&lt;/b&gt;</bdi>" in html(as_alice.get("/@alice/"))
    assert "@alice" in html(as_alice.get("/search/?q=wonder"))


@pytest.mark.parametrize(
    "name, problem",
    [("", "This field is required."), ("x" * 51, "at most 50 characters"),
     ("\u202eevil", "direction")],
)  # fmt: skip
def test_a_display_name_refused_says_why_and_changes_nothing(r, alice, as_alice, name, problem):
    response = as_alice.post("/settings/profile/", {"name": name, "bio": "", "website": ""})
    assert response.status_code == 400
    assert problem in html(response)
    assert users.get_user(r, alice["id"])["name"] == alice["name"]


def test_the_settings_page_has_no_name_form_any_more(as_alice):
    assert as_alice.post("/settings/name/", {"name": "x"}).status_code == 404


# --- the theme ----------------------------------------------------------------------------


def test_the_theme_is_chosen_on_the_settings_page_and_set_on_every_page(r, alice, as_alice):
    page = html(as_alice.get("/settings/"))
    assert re.search(r'<select name="theme"', page) and "data-theme" not in page
    response = as_alice.post("/settings/", {"privacy_form": "1", "theme": "dark"}, follow=True)
    assert flash(response) == ["Theme: Dark."]  # the privacy, unchanged, says nothing
    assert users.get_user(r, alice["id"])["theme"] == "dark"
    assert '<html lang="en" data-theme="dark">' in html(as_alice.get("/@bob/"))
    assert re.search(r'<option value="dark" selected>', html(as_alice.get("/settings/")))
    response = as_alice.post("/settings/", {"privacy_form": "1", "theme": ""}, follow=True)
    assert flash(response) == ["Theme: System."]
    assert "theme" not in users.get_user(r, alice["id"])
    assert "data-theme" not in html(as_alice.get("/"))
    assert not privacy.is_private(r, alice["id"])


def test_a_theme_there_is_not_is_refused(r, alice, as_alice):
    response = as_alice.post("/settings/", {"privacy_form": "1", "theme": "neon"})
    assert response.status_code == 400
    assert "theme" not in users.get_user(r, alice["id"])


def test_a_stranger_sees_a_private_profile_without_its_statuses(r, alice, bob, as_bob):
    sid = post(r, alice, "for followers only")
    privacy.set_private(r, alice["id"], True)
    for browser in (as_bob, Client()):
        profile = browser.get("/@alice/")
        assert profile.status_code == 200
        assert "These statuses are protected" in html(profile)
        assert status_ids(profile) == [] and "for followers only" not in html(profile)
        status = browser.get(f"/@alice/{sid}/")
        assert status.status_code == 404 and "for followers only" not in html(status)
        assert answer_of(status) == answer_of(browser.get("/@alice/999999/"))


def test_request_then_withdraw_then_request_and_get_approved(r, alice, bob, as_alice, as_bob):
    sid = post(r, alice, "for followers only")
    as_alice.post("/settings/", {"privacy_form": "1", "private": "on"})
    response = as_bob.post("/@alice/follow/", follow=True)
    assert flash(response)[0].startswith("@alice&#39;s account is private: you asked to")
    assert ">Requested</button>" in html(response)
    assert "You asked to follow them" in html(response)
    response = as_bob.post("/@alice/unfollow/", follow=True)  # "Requested" withdraws
    assert flash(response) == ["You withdrew your request to follow @alice."]
    assert privacy.requests_page(r, alice["id"]).items == []
    as_bob.post("/@alice/follow/")
    requests = html(as_alice.get("/settings/requests/"))
    assert "@bob" in requests and 'action="/settings/requests/bob/approve/"' in requests
    assert "(1 waiting)" in html(as_alice.get("/settings/"))
    response = as_alice.post("/settings/requests/bob/approve/", follow=True)
    assert response.redirect_chain[-1][0] == "/settings/requests/"
    assert flash(response) == ["@bob now follows you."]
    assert status_ids(as_bob.get("/@alice/")) == [sid]
    assert as_bob.get(f"/@alice/{sid}/").status_code == 200
    assert status_ids(as_bob.get("/")) == [sid]
    assert "Unfollow" in html(as_bob.get("/@alice/"))


def test_a_rejected_request_follows_nobody(r, alice, bob, as_alice, as_bob):
    privacy.set_private(r, alice["id"], True)
    as_bob.post("/@alice/follow/")
    response = as_alice.post("/settings/requests/bob/reject/", follow=True)
    assert flash(response) == ["You rejected the request of @bob."]
    response = as_alice.post("/settings/requests/bob/approve/", follow=True)
    assert flash(response) == ["@bob no longer asks to follow you."]
    assert not graph.is_following(r, bob["id"], alice["id"])
    assert "These statuses are protected" in html(as_bob.get("/@alice/"))


def test_going_public_approves_the_requests_from_the_settings_page(r, alice, as_alice):
    privacy.set_private(r, alice["id"], True)
    fans = [make_user(r, f"fan{n}") for n in range(3)]
    for fan in fans:
        graph.follow(r, fan["id"], alice["id"])
    response = as_alice.post("/settings/", {"privacy_form": "1"}, follow=True)
    assert flash(response) == [
        "Your account is public: everyone sees your statuses. 3 waiting request(s) approved."
    ]
    assert users.get_user(r, alice["id"])["followers"] == 3


def test_lists_are_paged(r, alice, as_alice, settings):
    others = [make_user(r, f"other{n}") for n in range(32)]
    for other in others:
        blocks.block(r, alice["id"], other["id"])
    first = html(as_alice.get("/settings/blocks/"))
    cursor = re.search(r'href="\?before=(\d+)">Older', first).group(1)
    rest = html(as_alice.get(f"/settings/blocks/?before={cursor}"))
    assert first.count('action="/@other') == 30 and rest.count('action="/@other') == 2
    assert as_alice.get("/settings/blocks/?before=x").status_code == 400


def test_home_page_shows_what_it_showed_before_for_everyone_else(r, alice, bob, as_alice):
    graph.follow(r, alice["id"], bob["id"])
    sid = post(r, bob, "bob's")
    assert status_ids(as_alice.get("/")) == [sid] == timelines.home_ids(r, alice["id"])[:1]


def test_a_post_to_settings_without_the_privacy_form_never_makes_an_account_public(
    r, alice, as_alice
):
    """A form that lacks ``private`` (the direct messages' setting sent to the wrong
    address, a hand-made POST) is no "make the account public": refused, nothing changed."""
    privacy.set_private(r, alice["id"], True)
    response = as_alice.post("/settings/", {"messages_from": "nobody"})
    assert response.status_code == 400
    assert "nothing changed" in html(response)
    assert privacy.is_private(r, alice["id"])

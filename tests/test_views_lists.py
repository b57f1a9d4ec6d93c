"""Views of named lists: /lists/, a list's page and members, and every refusal.

Every test runs the real views against real Redis (see conftest.py).
"""

import re

import pytest
from django.test import Client

from socialsite.repository import graph, limits, lists
from tests.support.helpers import csrf_token, log_in, post

PAGES = ["/lists/", "/lists/1/", "/lists/1/members/"]
ACTIONS = ["/lists/", "/lists/1/rename/", "/lists/1/delete/", "/lists/1/add/", "/lists/1/remove/"]


def html(response):
    return response.content.decode()


def flash(response):
    return re.findall(r'<li class="message[^"]*">([^<]*)</li>', html(response))


def field_errors(response):
    return re.findall(r'<span class="field-error" role="alert">([^<]*)</span>', html(response))


@pytest.fixture
def as_bob(bob):
    browser = log_in(Client(), "bob")
    browser.get("/lists/")  # shows (and so ends) the welcome message
    return browser


@pytest.fixture
def friends(r, alice, bob):
    """bob follows alice, and has a list "Friends" (id 1) with her on it."""
    graph.follow(r, bob["id"], alice["id"])
    _, lid = lists.create_list(r, bob["id"], "Friends")
    lists.add_member(r, bob["id"], lid, alice["id"])
    return lid


def test_the_navigation_links_to_lists(as_bob):
    assert 'class="menu-item" href="/lists/">' in html(as_bob.get("/"))  # the account menu


def test_a_list_is_made_from_the_lists_page_and_shows_its_members_statuses(r, as_bob, alice, bob):
    assert "You have no lists yet." in html(as_bob.get("/lists/"))
    response = as_bob.post("/lists/", {"name": "  Friends "})
    assert response.status_code == 302 and response.url == "/lists/1/"
    page = as_bob.get("/lists/1/")
    assert "Your list \u201cFriends\u201d is made" in html(page)
    assert "Nobody yet: add people you follow." in html(page)
    graph.follow(r, bob["id"], alice["id"])
    response = as_bob.post("/lists/1/add/", {"login": "@alice"}, follow=True)
    assert flash(response) == ["@alice is on \u201cFriends\u201d now."]
    post(r, alice, "for the list")
    page = html(as_bob.get("/lists/1/"))
    assert "for the list" in page and "@alice" in page and "On this list (1)" in page
    again = as_bob.post("/lists/", {"name": "Friends"}, follow=True)  # sent twice: one list
    assert flash(again) == ["You already have a list named \u201cFriends\u201d."]
    listed = html(as_bob.get("/lists/"))
    assert '<a href="/lists/1/"><strong><bdi>Friends</bdi></strong></a>' in listed


def test_a_list_pages_like_home(r, as_bob, alice, friends, settings):
    settings.TIMELINE_PAGE_SIZE = 2
    sids = [post(r, alice, f"status {i}") for i in range(3)]
    first = html(as_bob.get("/lists/1/"))
    assert "status 2" in first and "status 1" in first and "status 0" not in first
    assert f'href="?before={sids[1]}"' in first
    older = html(as_bob.get(f"/lists/1/?before={sids[1]}"))
    assert "status 0" in older and "status 1" not in older
    assert as_bob.get("/lists/1/?before=x").status_code == 400


def test_refusals_keep_what_was_typed_and_say_why(r, as_bob, alice, bob, carol, friends):
    response = as_bob.post("/lists/", {"name": "bad\u202ename"})
    assert response.status_code == 400
    assert "direction controls" in field_errors(response)[0]
    assert 'value="bad\u202ename"' in html(response)
    response = as_bob.post("/lists/", {"name": "x" * 51})
    assert response.status_code == 400 and field_errors(response)
    response = as_bob.post("/lists/", {"name": "   "})
    assert field_errors(response) == ["Give the list a name."]
    # Adding someone not followed, or nobody.
    response = as_bob.post("/lists/1/add/", {"login": "carol"})
    assert response.status_code == 400
    assert field_errors(response) == ["You can only add people you follow: follow @carol first."]
    assert 'value="carol"' in html(response)
    response = as_bob.post("/lists/1/add/", {"login": "nobody"})
    assert field_errors(response) == ["There is no user @nobody."]
    response = as_bob.post("/lists/1/add/", {"login": "bob"})
    assert response.status_code == 400 and field_errors(response)
    # Renaming to the name of another of one's lists.
    lists.create_list(r, bob["id"], "Work")
    response = as_bob.post("/lists/1/rename/", {"name": "Work"})
    assert response.status_code == 400
    assert field_errors(response) == ["You already have a list named \u201cWork\u201d."]
    assert 'value="Work"' in html(response)
    # Making one list too many.
    for index in range(limits.LISTS_PER_USER - 2):
        lists.create_list(r, bob["id"], f"list {index}")
    response = as_bob.post("/lists/", {"name": "one more"})
    assert response.status_code == 400 and "delete one before" in field_errors(response)[0]
    assert 'value="one more"' in html(response)


def test_rename_remove_and_delete(r, as_bob, alice, bob, friends):
    response = as_bob.post("/lists/1/rename/", {"name": "Close friends"}, follow=True)
    assert flash(response) == ["The list is named \u201cClose friends\u201d now."]
    assert lists.get_list(r, bob["id"], 1)["name"] == "Close friends"
    members = html(as_bob.get("/lists/1/members/"))
    assert "@alice" in members and "Take off the list" in members
    response = as_bob.post("/lists/1/remove/", {"login": "alice", "back": "members"})
    assert response.url == "/lists/1/members/"
    assert flash(as_bob.get(response.url)) == ["@alice is off \u201cClose friends\u201d now."]
    assert lists.member_ids(r, bob["id"], 1) == set()
    response = as_bob.post("/lists/1/delete/", follow=True)
    assert flash(response) == ["Your list \u201cClose friends\u201d is deleted."]
    assert lists.get_lists(r, bob["id"]) == []
    assert as_bob.get("/lists/1/").status_code == 404


def test_another_users_list_is_not_found(r, alice, bob, carol, friends):
    as_carol = log_in(Client(), "carol")
    graph.follow(r, carol["id"], alice["id"])
    for path in PAGES[1:]:
        assert as_carol.get(path).status_code == 404
    for path in ACTIONS[1:]:
        response = as_carol.post(path, {"name": "Mine now", "login": "alice"})
        assert response.status_code == 404, path
    assert lists.get_list(r, bob["id"], 1) == {"id": 1, "name": "Friends"}
    assert lists.member_ids(r, bob["id"], 1) == {alice["id"]}


def test_pages_and_actions_need_a_login(friends):
    anonymous = Client()
    for path in PAGES:
        response = anonymous.get(path)
        assert response.status_code == 302 and response.url.startswith("/accounts/login/")
    for path in ACTIONS:
        assert anonymous.post(path, {"name": "x", "login": "alice"}).status_code == 302


def test_every_action_needs_the_csrf_token(r, bob, friends):
    browser = log_in(Client(enforce_csrf_checks=True), "bob")
    for path in ACTIONS:
        response = browser.post(path, {"name": "Stolen", "login": "alice"})
        assert response.status_code == 403, path
    assert lists.get_lists(r, bob["id"]) == [{"id": 1, "name": "Friends"}]
    token = csrf_token(browser.get("/lists/1/"))
    response = browser.post("/lists/1/rename/", {"name": "Kept", "csrfmiddlewaretoken": token})
    assert response.status_code == 302


def test_names_are_escaped(r, as_bob, bob):
    lists.create_list(r, bob["id"], "<script>x</script>")
    page = html(as_bob.get("/lists/"))
    assert "<script>x</script>" not in page and "&lt;script&gt;x&lt;/script&gt;" in page


def test_a_list_holds_its_members_statuses_never_a_blank_row_for_a_repost(
    r, as_bob, alice, bob, carol, friends
):
    """A list holds its members' own statuses, not their reposts (the fan-out delivers
    none to lists): adding a member who reposted copies no repost in, and a repost that
    an older fill copied in is not shown as a row without text."""
    from socialsite.repository import keys, reposts

    original = post(r, carol, "words of carol")
    own = post(r, alice, "words of alice")
    reposts.repost(r, alice["id"], original)
    rid = reposts.repost_id(r, alice["id"], original)
    lists.remove_member(r, bob["id"], friends, alice["id"])
    lists.add_member(r, bob["id"], friends, alice["id"])
    assert lists.list_ids_of(r, bob["id"], friends) == [own]
    r.sadd(keys.list_timeline(bob["id"], friends), rid)  # as an older fill copied it
    page = html(as_bob.get(f"/lists/{friends}/"))
    assert re.findall(r'data-status-id="(\d+)"', page) == [str(own)]
    assert "words of carol" not in page and "reposted" not in page

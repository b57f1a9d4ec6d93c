"""The lists actions (socialsite/actions/lists.py) called directly, and their two doors,
the lists pages (timeline/lists.py) and the client API (api/lists.py), refusing the
same names and members in the same words."""

import html as html_module
import re

import pytest
from django.test import Client

from socialsite.actions import Actor, Invalid, NotFound, rules
from socialsite.actions import lists as list_actions
from socialsite.repository import graph, limits, lists, moderation
from tests.support.helpers import bearer, log_in

MemberResult = lists.MemberResult
API = "/api/v1/lists"


def actor(user):
    return Actor(uid=user["id"], login=user["login"])


# --- the actions ------------------------------------------------------------------------


def test_a_list_is_made_once_renamed_and_deleted(r, alice):
    made = list_actions.create_list(actor(alice), "  Friends ")
    assert made == list_actions.ListMade(made.list_id, "Friends", created=True)
    again = list_actions.create_list(actor(alice), "Friends")
    assert again == list_actions.ListMade(made.list_id, "Friends", created=False)
    assert list_actions.rename_list(actor(alice), made.list_id, "Pals") == "Pals"
    assert lists.get_list(r, alice["id"], made.list_id)["name"] == "Pals"
    assert list_actions.delete_list(actor(alice), made.list_id) == "Pals"
    assert lists.get_list(r, alice["id"], made.list_id) is None
    with pytest.raises(NotFound):
        list_actions.delete_list(actor(alice), made.list_id)  # a retry


@pytest.mark.parametrize(
    ("name", "words"),
    [
        ("", rules.LIST_NAME_REQUIRED),
        ("   ", rules.LIST_NAME_REQUIRED),
        ("x" * 51, "A list name has at most 50 characters (this one has 51 once normalized)."),
        ("a\u202eb", "A list name cannot contain direction controls"),
        ("a\x00b", "A list name cannot contain control or formatting characters"),
    ],
)
def test_a_name_out_of_the_rules_is_invalid(r, alice, name, words):
    with pytest.raises(Invalid) as refused:
        list_actions.create_list(actor(alice), name)
    assert refused.value.field == "name" and refused.value.message.startswith(words)
    assert lists.get_lists(r, alice["id"]) == []


def test_the_name_is_counted_once_normalized(r, alice):
    # 26 letters with a combining accent: 52 characters as typed, 26 once composed.
    made = list_actions.create_list(actor(alice), "e\u0301" * 26)
    assert made.name == "\u00e9" * 26


def test_a_name_in_use_is_refused_by_a_rename(r, alice):
    list_actions.create_list(actor(alice), "One")
    two = list_actions.create_list(actor(alice), "Two")
    with pytest.raises(Invalid) as refused:
        list_actions.rename_list(actor(alice), two.list_id, "One")
    assert refused.value.message == "You already have a list named \u201cOne\u201d."


def test_the_lists_limit_is_invalid(r, alice, monkeypatch):
    monkeypatch.setattr(lists.create_list, "__defaults__", (1,))  # LISTS_PER_USER: 1
    list_actions.create_list(actor(alice), "One")
    with pytest.raises(Invalid) as refused:
        list_actions.create_list(actor(alice), "Two")
    assert refused.value.message == rules.LISTS_FULL


def test_another_persons_list_is_not_found(r, alice, bob):
    theirs = list_actions.create_list(actor(bob), "Bob's")
    graph.follow(r, alice["id"], bob["id"])
    for act in (
        lambda: list_actions.rename_list(actor(alice), theirs.list_id, "Mine"),
        lambda: list_actions.delete_list(actor(alice), theirs.list_id),
        lambda: list_actions.add_member(actor(alice), theirs.list_id, bob["id"]),
        lambda: list_actions.remove_member(actor(alice), theirs.list_id, bob["id"]),
    ):
        with pytest.raises(NotFound):
            act()
    assert lists.get_list(r, bob["id"], theirs.list_id)["name"] == "Bob's"


def test_members_are_added_and_taken_off(r, alice, bob, carol):
    graph.follow(r, alice["id"], bob["id"])
    lid = list_actions.create_list(actor(alice), "Friends").list_id
    done = list_actions.add_member(actor(alice), lid, bob["id"])
    assert done == list_actions.MemberChange(MemberResult.ADDED, "bob", "Friends")
    assert list_actions.add_member(actor(alice), lid, bob["id"]).result is MemberResult.ALREADY
    assert list_actions.remove_member(actor(alice), lid, bob["id"]).result is MemberResult.REMOVED
    assert list_actions.remove_member(actor(alice), lid, bob["id"]).result is MemberResult.ABSENT
    with pytest.raises(Invalid) as refused:
        list_actions.add_member(actor(alice), lid, carol["id"])
    assert refused.value.field == "login"
    assert refused.value.message == "You can only add people you follow: follow @carol first."
    with pytest.raises(Invalid) as refused:
        list_actions.add_member(actor(alice), lid, alice["id"])
    assert refused.value.message == rules.LIST_SELF
    moderation.suspend(r, bob["id"])
    with pytest.raises(NotFound):
        list_actions.add_member(actor(alice), lid, bob["id"])
    with pytest.raises(NotFound):
        list_actions.add_member(actor(alice), lid, 999_999)


def test_the_refusals_words_hold_the_limits():
    assert str(limits.LISTS_PER_USER) in rules.LISTS_FULL
    assert str(limits.LIST_MEMBERS) in rules.LIST_FULL


# --- the doors --------------------------------------------------------------------------


def page_refusals(response):
    text = response.content.decode()
    found = re.findall(r'<span class="field-error" role="alert">([^<]*)</span>', text)
    return [html_module.unescape(one) for one in found]


def api_refusal(response):
    assert response.status_code == 422, response.content
    return response.json()["error"].removeprefix("Validation failed: ")


@pytest.fixture
def doors(r, alice, token):
    """alice's two doors: the lists pages (a logged-in test client) and the API."""
    page = log_in(Client(), "alice")
    page.get("/lists/")  # shows (and so ends) the welcome message
    return page, Client(), bearer(token(alice))


NAMES_REFUSED = ["", "   ", "x" * 51, "a\u202eb", "a\u200bb", "\ue000"]


@pytest.mark.parametrize("name", NAMES_REFUSED)
def test_a_new_lists_name_is_refused_alike(r, alice, doors, name):
    page, api, token = doors
    response = page.post("/lists/", {"name": name})
    assert response.status_code == 400
    (said,) = page_refusals(response)
    assert api_refusal(api.post(API, {"title": name}, **token)) == said
    assert lists.get_lists(r, alice["id"]) == []


@pytest.mark.parametrize("name", [*NAMES_REFUSED, "Other"])
def test_a_new_name_is_refused_alike(r, alice, doors, name):
    page, api, token = doors
    lid = list_actions.create_list(actor(alice), "Mine").list_id
    list_actions.create_list(actor(alice), "Other")
    response = page.post(f"/lists/{lid}/rename/", {"name": name})
    assert response.status_code == 400
    (said,) = page_refusals(response)
    answer = api.put(f"{API}/{lid}", {"title": name}, content_type="application/json", **token)
    assert api_refusal(answer) == said
    assert lists.get_list(r, alice["id"], lid)["name"] == "Mine"


def test_a_name_normalized_within_the_bound_is_taken_by_both(r, alice, doors):
    """Both doors counted a name's characters as typed (the form's max_length) before
    the rule counted them once normalized: now only the rule, the action's, counts."""
    page, api, token = doors
    typed = "e\u0301" * 26  # 52 as typed, 26 once composed
    assert page.post("/lists/", {"name": typed}).status_code == 302
    assert api.post(API, {"title": typed + "!"}, **token).status_code == 200
    names = sorted(one["name"] for one in lists.get_lists(r, alice["id"]))
    assert names == ["\u00e9" * 26, "\u00e9" * 26 + "!"]


def test_the_lists_limit_is_said_alike(r, alice, doors, monkeypatch):
    page, api, token = doors
    monkeypatch.setattr(lists.create_list, "__defaults__", (1,))  # LISTS_PER_USER: 1
    list_actions.create_list(actor(alice), "One")
    response = page.post("/lists/", {"name": "Two"})
    assert page_refusals(response) == [rules.LISTS_FULL]
    assert api_refusal(api.post(API, {"title": "Two"}, **token)) == rules.LISTS_FULL


@pytest.mark.parametrize("who", ["carol", "alice"])  # not followed; oneself
def test_a_member_is_refused_alike(r, alice, carol, doors, who):
    page, api, token = doors
    lid = list_actions.create_list(actor(alice), "Mine").list_id
    other = {"carol": carol, "alice": alice}[who]
    response = page.post(f"/lists/{lid}/add/", {"login": who})
    assert response.status_code == 400
    (said,) = page_refusals(response)
    answer = api.post(f"{API}/{lid}/accounts", {"account_ids[]": [other["id"]]}, **token)
    assert api_refusal(answer) == said
    assert lists.member_ids(r, alice["id"], lid) == set()


def test_both_doors_add_and_take_off_alike(r, alice, bob, doors):
    page, api, token = doors
    graph.follow(r, alice["id"], bob["id"])
    lid = list_actions.create_list(actor(alice), "Mine").list_id
    assert page.post(f"/lists/{lid}/add/", {"login": "bob"}).status_code == 302
    assert lists.member_ids(r, alice["id"], lid) == {bob["id"]}
    url = f"{API}/{lid}/accounts?account_ids[]={bob['id']}"
    assert api.delete(url, **token).status_code == 200
    assert lists.member_ids(r, alice["id"], lid) == set()
    assert api.post(f"{API}/{lid}/accounts", {"account_ids[]": [bob["id"]]}, **token).json() == {}
    assert page.post(f"/lists/{lid}/remove/", {"login": "bob"}).status_code == 302
    assert lists.member_ids(r, alice["id"], lid) == set()

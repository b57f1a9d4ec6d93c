"""Views of direct messages: the inbox, a new conversation, a conversation's page and
every action, each refusal with its message, CSRF, members only, the setting, the
throttles, the header's badge, reports in the moderation queue, and the export."""

import json
import re

import pytest
from django.test import Client

from socialsite.repository import blocks, direct, graph, keys, moderation
from tests.support.helpers import csrf_token, exported, log_in, make_user

# The inbox row's marks (templates/timeline/messages.html): "1 unread" read aloud.
UNREAD_1 = '<strong class="unread-mark">1<span class="visually-hidden"> unread</span>'
MUTED = '<span class="visually-hidden">Muted</span>'


def html_of(response):
    return response.content.decode()


@pytest.fixture
def alice_client(alice):
    return log_in(Client(), "alice")


@pytest.fixture
def bob_client(bob):
    return log_in(Client(), "bob")


@pytest.fixture
def friends(r, alice, bob):
    graph.follow(r, bob["id"], alice["id"])  # bob takes messages from alice
    return alice, bob


def start(client, to, message="hello there"):
    return client.post("/messages/", {"to": to, "message": message})


def cid_of(response):
    match = re.fullmatch(r"/messages/(\d+)/#m(\d+)", response["Location"])
    assert match, response["Location"]
    return int(match.group(1))


def test_a_new_conversation_then_a_reply(r, friends, alice_client, bob_client):
    response = start(alice_client, "@bob", "hello bob, see #plans and @alice")
    assert response.status_code == 302
    cid = cid_of(response)
    page = html_of(bob_client.get(f"/messages/{cid}/"))
    assert "hello bob" in page and 'href="/tags/plans/"' in page
    assert '<a class="sender" href="/@alice/">Alice Liddell' in page
    response = bob_client.post(f"/messages/{cid}/", {"message": "hi alice"})
    assert response.status_code == 302 and response["Location"] == f"/messages/{cid}/#m2"
    inbox = html_of(alice_client.get("/messages/"))
    assert "hi alice" in inbox and UNREAD_1 in inbox
    # The same pair again: the same conversation.
    assert cid_of(start(alice_client, "bob", "again")) == cid


def test_the_header_badge_counts_unread_conversations(r, friends, alice_client, bob_client):
    cid = cid_of(start(alice_client, "bob"))
    badge = re.compile(r'class="direct-count" data-version="\d+">(\d+)<')
    assert badge.search(html_of(bob_client.get("/notifications/"))).group(1) == "1"
    bob_client.get(f"/messages/{cid}/")  # reading marks it read
    page = html_of(bob_client.get("/notifications/"))
    assert re.search(r'class="direct-count" data-version="\d+" hidden>0<', page)


def test_refusals_say_why_and_keep_the_text(r, alice, bob, alice_client):
    response = start(alice_client, "bob", "my long thoughts")
    assert response.status_code == 400
    page = html_of(response)
    assert "takes direct messages only from people they follow" in page
    assert "my long thoughts" in page
    response = start(alice_client, "nobody_here", "text kept")
    assert response.status_code == 400 and "There is no user @nobody_here" in html_of(response)
    assert "text kept" in html_of(response)
    assert start(alice_client, "", "x").status_code == 400
    assert start(alice_client, "bob", "   ").status_code == 400
    response = start(alice_client, "bob", "x" * (direct.MESSAGE_MAX_CHARACTERS + 1))
    assert response.status_code == 400 and "at most 10,000 characters" in html_of(response)
    many = " ".join(f"user{n}" for n in range(direct.MAX_OTHER_MEMBERS + 1))
    response = start(alice_client, many, "to a crowd")
    assert response.status_code == 400 and "at most 49 people" in html_of(response)
    assert start(alice_client, "alice", "me").status_code == 400
    assert r.get(keys.CONVERSATION_IDS) is None  # nothing stored


def test_a_block_refuses_both_ways(r, friends, alice_client, bob_client):
    alice, bob = friends
    cid = cid_of(start(alice_client, "bob"))
    blocks.block(r, bob["id"], alice["id"])
    response = alice_client.post(f"/messages/{cid}/", {"message": "are you there?"})
    assert response.status_code == 400 and "are you there?" in html_of(response)
    assert bob_client.post(f"/messages/{cid}/", {"message": "no"}).status_code == 400


def test_only_members_see_a_conversation_moderators_neither(r, friends, carol, alice_client):
    cid = cid_of(start(alice_client, "bob", "between us"))
    moderation.add_moderator(r, carol["id"])
    carol_client = log_in(Client(), "carol")
    for path in ("", "leave/", "mute/", "unmute/", "accept/", "delete/", "1/delete/", "1/report/"):
        method = carol_client.get if not path else carol_client.post
        response = method(f"/messages/{cid}/{path}", {"message": "x", "reason": "spam"})
        assert response.status_code == 404, path
        assert "between us" not in html_of(response)
    assert carol_client.get("/messages/999/").status_code == 404


def test_visitors_are_sent_to_log_in(client):
    for path in ("/messages/", "/messages/requests/", "/messages/1/", "/settings/messages/"):
        response = client.get(path)
        assert response.status_code == 302 and "/accounts/login/" in response["Location"]


def test_every_form_needs_its_csrf_token(r, friends, bob):
    strict = log_in(Client(enforce_csrf_checks=True), "alice")
    assert strict.post("/messages/", {"to": "bob", "message": "x"}).status_code == 403
    token = csrf_token(strict.get("/messages/"))
    response = strict.post(
        "/messages/", {"to": "bob", "message": "x", "csrfmiddlewaretoken": token}
    )
    cid = cid_of(response)
    for path in ("", "mute/", "unmute/", "accept/", "delete/", "leave/", "1/delete/", "1/report/"):
        assert strict.post(f"/messages/{cid}/{path}", {"message": "x"}).status_code == 403, path
    assert strict.post("/settings/messages/", {"messages_from": "nobody"}).status_code == 403


def test_requests_accepted_and_deleted(r, alice, bob, alice_client, bob_client):
    bob_client.post("/settings/messages/", {"messages_from": "everyone"})
    cid = cid_of(start(alice_client, "bob", "a stranger writes"))
    assert "a stranger writes" in html_of(bob_client.get("/messages/requests/"))
    assert "a stranger writes" not in html_of(bob_client.get("/messages/"))
    assert "A message request" in html_of(bob_client.get(f"/messages/{cid}/"))
    assert bob_client.post(f"/messages/{cid}/accept/").status_code == 302
    assert "a stranger writes" in html_of(bob_client.get("/messages/"))
    assert bob_client.post(f"/messages/{cid}/delete/").status_code == 302
    assert "a stranger writes" not in html_of(bob_client.get("/messages/"))


def test_mute_unmute_leave_and_delete_a_message(r, friends, carol, alice_client, bob_client):
    graph.follow(r, carol["id"], friends[0]["id"])
    cid = cid_of(start(alice_client, "bob, carol", "group hello"))
    assert bob_client.post(f"/messages/{cid}/mute/").status_code == 302
    assert MUTED in html_of(bob_client.get("/messages/"))
    assert bob_client.post(f"/messages/{cid}/unmute/").status_code == 302
    assert bob_client.post(f"/messages/{cid}/1/delete/").status_code == 302
    assert "group hello" not in html_of(bob_client.get(f"/messages/{cid}/"))
    assert "group hello" in html_of(alice_client.get(f"/messages/{cid}/"))
    assert bob_client.post(f"/messages/{cid}/99/delete/").status_code == 404
    assert bob_client.post(f"/messages/{cid}/leave/").status_code == 302
    assert bob_client.get(f"/messages/{cid}/").status_code == 404
    # A conversation of two cannot be left (it can be deleted).
    pair = cid_of(start(alice_client, "bob", "two of us"))
    assert alice_client.post(f"/messages/{pair}/leave/").status_code == 400


def test_a_report_sends_the_message_and_those_before_it(
    r, friends, carol, alice_client, bob_client
):
    cid = cid_of(start(alice_client, "bob", "first words"))
    for n in range(2, 6):
        alice_client.post(f"/messages/{cid}/", {"message": f"words {n}"})
    response = bob_client.post(f"/messages/{cid}/5/report/", {"reason": "abuse", "comment": "rude"})
    assert response.status_code == 302
    (rid,) = [int(x) for x in r.zrange(keys.OPEN_REPORTS, 0, -1)]
    report = moderation.get_report(r, rid)
    assert [m["message"] for m in report["messages"]] == [
        "words 2",
        "words 3",
        "words 4",
        "words 5",
    ]
    moderation.add_moderator(r, carol["id"])
    queue = html_of(log_in(Client(), "carol").get("/moderation/"))
    assert "words 5" in queue and "first words" not in queue
    # No reason: refused, said so; one's own message cannot be reported.
    response = bob_client.post(f"/messages/{cid}/4/report/", {"reason": ""}, follow=True)
    assert "The report was not sent" in html_of(response)
    assert alice_client.post(f"/messages/{cid}/4/report/", {"reason": "spam"}).status_code == 400


def test_the_setting_has_its_own_form_and_never_touches_privacy(r, bob, bob_client):
    r.hset(keys.user(bob["id"]), "private", "1")
    response = bob_client.post("/settings/messages/", {"messages_from": "nobody"})
    assert response.status_code == 302
    assert r.hget(keys.user(bob["id"]), "private") == "1"
    assert r.hget(keys.user(bob["id"]), keys.MESSAGES_FROM_FIELD) == "nobody"
    assert 'value="nobody" checked' in html_of(bob_client.get("/settings/messages/")).replace(
        ' id="id_messages_from_2"', ""
    ) or "checked" in html_of(bob_client.get("/settings/messages/"))
    response = bob_client.post("/settings/messages/", {"messages_from": "anyone at all"})
    assert response.status_code == 400 and "Select a valid choice" in html_of(response)
    assert "/settings/messages/" in html_of(bob_client.get("/settings/"))


def test_the_throttles_answer_429_with_retry_after(r, friends, settings, alice_client):
    settings.THROTTLES = {**settings.THROTTLES, "messages": (2, 3600)}
    cid = cid_of(start(alice_client, "bob", "one"))
    alice_client.post(f"/messages/{cid}/", {"message": "two"})
    response = alice_client.post(f"/messages/{cid}/", {"message": "three, kept"})
    assert response.status_code == 429 and response["Retry-After"]
    assert "three, kept" in html_of(response)
    settings.THROTTLES = {**settings.THROTTLES, "messages": None, "conversations": (1, 3600)}
    response = start(alice_client, "bob", "new one, kept")
    assert response.status_code == 429 and "new one, kept" in html_of(response)


def test_malformed_page_links_get_400(r, friends, alice_client):
    cid = cid_of(start(alice_client, "bob"))
    assert alice_client.get(f"/messages/{cid}/?before=x").status_code == 400
    assert alice_client.get(f"/messages/{cid}/?after=%C2%B2").status_code == 400
    assert alice_client.get("/messages/?before=zz").status_code == 400


def test_the_export_holds_ones_conversations(r, friends, alice_client, bob_client):
    start(alice_client, "bob", "kept in the export")
    data, _ = exported(bob_client.get("/settings/export/"))
    (conversation,) = data["conversations"]
    assert conversation["messages"][0]["message"] == "kept in the export"
    assert {m["login"] for m in conversation["members"]} == {"alice", "bob"}
    json.dumps(data)


def test_a_deleted_account_shows_as_deleted(r, friends, alice_client, bob_client):
    from socialsite.repository import leaving

    cid = cid_of(start(alice_client, "bob", "before I go"))
    leaving.delete_account(r, friends[0]["id"], inline_budget=10_000)
    page = html_of(bob_client.get(f"/messages/{cid}/"))
    assert "before I go" in page and "A deleted account" in page
    assert bob_client.post(f"/messages/{cid}/", {"message": "hello?"}).status_code == 400


def test_a_group_of_many_is_one_conversation(r, alice, alice_client):
    people = [make_user(r, f"fan{n}") for n in range(5)]
    for person in people:
        graph.follow(r, person["id"], alice["id"])
    cid = cid_of(start(alice_client, ",".join(p["login"] for p in people), "to all"))
    for person in people:
        assert r.zscore(keys.direct_inbox(person["id"]), cid) is not None


def test_a_remembered_inbox_row_is_never_shown_stale(r, friends, alice_client, bob_client):
    """The inbox's rows come from the process's memory (jinja_helpers.
    conversation_rows_markup): a new last message, a new name, a mute each show at once."""
    from socialsite.repository import users

    cid = cid_of(start(alice_client, "bob", "first"))
    assert "first" in html_of(bob_client.get("/messages/"))
    bob_client.get(f"/messages/{cid}/")
    alice_client.post(f"/messages/{cid}/", {"message": "second"})
    page = html_of(bob_client.get("/messages/"))
    assert "second" in page and "first" not in page and UNREAD_1 in page
    users.change_name(r, friends[0]["id"], "Alice Renamed")
    assert "Alice Renamed" in html_of(bob_client.get("/messages/"))
    bob_client.post(f"/messages/{cid}/mute/")
    assert MUTED in html_of(bob_client.get("/messages/"))


def test_numbers_beyond_any_id_are_no_error(r, friends, alice_client):
    cid = cid_of(start(alice_client, "bob"))
    huge = "9" * 20
    assert alice_client.get(f"/messages/{cid}/?before={huge}").status_code in (200, 400)
    assert alice_client.get(f"/messages/{cid}/?after={huge}").status_code in (200, 400)
    assert alice_client.post(f"/messages/{cid}/{huge}/delete/").status_code == 404
    response = alice_client.post(f"/messages/{cid}/{huge}/report/", {"reason": "spam"})
    assert response.status_code == 404
    assert alice_client.get(f"/messages/{huge}{huge}/").status_code == 404
    assert alice_client.post(f"/messages/{huge}/mute/").status_code == 404

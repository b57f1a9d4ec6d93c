"""Views of conversations: replying, thread pages, the notifications page and the unread
badge every page shows. Real views against real Redis (see conftest.py)."""

import json
import re

import pytest
from django.test import Client

from socialsite.repository import graph, keys, notifications, statuses
from tests.support.helpers import log_in, make_user, post

BADGE = re.compile(r'<span class="unread-count" data-version="(\d+)"( hidden)?>([^<]*)</span>')


def html_of(response):
    return response.content.decode()


def status_ids(response):
    return [int(sid) for sid in re.findall(r'data-status-id="(\d+)"', html_of(response))]


def badge(response):
    """(count shown, hidden) of the page's unread badge."""
    match = BADGE.search(html_of(response))
    assert match, "the page has no unread badge"
    return match.group(3), bool(match.group(2))


def entries(html):
    """How many entries a notifications page lists."""
    return html.count('<li class="notification ')


def reply(r, user, parent, message="a reply", **options):
    return statuses.post_status(r, user["id"], message, in_reply_to=parent, **options)


@pytest.fixture
def alice_client(client, alice):
    return log_in(client, "alice")


@pytest.fixture
def bob_client(bob):
    return log_in(Client(), "bob")


# --- the status component -----------------------------------------------------------------


def test_every_status_has_a_reply_link_and_shows_its_reply_count(r, alice_client, alice, bob):
    sid = post(r, alice, "say something")
    html = html_of(alice_client.get("/@alice/"))
    assert f'<a class="icon-button reply" href="/@alice/{sid}/#reply">' in html
    assert "reply-count" not in html
    reply(r, bob, sid)
    reply(r, bob, sid)
    html = html_of(alice_client.get("/@alice/"))
    assert (
        '<span class="count reply-count">2<span class="visually-hidden"> replies</span></span></a>'
        in html
    )


def test_a_reply_says_whom_it_replies_to(r, client, alice, bob):
    sid = reply(r, bob, post(r, alice, "hello"))
    html = html_of(client.get(f"/@bob/{sid}/"))
    assert 'Replying to <a href="/@alice/">@alice</a>' in html


# --- replying -------------------------------------------------------------------------------


def test_a_reply_is_posted_and_leads_to_its_own_thread(r, bob_client, alice, bob):
    parent = post(r, alice, "parent")
    response = bob_client.post(
        "/statuses/", {"message": "@alice agreed", "in_reply_to": str(parent)}
    )
    (sid,) = r.zrange(keys.replies(parent), 0, -1)
    assert response.status_code == 302
    assert response["Location"] == f"/@bob/{sid}/"
    page = bob_client.get(response["Location"])
    assert "Your reply is posted." in html_of(page)
    assert status_ids(page) == [parent, int(sid)]
    assert statuses.get_status(r, parent)["replies"] == 1


def test_a_reply_to_a_deleted_status_is_refused_and_its_text_kept(r, bob_client, alice):
    parent = post(r, alice, "soon gone")
    statuses.delete_status(r, alice["id"], parent)
    response = bob_client.post(
        "/statuses/", {"message": "too late, my words", "in_reply_to": str(parent)}
    )
    assert response["Location"] == "/"
    html = html_of(bob_client.get("/"))
    assert "the status it replies to was deleted, or never existed" in html
    assert "too late, my words" in html  # in the form, to post again


def test_a_reply_naming_no_status_is_refused_and_its_text_kept(r, bob_client):
    for value in ("", "abc", "-1", "0", "9" * 40):
        response = bob_client.post(
            "/statuses/", {"message": f"kept {value[:5]}", "in_reply_to": value}
        )
        assert response.status_code == 302
        html = html_of(bob_client.get("/"))
        assert "it does not say which status it replies to" in html or (
            "the status it replies to was deleted" in html
        )
        assert f"kept {value[:5]}" in html


def test_an_empty_reply_goes_back_to_its_thread_with_the_error_and_the_text(r, bob_client, alice):
    parent = post(r, alice, "parent")
    long_text = "x" * 300
    response = bob_client.post(
        "/statuses/",
        {"message": long_text, "in_reply_to": str(parent), "next": f"/@alice/{parent}/"},
    )
    assert response["Location"] == f"/@alice/{parent}/"
    html = html_of(bob_client.get(f"/@alice/{parent}/"))
    assert "Your reply was not posted." in html
    assert "A status is at most 280 characters" in html
    assert long_text in html
    # Shown once: the next visit has the prefilled form again.
    assert long_text not in html_of(bob_client.get(f"/@alice/{parent}/"))


def test_a_reply_with_a_foreign_next_goes_home(r, bob_client, alice):
    parent = post(r, alice, "parent")
    response = bob_client.post(
        "/statuses/", {"message": "", "in_reply_to": str(parent), "next": "//evil.example/"}
    )
    assert response["Location"] == "/"


# --- thread pages ----------------------------------------------------------------------------


def test_a_thread_page_shows_ancestors_the_status_and_nested_replies(r, client, alice, bob):
    root = post(r, alice, "root")
    middle = reply(r, bob, root, "middle")
    focus = reply(r, alice, middle, "focus")
    child = reply(r, bob, focus, "child")
    grandchild = reply(r, alice, child, "grandchild")
    statuses.delete_status(r, bob["id"], middle)
    response = client.get(f"/@alice/{focus}/")
    assert response.status_code == 200
    html = html_of(response)
    assert status_ids(response) == [root, focus, child, grandchild]
    assert f'data-deleted-id="{middle}"' in html and "This status was deleted." in html
    assert html.index("root") < html.index(">focus<") < html.index(">child<")
    assert "1 reply</h2>" in html


def test_a_thread_page_lists_direct_replies_thirty_at_a_time(r, client, alice, bob):
    root = post(r, alice, "root")
    replies = [reply(r, bob, root, f"r{n}") for n in range(32)]
    first = client.get(f"/@alice/{root}/")
    assert status_ids(first) == [root, *replies[:30]]
    more = re.search(r'<a rel="next" href="\?after=(\d+)#replies">More replies</a>', html_of(first))
    second = client.get(f"/@alice/{root}/?after={more.group(1)}")
    assert status_ids(second) == [root, *replies[30:]]
    assert 'rel="next"' not in html_of(second)
    assert client.get(f"/@alice/{root}/?after=x").status_code == 400


def test_deep_replies_are_behind_a_more_replies_link(r, client, alice, bob):
    root = post(r, alice, "root")
    sid = root
    chain = []
    for n in range(5):
        sid = reply(r, bob if n % 2 == 0 else alice, sid, f"level {n + 1}")
        chain.append(sid)
    html = html_of(client.get(f"/@alice/{root}/"))
    assert status_ids(client.get(f"/@alice/{root}/")) == [root, *chain[:3]]
    assert f'<a class="more-replies" href="/@bob/{chain[2]}/#replies">More replies</a>' in html


def test_the_reply_form_starts_with_the_author_and_the_people_mentioned(
    r, bob_client, alice, bob, carol
):
    parent = post(r, alice, "hi @bob and @carol")
    # The mentions as the text-parsing side stores them (Twitter's entities).
    entities = {
        "user_mentions": [
            {"screen_name": "bob", "id": bob["id"], "indices": [3, 7]},
            {"screen_name": "carol", "id": carol["id"], "indices": [12, 18]},
        ]
    }
    r.hset(keys.status(parent), "entities", json.dumps(entities))
    html = html_of(bob_client.get(f"/@alice/{parent}/"))
    assert re.search(r'<textarea name="message"[^>]*>\n@alice @carol </textarea>', html)
    assert f'<input type="hidden" name="in_reply_to" value="{parent}">' in html
    # The packed form: spans of the message and ids.
    packed = {"m": [[3, 7, bob["id"]], [12, 18, carol["id"]]]}
    other = post(r, alice, "hi @bob and @carol")
    r.hset(keys.status(other), "entities", json.dumps(packed))
    html = html_of(bob_client.get(f"/@alice/{other}/"))
    assert re.search(r'<textarea name="message"[^>]*>\n@alice @carol </textarea>', html)
    # Entities it cannot read: the author alone.
    for junk in ("{{{", "[1, 2]", '{"m": [[1]]}', '{"user_mentions": [{}]}'):
        sid = post(r, alice, "hi @bob")  # a new one: a status's hash is read once
        r.hset(keys.status(sid), "entities", junk)
        html = html_of(bob_client.get(f"/@alice/{sid}/"))
        assert re.search(r'<textarea name="message"[^>]*>\n@alice </textarea>', html), junk


def test_anonymous_visitors_are_asked_to_log_in_to_reply(r, client, alice):
    parent = post(r, alice, "parent")
    html = html_of(client.get(f"/@alice/{parent}/"))
    assert 'name="in_reply_to"' not in html
    assert "to reply." in html


# --- notifications and the badge ------------------------------------------------------------


def test_the_notifications_page_needs_a_login(client):
    response = client.get("/notifications/")
    assert response.status_code == 302
    assert response["Location"] == "/accounts/login/?next=%2Fnotifications%2F"


def test_every_page_shows_the_unread_count_and_viewing_the_list_clears_it(
    r, alice_client, alice, bob, carol
):
    assert badge(alice_client.get("/")) == ("0", True)
    graph.follow(r, bob["id"], alice["id"])
    parent = post(r, alice, "mine")
    reply(r, carol, parent, "hey")
    for path in ("/", "/@alice/", f"/@alice/{parent}/", "/@bob/followers/"):
        assert badge(alice_client.get(path)) == ("2", False)
    page = alice_client.get("/notifications/")
    assert badge(page) == ("0", True)
    html = html_of(page)
    assert entries(html) == 2
    assert "replied to your status" in html and "followed you" in html
    assert html.count(" unread") >= 2  # shown as new this once
    assert badge(alice_client.get("/")) == ("0", True)
    assert " unread" not in html_of(alice_client.get("/notifications/")).split("<ol")[1]


def test_the_badge_shows_99_plus_past_99(r, alice_client, alice):
    r.hset(keys.notifications_state(alice["id"]), mapping={"unread": 150, "version": 7})
    assert badge(alice_client.get("/")) == ("99+", False)


def test_grouped_entries_name_one_and_count_the_others(r, alice_client, alice):
    fans = [make_user(r, f"fan{n}") for n in range(4)]
    for fan in fans:
        graph.follow(r, fan["id"], alice["id"])
    html = html_of(alice_client.get("/notifications/"))
    assert entries(html) == 1
    assert re.search(r'href="/@fan3/"><bdi>[^<]*</bdi></a> and 3 others', html)


def test_mentions_are_listed_alone_with_type_mention(r, alice_client, alice, bob):
    graph.follow(r, bob["id"], alice["id"])
    statuses.post_status(r, bob["id"], "hello @alice", mentioned_uids=[alice["id"]])
    html = html_of(alice_client.get("/notifications/?type=mention"))
    assert entries(html) == 1 and "mentioned you" in html
    assert "hello @alice" in html
    # A list of mentions alone leaves the others unread.
    assert badge(alice_client.get("/")) == ("2", False)
    response = alice_client.get("/notifications/?type=shouting")
    assert response.status_code == 400
    assert "must be one of follow, mention, reply" in html_of(response)


def test_notifications_come_thirty_entries_a_page(r, alice_client, alice):
    people = [make_user(r, f"fan{n}") for n in range(32)]
    for person in people:
        statuses.post_status(r, person["id"], "hi", mentioned_uids=[alice["id"]])
    first = html_of(alice_client.get("/notifications/"))
    assert entries(first) == 30
    cursor = re.search(r'<a rel="next" href="\?before=(\d+)">Older</a>', first).group(1)
    second = html_of(alice_client.get(f"/notifications/?before={cursor}"))
    assert entries(second) == 2
    assert alice_client.get("/notifications/?before=x").status_code == 400
    mentions = html_of(alice_client.get("/notifications/?type=mention"))
    assert '<a rel="next" href="?type=mention&amp;before=' in mentions


def test_a_notification_whose_status_is_gone_disappears_from_page_and_count(
    r, alice_client, alice, bob
):
    sid = statuses.post_status(r, bob["id"], "hi @alice", mentioned_uids=[alice["id"]])
    r.delete(keys.status(sid))  # gone without its deletion undoing the notification
    assert badge(alice_client.get("/")) == ("1", False)
    html = html_of(alice_client.get("/notifications/"))
    assert entries(html) == 0
    assert notifications.events(r, alice["id"]) == []
    assert badge(alice_client.get("/")) == ("0", True)


def test_notification_text_is_escaped(r, alice_client, alice):
    mallory = make_user(r, "mallory", "<b>Mallory</b>")
    statuses.post_status(
        r, mallory["id"], "<script>alert(1)</script>", mentioned_uids=[alice["id"]]
    )
    html = html_of(alice_client.get("/notifications/"))
    assert "<script>alert(1)</script>" not in html and "<b>Mallory</b>" not in html
    assert "&lt;script&gt;" in html

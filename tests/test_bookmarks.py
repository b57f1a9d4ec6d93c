"""Bookmarks: the repository, the actions, the pages (the status menu's
Bookmark, /bookmarks/) and the client API (bookmark, unbookmark, GET /api/v1/bookmarks),
Mastodon.py driving them; private to their owner, through the one visibility rule."""

import re

import pytest
from django.test import Client
from mastodon import Mastodon

from socialsite.actions import statuses as statuses_actions
from socialsite.actions.core import Actor, NotFound
from socialsite.repository import bookmarks, communities, graph, keys, privacy, reposts
from tests.support.helpers import bearer, log_in, make_user, post

Result = bookmarks.BookmarkResult


def actor(user):
    return Actor(uid=user["id"], login=user["login"])


def ids_of(page):
    return [item["id"] for item in page.items]


# --- the repository -----------------------------------------------------------------------


def test_bookmark_list_newest_first_idempotent_and_let_go(r, alice, bob):
    first, second = post(r, alice, "one"), post(r, alice, "two")
    assert bookmarks.bookmark(r, bob["id"], first, now_ms=1000) is Result.BOOKMARKED
    assert bookmarks.bookmark(r, bob["id"], second, now_ms=1000) is Result.BOOKMARKED
    assert bookmarks.bookmark(r, bob["id"], first, now_ms=5000) is Result.ALREADY_BOOKMARKED
    # The same ms twice: unique scores, the later bookmark first.
    assert ids_of(bookmarks.bookmarks_page(r, bob["id"])) == [second, first]
    assert bookmarks.bookmarked_of(r, bob["id"], [first, second, 999]) == {first, second}
    assert bookmarks.bookmarked_of(r, None, [first]) == frozenset()
    assert bookmarks.unbookmark(r, bob["id"], first) is Result.UNBOOKMARKED
    assert bookmarks.unbookmark(r, bob["id"], first) is Result.NOT_BOOKMARKED
    assert ids_of(bookmarks.bookmarks_page(r, bob["id"])) == [second]
    # Nobody else sees or gets them.
    assert ids_of(bookmarks.bookmarks_page(r, alice["id"])) == []


def test_paging_by_the_bookmarks_times(r, alice, bob):
    sids = [post(r, alice, f"s{n}") for n in range(5)]
    for n, sid in enumerate(sids):
        bookmarks.bookmark(r, bob["id"], sid, now_ms=1000 + n)
    page = bookmarks.bookmarks_page(r, bob["id"], count=2)
    assert ids_of(page) == sids[:2:-1][:2]
    rest = bookmarks.bookmarks_page(r, bob["id"], before=page.next_cursor, count=10)
    assert ids_of(rest) == [sids[2], sids[1], sids[0]] and rest.next_cursor is None


def test_a_repost_bookmarks_its_original(r, alice, bob, carol):
    sid = post(r, alice, "original")
    reposts.repost(r, carol["id"], sid)
    rid = reposts.repost_id(r, carol["id"], sid)
    assert bookmarks.bookmark(r, bob["id"], rid) is Result.BOOKMARKED
    assert ids_of(bookmarks.bookmarks_page(r, bob["id"])) == [sid]
    assert bookmarks.unbookmark(r, bob["id"], rid) is Result.UNBOOKMARKED


def test_what_one_may_not_see_is_not_found_and_leaves_the_page(r, alice, bob):
    missing = 10**9
    assert bookmarks.bookmark(r, bob["id"], missing) is Result.NOT_FOUND
    assert bookmarks.unbookmark(r, bob["id"], missing) is Result.NOT_FOUND
    sid = post(r, alice, "soon private")
    privacy.set_private(r, alice["id"], True)
    assert bookmarks.bookmark(r, bob["id"], sid) is Result.NOT_FOUND
    privacy.set_private(r, alice["id"], False)
    assert bookmarks.bookmark(r, bob["id"], sid) is Result.BOOKMARKED
    privacy.set_private(r, alice["id"], True)
    # Private again: left out of the page, kept in the list, and can be let go of.
    assert ids_of(bookmarks.bookmarks_page(r, bob["id"])) == []
    assert r.zscore(keys.bookmarks(bob["id"]), sid) is not None
    assert bookmarks.unbookmark(r, bob["id"], sid) is Result.UNBOOKMARKED


def test_a_deleted_status_leaves_the_list(r, alice, bob):
    from socialsite.repository import statuses

    sid = post(r, alice, "gone soon")
    bookmarks.bookmark(r, bob["id"], sid)
    statuses.delete_status(r, alice["id"], sid)
    assert ids_of(bookmarks.bookmarks_page(r, bob["id"])) == []
    assert r.zcard(keys.bookmarks(bob["id"])) == 0


def test_a_private_groups_status_follows_the_visibility_path(r, alice, bob):
    communities.create(r, alice["id"], "hidden", "Hidden", "", "private")
    new = statuses_actions.NewStatus(text="members only")
    sid = statuses_actions.post(actor(alice), new, group="hidden")
    assert bookmarks.bookmark(r, bob["id"], sid) is Result.NOT_FOUND


# --- the actions ----------------------------------------------------------------------------


def test_actions_bookmark_and_refuse_what_one_may_not_see(r, alice, bob):
    sid = post(r, alice, "keep")
    assert statuses_actions.bookmark(actor(bob), sid) is Result.BOOKMARKED
    assert statuses_actions.bookmark(actor(bob), sid) is Result.ALREADY_BOOKMARKED
    assert statuses_actions.unbookmark(actor(bob), sid) is Result.UNBOOKMARKED
    with pytest.raises(NotFound):
        statuses_actions.bookmark(actor(bob), 10**9)
    with pytest.raises(NotFound):
        statuses_actions.unbookmark(actor(bob), 10**9)


# --- the pages --------------------------------------------------------------------------------


def bookmark_item(html, sid):
    """ "Bookmark" or "Remove bookmark": the menu item of status ``sid``, or None."""
    match = re.search(
        rf'class="menu-item bookmark" formaction="/statuses/{sid}/(bookmark|unbookmark)/">'
        r".*?</svg> (Bookmark|Remove bookmark)</button>",
        html,
    )
    if not match:
        return None
    assert (match.group(1) == "unbookmark") == (match.group(2) == "Remove bookmark")
    return match.group(2)


def test_bookmark_from_the_menu_then_remove_it_on_the_bookmarks_page(r, alice, bob):
    graph.follow(r, bob["id"], alice["id"])
    sid = post(r, alice, "worth keeping")
    own = post(r, bob, "my own")
    client = log_in(Client(), "bob")
    home = client.get("/").content.decode()
    assert bookmark_item(home, sid) == "Bookmark" and bookmark_item(home, own) == "Bookmark"
    assert 'href="/bookmarks/"' in home  # the account menu
    response = client.post(f"/statuses/{sid}/bookmark/", {"next": "/"})
    assert response.status_code == 302 and response["Location"] == "/"
    assert "Bookmarked" in client.get("/").content.decode()
    client.post(f"/statuses/{own}/bookmark/", {"next": "/"})
    page = client.get("/bookmarks/").content.decode()
    assert page.index(f'id="status-{own}"') < page.index(f'id="status-{sid}"')
    assert bookmark_item(page, sid) == "Remove bookmark"
    assert bookmark_item(page, own) == "Remove bookmark"
    client.post(f"/statuses/{sid}/unbookmark/", {"next": "/bookmarks/"})
    page = client.get("/bookmarks/").content.decode()
    assert "Bookmark removed." in page and f'id="status-{sid}"' not in page
    # The same status on the home page is still offered "Bookmark" (the memo's key).
    assert bookmark_item(client.get("/").content.decode(), sid) == "Bookmark"


def test_bookmarks_page_needs_a_login_and_refuses_the_unseen(r, alice, bob):
    assert Client().get("/bookmarks/").status_code == 302
    alice_client = log_in(Client(), "alice")
    privacy.set_private(r, bob["id"], True)
    hidden = post(r, bob, "followers only")
    assert alice_client.post(f"/statuses/{hidden}/bookmark/", {"next": "/"}).status_code == 404
    assert Client().post(f"/statuses/{hidden}/bookmark/").status_code in (302, 403)
    empty = alice_client.get("/bookmarks/").content.decode()
    assert "No bookmarks yet" in empty


# --- the client API -------------------------------------------------------------------------


def test_api_bookmark_unbookmark_and_list(r, client, alice, bob, token):
    sid = post(r, alice, "api bookmark")
    headers = bearer(token(bob))
    answer = client.post(f"/api/v1/statuses/{sid}/bookmark", **headers)
    assert answer.status_code == 200 and answer.json()["bookmarked"] is True
    assert client.get(f"/api/v1/statuses/{sid}", **headers).json()["bookmarked"] is True
    listed = client.get("/api/v1/bookmarks", **headers)
    assert [(s["id"], s["bookmarked"]) for s in listed.json()] == [(str(sid), True)]
    # Private to the owner.
    assert client.get("/api/v1/bookmarks", **bearer(token(alice))).json() == []
    assert client.get("/api/v1/bookmarks").status_code == 401
    answer = client.post(f"/api/v1/statuses/{sid}/unbookmark", **headers)
    assert answer.status_code == 200 and answer.json()["bookmarked"] is False
    assert client.get("/api/v1/bookmarks", **headers).json() == []
    assert client.post("/api/v1/statuses/999999999/bookmark", **headers).status_code == 404
    only_read = bearer(token(bob, ["read"]))
    assert client.post(f"/api/v1/statuses/{sid}/bookmark", **only_read).status_code == 403


def test_api_bookmarks_paged_by_link(r, client, alice, bob, token):
    sids = [post(r, alice, f"p{n}") for n in range(3)]
    headers = bearer(token(bob))
    for sid in sids:
        client.post(f"/api/v1/statuses/{sid}/bookmark", **headers)
    first = client.get("/api/v1/bookmarks?limit=2", **headers)
    assert [int(s["id"]) for s in first.json()] == [sids[2], sids[1]]
    older = re.search(r'<[^>]*(/api/v1/bookmarks\?[^>]*)>; rel="next"', first["Link"]).group(1)
    assert [int(s["id"]) for s in client.get(older, **headers).json()] == [sids[0]]


def test_mastodon_py_bookmarks(r, live_server, settings, alice, bob, token):
    settings.SITE_URL = live_server.url
    sid = post(r, alice, "from Mastodon.py")
    api = Mastodon(access_token=token(bob), api_base_url=live_server.url)
    assert api.status_bookmark(sid)["bookmarked"] is True
    assert [int(s["id"]) for s in api.bookmarks()] == [sid]
    assert api.status_unbookmark(sid)["bookmarked"] is False
    assert api.bookmarks() == []


def test_an_account_deleted_takes_its_bookmarks(r, alice):
    from socialsite.repository import leaving

    someone = make_user(r, "leaver")
    bookmarks.bookmark(r, someone["id"], post(r, alice, "x"))
    assert "delete_user_keys" in {step.__name__ for step in leaving.DELETION_STEPS}
    leaving.delete_user_keys(r, someone["id"], 100)
    assert not r.exists(keys.bookmarks(someone["id"]))


# The session; the bookmarks' ids; the statuses (EXISTS of those remembered) with the
# reader's likes; the authors' visibility (visibility.shown_statuses): the same for 1 and 30.
BOOKMARKS_PAGE_ROUND_TRIPS = 4


def test_bookmarks_page_costs_a_fixed_number(r, client, round_trips, redis_backend):
    from tests.support.helpers import PASSWORD
    from tests.test_round_trips import allowed, cost

    reader = make_user(r, "reader")
    client.post("/accounts/login/", {"username": "reader", "password": PASSWORD})
    authors = [make_user(r, f"author{i}") for i in range(30)]
    bookmarks.bookmark(r, reader["id"], post(r, authors[0], "one"))
    with_one = cost(client, "/bookmarks/", round_trips)
    for author in authors[1:]:
        bookmarks.bookmark(r, reader["id"], post(r, author, f"from @{author['login']}"))
    with_thirty = cost(client, "/bookmarks/", round_trips)
    assert client.get("/bookmarks/").content.decode().count('class="status"') == 30
    if not redis_backend.cluster:
        assert with_one == with_thirty == BOOKMARKS_PAGE_ROUND_TRIPS
    assert with_thirty <= allowed(redis_backend, BOOKMARKS_PAGE_ROUND_TRIPS, pipelines=3)

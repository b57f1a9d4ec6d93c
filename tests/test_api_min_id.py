"""Mastodon's ``min_id`` in the client API (api/paging.py): the ``limit`` entries just
above it, newest first, so that an app reading upward along the ``prev`` links (Tusky,
Ivory, Mastodon.py's fetch_previous) gets every entry once, in order, however many
arrived while it was away; and the public timeline's real counts."""

import random
import re

import pytest
from mastodon import Mastodon

from socialsite.repository import (
    blocks,
    graph,
    keys,
    likes,
    lists,
    privacy,
    reposts,
    statuses,
    timelines,
)
from tests.support.helpers import bearer, make_user
from tests.test_repository_pulled import copy_size, make_pulled  # noqa: F401 (fixture)

MANY = 13  # more than LIMIT, and not a multiple of it
LIMIT = 5


def post(r, user, message, **options):
    return statuses.post_status(r, user["id"], message, **options)


def _link(response, rel):
    """The URL of the ``rel`` link of ``response``'s Link header (path and query), or None."""
    for url, name in re.findall(r'<([^>]+)>; rel="(\w+)"', response.get("Link", "")):
        if name == rel:
            return re.sub(r"^https?://[^/]+", "", url)
    return None


def read_upward(client, headers, path, min_id=0, limit=LIMIT):
    """Every entry id above ``min_id``, oldest first, read as an app reads upward: the
    first page by ``min_id``, then each page's ``prev`` link until an empty page. Each
    page is newest first, and its ``next`` link goes below its oldest."""
    sep = "&" if "?" in path else "?"
    url, seen = f"{path}{sep}min_id={min_id}&limit={limit}", []
    while True:
        response = client.get(url, **headers)
        assert response.status_code == 200, response.content
        ids = [int(item["id"]) for item in response.json()]
        if not ids:
            return seen
        assert ids == sorted(ids, reverse=True) and len(ids) <= limit
        older = _link(response, "next")
        assert older is None or f"max_id={ids[-1]}" in older
        assert older is not None or not seen
        seen += ids[::-1]
        url = _link(response, "prev")
        assert url is not None and f"min_id={ids[0]}" in url


@pytest.fixture
def alice_and_bob(r, alice, bob):
    graph.follow(r, bob["id"], alice["id"])
    return alice, bob


def test_home_public_tag_list_and_account_statuses_read_upward_skip_nothing(
    r, client, alice_and_bob, token
):
    alice, bob = alice_and_bob
    _, lid = lists.create_list(r, bob["id"], "Friends")
    lists.add_member(r, bob["id"], lid, alice["id"])
    headers = bearer(token(bob))
    older = [post(r, alice, f"older {n} #many") for n in range(3)]
    posted = [post(r, alice, f"number {n} #many") for n in range(MANY)]
    for path in (
        "/api/v1/timelines/home",
        "/api/v1/timelines/public",
        "/api/v1/timelines/tag/many",
        f"/api/v1/timelines/list/{lid}",
        f"/api/v1/accounts/{alice['id']}/statuses",
    ):
        assert read_upward(client, headers, path, min_id=older[-1]) == posted, path
        assert read_upward(client, headers, path) == older + posted, path
        # The page just above min_id: its oldest entries, still newest first.
        page = client.get(f"{path}?min_id={older[-1]}&limit=2", **headers).json()
        assert [int(s["id"]) for s in page] == posted[1::-1], path
        # since_id: the newest above it; both with min_id: min_id decides.
        page = client.get(f"{path}?since_id={older[-1]}&limit=2", **headers).json()
        assert [int(s["id"]) for s in page] == posted[:-3:-1], path
        both = f"{path}?since_id={posted[5]}&min_id={older[-1]}&limit=2"
        assert [int(s["id"]) for s in client.get(both, **headers).json()] == posted[1::-1]
        # max_id bounds a page read upward from above.
        bounded = f"{path}?min_id={older[-1]}&max_id={posted[1]}&limit=5"
        assert [int(s["id"]) for s in client.get(bounded, **headers).json()] == posted[:1]


def test_reposts_read_upward_by_their_own_ids(r, client, alice_and_bob, carol, token):
    alice, bob = alice_and_bob
    graph.follow(r, bob["id"], carol["id"])
    originals = [post(r, carol, f"original {n}") for n in range(3)]
    start = post(r, alice, "start")
    shown = []
    for n, original in enumerate(originals):
        reposts.repost(r, alice["id"], original)
        shown.append(reposts.repost_id(r, alice["id"], original))
        shown.append(post(r, alice, f"own {n}"))
    headers = bearer(token(bob))
    for path in ("/api/v1/timelines/public", f"/api/v1/accounts/{alice['id']}/statuses"):
        assert read_upward(client, headers, path, min_id=start, limit=2) == shown, path


def test_notifications_and_favourites_read_upward_skip_nothing(r, client, alice_and_bob, token):
    alice, bob = alice_and_bob
    posted = [post(r, alice, f"number {n}") for n in range(MANY)]
    for sid in posted:
        likes.like(r, bob["id"], sid)
    alice_headers, bob_headers = bearer(token(alice)), bearer(token(bob))
    path = "/api/v1/notifications?types[]=favourite"
    newest_first = client.get(f"{path}&limit=30", **alice_headers).json()
    noticed = [int(n["id"]) for n in newest_first][::-1]
    assert [int(n["status"]["id"]) for n in newest_first][::-1] == posted
    assert read_upward(client, alice_headers, path) == noticed
    assert read_upward(client, alice_headers, path, min_id=noticed[2]) == noticed[3:]
    every = read_upward(client, alice_headers, "/api/v1/notifications")
    assert len(every) == MANY + 1 and every[1:] == noticed  # bob's follow, first
    # Favourites are paged by the likes' times: the links carry them, not status ids.
    url, seen = f"/api/v1/favourites?min_id=0&limit={LIMIT}", []
    while url:
        response = client.get(url, **bob_headers)
        page = [int(s["id"]) for s in response.json()]
        if not page:
            break
        assert page == sorted(page, reverse=True)
        seen += page[::-1]
        url = _link(response, "prev")
    assert seen == posted
    since = client.get("/api/v1/favourites?limit=1", **bob_headers)
    newer = client.get(_link(since, "prev"), **bob_headers)
    assert newer.status_code == 200 and newer.json() == []


def test_home_and_lists_read_upward_merge_pulled(r, client, copy_size, token):  # noqa: F811
    names = ("star", "other", "reader", "f2", "f3")
    star, other, reader, f2, f3 = (make_user(r, name) for name in names)
    make_pulled(r, star["id"], [reader["id"], f2["id"], f3["id"]])
    graph.follow(r, reader["id"], other["id"])
    _, lid = lists.create_list(r, reader["id"], "Both")
    lists.add_member(r, reader["id"], lid, star["id"])
    lists.add_member(r, reader["id"], lid, other["id"])
    start = post(r, other, "start")
    shown = []
    for n in range(16):
        author = star if n % 3 else other
        shown.append(post(r, author, f"s{n}", pull_followers=3))
        if n % 5 == 1:  # left out as the pages leave them out: the reply rule, deleted
            post(r, star, "to someone the reader does not follow", in_reply_to=f2_status(r, f2))
            gone = post(r, star, "deleted", pull_followers=3)
            statuses.delete_status(r, star["id"], gone)
    home = [s["id"] for s in timelines.home_page(r, reader["id"], count=40).items]
    assert home[:16] == shown[::-1]
    headers = bearer(token(reader))
    for path in ("/api/v1/timelines/home", f"/api/v1/timelines/list/{lid}"):
        for limit in (1, 4, 5):
            assert read_upward(client, headers, path, min_id=start, limit=limit) == shown, limit


def f2_status(r, author):
    return post(r, author, "a status of f2's")


def test_mastodon_py_fetch_previous_across_a_gap(r, live_server, settings, token, alice_and_bob):
    alice, bob = alice_and_bob
    settings.SITE_URL = live_server.url
    client = Mastodon(access_token=token(bob), api_base_url=live_server.url)
    post(r, alice, "seen already")
    for read in (
        lambda: client.timeline_home(limit=LIMIT),
        lambda: client.timeline_public(limit=LIMIT),
        lambda: client.account_statuses(alice["id"], limit=LIMIT),
    ):
        page = read()
        arrived = [post(r, alice, f"while away {n}") for n in range(MANY)]
        seen = []
        while True:
            page = client.fetch_previous(page)
            if not page:
                break
            seen += [int(status["id"]) for status in page][::-1]
        assert seen == arrived


def test_the_public_timeline_has_real_counts_and_the_callers_marks(
    r, client, alice, bob, carol, token
):
    sid = post(r, alice, "Counted")
    likes.like(r, bob["id"], sid)
    likes.like(r, carol["id"], sid)
    reposts.repost(r, carol["id"], sid)
    post(r, bob, "A reply", in_reply_to=sid)

    def shown(headers):
        found = client.get("/api/v1/timelines/public", **headers).json()
        return next(s for s in found if s["id"] == str(sid) and s["reblog"] is None), found

    status, found = shown(bearer(token(bob)))
    assert (status["favourites_count"], status["reblogs_count"], status["replies_count"]) == (
        2,
        1,
        1,
    )
    assert status["favourited"] is True and status["reblogged"] is False
    status, found = shown(bearer(token(carol)))
    assert status["favourited"] is True and status["reblogged"] is True
    wrapper = next(s for s in found if s["reblog"] is not None)
    assert wrapper["account"]["username"] == "carol" and wrapper["reblog"]["id"] == str(sid)
    assert wrapper["reblogs_count"] == 1 and wrapper["reblogged"] is True
    status, _ = shown({})
    assert (status["favourites_count"], status["favourited"]) == (2, False)


def read_accounts_upward(client, headers, path, limit=3):
    """The account ids of a list of accounts read upward from its start (``min_id=0``)
    along the ``prev`` links, earliest first. Its cursors are times, not account ids."""
    url, seen = f"{path}?min_id=0&limit={limit}", []
    while True:
        response = client.get(url, **headers)
        assert response.status_code == 200, response.content
        ids = [int(account["id"]) for account in response.json()]
        if not ids:
            return seen
        assert len(ids) <= limit
        seen += ids[::-1]
        url = _link(response, "prev")
        assert "min_id=" in url


def test_lists_of_accounts_read_upward_skip_nothing(r, client, alice, bob, carol, token):
    people = [make_user(r, f"person{n}")["id"] for n in range(7)]
    blocked = [make_user(r, f"blocked{n}")["id"] for n in range(7)]
    muted = [make_user(r, f"muted{n}")["id"] for n in range(7)]
    sid = post(r, alice, "Liked and reposted")
    _, lid = lists.create_list(r, bob["id"], "Everyone")
    privacy.set_private(r, carol["id"], True)
    for person in people:
        graph.follow(r, person, bob["id"])
        graph.follow(r, bob["id"], person)
        lists.add_member(r, bob["id"], lid, person)
        graph.follow(r, person, carol["id"])  # a request: carol is private
        likes.like(r, person, sid)
        reposts.repost(r, person, sid)
    for other in blocked:
        blocks.block(r, bob["id"], other)
    for other in muted:
        blocks.mute(r, bob["id"], other)
    headers = bearer(token(bob))
    for path, expected in (
        (f"/api/v1/accounts/{bob['id']}/followers", people),
        (f"/api/v1/accounts/{bob['id']}/following", people),
        (f"/api/v1/lists/{lid}/accounts", people),
        (f"/api/v1/statuses/{sid}/favourited_by", people),
        (f"/api/v1/statuses/{sid}/reblogged_by", people),
        ("/api/v1/blocks", blocked),
        ("/api/v1/mutes", muted),
    ):
        assert read_accounts_upward(client, headers, path) == expected, path
    asking = read_accounts_upward(client, bearer(token(carol)), "/api/v1/follow_requests")
    assert asking == people


def _cost(client, url, round_trips, headers):
    client.get(url, **headers)  # warm up: connections made, scripts loaded
    round_trips["n"] = 0
    assert client.get(url, **headers).status_code == 200
    return round_trips["n"]


def test_pages_read_upward_cost_what_pages_read_down_cost(
    r, client, alice_and_bob, carol, token, round_trips, redis_backend
):
    alice, bob = alice_and_bob
    headers = bearer(token(bob))
    first = post(r, alice, "the first")
    public = "/api/v1/timelines/public?limit=40"
    one = _cost(client, public, round_trips, headers)
    many = [post(r, alice, f"number {n}") for n in range(30)]
    for sid in many[::3]:
        likes.like(r, carol["id"], sid)
        post(r, carol, "a reply", in_reply_to=sid)
    thirty = _cost(client, public, round_trips, headers)
    upward = _cost(client, f"{public}&min_id={first}", round_trips, headers)
    if not redis_backend.cluster:
        assert one == thirty == upward
    home = "/api/v1/timelines/home?limit=10"
    down = _cost(client, home, round_trips, headers)
    up = _cost(client, f"{home}&min_id={first}", round_trips, headers)
    if not redis_backend.cluster:
        assert down == up


def test_ids_past_every_entry_read_as_nothing_newer(r, client, alice_and_bob, token):
    alice, bob = alice_and_bob
    post(r, alice, "the only one")
    headers = bearer(token(bob))
    huge = "9" * 20
    for path in (
        "/api/v1/timelines/home",
        "/api/v1/timelines/public",
        f"/api/v1/accounts/{alice['id']}/statuses",
        "/api/v1/notifications",
        "/api/v1/favourites",
        f"/api/v1/accounts/{alice['id']}/followers",
    ):
        for name in ("min_id", "since_id"):
            response = client.get(f"{path}?{name}={huge}", **headers)
            assert response.status_code == 200 and response.json() == [], (path, name)
        response = client.get(f"{path}?max_id=0&min_id=0", **headers)
        assert response.status_code == 200 and response.json() == [], path


def whole_home_upward(r, uid, count, lid=None):
    """Every status of ``uid``'s home (or list ``lid``) read upward from the start as
    the API reads it (``above``, the pages' prev cursors), oldest entry first."""
    seen, above = [], 0
    while True:
        if lid is None:
            page = timelines.home_page(r, uid, count=count, above=above)
        else:
            page = lists.list_page(r, uid, lid, count=count, above=above)[1]
        if not page.items:
            return seen
        assert len(page.items) <= count
        seen += [status["id"] for status in page.items][::-1]
        above = page.prev_cursor


def whole_downward(r, uid, count, lid=None):
    seen, before = [], None
    while True:
        if lid is None:
            page = timelines.home_page(r, uid, before=before, count=count)
        else:
            page = lists.list_page(r, uid, lid, before=before, count=count)[1]
        seen += [status["id"] for status in page.items]
        if page.next_cursor is None:
            return seen
        before = page.next_cursor


@pytest.mark.parametrize("seed", [11, 26, 35, 105])
def test_read_upward_agrees_with_paging_down_whatever_arrives(r, copy_size, seed):  # noqa: F811
    """Home and list pages read upward show what paging down shows, in order, for any
    page size: delivered and pulled statuses, replies the reply rule leaves out, reposts
    shown through their originals, deletions (a pulled account's too), mutes."""
    names = ("star", "star2", "friend", "stranger", "reader", "f2", "f3")
    star, star2, friend, stranger, reader, f2, f3 = (make_user(r, n)["id"] for n in names)
    make_pulled(r, star, [reader, f2, f3])
    make_pulled(r, star2, [reader, f2, f3])
    graph.follow(r, reader, friend)
    lid = lists.create_list(r, reader, "some")[1]
    for member in (star, friend):
        lists.add_member(r, reader, lid, member)
    rng = random.Random(seed)
    posted = []
    for i in range(rng.randint(10, 90)):
        author = rng.choice([star, star2, friend, reader, stranger])
        roll = rng.random()
        if roll < 0.15 and posted:
            to = rng.choice(posted)
            posted.append(
                statuses.post_status(r, author, f"re {i}", in_reply_to=to, pull_followers=3)
            )
        elif roll < 0.3 and posted and author != reader:
            reposts.repost(r, author, rng.choice(posted))
        elif roll < 0.37 and posted:
            gone = posted.pop(rng.randrange(len(posted)))
            statuses.delete_status(r, int(r.hget(keys.status(gone), "uid")), gone)
        elif roll < 0.39:
            blocks.mute(r, reader, rng.choice([star2, friend]))
        else:
            posted.append(statuses.post_status(r, author, f"s{i}", pull_followers=3))
    home, listed = whole_downward(r, reader, 40)[::-1], whole_downward(r, reader, 40, lid)[::-1]
    for count in (1, 2, 3, 5, 8, 20):
        # An original shown through reposts shows once a page: pages of another size
        # may show it once more (paging down too).
        up = whole_home_upward(r, reader, count)
        assert list(dict.fromkeys(up)) == list(dict.fromkeys(home)), count
        assert whole_home_upward(r, reader, count, lid) == listed, count

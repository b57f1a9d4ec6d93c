"""Mastodon 4.3's grouped notifications (/api/v2/notifications, api/notification_groups.py):
driven by Mastodon.py against a live server, and by direct HTTP for the group keys,
paging, the types, ``expand_accounts``, a group's own endpoints and the unread count.
Every kind the site notifies is in them: favourites, reblogs and follows grouped,
mentions (a reply is one) and follow requests alone."""

import re
import time

import pytest
from mastodon import Mastodon

from api import entities
from socialsite.repository import graph, likes, notifications, privacy, reposts, statuses
from tests.support.helpers import bearer, make_user


def post(r, user, message, **options):
    return statuses.post_status(r, user["id"], message, **options)


def _window(score):
    return score // entities.GROUP_WINDOW_MS * entities.GROUP_WINDOW_MS // 3_600_000


@pytest.fixture
def busy_alice(r, alice, bob, carol):
    """Alice with every kind of notification: two follows, a follow request (after she
    went private), three likes and two reposts of one status, a mention, a reply."""
    mine = post(r, alice, "Mine")
    dave = make_user(r, "dave")
    for person in (bob, carol, dave):
        likes.like(r, person["id"], mine)
    for person in (bob, carol):
        reposts.repost(r, person["id"], mine)
    graph.follow(r, bob["id"], alice["id"])
    graph.follow(r, carol["id"], alice["id"])
    post(r, bob, "@alice hello")
    post(r, carol, "a reply", in_reply_to=mine)
    privacy.set_private(r, alice["id"], True)
    graph.follow(r, dave["id"], alice["id"])  # a request
    return {"status": mine, "dave": dave}


def test_mastodon_py_reads_grouped_notifications(r, live_server, settings, token, alice,
                                                 bob, carol, busy_alice):  # fmt: skip
    settings.SITE_URL = live_server.url
    a = Mastodon(access_token=token(alice), api_base_url=live_server.url)
    mine = busy_alice["status"]
    found = a.grouped_notifications()
    groups = found["notification_groups"]
    by_type = {}
    for group in groups:
        by_type.setdefault(group["type"], []).append(group)
    assert set(by_type) == {"favourite", "reblog", "follow", "mention", "follow_request"}
    [favourites] = by_type["favourite"]
    assert favourites["notifications_count"] == 3 and favourites["status_id"] == str(mine)
    assert re.fullmatch(rf"favourite-{mine}-\d+", favourites["group_key"])
    assert len(favourites["sample_account_ids"]) == 3
    [reblogs] = by_type["reblog"]
    assert reblogs["notifications_count"] == 2
    [follows] = by_type["follow"]
    assert follows["notifications_count"] == 2 and re.fullmatch(r"follow-\d+", follows["group_key"])
    assert len(by_type["mention"]) == 2  # a mention and a reply, each alone
    assert all(g["group_key"].startswith("ungrouped-") for g in by_type["mention"])
    # Mastodon.py asks for partial_avatars: the newest of each group in full.
    listed = {a["id"] for a in found["accounts"]} | {a["id"] for a in found["partial_accounts"]}
    assert {uid for g in groups for uid in g["sample_account_ids"]} <= listed
    assert str(mine) in {s["id"] for s in found["statuses"]}
    # One group whole, its accounts, then dismissed.
    one = a.grouped_notification(favourites["group_key"])
    assert one["notification_groups"][0]["notifications_count"] == 3
    people = a.grouped_notification_accounts(favourites["group_key"])
    assert {p["username"] for p in people} == {"bob", "carol", "dave"}
    assert a.unread_grouped_notifications_count() == len(groups)
    a.dismiss_grouped_notification(favourites["group_key"])
    left = a.grouped_notifications()["notification_groups"]
    assert "favourite" not in {g["type"] for g in left} and len(left) == len(groups) - 1
    # v1 names the same groups.
    v1 = a.notifications(types=["favourite", "follow"]) + a.notifications(types=["follow"])
    assert {n["group_key"] for n in v1} == {follows["group_key"]}


def test_grouped_types_and_types(client, token, alice, busy_alice):
    headers = bearer(token(alice))
    found = client.get(
        "/api/v2/notifications?grouped_types[]=favourite&types[]=favourite&types[]=follow",
        **headers,
    ).json()["notification_groups"]
    assert sorted(g["type"] for g in found) == ["favourite", "follow", "follow"]
    assert [g["notifications_count"] for g in found if g["type"] == "follow"] == [1, 1]
    assert all(g["group_key"].startswith("ungrouped-") for g in found if g["type"] == "follow")
    only = client.get("/api/v2/notifications?exclude_types[]=mention", **headers).json()
    assert "mention" not in {g["type"] for g in only["notification_groups"]}
    dave = busy_alice["dave"]["id"]
    by_dave = client.get(f"/api/v2/notifications?account_id={dave}", **headers).json()
    assert sorted(g["type"] for g in by_dave["notification_groups"]) == [
        "favourite", "follow_request"]  # fmt: skip
    full = client.get("/api/v2/notifications?expand_accounts=full", **headers).json()
    assert "partial_accounts" not in full
    assert client.get("/api/v2/notifications?expand_accounts=no", **headers).status_code == 422
    assert client.get("/api/v2/notifications?account_id=x", **headers).status_code == 422


def test_grouped_pages_skip_nothing(client, r, token, alice):
    for n in range(7):
        person = make_user(r, f"user{n}")
        post(r, person, f"@alice number {n}")  # seven groups of their own
    headers = bearer(token(alice))
    seen, url = [], "/api/v2/notifications?limit=3"
    while url:
        response = client.get(url, **headers)
        seen += response.json()["notification_groups"]
        match = re.search(r'<https?://[^/]+([^>]+)>; rel="next"', response.get("Link", ""))
        url = match.group(1) if match else None
    assert len(seen) == 7 and len({g["group_key"] for g in seen}) == 7
    ids = [int(g["most_recent_notification_id"]) for g in seen]
    assert ids == sorted(ids, reverse=True)
    # Upward from the oldest: the groups just above it, newest first.
    upward = client.get(f"/api/v2/notifications?limit=2&min_id={ids[-1]}", **headers).json()
    assert [int(g["most_recent_notification_id"]) for g in upward["notification_groups"]] == [
        ids[-3], ids[-2]]  # fmt: skip


def test_a_group_key_names_one_window(client, r, token, alice, bob):
    mine = post(r, alice, "Mine")
    likes.like(r, bob["id"], mine)
    score = notifications.events(r, alice["id"])[0].score
    headers = bearer(token(alice))
    key = f"favourite-{mine}-{_window(score)}"
    assert client.get(f"/api/v2/notifications/{key}", **headers).status_code == 200
    for wrong in (f"favourite-{mine}-{_window(score) + 1}", f"reblog-{mine}-{_window(score)}",
                  "favourite-x-1", "nothing", "ungrouped-12", f"follow-{mine}-1"):  # fmt: skip
        response = client.get(f"/api/v2/notifications/{wrong}", **headers)
        assert response.status_code == 404, wrong
        assert response.json() == {"error": "Record not found"}
    dismissed = client.post(f"/api/v2/notifications/{key}/dismiss", **headers)
    assert dismissed.status_code == 200
    assert client.post(f"/api/v2/notifications/{key}/dismiss", **headers).status_code == 404


def test_unread_count_counts_groups_above_the_marker(client, r, token, alice, bob, carol):
    mine = post(r, alice, "Mine")
    likes.like(r, bob["id"], mine)
    likes.like(r, carol["id"], mine)
    post(r, bob, "@alice hi")
    headers = bearer(token(alice))
    assert client.get("/api/v2/notifications/unread_count", **headers).json() == {"count": 2}
    assert client.get("/api/v2/notifications/unread_count?limit=1", **headers).json() == {
        "count": 1}  # fmt: skip
    newest = notifications.events(r, alice["id"])[0].score
    notifications.mark_read(r, alice["id"], newest)
    assert client.get("/api/v2/notifications/unread_count", **headers).json() == {"count": 0}


def test_grouped_notifications_need_their_scope(client, token, alice):
    headers = bearer(token(alice, ["read:statuses"]))
    assert client.get("/api/v2/notifications", **headers).status_code == 403
    assert client.get("/api/v2/notifications").status_code == 401
    read_only = bearer(token(alice, ["read"]))
    assert client.post("/api/v2/notifications/follow-1/dismiss", **read_only).status_code == 403


def test_a_page_of_groups_costs_round_trips_not_per_notification(
    client, r, token, alice, round_trips, redis_backend
):
    mine = post(r, alice, "Mine")
    headers = bearer(token(alice))
    costs = []
    for count in (3, 30):
        for n in range(count):
            person = make_user(r, f"fan{count}x{n}")
            likes.like(r, person["id"], mine)
            post(r, person, f"@alice hi {n}")
        client.get("/api/v2/notifications", **headers)  # scripts loaded, authors remembered
        before = round_trips["n"]
        shown = client.get("/api/v2/notifications", **headers).json()
        assert len(shown["notification_groups"]) > 1
        costs.append(round_trips["n"] - before)
    assert costs[0] == costs[1], costs
    if not redis_backend.cluster:  # a cluster's pipelines cost one round trip per node
        assert costs[1] <= 4  # the token, then one read of notices (events, statuses, actors)


def test_the_kinds_later_issues_add_come_ungrouped(client, r, token, alice, bob):
    """``update`` (a status one reblogged was edited) and ``poll`` (a poll one voted in
    ended), written as those issues' actions will write them: listed as their own
    types, each alone, in v1 and v2."""
    theirs = post(r, bob, "Edited later")
    now = int(time.time() * 1000)
    pipe = r.pipeline(transaction=False)
    for n, kind in enumerate(("update", "poll")):
        event = notifications.member(kind, bob["id"], theirs, theirs)
        notifications.queue_notify(pipe, alice["id"], event, now + n)
    pipe.execute()
    headers = bearer(token(alice))
    groups = client.get("/api/v2/notifications", **headers).json()["notification_groups"]
    assert sorted(g["type"] for g in groups) == ["poll", "update"]
    assert all(g["group_key"].startswith("ungrouped-") for g in groups)
    assert all(g["status_id"] == str(theirs) for g in groups)
    only = client.get("/api/v2/notifications?types[]=poll", **headers).json()
    assert [g["type"] for g in only["notification_groups"]] == ["poll"]
    v1 = client.get("/api/v1/notifications", **headers).json()
    assert sorted(n["type"] for n in v1) == ["poll", "update"]

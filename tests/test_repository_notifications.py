"""Notifications in the repository: written with posting and following, taken back with
deleting and unfollowing, grouped, capped, counted exactly under racing threads."""

import asyncio
import json
import threading

import pytest

from socialsite.repository import client as redis_client
from socialsite.repository import (
    conversations,
    graph,
    keys,
    notifications,
    statuses,
)
from socialsite.repository.limits import MENTIONS_NOTIFIED, NOTIFICATION_GROUP_MS
from tests.support.helpers import make_user, post


def kinds(r, user):
    """(kind, actor login... ) of the user's events, newest first."""
    return [(e.kind, e.actor, e.status, e.subject) for e in notifications.events(r, user["id"])]


def unread(r, user):
    return notifications.unread(r, user["id"]).count


def page(r, user, **options):
    return conversations.notifications_page(r, user["id"], **options)


# --- written and taken back ---------------------------------------------------------------


def test_a_follow_notifies_and_an_unfollow_takes_it_back(r, alice, bob):
    graph.follow(r, alice["id"], bob["id"])
    assert kinds(r, bob) == [("follow", alice["id"], 0, 0)]
    assert unread(r, bob) == 1
    graph.follow(r, alice["id"], bob["id"])  # again: nothing new
    assert unread(r, bob) == 1
    graph.unfollow(r, alice["id"], bob["id"])
    assert kinds(r, bob) == [] and unread(r, bob) == 0


def test_a_reply_notifies_the_author_replied_to_and_deleting_it_takes_that_back(r, alice, bob):
    parent = post(r, alice, "parent")
    sid = statuses.post_status(r, bob["id"], "@alice hi", in_reply_to=parent)
    assert kinds(r, alice) == [("reply", bob["id"], sid, parent)]
    own = statuses.post_status(r, alice["id"], "myself", in_reply_to=parent)
    assert len(kinds(r, alice)) == 1  # replying to oneself notifies nobody
    statuses.delete_status(r, bob["id"], sid)
    statuses.delete_status(r, alice["id"], own)
    assert kinds(r, alice) == [] and unread(r, alice) == 0


def test_mentions_notify_at_most_ten_and_never_the_author_or_the_user_replied_to(r, alice, bob):
    people = [make_user(r, f"user{n}") for n in range(MENTIONS_NOTIFIED + 2)]
    parent = post(r, bob, "parent")
    mentioned = [alice["id"], bob["id"], people[0]["id"], *(p["id"] for p in people)]
    sid = statuses.post_status(
        r, alice["id"], "hello all", in_reply_to=parent, mentioned_uids=mentioned
    )
    notified = [p for p in people if kinds(r, p)]
    assert notified == people[:MENTIONS_NOTIFIED]
    assert kinds(r, people[0]) == [("mention", alice["id"], sid, sid)]
    assert kinds(r, alice) == []
    assert [k[0] for k in kinds(r, bob)] == ["reply"]  # the reply, not also a mention
    statuses.delete_status(r, alice["id"], sid)
    assert not any(kinds(r, p) for p in people)


def test_a_mention_of_nobody_writes_nothing(r, alice):
    statuses.post_status(r, alice["id"], "hi", mentioned_uids=[424242])
    assert not r.exists(keys.notifications(424242))


# --- counting ---------------------------------------------------------------------------------


def test_the_unread_count_is_exact_with_notifications_made_and_undone_in_racing_threads(r, alice):
    parent = post(r, alice, "popular")
    people = [make_user(r, f"fan{n}") for n in range(8)]

    def busy(person):
        for i in range(10):
            sid = statuses.post_status(r, person["id"], f"{i}", in_reply_to=parent)
            if i % 2:
                statuses.delete_status(r, person["id"], sid)
        graph.follow(r, person["id"], alice["id"])
        if person["id"] % 2:
            graph.unfollow(r, person["id"], alice["id"])

    threads = [threading.Thread(target=busy, args=(person,)) for person in people]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    stored = r.zcard(keys.notifications(alice["id"]))
    assert stored == 8 * 5 + 4
    assert unread(r, alice) == stored


def test_marking_read_clears_the_count_and_later_ones_are_unread(r, alice, bob, carol):
    graph.follow(r, bob["id"], alice["id"])
    newest = notifications.events(r, alice["id"])[0].score
    assert notifications.mark_read(r, alice["id"], newest)[0] == 0
    graph.follow(r, carol["id"], alice["id"])
    assert unread(r, alice) == 1
    # Marking an older score changes nothing: the mark never moves back.
    assert notifications.mark_read(r, alice["id"], newest - 10)[0] == 1


def test_a_new_notification_scores_above_the_read_mark_whatever_the_clock(r, alice, bob):
    r.hset(keys.notifications_state(alice["id"]), "read", 10**15)  # a mark in the future
    graph.follow(r, bob["id"], alice["id"])
    assert notifications.events(r, alice["id"])[0].score > 10**15
    assert unread(r, alice) == 1


def test_a_user_keeps_the_newest_notifications_only(r, alice):
    people = [make_user(r, f"fan{n}") for n in range(6)]
    for person in people:
        graph.follow(r, person["id"], alice["id"], notifications_kept=4)
    assert [e.actor for e in notifications.events(r, alice["id"])] == [
        p["id"] for p in people[::-1][:4]
    ]
    assert unread(r, alice) == 4


def test_hidden_actors_are_left_out_of_the_count_and_the_page(r, alice, bob, carol, monkeypatch):
    hidden_key = f"test-hidden:{keys.shard(alice['id'])}"
    monkeypatch.setattr(
        keys, "hidden_actors", lambda uid: [hidden_key] if uid == alice["id"] else []
    )
    r.sadd(hidden_key, bob["id"])
    graph.follow(r, bob["id"], alice["id"])
    graph.follow(r, carol["id"], alice["id"])
    assert unread(r, alice) == 1
    r.srem(hidden_key, bob["id"])
    assert notifications.recount(r, alice["id"])[0] == 2
    shown = page(r, alice, hidden={carol["id"]}).entries
    assert [[a["login"] for a in e.actors] for e in shown] == [["bob"]]


def test_each_change_publishes_the_new_count_for_live_pages(r, redis_backend, alice, bob):
    async def message_of_version():
        ar = redis_client.connect_pubsub(redis_backend.url)
        pubsub = ar.pubsub(ignore_subscribe_messages=True)
        await pubsub.subscribe(keys.NOTIFICATION_CHANNEL)
        r.hset(keys.notifications_state(alice["id"]), "version", 1_000_000)
        try:
            await asyncio.to_thread(graph.follow, r, bob["id"], alice["id"])
            version = notifications.unread(r, alice["id"]).version
            while True:
                # On a cluster messages of earlier tests (whose users had the same
                # ids) may still be on their way between nodes: this one's version
                # starts where theirs never got.
                message = await pubsub.get_message(timeout=1.0)
                if message and json.loads(message["data"])["version"] == version:
                    return json.loads(message["data"]), version
        finally:
            await pubsub.aclose()
            await ar.aclose()

    message, version = asyncio.run(asyncio.wait_for(message_of_version(), 10))
    assert message == {"unread": alice["id"], "count": 1, "version": version}


# --- the page -----------------------------------------------------------------------------------


def test_replies_to_one_status_within_a_day_are_one_entry(r, alice, bob, carol):
    parent = post(r, alice, "parent")
    other = post(r, alice, "other")
    statuses.post_status(r, bob["id"], "one", in_reply_to=parent)
    statuses.post_status(r, carol["id"], "two", in_reply_to=parent)
    last = statuses.post_status(r, bob["id"], "three", in_reply_to=parent)
    statuses.post_status(r, carol["id"], "elsewhere", in_reply_to=other)
    entries = page(r, alice).entries
    assert [(e.kind, e.count) for e in entries] == [("reply", 1), ("reply", 3)]
    grouped = entries[1]
    assert [a["login"] for a in grouped.actors] == ["bob", "carol"]
    assert grouped.status["id"] == last and grouped.subject["id"] == parent
    assert all(e.unread for e in entries)
    # Seen now: marked, and the same page again shows nothing new.
    assert unread(r, alice) == 0
    assert not any(e.unread for e in page(r, alice).entries)
    # A page of one kind, or an older page, marks nothing.
    statuses.post_status(r, bob["id"], "four", in_reply_to=parent)
    page(r, alice, kind="reply")
    page(r, alice, before=entries[0].newest)
    assert unread(r, alice) == 1


def test_groups_split_a_day_apart():
    day = NOTIFICATION_GROUP_MS
    events = [
        notifications.Event("follow", 3, 0, 0, 3 * day + 10),
        notifications.Event("follow", 2, 0, 0, 2 * day + 5),
        notifications.Event("reply", 9, 7, 1, 2 * day),
        notifications.Event("follow", 1, 0, 0, 2 * day - 1),
    ]
    groups = notifications.group(events)
    assert [(g.kind, [e.actor for e in g.events]) for g in groups] == [
        ("follow", [3]),
        ("follow", [2, 1]),
        ("reply", [9]),
    ]


def test_a_page_lists_one_kind_and_pages_by_cursor(r, alice):
    people = [make_user(r, f"fan{n}") for n in range(4)]
    for person in people:
        statuses.post_status(r, person["id"], "hi", mentioned_uids=[alice["id"]])
        graph.follow(r, person["id"], alice["id"])
    mentions = page(r, alice, kind="mention", count=3)
    assert [e.kind for e in mentions.entries] == ["mention"] * 3
    rest = page(r, alice, kind="mention", count=3, before=mentions.next_cursor)
    assert [e.kind for e in rest.entries] == ["mention"] and rest.next_cursor is None
    everything = page(r, alice)
    assert [e.kind for e in everything.entries] == [
        "follow",
        "mention",
        "mention",
        "mention",
        "mention",
    ]
    assert everything.entries[0].count == 4


def test_a_notification_whose_actor_or_status_is_gone_disappears(r, alice, bob, carol):
    graph.follow(r, bob["id"], alice["id"])
    sid = statuses.post_status(r, carol["id"], "hi @alice", mentioned_uids=[alice["id"]])
    # Gone without the undoing (a crash, an account removed by other means).
    r.delete(keys.user(bob["id"]), keys.status(sid))
    from socialsite import memory

    memory.forget_all()
    events = notifications.events(r, alice["id"])
    shown = page(r, alice)
    assert shown.entries == []
    assert sorted(shown.gone) == sorted(e.member for e in events)
    # Seeing the page took them out.
    assert notifications.events(r, alice["id"]) == [] and unread(r, alice) == 0
    assert shown.unread.count == 0


@pytest.mark.parametrize("member", ["x", "follow:a:0:0", "follow:1:2", ""])
def test_a_member_this_code_cannot_read_is_skipped(r, alice, member):
    r.zadd(keys.notifications(alice["id"]), {member: 1, "follow:2:0:0": 2})
    assert [e.actor for e in notifications.events(r, alice["id"])] == [2]

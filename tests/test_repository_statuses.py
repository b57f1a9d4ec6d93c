"""Posting, fan-out and deleting (sections 8.1.2 and 8.4), plus counts under concurrency."""

import threading
import time

from socialsite.repository import fanout, graph, keys, statuses, timelines, users, worker
from socialsite.repository.limits import DELETED_NOTE_MS, STATUS_TRUST_SECONDS
from tests.support.helpers import make_user


def test_post_stores_the_status_with_its_fields(r, alice):
    sid = statuses.post_status(r, alice["id"], "hello", location="48.85,2.35")
    status = statuses.get_status(r, sid)
    assert status["message"] == "hello"
    assert status["uid"] == alice["id"]
    assert status["login"] == "alice"
    assert status["location"] == "48.85,2.35"
    assert status["id"] == sid
    assert status["posted"] > 0


def test_post_by_an_unknown_user_stores_nothing(r):
    assert statuses.post_status(r, 12345, "ghost") is None
    assert r.exists(keys.profile(12345)) == 0


def test_post_reaches_profile_own_home_and_counts(r, alice):
    sid = statuses.post_status(r, alice["id"], "hello")
    assert timelines.profile_ids(r, alice["id"]) == [sid]
    assert timelines.home_ids(r, alice["id"]) == [sid]
    assert users.get_user(r, alice["id"])["posts"] == 1


def test_post_reaches_followers_homes_but_not_others(r, alice, bob, carol):
    graph.follow(r, bob["id"], alice["id"])
    sid = statuses.post_status(r, alice["id"], "hello followers")
    assert timelines.home_ids(r, bob["id"]) == [sid]
    assert timelines.home_ids(r, carol["id"]) == []


def test_followers_beyond_the_inline_limit_are_reached_too(r, alice):
    fans = [make_user(r, f"fan{i}") for i in range(7)]
    for fan in fans:
        graph.follow(r, fan["id"], alice["id"])
    sid = statuses.post_status(r, alice["id"], "to everyone", inline_limit=3)
    assert [timelines.home_ids(r, fan["id"]) for fan in fans] == [[sid]] * 3 + [[]] * 4
    assert worker.work_until_idle(r) >= 2  # the plan, then its deliver job
    for fan in fans:
        assert timelines.home_ids(r, fan["id"]) == [sid]


def test_delivery_skips_a_follower_who_unfollowed_meanwhile(r, alice, bob):
    graph.follow(r, bob["id"], alice["id"])
    sid = statuses.post_status(r, alice["id"], "hello")
    graph.unfollow(r, bob["id"], alice["id"])
    # A late batch of the fan-out still lists bob: deliver.lua must refuse it.
    assert fanout.deliver(r, alice["id"], sid, [bob["id"]]) == 0
    assert timelines.home_ids(r, bob["id"]) == []


def test_delivering_twice_leaves_one_entry(r, alice, bob):
    graph.follow(r, bob["id"], alice["id"])
    sid = statuses.post_status(r, alice["id"], "hello")
    fanout.deliver(r, alice["id"], sid, [bob["id"]])
    assert timelines.home_ids(r, bob["id"]) == [sid]


def test_delete_removes_the_status_everywhere_and_uncounts_it(r, alice, bob):
    graph.follow(r, bob["id"], alice["id"])
    keep = statuses.post_status(r, alice["id"], "keep")
    gone = statuses.post_status(r, alice["id"], "regret")
    assert statuses.delete_status(r, alice["id"], gone) is statuses.DeleteResult.DELETED
    assert statuses.get_status(r, gone) is None
    assert timelines.profile_ids(r, alice["id"]) == [keep]
    assert timelines.home_ids(r, alice["id"]) == [keep]
    worker.work_until_idle(r)  # followers' timelines are cleaned as deferred work
    assert timelines.home_ids(r, bob["id"]) == [keep]
    assert users.get_user(r, alice["id"])["posts"] == 1


def test_deleting_someone_elses_status_is_refused_and_changes_nothing(r, alice, bob):
    sid = statuses.post_status(r, alice["id"], "mine")
    assert statuses.delete_status(r, bob["id"], sid) is statuses.DeleteResult.NOT_OWNER
    assert statuses.get_status(r, sid)["message"] == "mine"
    assert users.get_user(r, alice["id"])["posts"] == 1


def test_deleting_an_unknown_status_says_so(r, alice):
    assert statuses.delete_status(r, alice["id"], 999) is statuses.DeleteResult.NOT_FOUND


def test_deleting_twice_uncounts_once(r, alice):
    sid = statuses.post_status(r, alice["id"], "once")
    statuses.post_status(r, alice["id"], "stays")
    results = []
    start = threading.Barrier(4)

    def delete():
        start.wait()
        results.append(statuses.delete_status(r, alice["id"], sid))

    threads = [threading.Thread(target=delete) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert statuses.DeleteResult.DELETED in results
    assert users.get_user(r, alice["id"])["posts"] == 1


def test_post_count_stays_exact_under_concurrent_posts_and_deletes(r, alice):
    survivors = []
    lock = threading.Lock()

    def post_and_delete(i):
        def action():
            for j in range(10):
                sid = statuses.post_status(r, alice["id"], f"{i}-{j}")
                if j % 3 == 0:
                    statuses.delete_status(r, alice["id"], sid)
                else:
                    with lock:
                        survivors.append(sid)

        return action

    threads = [threading.Thread(target=post_and_delete(i)) for i in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert users.get_user(r, alice["id"])["posts"] == len(survivors)
    assert sorted(timelines.profile_ids(r, alice["id"])) == sorted(survivors)


def test_a_deleted_status_never_shows_even_before_cleanup(r, alice, bob):
    graph.follow(r, bob["id"], alice["id"])
    sid = statuses.post_status(r, alice["id"], "soon gone")
    # As if the cleanup of followers' timelines had not happened yet: only the hash goes.
    r.delete(keys.status(sid))
    assert sid in timelines.home_ids(r, bob["id"])
    assert timelines.home_page(r, bob["id"]).items == []


# --- the per-process memory of statuses (statuses.get_statuses) -----------------------


def test_a_remembered_status_that_is_deleted_is_not_shown(r, alice, bob):
    graph.follow(r, bob["id"], alice["id"])
    kept = statuses.post_status(r, alice["id"], "kept")
    gone = statuses.post_status(r, alice["id"], "soon gone")
    assert [s["id"] for s in timelines.home_page(r, bob["id"]).items] == [gone, kept]
    assert gone in statuses._known  # read once: remembered
    statuses.delete_status(r, alice["id"], gone)
    # No worker ran: the id is still in bob's timeline, and in this process's memory.
    assert gone in timelines.home_ids(r, bob["id"])
    assert [s["id"] for s in timelines.home_page(r, bob["id"]).items] == [kept]
    assert [s["id"] for s in timelines.profile_page(r, alice["id"]).items] == [kept]


def test_a_remembered_status_is_confirmed_again_once_trusted_long_enough(
    r, alice, bob, monkeypatch
):
    graph.follow(r, bob["id"], alice["id"])
    sid = statuses.post_status(r, alice["id"], "read, then its hash goes")
    timelines.home_page(r, bob["id"])
    r.delete(keys.status(sid))  # no deletion note: only time makes the memory ask again
    later = time.monotonic() + STATUS_TRUST_SECONDS + 1
    monkeypatch.setattr(statuses.time, "monotonic", lambda: later)
    assert timelines.home_page(r, bob["id"]).items == []
    assert sid not in statuses._known


def test_a_delete_is_noted_in_every_shard_for_a_while(r, alice):
    first = statuses.post_status(r, alice["id"], "first")
    statuses.delete_status(r, alice["id"], first)
    for key in keys.all_deleted_statuses():
        assert r.zscore(key, first) is not None
        assert 0 < r.pttl(key) <= DELETED_NOTE_MS
    # A later delete drops notes older than DELETED_NOTE_MS.
    stale = int(time.time() * 1000) - DELETED_NOTE_MS - 1
    for key in keys.all_deleted_statuses():
        r.zadd(key, {first: stale})
    second = statuses.post_status(r, alice["id"], "second")
    statuses.delete_status(r, alice["id"], second)
    for key in keys.all_deleted_statuses():
        assert [int(sid) for sid in r.zrange(key, 0, -1)] == [second]


def test_home_pages_skip_noted_deletions_across_cursors(r, alice, bob):
    graph.follow(r, bob["id"], alice["id"])
    sids = [statuses.post_status(r, alice["id"], f"status {i}") for i in range(7)]
    newest_first = sids[::-1]
    timelines.home_page(r, bob["id"], count=7)  # all remembered
    for sid in (sids[5], sids[2], sids[1]):
        statuses.delete_status(r, alice["id"], sid)
    shown, cursor = [], None
    while True:
        page = timelines.home_page(r, bob["id"], before=cursor, count=2)
        assert len(page.items) == 2 or page.next_cursor is None
        shown += [status["id"] for status in page.items]
        if page.next_cursor is None:
            break
        cursor = page.next_cursor
    assert shown == [sid for sid in newest_first if sid not in (sids[5], sids[2], sids[1])]


def test_remembered_and_new_statuses_come_back_in_the_order_asked(r, alice):
    first = statuses.post_status(r, alice["id"], "one")
    statuses.get_statuses(r, [first])
    second = statuses.post_status(r, alice["id"], "two")
    third = statuses.post_status(r, alice["id"], "three")
    found = statuses.get_statuses(r, [third, first, 999_999, second])
    assert [s["message"] for s in found] == ["three", "one", "two"]
    assert found == [statuses.get_status(r, sid) for sid in (third, first, second)]


def test_what_get_statuses_returns_is_the_callers_to_change(r, alice):
    sid = statuses.post_status(r, alice["id"], "mine")
    statuses.get_statuses(r, [sid])
    statuses.get_statuses(r, [sid])[0]["message"] = "changed by a caller"
    assert statuses.get_statuses(r, [sid])[0]["message"] == "mine"


def test_after_a_flush_a_reused_id_shows_the_new_status(r, alice):
    from socialsite.repository import client

    sid = statuses.post_status(r, alice["id"], "before the flush")
    statuses.get_statuses(r, [sid])
    client.flush_all(r)
    again = make_user(r, "alice")
    assert statuses.post_status(r, again["id"], "after the flush") == sid
    assert statuses.get_statuses(r, [sid])[0]["message"] == "after the flush"

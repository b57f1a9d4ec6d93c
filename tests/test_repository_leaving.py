"""Deleting an account (repository/leaving.py): every key of the user goes, the counts
of the people around them are right, the login stays reserved for 30 days; and the
export's pages."""

import re
import time

from socialsite.repository import (
    blocks,
    graph,
    jobs,
    keys,
    leaving,
    limits,
    markers,
    moderation,
    sessions,
    statuses,
    timelines,
    users,
    worker,
)
from tests.support.helpers import make_user, post


def keys_of(r, uid):
    """Every key in Redis that belongs to user ``uid``: their shard tag, then their id."""
    mine = re.compile(rf"\{{s\d+\}}:{int(uid)}(?:[.:]|$)")
    return sorted(key for key in r.scan_iter(count=1000) if mine.search(key))


def test_blocks_mutes_notifications_and_replies_leave_with_the_account(r, alice, bob, carol):
    jobs.ensure_group(r)
    dave = make_user(r, "dave")
    graph.follow(r, bob["id"], alice["id"])  # a notification for alice
    parent = post(r, bob, "bob's")
    statuses.post_status(r, alice["id"], "@bob a reply", in_reply_to=parent)
    blocks.block(r, alice["id"], carol["id"])
    blocks.block(r, dave["id"], alice["id"])
    blocks.mute(r, alice["id"], bob["id"], duration_ms=3_600_000)
    assert leaving.delete_account(r, alice["id"]) is True
    worker.work_until_idle(r)
    assert keys_of(r, alice["id"]) == []
    assert not blocks.is_blocked_either_way(r, carol["id"], alice["id"])
    assert blocks.hidden_authors(r, carol["id"]) == set()
    assert blocks.hidden_authors(r, dave["id"]) == set()
    # The others' notes about her are gone too: no hiding note names her.
    assert [key for key in r.scan_iter(match="hiding:*")] == []


def count(r, user, field):
    return users.get_user(r, user["id"])[field]


def network(r, alice, bob, carol):
    """alice follows bob and carol, both follow her; everyone has posted."""
    for other in (bob, carol):
        graph.follow(r, alice["id"], other["id"])
        graph.follow(r, other["id"], alice["id"])
    sids = [post(r, alice, f"alice {i}") for i in range(3)]
    post(r, bob, "bob's")
    post(r, carol, "carol's")
    return sids


def test_deleting_an_account_removes_every_key_of_it(r, alice, bob, carol):
    jobs.ensure_group(r)
    sids = network(r, alice, bob, carol)
    # Keys of every kind: sessions, a posting key, a report about her, a note.
    session_key = sessions.key_naming_user(alice["id"], "s" * 32)
    sessions.save(r, session_key, "{}", 3600, must_create=True)
    statuses.post_status(r, alice["id"], "by form", posting_key="k" * 22)
    moderation.file_report(r, bob, alice, "spam", "", [sids[0]])
    moderation.add_moderator(r, alice["id"])
    markers.set_home(r, alice["id"], sids[0])  # her read marker (/api/v1/markers)
    assert len(keys_of(r, alice["id"])) >= 10
    bob_keys_before = keys_of(r, bob["id"])

    assert leaving.delete_account(r, alice["id"]) is True
    worker.work_until_idle(r)  # the queued job, and the followers' refills

    assert keys_of(r, alice["id"]) == []
    assert users.get_user_id(r, "alice") is None
    assert all(statuses.get_status(r, sid) is None for sid in sids)
    assert sessions.load(r, session_key) is None
    assert moderation.open_reports_page(r).items == []
    assert moderation.moderators(r) == []
    # The others lose nothing of theirs but her: bob's lists held only her. Her
    # unfollowing him left a note for fan-outs of his in flight, which expires.
    # Her follow's notification, taken back, was the only one bob had.
    gone = {keys.followers(bob["id"]), keys.following(bob["id"]), keys.notifications(bob["id"])}
    note = keys.unfollowed(alice["id"], bob["id"])
    assert keys_of(r, bob["id"]) == sorted(
        [key for key in bob_keys_before if key not in gone] + [note]
    )
    assert 0 < r.pttl(note) <= limits.UNFOLLOW_MEMORY_MS
    assert [s["message"] for s in timelines.home_page(r, bob["id"]).items] == ["bob's"]


def test_counts_are_right_as_soon_as_the_request_ends(r, alice, bob, carol):
    network(r, alice, bob, carol)
    assert (count(r, bob, "followers"), count(r, bob, "following")) == (1, 1)

    assert leaving.delete_account(r, alice["id"]) is True  # small: done in the request

    for other in (bob, carol):
        assert (count(r, other, "followers"), count(r, other, "following")) == (0, 0)
        assert graph.follower_ids(r, other["id"]) == set()
        assert graph.following_ids(r, other["id"]) == set()
        # Her statuses left their home timelines with the unfollow.
        assert len(timelines.home_ids(r, other["id"])) == 1


def test_a_big_account_is_finished_by_the_workers(r, alice):
    jobs.ensure_group(r)
    fans = [make_user(r, f"fan{i}") for i in range(12)]
    idols = [make_user(r, f"idol{i}") for i in range(6)]
    for fan in fans:
        graph.follow(r, fan["id"], alice["id"])
    for idol in idols:
        graph.follow(r, alice["id"], idol["id"])
    for i in range(15):
        post(r, alice, f"status {i}")

    # A budget of 5 units in the request: the rest is the job's.
    assert leaving.delete_account(r, alice["id"], inline_budget=5) is False
    assert users.is_hidden(users.get_user(r, alice["id"]))  # hidden meanwhile
    assert users.get_user_id(r, "alice") is None
    assert jobs.backlog(r) >= 1

    worker.work_until_idle(r)
    assert keys_of(r, alice["id"]) == []
    assert all(count(r, fan, "following") == 0 for fan in fans)
    assert all(count(r, idol, "followers") == 0 for idol in idols)


def test_a_deletion_run_in_small_steps_and_repeated_does_nothing_twice(r, alice, bob, carol):
    network(r, alice, bob, carol)
    leaving.begin_deletion(r, alice["id"])
    runs = 0
    while not leaving.continue_deletion(r, alice["id"], budget=1):
        runs += 1
        assert runs < 50
    assert leaving.continue_deletion(r, alice["id"], budget=1)  # again: nothing left
    assert keys_of(r, alice["id"]) == []
    for other in (bob, carol):
        assert (count(r, other, "followers"), count(r, other, "following")) == (0, 0)


def test_a_live_account_is_never_deleted_by_a_stray_job(r, alice, bob):
    graph.follow(r, bob["id"], alice["id"])
    post(r, alice, "still here")
    assert leaving.continue_deletion(r, alice["id"], budget=100) is None
    jobs.ensure_group(r)
    jobs.enqueue(r, leaving.leave_job(alice["id"]))
    worker.work_until_idle(r)
    assert users.get_user(r, alice["id"])["posts"] == 1
    assert graph.follower_ids(r, alice["id"]) == {bob["id"]}


def test_deleting_nobody_does_nothing(r):
    assert leaving.delete_account(r, 4242) is None


def test_the_steps_end_with_the_user_keys():
    assert leaving.DELETION_STEPS[-1] is leaving.delete_user_keys
    steps = leaving.DELETION_STEPS
    # While statuses exist, for unfollow to find them in followers' homes.
    assert steps.index(leaving.unfollow_followers) < steps.index(leaving.delete_statuses)
    # In the request, which deletes the files it lists right after.
    assert steps[0] is leaving.forget_pictures


def test_the_login_is_reserved_for_30_days(r, alice):
    now = time.time()
    leaving.delete_account(r, alice["id"], now=now)
    free_at = now + limits.LOGIN_RESERVED_SECONDS
    assert users.login_free_at(r, "ALICE", now=now) == free_at
    assert users.create_user(r, "Alice", "Another Alice", "hash", now=now) is None
    a_day_early = free_at - 24 * 3600
    assert users.create_user(r, "alice", "Another Alice", "hash", now=a_day_early) is None
    assert users.get_user_id(r, "alice") is None  # the refused sign-ups left nothing

    uid = users.create_user(r, "alice", "Another Alice", "hash", now=free_at + 1)
    assert uid is not None and uid != alice["id"]
    assert users.login_free_at(r, "alice", now=free_at + 1) is None


def test_expired_reservations_are_dropped_by_later_ones(r):
    users.reserve_login(r, "old", 10, now=1000)
    users.reserve_login(r, "new", 10, now=2000)
    assert r.zrange(keys.RESERVED_LOGINS, 0, -1) == ["new"]


def test_the_login_stays_if_someone_else_has_it_meanwhile(r, alice):
    assert not users.release_login(r, "alice", alice["id"] + 1)
    assert users.get_user_id(r, "alice") == alice["id"]


# --- export -------------------------------------------------------------------------


def test_the_export_reads_page_by_page_in_order(r, alice, bob, carol):
    sids = [post(r, alice, f"status {i}") for i in range(7)]
    graph.follow(r, alice["id"], bob["id"])
    graph.follow(r, alice["id"], carol["id"])
    graph.follow(r, bob["id"], alice["id"])

    exported = list(leaving.export_statuses(r, alice["id"], chunk=3))
    assert [s["id"] for s in exported] == sids[::-1]
    assert exported[0]["message"] == "status 6"
    following = list(leaving.export_following(r, alice["id"], chunk=1))
    assert [p["login"] for p in following] == ["carol", "bob"]
    assert all(p["since"] > 0 and p["name"] for p in following)
    assert [p["login"] for p in leaving.export_followers(r, alice["id"])] == ["bob"]
    assert list(leaving.export_statuses(r, bob["id"])) == []

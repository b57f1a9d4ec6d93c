"""Reposts: the repost as data, its fan-out, and a home timeline that shows a status once
over all its entries, whatever number of reposts bring it (reposts.py, lua/_reposts.lua)."""

import threading

import pytest

from socialsite.repository import (
    blocks,
    fanout,
    graph,
    jobs,
    keys,
    leaving,
    notifications,
    privacy,
    reposts,
    statuses,
    timelines,
    worker,
)
from socialsite.repository.reposts import RepostResult
from tests.support.helpers import make_user


@pytest.fixture
def dave(r):
    return make_user(r, "dave", "Dave Diver")


def home_entries(r, uid):
    return timelines.home_ids(r, uid)


def shown(r, uid):
    """The ids of the statuses a home page shows, newest first, with their headers."""
    page = timelines.home_page(r, uid, count=100)
    return [
        (s["id"], s.get("reposted_by", {}).get("login"), s.get("reposted_others"))
        for s in page.items
    ]


def count(r, sid):
    return int(r.hget(keys.status_counts(sid), "reposts") or 0)


def follow_all(r, follower, *others):
    for other in others:
        graph.follow(r, follower["id"], other["id"])


def test_a_repost_reaches_the_reposters_followers_under_its_header(r, alice, bob, carol):
    follow_all(r, carol, bob)
    sid = statuses.post_status(r, alice["id"], "worth sharing")
    result, orig = reposts.repost(r, bob["id"], sid)
    assert (result, orig) == (RepostResult.REPOSTED, sid)
    assert shown(r, carol["id"]) == [(sid, "bob", 0)]
    assert count(r, sid) == 1
    assert r.zscore(keys.reposts(sid), bob["id"]) is not None
    rid = int(r.zscore(keys.reposted(bob["id"]), sid))
    assert r.hgetall(keys.status(rid))["repost_of"] == str(sid)
    # At the top of bob's profile, as alice's status with bob's header.
    profile = timelines.profile_page(r, bob["id"])
    assert [(s["id"], s["reposted_by"]["login"]) for s in profile.items] == [(sid, "bob")]


def test_reposting_twice_changes_nothing_and_a_repost_of_a_repost_reposts_the_original(
    r, alice, bob, carol, dave
):
    follow_all(r, dave, carol)
    sid = statuses.post_status(r, alice["id"], "original")
    reposts.repost(r, bob["id"], sid)
    assert reposts.repost(r, bob["id"], sid)[0] is RepostResult.ALREADY_REPOSTED
    bobs = int(r.zscore(keys.reposted(bob["id"]), sid))
    assert reposts.repost(r, carol["id"], bobs) == (RepostResult.REPOSTED, sid)
    assert count(r, sid) == 2
    assert shown(r, dave["id"]) == [(sid, "carol", 0)]
    assert len(timelines.profile_ids(r, bob["id"])) == 1


def test_the_author_is_notified_and_the_notification_goes_with_the_undo(r, alice, bob):
    sid = statuses.post_status(r, alice["id"], "notice me")
    reposts.repost(r, bob["id"], sid)
    member = notifications.member("repost", bob["id"], sid, sid)
    assert r.zscore(keys.notifications(alice["id"]), member) is not None
    assert reposts.unrepost(r, bob["id"], sid) is RepostResult.UNREPOSTED
    assert r.zscore(keys.notifications(alice["id"]), member) is None
    assert reposts.unrepost(r, bob["id"], sid) is RepostResult.NOT_REPOSTED
    assert count(r, sid) == 0


def test_a_status_that_is_not_public_or_gone_or_blocked_is_refused(r, alice, bob, carol):
    sid = statuses.post_status(r, alice["id"], "soon private")
    privacy.set_private(r, alice["id"], True)
    # Not seen (bob does not follow her): as if it were not there.
    assert reposts.repost(r, bob["id"], sid)[0] is RepostResult.NOT_FOUND
    graph.follow(r, bob["id"], alice["id"])
    privacy.approve(r, alice["id"], bob["id"])
    assert reposts.repost(r, bob["id"], sid)[0] is RepostResult.NOT_PUBLIC
    graph.unfollow(r, bob["id"], alice["id"])
    privacy.set_private(r, alice["id"], False)
    blocks.block(r, alice["id"], bob["id"])
    assert reposts.repost(r, bob["id"], sid)[0] is RepostResult.NOT_FOUND  # she blocks him
    blocks.block(r, carol["id"], alice["id"])
    assert reposts.repost(r, carol["id"], sid)[0] is RepostResult.BLOCKED  # carol blocks her
    statuses.delete_status(r, alice["id"], sid)
    assert reposts.repost(r, bob["id"], sid)[0] is RepostResult.NOT_FOUND
    assert reposts.repost(r, bob["id"], 999_999)[0] is RepostResult.NOT_FOUND
    assert count(r, sid) == 0


def test_two_reposts_show_the_status_once_with_the_first_reposter_named(r, alice, bob, carol, dave):
    follow_all(r, dave, alice, bob, carol)
    sid = statuses.post_status(r, alice["id"], "popular")
    reposts.repost(r, bob["id"], sid)
    reposts.repost(r, carol["id"], sid)
    # Followed author: the original arrived first and stays where it is.
    assert home_entries(r, dave["id"]) == [sid]
    assert shown(r, dave["id"]) == [(sid, "bob", 1)]


def test_two_followed_users_repost_concurrently_one_entry(r, alice, dave):
    reposters = [make_user(r, f"reposter{i}") for i in range(8)]
    follow_all(r, dave, *reposters)
    sid = statuses.post_status(r, alice["id"], "everyone at once")
    barrier = threading.Barrier(len(reposters))

    def go(user):
        barrier.wait()
        reposts.repost(r, user["id"], sid)

    threads = [threading.Thread(target=go, args=(user,)) for user in reposters]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(home_entries(r, dave["id"])) == 1
    [(shown_id, _, others)] = shown(r, dave["id"])
    assert (shown_id, others) == (sid, 7)
    assert count(r, sid) == 8


def test_two_workers_delivering_two_reposts_to_one_home_at_once_make_one_entry(
    r, alice, bob, carol, dave
):
    follow_all(r, dave, bob, carol)
    sid = statuses.post_status(r, alice["id"], "deferred")
    reposts.repost(r, bob["id"], sid, inline_limit=0)
    reposts.repost(r, carol["id"], sid, inline_limit=0)
    assert home_entries(r, dave["id"]) == []
    jobs.ensure_group(r)
    batch = jobs.read(r, "w1", count=10)
    barrier = threading.Barrier(len(batch))

    def run(job):
        barrier.wait()
        for followup in worker.run_job(r, job):
            if followup["kind"] == "deliver":
                fanout.deliver_range(r, followup)

    threads = [threading.Thread(target=run, args=(job,)) for job in batch]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(home_entries(r, dave["id"])) == 1
    assert [(s, o) for s, _, o in shown(r, dave["id"])] == [(sid, 1)]


def test_the_original_arriving_after_a_repost_adds_no_second_entry(r, alice, bob, dave):
    follow_all(r, dave, alice, bob)
    sid = statuses.post_status(r, alice["id"], "late original", inline_limit=0)
    assert home_entries(r, dave["id"]) == []
    reposts.repost(r, bob["id"], sid)
    rid = int(r.zscore(keys.reposted(bob["id"]), sid))
    assert home_entries(r, dave["id"]) == [rid]
    worker.work_until_idle(r)  # the original's deferred fan-out, late
    assert home_entries(r, dave["id"]) == [rid]
    assert shown(r, dave["id"]) == [(sid, "bob", 0)]


def test_undoing_the_shown_repost_with_another_standing_keeps_the_status(
    r, alice, bob, carol, dave
):
    follow_all(r, dave, bob, carol)
    sid = statuses.post_status(r, alice["id"], "kept by carol")
    reposts.repost(r, bob["id"], sid)
    reposts.repost(r, carol["id"], sid)
    carols = int(r.zscore(keys.reposted(carol["id"]), sid))
    reposts.unrepost(r, bob["id"], sid)
    assert home_entries(r, dave["id"]) == [carols]
    assert shown(r, dave["id"]) == [(sid, "carol", 0)]
    reposts.unrepost(r, carol["id"], sid)
    assert home_entries(r, dave["id"]) == []


def test_undoing_the_last_repost_of_a_followed_authors_status_leaves_the_original(
    r, alice, bob, dave
):
    follow_all(r, dave, alice, bob)
    sid = statuses.post_status(r, alice["id"], "mine", inline_limit=0)
    reposts.repost(r, bob["id"], sid)
    reposts.unrepost(r, bob["id"], sid)
    assert home_entries(r, dave["id"]) == [sid]
    assert shown(r, dave["id"]) == [(sid, None, None)]


def test_unfollowing_the_only_reposter_takes_it_out_and_the_author_keeps_it(
    r, alice, bob, carol, dave
):
    follow_all(r, dave, bob)
    sid = statuses.post_status(r, alice["id"], "through bob")
    reposts.repost(r, bob["id"], sid)
    graph.unfollow(r, dave["id"], bob["id"], refill=False)
    assert home_entries(r, dave["id"]) == []
    # With the author followed, it stays as the original.
    follow_all(r, carol, alice, bob)
    assert shown(r, carol["id"]) == [(sid, "bob", 0)]
    graph.unfollow(r, carol["id"], bob["id"], refill=False)
    assert home_entries(r, carol["id"]) == [sid]
    assert shown(r, carol["id"]) == [(sid, None, None)]


def test_unfollowing_the_author_keeps_what_a_followed_reposter_brings(r, alice, bob, dave):
    follow_all(r, dave, alice, bob)
    sid = statuses.post_status(r, alice["id"], "author unfollowed")
    reposts.repost(r, bob["id"], sid)
    bobs = int(r.zscore(keys.reposted(bob["id"]), sid))
    graph.unfollow(r, dave["id"], alice["id"], refill=False)
    assert home_entries(r, dave["id"]) == [bobs]
    assert shown(r, dave["id"]) == [(sid, "bob", 0)]


def test_ones_own_status_reposted_does_not_come_back(r, alice, bob):
    follow_all(r, alice, bob)
    sid = statuses.post_status(r, alice["id"], "my own")
    reposts.repost(r, bob["id"], sid)
    assert home_entries(r, alice["id"]) == [sid]
    assert shown(r, alice["id"]) == [(sid, None, None)]


def test_a_follow_backfills_reposts_once_and_a_refill_brings_them_back(r, alice, bob, carol, dave):
    sid = statuses.post_status(r, alice["id"], "backfilled")
    reposts.repost(r, bob["id"], sid)
    reposts.repost(r, carol["id"], sid)
    follow_all(r, dave, bob, carol, alice)
    assert len(home_entries(r, dave["id"])) == 1
    [(shown_id, _, others)] = shown(r, dave["id"])
    assert (shown_id, others) == (sid, 1)
    graph.unfollow(r, dave["id"], alice["id"])
    worker.work_until_idle(r)  # the refill
    assert len(home_entries(r, dave["id"])) == 1
    assert [s for s, _, _ in shown(r, dave["id"])] == [sid]


def test_blocking_the_reposter_takes_the_repost_out(r, alice, bob, dave):
    follow_all(r, dave, bob)
    sid = statuses.post_status(r, alice["id"], "blocked reposter")
    reposts.repost(r, bob["id"], sid)
    blocks.mute(r, dave["id"], bob["id"])
    assert home_entries(r, dave["id"]) == []


def test_a_repost_of_a_hidden_author_is_left_out_at_read(r, alice, bob, dave):
    follow_all(r, dave, bob)
    sid = statuses.post_status(r, alice["id"], "muted author")
    reposts.repost(r, bob["id"], sid)
    blocks.mute(r, dave["id"], alice["id"])
    assert shown(r, dave["id"]) == []


def test_deleting_the_original_removes_every_repost_everywhere(r, alice, bob, carol, dave):
    follow_all(r, dave, alice, bob, carol)
    sid = statuses.post_status(r, alice["id"], "doomed")
    other = statuses.post_status(r, alice["id"], "survivor")
    reposts.repost(r, bob["id"], sid)
    reposts.repost(r, carol["id"], sid)
    reposts.repost(r, bob["id"], other)
    rids = [int(r.zscore(keys.reposted(u["id"]), sid)) for u in (bob, carol)]
    assert statuses.delete_status(r, alice["id"], sid) is statuses.DeleteResult.DELETED
    assert [s for s, _, _ in shown(r, dave["id"])] == [other]  # skipped at once
    worker.work_until_idle(r)
    assert home_entries(r, dave["id"]) == [other]
    for user in (bob, carol):
        assert r.zscore(keys.reposted(user["id"]), sid) is None
    assert timelines.profile_ids(r, carol["id"]) == []
    assert len(timelines.profile_ids(r, bob["id"])) == 1
    assert not r.exists(keys.reposts(sid), keys.status_counts(sid), *map(keys.status, rids))
    assert count(r, other) == 1


def test_a_large_repost_fan_out_and_its_undo_run_through_the_workers(r, alice, bob, carol):
    followers = [make_user(r, f"f{i}") for i in range(12)]
    for follower in followers:
        graph.follow(r, follower["id"], bob["id"])
    follow_all(r, followers[0], carol)
    sid = statuses.post_status(r, alice["id"], "wide")
    reposts.repost(r, carol["id"], sid)
    reposts.repost(r, bob["id"], sid, inline_limit=5)
    worker.work_until_idle(r)
    for follower in followers:
        assert len(home_entries(r, follower["id"])) == 1
    reposts.unrepost(r, bob["id"], sid, inline_limit=5)
    worker.work_until_idle(r)
    assert [len(home_entries(r, f["id"])) for f in followers] == [1] + [0] * 11


def test_a_repost_whose_request_died_before_its_hash_is_taken_back(r, alice, bob, monkeypatch):
    sid = statuses.post_status(r, alice["id"], "half done")

    def die(*args, **kwargs):
        raise ConnectionError("request died")

    monkeypatch.setattr(r, "hset", die)
    with pytest.raises(ConnectionError):
        reposts.repost(r, bob["id"], sid)
    monkeypatch.undo()
    assert statuses.finish_unfinished(r, grace_ms=0) == 1
    assert r.zscore(keys.reposted(bob["id"]), sid) is None
    assert timelines.profile_ids(r, bob["id"]) == []
    assert count(r, sid) == 0


def test_deleting_an_account_undoes_its_reposts(r, alice, bob, dave):
    follow_all(r, dave, bob)
    sid = statuses.post_status(r, alice["id"], "reposted by a leaver")
    reposts.repost(r, bob["id"], sid)
    assert leaving.delete_account(r, bob["id"], inline_budget=10_000) is True
    assert count(r, sid) == 0
    assert not r.exists(keys.reposted(bob["id"]), keys.profile_reposts(bob["id"]))
    assert home_entries(r, dave["id"]) == []


def test_reposters_are_listed_newest_first_and_paged(r, alice):
    sid = statuses.post_status(r, alice["id"], "listed")
    users_ = [make_user(r, f"u{i}") for i in range(5)]
    for user in users_:
        reposts.repost(r, user["id"], sid)
    first = reposts.reposters_page(r, sid, count=3)
    assert [u["login"] for u in first.items] == ["u4", "u3", "u2"]
    second = reposts.reposters_page(r, sid, before=first.next_cursor, count=3)
    assert [u["login"] for u in second.items] == ["u1", "u0"]


def test_deleting_an_account_takes_others_reposts_of_its_statuses(r, alice, bob, dave):
    follow_all(r, dave, bob)
    sid = statuses.post_status(r, alice["id"], "by a leaver")
    reposts.repost(r, bob["id"], sid)
    assert leaving.delete_account(r, alice["id"], inline_budget=10_000) is True
    worker.work_until_idle(r)
    assert home_entries(r, dave["id"]) == []
    assert timelines.profile_ids(r, bob["id"]) == []
    assert r.zscore(keys.reposted(bob["id"]), sid) is None
    assert not r.exists(keys.reposts(sid))


def test_a_repost_of_a_status_no_longer_public_is_left_out_at_read(r, alice, bob, dave):
    follow_all(r, dave, bob)
    sid = statuses.post_status(r, alice["id"], "public, then not")
    reposts.repost(r, bob["id"], sid)
    assert [s for s, _, _ in shown(r, dave["id"])] == [sid]
    privacy.set_private(r, alice["id"], True)
    assert shown(r, dave["id"]) == []
    assert timelines.profile_page(r, bob["id"], viewer_id=dave["id"]).items == []
    # Its author still sees it.
    assert [s["id"] for s in timelines.profile_page(r, bob["id"], viewer_id=alice["id"]).items] == [
        sid
    ]

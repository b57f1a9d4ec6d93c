"""Named lists: creating, renaming, deleting, members, and the fan-out that fills them."""

import re
import signal
import threading

import pytest

from socialsite.repository import (
    blocks,
    fanout,
    graph,
    jobs,
    keys,
    leaving,
    lists,
    statuses,
    worker,
)
from socialsite.repository.lists import ListResult, MemberResult
from tests.support.helpers import command_calls, make_user, post, reset_command_stats
from tests.test_fanout_worker import add_followers, start_worker, wait_for


def list_of(r, owner, name, *members):
    """``owner``'s new list ``name`` with ``members`` (whom the owner follows first)."""
    result, lid = lists.create_list(r, owner["id"], name)
    assert result is ListResult.CREATED
    for member in members:
        graph.follow(r, owner["id"], member["id"])
        assert lists.add_member(r, owner["id"], lid, member["id"]) is MemberResult.ADDED
    return lid


def page_messages(r, owner, lid, **kwargs):
    _, page = lists.list_page(r, owner["id"], lid, **kwargs)
    return [status["message"] for status in page.items]


# --- the lists themselves -----------------------------------------------------------------


def test_lists_are_created_renamed_and_deleted_with_ids_of_their_owners_own(r, alice, bob):
    assert lists.create_list(r, alice["id"], "Friends") == (ListResult.CREATED, 1)
    assert lists.create_list(r, alice["id"], "Work") == (ListResult.CREATED, 2)
    assert lists.create_list(r, bob["id"], "Work") == (ListResult.CREATED, 1)
    # The same name again (a form sent twice) is the same list.
    assert lists.create_list(r, alice["id"], "  Ｆｒｉｅｎｄｓ ") == (ListResult.EXISTS, 1)
    assert lists.get_lists(r, alice["id"]) == [
        {"id": 1, "name": "Friends"},
        {"id": 2, "name": "Work"},
    ]
    assert lists.rename_list(r, alice["id"], 2, "Friends") is ListResult.EXISTS
    assert lists.rename_list(r, alice["id"], 2, "Colleagues") is ListResult.RENAMED
    assert lists.rename_list(r, alice["id"], 2, "Colleagues") is ListResult.RENAMED  # again: same
    assert lists.rename_list(r, alice["id"], 9, "Nope") is ListResult.MISSING
    assert lists.get_list(r, alice["id"], 2) == {"id": 2, "name": "Colleagues"}
    assert lists.delete_list(r, alice["id"], 1) is ListResult.DELETED
    assert lists.delete_list(r, alice["id"], 1) is ListResult.MISSING
    # Ids are never handed out again.
    assert lists.create_list(r, alice["id"], "Friends") == (ListResult.CREATED, 3)
    # bob's list 1 is not alice's: nothing of it shows through hers.
    assert lists.list_page(r, alice["id"], 1) == (None, None)
    assert lists.members_page(r, alice["id"], 1) == (None, None)
    assert lists.get_list(r, bob["id"], 1) == {"id": 1, "name": "Work"}


def test_names_and_counts_are_bounded(r, alice):
    for bad in ("", "   ", "x" * 51):
        with pytest.raises(ValueError):
            lists.create_list(r, alice["id"], bad)
    assert lists.create_list(r, alice["id"], "x" * 50)[0] is ListResult.CREATED
    for index in range(49):
        assert lists.create_list(r, alice["id"], f"list {index}")[0] is ListResult.CREATED
    assert lists.create_list(r, alice["id"], "one too many") == (ListResult.FULL, None)
    assert len(lists.get_lists(r, alice["id"])) == 50
    with pytest.raises(ValueError):
        lists.rename_list(r, alice["id"], 1, "")


# --- members ------------------------------------------------------------------------------


def test_only_people_followed_can_be_added_and_adding_brings_their_statuses(r, alice, bob, carol):
    old = [post(r, alice, f"old {i}") for i in range(3)]
    lid = list_of(r, bob, "Friends")
    assert lists.add_member(r, bob["id"], lid, alice["id"]) is MemberResult.NOT_FOLLOWING
    assert lists.add_member(r, bob["id"], lid, bob["id"]) is MemberResult.SELF
    assert lists.add_member(r, bob["id"], 99, alice["id"]) is MemberResult.MISSING
    graph.follow(r, bob["id"], alice["id"])
    assert lists.add_member(r, bob["id"], lid, alice["id"]) is MemberResult.ADDED
    assert lists.add_member(r, bob["id"], lid, alice["id"]) is MemberResult.ALREADY
    assert lists.list_ids_of(r, bob["id"], lid) == old[::-1]
    assert page_messages(r, bob, lid) == ["old 2", "old 1", "old 0"]
    graph.follow(r, bob["id"], carol["id"])
    assert lists.add_member(r, bob["id"], lid, carol["id"], limit=1) is MemberResult.FULL
    assert lists.member_ids(r, bob["id"], lid) == {alice["id"]}
    info, members = lists.members_page(r, bob["id"], lid)
    assert info == {"id": lid, "name": "Friends", "size": 1}
    assert [user["login"] for user in members.items] == ["alice"]


def test_removing_a_member_takes_their_statuses_out(r, alice, bob, carol):
    lid = list_of(r, bob, "Friends", alice, carol)
    post(r, alice, "from alice")
    post(r, carol, "from carol")
    assert page_messages(r, bob, lid) == ["from carol", "from alice"]
    assert lists.remove_member(r, bob["id"], lid, alice["id"]) is MemberResult.REMOVED
    assert lists.remove_member(r, bob["id"], lid, alice["id"]) is MemberResult.ABSENT
    assert page_messages(r, bob, lid) == ["from carol"]
    post(r, alice, "not for the list")
    assert page_messages(r, bob, lid) == ["from carol"]
    assert graph.is_following(r, bob["id"], alice["id"])  # still followed: only off the list


def test_a_status_reaches_each_list_holding_its_author_once(r, alice, bob, carol):
    friends = list_of(r, bob, "Friends", alice)
    both = list_of(r, bob, "Both", alice, carol)
    graph.follow(r, carol["id"], alice["id"])  # a follower with no list
    sid = post(r, alice, "hello lists")
    assert lists.list_ids_of(r, bob["id"], friends) == [sid]
    assert lists.list_ids_of(r, bob["id"], both) == [sid]
    assert [key for key in r.scan_iter(match=f"list:*:{carol['id']}:*")] == []
    # A delivery repeated (a job run twice) changes nothing.
    fanout.deliver(r, alice["id"], sid, [bob["id"], carol["id"]])
    assert lists.list_ids_of(r, bob["id"], friends) == [sid]


def test_deferred_fan_out_fills_lists_too(r, alice, bob):
    jobs.ensure_group(r)
    lid = list_of(r, bob, "Friends", alice)
    add_followers(r, alice["id"], 30)
    sid = statuses.post_status(r, alice["id"], "deferred", inline_limit=0)
    assert lists.list_ids_of(r, bob["id"], lid) == []
    worker.work_until_idle(r)
    assert lists.list_ids_of(r, bob["id"], lid) == [sid]


def test_replies_reach_a_list_by_the_home_timelines_rule(r, alice, bob, carol):
    lid = list_of(r, bob, "Friends", alice)
    parent = post(r, carol, "carol asks")
    statuses.post_status(r, alice["id"], "@carol answer", in_reply_to=parent)
    assert page_messages(r, bob, lid) == []  # bob does not follow carol
    own = post(r, bob, "bob asks")
    statuses.post_status(r, alice["id"], "@bob answer", in_reply_to=own)
    assert page_messages(r, bob, lid) == ["@bob answer"]  # to bob himself
    graph.follow(r, bob["id"], carol["id"])
    statuses.post_status(r, alice["id"], "@carol again", in_reply_to=parent)
    assert page_messages(r, bob, lid) == ["@carol again", "@bob answer"]
    # The backfill on adding applies the same rule.
    dave = make_user(r, "dave")
    statuses.post_status(r, dave["id"], "@carol from dave", in_reply_to=parent)
    post(r, dave, "dave asks")
    erin = make_user(r, "erin")
    erin_parent = post(r, erin, "erin asks")
    statuses.post_status(r, dave["id"], "@erin from dave", in_reply_to=erin_parent)
    other = list_of(r, bob, "Dave", dave)
    assert page_messages(r, bob, other) == ["dave asks", "@carol from dave"]


def test_unfollowing_takes_the_member_off_every_list(r, alice, bob):
    one = list_of(r, bob, "One", alice)
    two = list_of(r, bob, "Two", alice)
    post(r, alice, "before")
    graph.unfollow(r, bob["id"], alice["id"])
    for lid in (one, two):
        assert lists.member_ids(r, bob["id"], lid) == set()
        assert lists.list_ids_of(r, bob["id"], lid) == []
    post(r, alice, "after")
    assert lists.list_ids_of(r, bob["id"], one) == []
    assert not r.exists(keys.listing(bob["id"], alice["id"]))
    assert r.hget(keys.listed(bob["id"]), alice["id"]) is None


def test_blocking_either_way_takes_the_member_off(r, alice, bob, carol):
    lid = list_of(r, bob, "Friends", alice, carol)
    post(r, alice, "alice's")
    post(r, carol, "carol's")
    blocks.block(r, alice["id"], bob["id"])  # alice blocks bob: bob no longer follows her
    blocks.block(r, bob["id"], carol["id"])
    assert lists.member_ids(r, bob["id"], lid) == set()
    assert page_messages(r, bob, lid) == []


def test_a_mute_holds_statuses_back_and_its_end_brings_them_back(r, alice, bob):
    lid = list_of(r, bob, "Friends", alice)
    post(r, alice, "before")
    blocks.mute(r, bob["id"], alice["id"])
    assert page_messages(r, bob, lid) == []
    post(r, alice, "while muted")
    assert lists.list_ids_of(r, bob["id"], lid) == []
    assert lists.member_ids(r, bob["id"], lid) == {alice["id"]}  # still on it
    blocks.unmute(r, bob["id"], alice["id"])
    assert page_messages(r, bob, lid) == ["while muted", "before"]


def test_a_deleted_status_leaves_the_page_at_once_and_the_list_with_the_workers(r, alice, bob):
    jobs.ensure_group(r)
    lid = list_of(r, bob, "Friends", alice)
    keep = post(r, alice, "kept")
    gone = post(r, alice, "deleted")
    statuses.delete_status(r, alice["id"], gone)
    assert page_messages(r, bob, lid) == ["kept"]  # the deletion note
    worker.work_until_idle(r)
    assert lists.list_ids_of(r, bob["id"], lid) == [keep]


def test_deleting_a_list_deletes_its_keys_and_stops_its_deliveries(r, alice, bob):
    lid = list_of(r, bob, "Friends", alice)
    other = list_of(r, bob, "Other", alice)
    post(r, alice, "one")
    assert lists.delete_list(r, bob["id"], lid) is ListResult.DELETED
    assert not r.exists(keys.list_timeline(bob["id"], lid), keys.list_members(bob["id"], lid))
    assert r.hget(keys.listed(bob["id"]), alice["id"]) == str(other)
    assert lists.delete_list(r, bob["id"], other) is ListResult.DELETED
    assert not r.exists(keys.listing(bob["id"], alice["id"]), keys.listed(bob["id"]))
    post(r, alice, "two")
    assert [key for key in r.scan_iter(match="list:*")] == []


def keys_of(r, uid):
    mine = re.compile(rf"\{{s\d+\}}:{int(uid)}(?:[.:]|$)")
    return sorted(key for key in r.scan_iter(count=1000) if mine.search(key))


def test_leaving_deletes_ones_lists_and_ones_place_on_others(r, alice, bob, carol):
    jobs.ensure_group(r)
    list_of(r, alice, "Mine", bob, carol)
    theirs = list_of(r, bob, "Theirs", alice, carol)
    post(r, alice, "alice's")
    post(r, carol, "carol's")
    assert leaving.delete_account(r, alice["id"]) is True
    worker.work_until_idle(r)
    assert keys_of(r, alice["id"]) == []
    assert lists.member_ids(r, bob["id"], theirs) == {carol["id"]}
    assert page_messages(r, bob, theirs) == ["carol's"]


# --- fan-out with worker processes killed ------------------------------------------------


def test_lists_get_a_status_once_with_a_worker_killed_mid_job(r, alice, redis_backend):
    followers = add_followers(r, alice["id"], 30_000)
    listing = followers[::20]  # 1,500 of them have alice in a list
    for follower in listing:
        _, lid = lists.create_list(r, follower, "Friends")
        assert lists.add_member(r, follower, lid, alice["id"]) is MemberResult.ADDED
    sid = statuses.post_status(r, alice["id"], "to the lists")
    for attempt in range(30):
        doomed = start_worker(redis_backend, "--name", f"doomed{attempt}")
        try:
            wait_for(lambda: jobs.status(r)["in_flight"] >= 1 or jobs.status(r)["waiting"] == 0)
        finally:
            doomed.send_signal(signal.SIGKILL)
            doomed.wait()
        if jobs.status(r)["in_flight"] >= 1:
            break
    assert jobs.status(r)["in_flight"] >= 1  # killed holding a job
    survivors = [
        start_worker(redis_backend, "--name", f"survivor{index}", "--claim-idle-ms", "200",
                     "--exit-when-idle")
        for index in range(2)
    ]  # fmt: skip
    for survivor in survivors:
        output, _ = survivor.communicate(timeout=120)
        assert survivor.returncode == 0, output
    pipe = r.pipeline(transaction=False)
    for follower in listing:
        pipe.smembers(keys.list_timeline(follower, 1))
    assert all(held == {str(sid)} for held in pipe.execute())
    unlisted = [f for f in followers[1::97] if f not in set(listing)]
    assert not any(r.exists(keys.list_timeline(f, 1)) for f in unlisted)
    state = jobs.status(r)
    assert (state["dead"], state["in_flight"], state["waiting"]) == (0, 0, 0)


def test_a_delivery_where_nobody_lists_the_author_costs_one_exists_per_group(r, alice):
    ids = [7 + keys.USER_SHARDS * n for n in range(1, 21)]  # one shard
    for uid in ids:
        # Homes of more than one id, as nearly all are: a home of one id is also asked
        # whether it is an evicted one (deliver.lua), a SISMEMBER.
        r.sadd(keys.home(uid), 10**9, 10**9 + 1)
    cheap = post(r, alice, "cheap", inline_limit=0)
    reset_command_stats(r)
    assert fanout.deliver(r, alice["id"], cheap, ids) == 20
    assert (
        command_calls(r, "exists") == 1
        and command_calls(r, "sismember") == 0
        and command_calls(r, "hget") == 0
    )
    # One of them lists alice: each follower of the group is looked up, once.
    r.zadd(keys.following(ids[3]), {alice["id"]: 1})
    _, lid = lists.create_list(r, ids[3], "Alice")
    lists.add_member(r, ids[3], lid, alice["id"])
    sid = post(r, alice, "listed", inline_limit=0)
    reset_command_stats(r)
    assert fanout.deliver(r, alice["id"], sid, ids) == 20
    assert (
        command_calls(r, "exists") == 1
        and command_calls(r, "sismember") == 20
        and command_calls(r, "hget") == 1
    )
    assert lists.list_ids_of(r, ids[3], lid) == [sid, cheap]  # cheap: the add's backfill


def test_an_add_racing_a_fan_out_in_several_workers_misses_nothing(r, alice, bob):
    jobs.ensure_group(r)
    graph.follow(r, bob["id"], alice["id"])
    add_followers(r, alice["id"], 3000, first_uid=10_000)
    for attempt in range(5):
        _, lid = lists.create_list(r, bob["id"], f"race {attempt}")
        sid = statuses.post_status(r, alice["id"], f"race {attempt}", inline_limit=0)
        runners = [
            threading.Thread(target=worker.work_until_idle, args=(r, f"w{attempt}{n}"))
            for n in range(2)
        ]
        for runner in runners:
            runner.start()
        assert lists.add_member(r, bob["id"], lid, alice["id"]) is MemberResult.ADDED
        for runner in runners:
            runner.join()
        worker.work_until_idle(r)
        assert sid in lists.list_ids_of(r, bob["id"], lid)

"""Blocks and mutes in the repository: follows undone and refused, home timelines
cleaned at once and kept clean, also against fan-outs already under way."""

import threading

from socialsite.repository import (
    blocks,
    fanout,
    graph,
    jobs,
    keys,
    privacy,
    timelines,
    users,
    worker,
)
from tests.support.helpers import command_calls, make_user, post, reset_command_stats

HOUR_MS = 3600 * 1000


def counts(r, user):
    fresh = users.get_user(r, user["id"])
    return fresh["followers"], fresh["following"]


def home(r, user):
    return timelines.home_ids(r, user["id"])


def page_ids(r, user):
    """The status ids the home page shows."""
    return [status["id"] for status in timelines.home_page(r, user["id"], count=50).items]


def users_in_one_shard(r, count, prefix="fan"):
    """``count`` new users whose keys share a shard (one deliver.lua call for them)."""
    found = []
    n = 0
    while len(found) < count:
        user = make_user(r, f"{prefix}{n}")
        n += 1
        if not found or user["id"] % keys.USER_SHARDS == found[0]["id"] % keys.USER_SHARDS:
            found.append(user)
    return found


# --- blocks ---------------------------------------------------------------------------------


def test_a_block_undoes_both_follows_with_their_counts(r, alice, bob):
    graph.follow(r, alice["id"], bob["id"])
    graph.follow(r, bob["id"], alice["id"])
    assert blocks.block(r, alice["id"], bob["id"]) is blocks.BlockResult.BLOCKED
    assert graph.following_ids(r, alice["id"]) == graph.follower_ids(r, alice["id"]) == set()
    assert graph.following_ids(r, bob["id"]) == graph.follower_ids(r, bob["id"]) == set()
    assert counts(r, alice) == counts(r, bob) == (0, 0)
    assert blocks.is_blocking(r, alice["id"], bob["id"])
    assert not blocks.is_blocking(r, bob["id"], alice["id"])


def test_blocking_again_changes_nothing_and_oneself_is_refused(r, alice, bob, carol):
    graph.follow(r, carol["id"], bob["id"])
    blocks.block(r, alice["id"], bob["id"])
    assert blocks.block(r, alice["id"], bob["id"]) is blocks.BlockResult.ALREADY_BLOCKED
    assert blocks.block(r, alice["id"], alice["id"]) is blocks.BlockResult.SELF
    assert blocks.unblock(r, alice["id"], alice["id"]) is blocks.BlockResult.SELF
    assert counts(r, bob) == (1, 0)  # carol's follow is untouched
    assert [u["id"] for u in blocks.blocks_page(r, alice["id"]).items] == [bob["id"]]


def test_neither_may_follow_the_other_while_a_block_stands(r, alice, bob):
    blocks.block(r, alice["id"], bob["id"])
    assert graph.follow(r, bob["id"], alice["id"]) is graph.FollowResult.BLOCKED
    assert graph.follow(r, alice["id"], bob["id"]) is graph.FollowResult.BLOCKING
    assert graph.following_ids(r, alice["id"]) == graph.following_ids(r, bob["id"]) == set()
    assert counts(r, alice) == counts(r, bob) == (0, 0)
    assert blocks.unblock(r, alice["id"], bob["id"]) is blocks.BlockResult.UNBLOCKED
    assert blocks.unblock(r, alice["id"], bob["id"]) is blocks.BlockResult.NOT_BLOCKED
    # Unblocking follows nobody again, and allows following again.
    assert graph.following_ids(r, bob["id"]) == set()
    assert graph.follow(r, bob["id"], alice["id"]) is graph.FollowResult.FOLLOWED


def test_the_follow_check_inside_the_follow_refuses_a_block_made_after_the_first(r, alice, bob):
    # A block noted on bob's side only (the blocker's side of alice not yet written):
    # bob's own follow step, in bob's slot, refuses it all the same.
    blocks._set_block(r, bob["id"], alice["id"], 1, "block", "blocked")
    assert graph.follow(r, bob["id"], alice["id"]) is graph.FollowResult.BLOCKED
    assert graph.follower_ids(r, alice["id"]) == set()


def test_a_block_takes_each_ones_statuses_out_of_the_others_home_at_once(r, alice, bob, carol):
    for follower, followed in [(alice, bob), (bob, alice), (alice, carol)]:
        graph.follow(r, follower["id"], followed["id"])
    by_bob = [post(r, bob, f"bob {i}") for i in range(3)]
    by_alice = post(r, alice, "alice")
    by_carol = post(r, carol, "carol")
    assert set(by_bob) <= set(home(r, alice))
    blocks.block(r, alice["id"], bob["id"])
    assert home(r, alice) == [by_carol, by_alice]
    assert home(r, bob) == by_bob[::-1]
    # ... and nothing new comes either way.
    post(r, bob, "after the block")
    post(r, alice, "after the block too")
    assert not set(home(r, alice)) & set(timelines.profile_ids(r, bob["id"]))
    assert not set(home(r, bob)) & set(timelines.profile_ids(r, alice["id"]))


def test_a_block_racing_an_inline_fan_out_never_lets_the_status_land(
    r, alice, bob, carol, monkeypatch
):
    graph.follow(r, alice["id"], bob["id"])
    graph.follow(r, carol["id"], bob["id"])
    deliver = fanout.deliver

    def block_first(r_, author, sid, followers, *rest):
        # The post read its followers (alice among them); alice blocks bob before
        # the delivery arrives.
        assert alice["id"] in followers
        blocks.block(r_, alice["id"], bob["id"])
        return deliver(r_, author, sid, followers, *rest)

    monkeypatch.setattr(fanout, "deliver", block_first)
    sid = post(r, bob, "racing the block")
    assert not timelines.in_home(r, alice["id"], sid)
    assert timelines.in_home(r, carol["id"], sid)


def test_a_block_racing_deferred_batches_never_lets_the_status_land(r, alice, bob):
    fans = users_in_one_shard(r, 3)
    blocker = fans[0]
    for fan in fans:
        graph.follow(r, fan["id"], alice["id"])
    sid = post(r, alice, "deferred", inline_limit=0)
    batch, _ = fanout.followers_in_range(r, alice["id"], None, None, 10)
    assert set(batch) == {fan["id"] for fan in fans}
    # A worker read the batch; a follower blocks the author before it delivers.
    blocks.block(r, blocker["id"], alice["id"])
    assert fanout.deliver(r, alice["id"], sid, batch) == 2
    assert not timelines.in_home(r, blocker["id"], sid)
    # The queued job itself (plan, then deliver) skips them as well.
    worker.work_until_idle(r)
    assert [timelines.in_home(r, fan["id"], sid) for fan in fans] == [False, True, True]


def test_a_block_between_a_plan_and_its_batches_is_respected(r, alice, monkeypatch):
    monkeypatch.setattr(fanout, "FANOUT_BATCH_SIZE", 2)
    fans = [make_user(r, f"fan{n}") for n in range(6)]
    for fan in fans:
        graph.follow(r, fan["id"], alice["id"])
    sid = post(r, alice, "planned", inline_limit=0)
    jobs.ensure_group(r)
    worker.work(r, "w", block_ms=None, jobs_per_step=1)  # the plan, cut into batches
    blocks.block(r, alice["id"], fans[1]["id"])  # the author blocks a follower
    blocks.block(r, fans[4]["id"], alice["id"])  # a follower blocks the author
    worker.work_until_idle(r)
    got = [timelines.in_home(r, fan["id"], sid) for fan in fans]
    assert got == [True, False, True, True, False, True]


def test_a_status_that_slipped_in_before_a_block_is_left_out_of_the_page(r, alice, bob, carol):
    graph.follow(r, alice["id"], carol["id"])
    own = post(r, alice, "mine")
    by_carol = post(r, carol, "carol")
    by_bob = post(r, bob, "bob")
    blocks.block(r, alice["id"], bob["id"])
    # A delivery that landed between reading bob's profile and the cleaning (which
    # the order of block's steps rules out; see blocks.py) would be read past.
    r.sadd(keys.home(alice["id"]), by_bob)
    assert page_ids(r, alice) == [by_carol, own]


def test_a_follow_racing_a_block_ends_with_no_follow_either_way(r, bob):
    for round_ in range(10):
        alice = make_user(r, f"alice{round_}")
        barrier = threading.Barrier(2)
        errors = []

        def follow(follower=alice, followed=bob, barrier=barrier, errors=errors):
            barrier.wait()
            try:
                graph.follow(r, follower["id"], followed["id"])
            except Exception as error:
                errors.append(error)

        thread = threading.Thread(target=follow)
        thread.start()
        barrier.wait()
        blocks.block(r, bob["id"], alice["id"])
        thread.join()
        assert not errors
        assert alice["id"] not in graph.follower_ids(r, bob["id"])
        assert bob["id"] not in graph.following_ids(r, alice["id"])
        assert counts(r, alice) == (0, 0)
    assert counts(r, bob) == (0, 0)


def test_a_block_withdraws_follow_requests_either_way(r, alice, bob):
    privacy.set_private(r, alice["id"], True)
    privacy.set_private(r, bob["id"], True)
    graph.follow(r, bob["id"], alice["id"])
    graph.follow(r, alice["id"], bob["id"])
    blocks.block(r, alice["id"], bob["id"])
    assert privacy.requests_page(r, alice["id"]).items == []
    assert privacy.requests_page(r, bob["id"]).items == []


def test_either_way_and_hidden_authors(r, alice, bob, carol):
    blocks.block(r, bob["id"], alice["id"])
    assert blocks.is_blocked_either_way(r, alice["id"], bob["id"])
    assert blocks.is_blocked_either_way(r, bob["id"], alice["id"])
    assert not blocks.is_blocked_either_way(r, alice["id"], carol["id"])
    blocks.mute(r, alice["id"], carol["id"])
    assert blocks.hidden_authors(r, alice["id"]) == {bob["id"], carol["id"]}
    assert blocks.hidden_authors(r, bob["id"]) == {alice["id"]}
    assert blocks.hidden_authors(r, carol["id"]) == set()


def test_refill_after_an_unfollow_brings_back_nobody_blocked_or_muted(r, alice, bob, carol):
    dave = make_user(r, "dave")
    for other in (bob, carol, dave):
        graph.follow(r, alice["id"], other["id"])
    by_carol = post(r, carol, "carol")
    post(r, bob, "bob")
    graph.unfollow(r, alice["id"], dave["id"])
    blocks.mute(r, alice["id"], bob["id"])
    r.delete(keys.home(alice["id"]))  # an empty home, refilled from the followed profiles
    worker.work_until_idle(r)
    assert home(r, alice) == [by_carol]


def test_a_delivery_where_nobody_hides_the_author_checks_one_key_per_group(r, alice):
    # Twenty follower ids of one shard (deliver needs no more than their ids).
    ids = [7 + keys.USER_SHARDS * n for n in range(1, 21)]
    sid = post(r, alice, "cheap", inline_limit=0)
    reset_command_stats(r)
    assert fanout.deliver(r, alice["id"], sid, ids) == 20
    assert command_calls(r, "exists") == 1 and command_calls(r, "zscore") == 0
    # Someone in the shard mutes the author: now each follower of the group is checked.
    blocks.mute(r, ids[3], alice["id"])
    sid = post(r, alice, "dearer", inline_limit=0)
    reset_command_stats(r)
    assert fanout.deliver(r, alice["id"], sid, ids) == 19
    assert command_calls(r, "exists") == 1 and command_calls(r, "zscore") == 2 * 20


# --- mutes ----------------------------------------------------------------------------------


def test_a_mute_keeps_statuses_out_without_unfollowing(r, alice, bob, carol):
    graph.follow(r, alice["id"], bob["id"])
    graph.follow(r, alice["id"], carol["id"])
    before = post(r, bob, "before the mute")
    by_carol = post(r, carol, "carol")
    assert blocks.mute(r, alice["id"], bob["id"]) is blocks.MuteResult.MUTED
    assert home(r, alice) == [by_carol]  # taken out at once
    post(r, bob, "during the mute")
    assert home(r, alice) == [by_carol]
    assert graph.is_following(r, alice["id"], bob["id"])
    assert counts(r, alice) == (0, 2) and counts(r, bob) == (1, 0)
    # bob notices nothing: he still follows nobody new, sees alice as before.
    assert blocks.hidden_authors(r, bob["id"]) == set()
    assert not blocks.is_blocked_either_way(r, bob["id"], alice["id"])
    assert before in timelines.profile_ids(r, bob["id"])


def test_unmute_brings_the_statuses_back(r, alice, bob):
    graph.follow(r, alice["id"], bob["id"])
    first = post(r, bob, "one")
    blocks.mute(r, alice["id"], bob["id"])
    second = post(r, bob, "two")
    assert home(r, alice) == []
    assert blocks.unmute(r, alice["id"], bob["id"]) is blocks.MuteResult.UNMUTED
    assert home(r, alice) == [second, first]
    assert blocks.unmute(r, alice["id"], bob["id"]) is blocks.MuteResult.NOT_MUTED
    third = post(r, bob, "three")
    assert home(r, alice) == [third, second, first]


def test_unmuting_someone_not_followed_brings_nothing(r, alice, bob):
    post(r, bob, "not for alice")
    blocks.mute(r, alice["id"], bob["id"])
    blocks.unmute(r, alice["id"], bob["id"])
    assert home(r, alice) == []


def test_a_timed_mute_ends_on_a_controlled_clock(r, alice, bob):
    graph.follow(r, alice["id"], bob["id"])
    start = blocks._now_ms()
    blocks.mute(r, alice["id"], bob["id"], duration_ms=HOUR_MS, now_ms=start)
    held_back = post(r, bob, "during the mute")
    assert home(r, alice) == []
    assert blocks.hidden_authors(r, alice["id"], now_ms=start + HOUR_MS - 1) == {bob["id"]}
    assert blocks.mute_ends_at(r, alice["id"], bob["id"], now_ms=start) == start + HOUR_MS
    # Past its end it counts for nothing, before the sweep even runs ...
    after_end = start + HOUR_MS + 1
    assert blocks.hidden_authors(r, alice["id"], now_ms=after_end) == set()
    assert blocks.mute_ends_at(r, alice["id"], bob["id"], now_ms=after_end) is None
    assert blocks.mutes_page(r, alice["id"], now_ms=after_end).items == []
    # ... the sweep ends it too early for nothing, then at its end brings the rest back.
    assert blocks.end_mutes(r, now_ms=start + HOUR_MS - 1) == 0
    assert home(r, alice) == []
    assert blocks.end_mutes(r, now_ms=after_end) == 1
    assert home(r, alice) == [held_back]
    assert blocks.end_mutes(r, now_ms=after_end) == 0
    assert r.zcard(keys.hides(alice["id"])) == 0
    assert not r.exists(keys.hiding(alice["id"], bob["id"]))
    assert blocks.mutes_page(r, alice["id"]).items == []


def test_a_mute_made_again_takes_its_new_end(r, alice, bob):
    start = blocks._now_ms()
    blocks.mute(r, alice["id"], bob["id"], duration_ms=HOUR_MS, now_ms=start)
    assert blocks.mute(r, alice["id"], bob["id"]) is blocks.MuteResult.MUTE_CHANGED
    # Without end now: the sweep at the old end leaves it.
    assert blocks.end_mutes(r, now_ms=start + 2 * HOUR_MS) == 0
    assert blocks.hidden_authors(r, alice["id"], now_ms=start + 2 * HOUR_MS) == {bob["id"]}
    (item,) = blocks.mutes_page(r, alice["id"]).items
    assert (item["id"], item["mute_ends"]) == (bob["id"], 0)


def test_a_mute_and_a_block_count_apart(r, alice, bob):
    graph.follow(r, alice["id"], bob["id"])
    blocks.mute(r, alice["id"], bob["id"])
    blocks.block(r, bob["id"], alice["id"])
    blocks.unblock(r, bob["id"], alice["id"])
    assert blocks.hidden_authors(r, alice["id"]) == {bob["id"]}  # still muted
    blocks.unmute(r, alice["id"], bob["id"])
    assert blocks.hidden_authors(r, alice["id"]) == set()


def test_a_mute_racing_a_fan_out_batch_keeps_the_status_out(r, alice):
    fans = users_in_one_shard(r, 2)
    for fan in fans:
        graph.follow(r, fan["id"], alice["id"])
    sid = post(r, alice, "mid-batch", inline_limit=0)
    batch, _ = fanout.followers_in_range(r, alice["id"], None, None, 10)
    blocks.mute(r, fans[0]["id"], alice["id"])
    assert fanout.deliver(r, alice["id"], sid, batch) == 1
    assert home(r, fans[0]) == []
    assert graph.is_following(r, fans[0]["id"], alice["id"])


def test_following_someone_muted_brings_their_statuses_only_at_the_unmute(r, alice, bob):
    old = post(r, bob, "old")
    blocks.mute(r, alice["id"], bob["id"])
    graph.follow(r, alice["id"], bob["id"])
    assert home(r, alice) == []
    blocks.unmute(r, alice["id"], bob["id"])
    assert home(r, alice) == [old]


def test_muting_oneself_is_refused(r, alice):
    assert blocks.mute(r, alice["id"], alice["id"]) is blocks.MuteResult.SELF
    assert blocks.unmute(r, alice["id"], alice["id"]) is blocks.MuteResult.SELF
    assert blocks.hidden_authors(r, alice["id"]) == set()


def test_blocks_and_mutes_pages_are_newest_first_with_a_cursor(r, alice):
    others = [make_user(r, f"other{n}") for n in range(3)]
    for other in others:
        blocks.block(r, alice["id"], other["id"])
        blocks.mute(r, alice["id"], other["id"])
    for read in (blocks.blocks_page, blocks.mutes_page):
        first = read(r, alice["id"], count=2)
        rest = read(r, alice["id"], before=first.next_cursor, count=2)
        assert [u["id"] for u in first.items + rest.items] == [o["id"] for o in others[::-1]]
        assert rest.next_cursor is None

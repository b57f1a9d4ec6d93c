"""Inactive people's homes (eviction.py, decision 0055): evicted by the sweep, skipped by
deliveries, rebuilt whole by their first page back, once."""

import random
import threading
import time
from io import StringIO

import pytest
from django.core.management import call_command

from socialsite.repository import (
    blocks,
    eviction,
    fanout,
    graph,
    keys,
    leaving,
    lists,
    oauth,
    reposts,
    scripts,
    sessions,
    statuses,
    timelines,
    worker,
)
from socialsite.settings import env_duration
from tests.support.helpers import command_calls, make_user, reset_command_stats

DAY = 24 * 3600
MONTH = 30 * DAY


def held_only_the_mark(r, uid):
    """Whether ``uid``'s home holds only what eviction leaves in it for deliveries."""
    return r.smembers(keys.home(uid)) == {eviction.EVICTED_MEMBER}


def users_named(r, *logins):
    return [make_user(r, login)["id"] for login in logins]


def whole_home(r, uid, count=7):
    """Every status of ``uid``'s home pages, paging with cursors: (id, reposter or None)."""
    shown, before = [], None
    while True:
        page = timelines.home_page(r, uid, before=before, count=count)
        shown += [(s["id"], (s.get("reposted_by") or {}).get("id")) for s in page.items]
        if page.next_cursor is None:
            return shown
        before = page.next_cursor


def list_ids(r, uid, lid):
    _, page = lists.list_page(r, uid, lid, count=200)
    return [status["id"] for status in page.items]


def seeded_network(r, seed):
    """A dozen people who follow, post, reply, repost, mute, block and list, at random
    (``seed``); every deferred job run. Returns (the user ids, {uid: list id})."""
    rng = random.Random(seed)
    uids = users_named(r, *(f"p{seed}x{i}" for i in range(12)))
    for uid in uids:
        for other in rng.sample(uids, 6):
            if other != uid:
                graph.follow(r, uid, other)
    # Before the posts: a mute made after a muted account's repost of a reply keeps
    # the original in the home (remove_repost.lua: its author is followed), where the
    # reply rule would not have put it; the rebuild applies the reply rule.
    blocks.mute(r, uids[0], sorted(graph.following_ids(r, uids[0]))[0])
    blocks.block(r, uids[1], uids[2])
    posted = []
    for _ in range(150):
        author = rng.choice(uids)
        roll = rng.random()
        if roll < 0.25 and posted:
            try:
                sid = statuses.post_status(r, author, "re", in_reply_to=rng.choice(posted))
            except (statuses.ParentGone, statuses.ReplyRefused):
                continue
        elif roll < 0.4 and posted:
            reposts.repost(r, author, rng.choice(posted))
            continue
        else:
            sid = statuses.post_status(r, author, "hello")
        posted.append(sid)
    owners = {}
    for uid in uids[:4]:
        _, lid = lists.create_list(r, uid, "friends")
        for member in sorted(graph.following_ids(r, uid))[:3]:
            lists.add_member(r, uid, lid, member)
        owners[uid] = lid
    worker.work_until_idle(r)
    return uids, owners


@pytest.mark.parametrize("seed", [1, 2])
def test_an_evicted_home_rebuilt_equals_the_home_that_was_evicted(r, seed):
    uids, owners = seeded_network(r, seed)
    before_homes = {uid: timelines.home_ids(r, uid) for uid in uids}
    before_pages = {uid: whole_home(r, uid) for uid in uids}
    before_lists = {uid: list_ids(r, uid, lid) for uid, lid in owners.items()}
    assert any(before_homes.values()) and any(before_lists.values())
    long_ago = time.time() - 2 * MONTH
    for uid in uids:
        eviction.note_seen(r, uid, long_ago)
    assert eviction.sweep(r, MONTH) == len(uids)
    assert eviction.evicted_count(r) == len(uids)
    for uid in uids:
        assert held_only_the_mark(r, uid) and eviction.is_evicted(r, uid)
        for lid in owners.values():
            assert not r.exists(keys.list_timeline(uid, lid))
    for uid in uids:  # the first page back rebuilds: the same ids, in the same order
        assert whole_home(r, uid) == before_pages[uid]
        assert timelines.home_ids(r, uid) == before_homes[uid]
    for uid, lid in owners.items():
        assert list_ids(r, uid, lid) == before_lists[uid]
    assert eviction.evicted_count(r) == 0


def test_deliveries_skip_evicted_homes_and_the_first_page_back_shows_what_they_missed(r):
    author, away, here = users_named(r, "author", "away", "here")
    for follower in (away, here):
        graph.follow(r, follower, author)
    _, lid = lists.create_list(r, away, "l")
    lists.add_member(r, away, lid, author)
    eviction.note_seen(r, away, time.time() - 2 * MONTH)
    eviction.note_seen(r, here, time.time())
    assert eviction.sweep(r, MONTH) == 1
    sid = statuses.post_status(r, author, "while away")
    rid = reposts.repost(r, here, sid)
    worker.work_until_idle(r)
    assert timelines.in_home(r, here, sid)
    assert held_only_the_mark(r, away)  # delivery skipped the evicted home
    assert not r.exists(keys.list_timeline(away, lid))
    assert rid
    assert [s["id"] for s in timelines.home_page(r, away).items] == [sid]
    assert list_ids(r, away, lid) == [sid]
    assert timelines.in_home(r, away, sid)
    later = statuses.post_status(r, author, "back")  # delivered again
    assert timelines.in_home(r, away, later)


def test_a_person_seen_since_the_sweep_read_them_keeps_their_home(r):
    author, reader = users_named(r, "author", "reader")
    graph.follow(r, reader, author)
    statuses.post_status(r, author, "hi")
    eviction.note_seen(r, reader, time.time() - 2 * MONTH)
    cutoff = time.time() - MONTH
    eviction.note_seen(r, reader)  # back, after the sweep read them
    assert not eviction.evict(r, reader, cutoff)
    assert r.exists(keys.home(reader)) and not eviction.is_evicted(r, reader)


def test_an_empty_or_new_home_is_not_an_evicted_one(r):
    (newcomer,) = users_named(r, "newcomer")
    assert not r.exists(keys.home(newcomer))
    assert not eviction.is_evicted(r, newcomer)
    assert eviction.sweep(r, MONTH) == 0  # never seen: not swept
    assert timelines.home_page(r, newcomer).items == []
    eviction.note_seen(r, newcomer, time.time() - 2 * MONTH)
    assert eviction.sweep(r, MONTH) == 1
    assert eviction.is_evicted(r, newcomer)  # an evicted empty home is marked as one


def homes_of_each_kind(r):
    """Four people and their homes: ``empty`` (none), ``one`` (one id), ``many`` (two
    ids) and ``away`` (evicted); the scripts loaded, so that only a delivery's own
    commands are counted."""
    empty, one, many, away = users_named(r, "empty", "one", "many", "away")
    r.sadd(keys.home(one), 7)
    r.sadd(keys.home(many), 7, 8)
    eviction.note_seen(r, away, time.time() - 2 * MONTH)
    assert eviction.sweep(r, MONTH) == 1
    scripts.load_all(r)
    return empty, one, many, away


def test_only_a_home_of_one_id_is_asked_whether_it_is_evicted(r):
    # An evicted home holds one id; an empty one (new, or emptied) needs no question:
    # a delivery to it is a SCARD and a SADD, as to a home holding many. An evicted one
    # is read (SCARD, SISMEMBER) and never written.
    (author,) = users_named(r, "author")
    empty, one, many, away = homes_of_each_kind(r)
    commands = ("scard", "sismember", "sadd", "srem")
    for follower, delivered, ran in (
        (empty, 1, (1, 0, 1, 0)),
        (one, 1, (1, 1, 1, 0)),
        (many, 1, (1, 0, 1, 0)),
        (away, 0, (1, 1, 0, 0)),
    ):
        reset_command_stats(r)
        assert fanout.deliver(r, author, 100 + follower, [follower]) == delivered
        assert tuple(command_calls(r, command) for command in commands) == ran
        assert timelines.in_home(r, follower, 100 + follower) == bool(delivered)
    assert held_only_the_mark(r, away)


def test_concurrent_first_pages_rebuild_once(r, monkeypatch):
    author, reader = users_named(r, "author", "reader")
    graph.follow(r, reader, author)
    sids = [statuses.post_status(r, author, f"s{i}") for i in range(5)]
    eviction.note_seen(r, reader, time.time() - 2 * MONTH)
    eviction.sweep(r, MONTH)
    rebuilds, refill = [], eviction.refill_home

    def slow_refill(r, uid):
        rebuilds.append(uid)
        time.sleep(0.3)  # long enough for the other pages to find the rebuild held
        return refill(r, uid)

    monkeypatch.setattr(eviction, "refill_home", slow_refill)
    pages = []
    threads = [
        threading.Thread(target=lambda: pages.append(timelines.home_page(r, reader)))
        for _ in range(4)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert rebuilds == [reader]
    assert [[s["id"] for s in page.items] for page in pages] == [sids[::-1]] * 4


def test_a_rebuild_whose_request_died_is_taken_over(r):
    author, reader = users_named(r, "author", "reader")
    graph.follow(r, reader, author)
    sid = statuses.post_status(r, author, "hi")
    eviction.note_seen(r, reader, time.time() - 2 * MONTH)
    eviction.sweep(r, MONTH)
    long_ago = int(time.time() * 1000) - 2 * eviction.REBUILD_HOLD_MS
    state, _ = scripts.rebuild_home(r, uid=reader, action="begin", now_ms=long_ago, hold_ms=1)
    assert state == "rebuild"  # ... and the request dies holding it
    assert [s["id"] for s in timelines.home_page(r, reader).items] == [sid]


def test_seen_is_noted_on_the_session_read_once_a_day_per_process(r):
    (uid,) = users_named(r, "someone")
    key = sessions.key_naming_user(uid, "x" * 32)
    sessions.load_with_user(r, key)
    day = eviction.seen_day()
    assert r.zscore(keys.seen(uid), uid) == day
    r.zadd(keys.seen(uid), {uid: day - DAY})
    sessions.load_with_user(r, key)  # noted today by this process already: not again
    assert r.zscore(keys.seen(uid), uid) == day - DAY
    eviction.forget_noted()  # another process
    sessions.load_with_user(r, key)
    assert r.zscore(keys.seen(uid), uid) == day


def test_seen_is_noted_on_an_api_tokens_read(r):
    (uid,) = users_named(r, "someone")
    token = f"{uid}.{'y' * 40}"
    oauth.token_and_user(r, token)
    assert r.zscore(keys.seen(uid), uid) == eviction.seen_day()


def test_a_rebuilt_list_holds_its_members_statuses_not_their_reposts(r):
    """A list holds no reposts (the fan-out delivers none to lists): rebuilding an
    evicted home's lists copies none in from the members' profiles either."""
    author, other, reader = users_named(r, "author", "other", "reader")
    graph.follow(r, reader, author)
    _, lid = lists.create_list(r, reader, "l")
    lists.add_member(r, reader, lid, author)
    sid = statuses.post_status(r, author, "own")
    reposts.repost(r, author, statuses.post_status(r, other, "reposted"))
    worker.work_until_idle(r)
    assert lists.list_ids_of(r, reader, lid) == [sid]
    eviction.note_seen(r, reader, time.time() - 2 * MONTH)
    eviction.sweep(r, MONTH)
    timelines.home_page(r, reader)  # the first page back rebuilds the home and its lists
    assert lists.list_ids_of(r, reader, lid) == [sid]


def test_list_page_and_live_replay_rebuild_too(r):
    author, reader = users_named(r, "author", "reader")
    graph.follow(r, reader, author)
    _, lid = lists.create_list(r, reader, "l")
    lists.add_member(r, reader, lid, author)
    sid = statuses.post_status(r, author, "hi")
    eviction.note_seen(r, reader, time.time() - 2 * MONTH)
    eviction.sweep(r, MONTH)
    assert list_ids(r, reader, lid) == [sid]
    eviction.note_seen(r, reader, time.time() - 2 * MONTH)
    eviction.sweep(r, MONTH)
    found, more = timelines.home_newer(r, reader, 0, 10)
    assert [s["id"] for s in found] == [sid] and not more


def test_manage_timelines_evict_and_status(r, settings):
    author, reader = users_named(r, "author", "reader")
    graph.follow(r, reader, author)
    eviction.note_seen(r, reader, time.time() - 2 * MONTH)
    settings.HOME_EVICT_AFTER = MONTH
    out = StringIO()
    call_command("timelines", "evict", stdout=out)
    assert "1 home(s) evicted" in out.getvalue()
    out = StringIO()
    call_command("timelines", "status", stdout=out)
    assert "1 evicted home(s)" in out.getvalue()


def test_the_workers_sweep_once_an_hour_whatever_their_number(r):
    (away,) = users_named(r, "away")
    eviction.note_seen(r, away, time.time() - 2 * MONTH)
    assert eviction.sweep_if_due(r, MONTH) == 1
    (later,) = users_named(r, "later")
    eviction.note_seen(r, later, time.time() - 2 * MONTH)
    assert eviction.sweep_if_due(r, MONTH) == 0  # another worker's turn came: not due
    assert r.ttl(keys.EVICTION_SWEEP_DUE) > eviction.SWEEP_EVERY_SECONDS - 60


@pytest.mark.parametrize(
    ("value", "seconds"), [("", MONTH), ("90s", 90), ("2h", 7200), ("7d", 7 * DAY)]
)
def test_home_evict_after_is_read_as_the_throttles_periods(monkeypatch, value, seconds):
    monkeypatch.setenv("HOME_EVICT_AFTER", value)
    assert env_duration("HOME_EVICT_AFTER", MONTH) == seconds


def test_a_refill_for_an_evicted_home_leaves_it_empty_for_the_rebuild(r):
    author, other, away = users_named(r, "author", "other", "away")
    for followed in (author, other):
        graph.follow(r, away, followed)
    sid = statuses.post_status(r, author, "hi")
    eviction.note_seen(r, away, time.time() - 2 * MONTH)
    eviction.sweep(r, MONTH)
    blocks.block(r, other, away)  # away unfollows other: a refill job for away's home
    worker.work_until_idle(r)
    assert held_only_the_mark(r, away) and eviction.is_evicted(r, away)
    assert [s["id"] for s in timelines.home_page(r, away).items] == [sid]


def test_a_deleted_account_leaves_neither_seen_nor_evicted(r):
    (away,) = users_named(r, "away")
    eviction.note_seen(r, away, time.time() - 2 * MONTH)
    eviction.sweep(r, MONTH)
    (here,) = users_named(r, "here")
    eviction.note_seen(r, here)
    for uid in (away, here):
        leaving.delete_account(r, uid)
        worker.work_until_idle(r)
    assert eviction.evicted_count(r) == 0
    assert not r.exists(keys.seen(here))


def test_accounts_made_before_eviction_ran_are_tracked_once_asked(r):
    old, seen_lately = users_named(r, "old", "lately")
    eviction.note_seen(r, seen_lately, time.time() - DAY)
    out = StringIO()
    call_command("timelines", "track", stdout=out)
    assert "1 account(s) noted seen today" in out.getvalue()
    assert r.zscore(keys.seen(old), old) == eviction.seen_day()
    assert r.zscore(keys.seen(seen_lately), seen_lately) == eviction.seen_day(time.time() - DAY)
    assert eviction.sweep(r, MONTH, now=time.time() + 2 * MONTH) == 2


def test_a_repost_delivery_reads_the_home_size_once(r):
    # deliver_repost.lua reads the size for the evicted-home check, and the trim
    # (add_repost) takes it from there: one SCARD per home, as many as the homes.
    reposter, author = users_named(r, "reposter", "author")
    _, one, many, away = homes_of_each_kind(r)
    reset_command_stats(r)
    assert fanout.deliver_repost(r, reposter, 200, 100, author, [one, many, away]) == 2
    assert command_calls(r, "scard") == 3
    assert command_calls(r, "sadd") == 2 + 2  # the homes, and the reposts-shown note
    assert r.smembers(keys.home(many)) == {"7", "8", "200"}
    assert held_only_the_mark(r, away)

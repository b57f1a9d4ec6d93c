"""Pulled accounts (fanout.py, decision 0054): statuses of accounts with many followers
are merged into home and list pages when read, by the same rules as delivered ones."""

import random
import threading
from io import StringIO

import pytest
from django.core.management import call_command

from socialsite.repository import (
    blocks,
    fanout,
    graph,
    jobs,
    keys,
    lists,
    reposts,
    scripts,
    statuses,
    timelines,
    worker,
)
from socialsite.repository.limits import PULLED_COPY_SIZE
from tests.support.helpers import make_user
from tests.test_fanout_worker import add_followers

# A threshold small enough for real follows.
PULL = 3


def post(r, uid, message="hi", **options):
    return statuses.post_status(r, uid, message, pull_followers=PULL, **options)


def make_pulled(r, author, followers):
    """Make ``author`` (followed by ``followers``, at least PULL) pulled: the first post
    over the threshold registers it, the next is pulled. Returns the two statuses."""
    for follower in followers:
        graph.follow(r, follower, author)
    registering = post(r, author, "registering")
    pulled = post(r, author, "pulled")
    assert r.hget(keys.user(author), keys.FANOUT_PATH_FIELD) == "pulled"
    return registering, pulled


def whole_home(r, uid, count=4):
    """Every id of ``uid``'s home pages, paging with cursors (ids as shown)."""
    seen, before = [], None
    while True:
        page = timelines.home_page(r, uid, before=before, count=count)
        seen += [status["id"] for status in page.items]
        if page.next_cursor is None:
            return seen
        before = page.next_cursor


def users_named(r, *logins):
    return [make_user(r, login)["id"] for login in logins]


@pytest.fixture(params=[PULLED_COPY_SIZE, 4], ids=["copies", "deeper-than-copies"])
def copy_size(request, monkeypatch):
    """Pages merge from the copies in every shard; with copies of 4, nearly every page
    is deeper than they reach and reads the pulled accounts' own lists instead."""
    monkeypatch.setattr(scripts, "PULLED_COPY_SIZE", request.param)
    monkeypatch.setattr(fanout, "PULLED_COPY_SIZE", request.param)
    return request.param


def test_a_pulled_status_is_delivered_to_nobody_and_on_every_followers_page_at_once(r):
    author, *readers = users_named(r, "star", "f1", "f2", "f3")
    registering, pulled = make_pulled(r, author, readers)
    assert r.zrange(keys.pulled_statuses(author), 0, -1) == [str(pulled)]
    for key in keys.all_pulled_copies(author):  # copied into every shard
        assert r.zrange(key, 0, -1) == [str(pulled)]
    jobs.ensure_group(r)
    assert jobs.status(r)["waiting"] == 0  # no fan-out queued for it
    for reader in readers:
        assert not timelines.in_home(r, reader, pulled)  # not delivered...
        assert timelines.in_home(r, reader, registering)  # (the one before was)
        assert whole_home(r, reader) == [pulled, registering]  # ...yet shown
    assert timelines.in_home(r, author, pulled)  # the author's own home has it
    stranger = users_named(r, "stranger")[0]
    assert whole_home(r, stranger) == []


def test_the_path_switches_with_a_margin_and_nothing_is_lost_or_shown_twice(r, copy_size):
    author, *readers = users_named(r, "star", "f1", "f2", "f3", "f4")
    posted = [post(r, author, "pushed, 0 followers")]
    for follower in readers[:3]:  # 3 followers: at the threshold
        graph.follow(r, follower, author)
    posted.append(post(r, author, "pushed, registers"))
    assert r.sismember(keys.pulled_accounts(readers[0]), author)
    assert all(r.sismember(key, author) for key in keys.all_pulled_accounts())
    posted.append(post(r, author, "pulled"))
    graph.follow(r, readers[3], author)
    posted.append(post(r, author, "pulled, 4 followers"))
    graph.unfollow(r, readers[3], author)
    graph.unfollow(r, readers[2], author)
    # 2 followers: under the threshold (3) but not under 90% of it (2.7 -> 2): pulled.
    posted.append(post(r, author, "pulled still, 2 followers"))
    assert r.hget(keys.user(author), keys.FANOUT_PATH_FIELD) == "pulled"
    graph.unfollow(r, readers[1], author)
    posted.append(post(r, author, "pushed again, 1 follower"))
    assert r.hget(keys.user(author), keys.FANOUT_PATH_FIELD) == "ready"
    assert [timelines.in_home(r, readers[0], sid) for sid in posted] == [
        True, True, False, False, False, True,
    ]  # fmt: skip
    assert whole_home(r, readers[0]) == posted[::-1]
    graph.follow(r, readers[1], author)  # back: the backfill and the merge agree
    assert whole_home(r, readers[1]) == posted[::-1]
    state = fanout.pulled_accounts(r)
    assert state == {author: {"path": "ready", "followers": 2, "statuses": 3}}


def test_pages_interleave_pulled_and_delivered_statuses_with_stable_cursors(r, copy_size):
    star, other, *readers = users_named(r, "star", "other", "f1", "f2", "f3")
    make_pulled(r, star, readers)
    graph.follow(r, readers[0], other)
    star2 = users_named(r, "star2")[0]
    make_pulled(r, star2, readers)
    rng = random.Random(7)
    for i in range(40):
        post(r, rng.choice([star, other, star2, readers[0]]), f"s{i}")
    expected = sorted(
        {
            *timelines.home_ids(r, readers[0]),
            *(int(s) for s in r.zrange(keys.pulled_statuses(star), 0, -1)),
            *(int(s) for s in r.zrange(keys.pulled_statuses(star2), 0, -1)),
        },
        reverse=True,
    )
    for count in (1, 3, 4, 7, 30):
        assert whole_home(r, readers[0], count) == expected
    # A status arriving between two page loads neither repeats nor skips anything.
    first = timelines.home_page(r, readers[0], count=5)
    post(r, star, "newer")
    rest, before = [], first.next_cursor
    while before is not None:
        page = timelines.home_page(r, readers[0], before=before, count=5)
        rest += [s["id"] for s in page.items]
        before = page.next_cursor
    assert [s["id"] for s in first.items] + rest == expected


def test_the_reply_rule_mutes_blocks_and_deletion_hold_for_pulled_statuses(r, copy_size):
    star, known, unknown, reader, f2, f3 = users_named(r, "star", "k", "u", "reader", "f2", "f3")
    make_pulled(r, star, [reader, f2, f3])
    graph.follow(r, reader, known)
    to_known = statuses.post_status(r, known, "hello")
    to_unknown = statuses.post_status(r, unknown, "hi there")
    reply_known = post(r, star, "@k yes", in_reply_to=to_known)
    reply_unknown = post(r, star, "@u no", in_reply_to=to_unknown)
    reply_reader = post(r, star, "@reader you", in_reply_to=post(r, reader, "mine"))
    shown = whole_home(r, reader)
    assert reply_known in shown and reply_reader in shown
    assert reply_unknown not in shown  # the reader does not follow u
    assert reply_unknown not in whole_home(r, f2)

    plain = post(r, star, "plain")
    blocks.mute(r, reader, star)
    assert not set(whole_home(r, reader)) & {plain, reply_known}
    blocks.mute(r, reader, star, duration_ms=1, now_ms=0)  # a mute that has ended
    r.zrem(keys.hides(reader), star)
    assert plain in whole_home(r, reader)

    assert statuses.delete_status(r, star, plain) == statuses.DeleteResult.DELETED
    assert plain not in whole_home(r, reader)
    assert r.zscore(keys.pulled_statuses(star), plain) is None
    assert not any(r.zscore(key, plain) for key in keys.all_pulled_copies(star))

    blocks.block(r, f2, star)
    assert not [sid for sid in whole_home(r, f2) if sid > reply_known]


def test_a_pulled_original_reposted_by_a_pushed_account_shows_once(r, copy_size):
    star, friend, reader, f2, f3 = users_named(r, "star", "friend", "reader", "f2", "f3")
    make_pulled(r, star, [reader, f2, f3])
    graph.follow(r, reader, friend)
    original = post(r, star, "worth passing on")
    post(r, friend, "something else")
    reposts.repost(r, friend, original)
    for count in (1, 2, 30):
        assert whole_home(r, reader, count).count(original) == 1


def test_a_list_merges_its_pulled_members_statuses(r, copy_size):
    star, quiet, reader, f2, f3 = users_named(r, "star", "quiet", "reader", "f2", "f3")
    make_pulled(r, star, [reader, f2, f3])
    graph.follow(r, reader, quiet)
    lid = lists.create_list(r, reader, "mine")[1]
    lists.add_member(r, reader, lid, star)
    pulled = post(r, star, "pulled, listed")
    unlisted = statuses.post_status(r, quiet, "not on the list")
    _, page = lists.list_page(r, reader, lid)
    ids = [s["id"] for s in page.items]
    assert ids[0] == pulled and unlisted not in ids
    other_list = lists.create_list(r, reader, "other")[1]
    lists.add_member(r, reader, other_list, quiet)
    _, page = lists.list_page(r, reader, other_list)
    assert pulled not in [s["id"] for s in page.items]


def test_crossing_the_threshold_during_concurrent_posting_loses_nothing(r, copy_size):
    author = make_user(r, "star")["id"]
    readers = add_followers(r, author, 20, first_uid=5000)
    extra = list(range(9000, 9030))
    posted, errors = [], []
    stop = threading.Event()

    def poster():
        try:
            for i in range(120):
                posted.append(
                    statuses.post_status(r, author, f"s{i}", pull_followers=30, inline_limit=7)
                )
        except Exception as error:  # noqa: BLE001 - reported below
            errors.append(error)
        finally:
            stop.set()

    def churn():
        rng = random.Random(3)
        while not stop.is_set():
            # Between 20 and 50 followers: across the threshold (30) and its margin (27).
            # The readers stay; others come and go.
            r.zrem(keys.followers(author), *extra)
            extra_now = rng.randint(0, len(extra))
            if extra_now:
                add_followers(r, author, extra_now, first_uid=extra[0])

    threads = [threading.Thread(target=poster), threading.Thread(target=churn)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert not errors
    worker.work_until_idle(r)
    assert r.zcard(keys.pulled_statuses(author)) > 0  # both paths were taken
    assert len(posted) - r.zcard(keys.pulled_statuses(author)) > 0
    for reader in readers:
        assert whole_home(r, reader, count=30) == sorted(posted, reverse=True)


def test_a_request_that_dies_before_copying_a_pulled_status_is_finished_by_the_workers(
    r, monkeypatch
):
    author, *readers = users_named(r, "star", "f1", "f2", "f3")
    make_pulled(r, author, readers)

    def dies(*args, **kwargs):
        raise SystemExit("the web worker was killed")

    with monkeypatch.context() as patch:
        patch.setattr(fanout, "queue_copy", lambda *args: None)  # the copies never sent
        patch.setattr(r, "hdel", dies)  # nor the note cleared
        try:
            post(r, author, "posted by a request that died")
        except SystemExit:
            pass
    (sid,) = [int(s) for s in r.hkeys(keys.unfinished_posts(author))]
    assert r.zscore(keys.pulled_statuses(author), sid) == sid
    assert sid not in whole_home(r, readers[0])  # not copied yet
    assert statuses.finish_unfinished(r, grace_ms=0) == 1
    for reader in readers:
        assert whole_home(r, reader)[0] == sid
    assert not r.hkeys(keys.unfinished_posts(author))


def test_the_pulled_accounts_are_listed_with_numbers_for_metrics(r):
    author, *readers = users_named(r, "star", "f1", "f2", "f3")
    assert fanout.pulled_counts(r) == {
        "pulled_accounts": 0, "registered_accounts": 0, "pulled_statuses": 0,
    }  # fmt: skip
    make_pulled(r, author, readers)
    post(r, author, "another")
    assert fanout.pulled_counts(r) == {
        "pulled_accounts": 1, "registered_accounts": 1, "pulled_statuses": 2,
    }  # fmt: skip
    out = StringIO()
    call_command("timelines", "status", stdout=out)
    assert "1 pulled account(s), 1 registered, 2 pulled status(es) held" in out.getvalue()
    assert "@star" in out.getvalue() and "pulled" in out.getvalue()


def test_a_pulled_accounts_repost_is_merged_by_the_dedupe_rules(r, copy_size):
    star, star2, writer, reader, plain, f3 = users_named(
        r, "star", "star2", "writer", "reader", "plain", "f3"
    )
    make_pulled(r, star, [reader, plain, f3, writer])
    make_pulled(r, star2, [reader, plain, f3])
    graph.follow(r, reader, writer)  # the reader gets the original itself
    original = statuses.post_status(r, writer, "worth passing on")
    other = statuses.post_status(r, f3, "by someone nobody here follows")
    jobs.ensure_group(r)
    waiting = jobs.status(r)["waiting"]
    assert reposts.repost(r, star, other)[0] == reposts.RepostResult.REPOSTED
    assert reposts.repost(r, star, original)[0] == reposts.RepostResult.REPOSTED
    assert reposts.repost(r, star2, other)[0] == reposts.RepostResult.REPOSTED
    assert jobs.status(r)["waiting"] == waiting  # delivered to nobody
    first_repost = int(r.zscore(keys.reposted(star), other))
    assert not timelines.in_home(r, plain, first_repost)

    def shown(uid, count=30):
        seen, before = [], None
        while True:
            page = timelines.home_page(r, uid, before=before, count=count)
            seen += [(s["id"], s.get("reposted_by", {}).get("id")) for s in page.items]
            if page.next_cursor is None:
                return seen
            before = page.next_cursor

    for count in (1, 2, 30):
        # The original under "reposted", once, at the first repost's place.
        on_plain = shown(plain, count)
        assert [sid for sid, _ in on_plain].count(other) == 1
        assert [sid for sid, _ in on_plain].count(original) == 1
        on_reader = [sid for sid, _ in shown(reader, count)]
        assert on_reader.count(original) == 1 and on_reader.count(other) == 1
    on_plain = shown(plain)
    # Each under its first pulled reposter's header, at that repost's place.
    assert on_plain[:2] == [(original, star), (other, star)]
    assert shown(writer).count((original, None)) == 1  # one's own status, once

    assert reposts.unrepost(r, star, other) == reposts.RepostResult.UNREPOSTED
    assert not any(r.zscore(key, first_repost) for key in keys.all_pulled_copies(star))
    assert [sid for sid, _ in shown(plain)].count(other) == 1  # star2's repost stands
    assert reposts.unrepost(r, star2, other) == reposts.RepostResult.UNREPOSTED
    assert other not in [sid for sid, _ in shown(plain)]


def test_replies_left_out_do_not_make_a_page_skip_older_pulled_statuses(r, copy_size):
    star, friend, unknown, reader, f2, f3 = users_named(
        r, "star", "friend", "unknown", "reader", "f2", "f3"
    )
    before = make_pulled(r, star, [reader, f2, f3])
    graph.follow(r, reader, friend)
    delivered = [statuses.post_status(r, friend, f"friend {i}") for i in range(4)]
    kept = post(r, star, "newer than the friend's, older than the replies")
    parent = statuses.post_status(r, unknown, "nobody here follows me")
    for i in range(6):  # more than a page of statuses the reader does not get
        post(r, star, f"@unknown reply {i}", in_reply_to=parent)
    expected = [kept, *delivered[::-1], *before[::-1]]
    for count in (1, 3, 4):
        assert whole_home(r, reader, count) == expected


def test_a_pulled_post_whose_status_was_never_written_is_taken_back_from_the_copies(r):
    author, *readers = users_named(r, "star", "f1", "f2", "f3")
    make_pulled(r, author, readers)
    # What a request that died between the pipeline's first writes and the status's
    # hash leaves: the post on the profile, pulled, copied, noted unfinished.
    sid = r.incr(keys.STATUS_IDS)
    added, upto, pulled = scripts.add_own_status(
        r, uid=author, sid=sid, now_ms=0, conversation=False, **fanout.pull_thresholds(PULL)
    )
    assert (added, upto, pulled) == (1, -1, fanout.PULLED)
    fanout.copy_pulled(r, author, sid, str(sid))
    assert statuses.finish_unfinished(r, grace_ms=0) == 1
    assert not any(r.zscore(key, sid) for key in keys.all_pulled_copies(author))
    assert r.zscore(keys.pulled_statuses(author), sid) is None
    assert sid not in timelines.profile_ids(r, author)


@pytest.mark.parametrize("undo", ["delete", "unrepost"])
def test_a_deletion_from_full_copies_leaves_older_statuses_on_the_pages(r, monkeypatch, undo):
    """Copies of 4: a pulled account's statuses beyond them are merged from its own list
    once a page is deeper. A status taken out of a full copy (a deletion, an undone
    repost) is replaced by the one below it, so that the copy still says there are older
    ones; a copy left with 3 would read as the account's whole list, and the pages would
    lose everything older."""
    monkeypatch.setattr(scripts, "PULLED_COPY_SIZE", 4)
    monkeypatch.setattr(fanout, "PULLED_COPY_SIZE", 4)
    star, poster, reader, f2, f3 = users_named(r, "star", "poster", "reader", "f2", "f3")
    make_pulled(r, star, [reader, f2, f3])
    older = [post(r, star, f"older {n}") for n in range(6)]
    newest = post(r, star, "newest")
    reposted = statuses.post_status(r, poster, "worth a repost")
    if undo == "delete":
        assert statuses.delete_status(r, star, newest) == statuses.DeleteResult.DELETED
    else:
        assert reposts.repost(r, star, reposted)[0] == reposts.RepostResult.REPOSTED
        reposts.unrepost(r, star, reposted)
    for key in keys.all_pulled_copies(star):
        assert r.zcard(key) == 4
    shown = whole_home(r, reader, count=2)
    assert set(older) <= set(shown)
    assert (newest in shown) is (undo != "delete")

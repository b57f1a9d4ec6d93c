"""Replies, threads and the home timeline's reply rule, in the repository: counts exact
under racing threads, the rule in inline and deferred fan-out, backfill and refill."""

import threading

import pytest

from socialsite.repository import (
    conversations,
    eviction,
    fanout,
    graph,
    keys,
    scripts,
    statuses,
    timelines,
    worker,
)
from socialsite.repository.limits import THREAD_ANCESTORS, THREAD_NESTED_REPLIES
from tests.support.helpers import make_user, post


def reply(r, user, parent, message="a reply", **options):
    return statuses.post_status(r, user["id"], message, in_reply_to=parent, **options)


def count(r, sid):
    return statuses.get_status(r, sid)["replies"]


# --- replies ------------------------------------------------------------------------------


def test_a_reply_names_its_parent_its_author_and_its_ancestors(r, alice, bob):
    root = post(r, alice, "root")
    first = reply(r, bob, root)
    second = reply(r, alice, first)
    stored = statuses.get_status(r, second)
    assert stored["in_reply_to"] == first
    assert stored["in_reply_to_uid"] == bob["id"]
    assert stored["in_reply_to_login"] == "bob"
    assert statuses.ancestor_ids(stored) == [root, first]
    assert "in_reply_to" not in statuses.get_status(r, root)
    assert count(r, root) == 1 and count(r, first) == 1 and count(r, second) == 0


def test_a_reply_to_an_unknown_or_deleted_status_is_refused(r, alice, bob):
    with pytest.raises(statuses.ParentGone):
        reply(r, bob, 424242)
    gone = post(r, alice, "soon gone")
    statuses.delete_status(r, alice["id"], gone)
    with pytest.raises(statuses.ParentGone):
        reply(r, bob, gone)
    assert timelines.profile_ids(r, bob["id"]) == []


def test_a_reply_keeps_the_newest_ancestors_only(r, alice):
    sid = post(r, alice, "0")
    chain = [sid]
    for n in range(THREAD_ANCESTORS + 5):
        sid = reply(r, alice, sid, str(n + 1))
        chain.append(sid)
    ancestors = statuses.ancestor_ids(statuses.get_status(r, chain[-1]))
    assert ancestors == chain[-THREAD_ANCESTORS - 1 : -1]


def test_reply_counts_are_exact_with_replies_posted_and_deleted_in_racing_threads(
    r, alice, bob, carol
):
    parent = post(r, alice, "a busy status")
    posted, lock = [], threading.Lock()

    def write(user, n):
        for i in range(n):
            sid = reply(r, user, parent, f"{user['login']} {i}")
            with lock:
                posted.append((user, sid))
            if i % 3 == 0:
                statuses.delete_status(r, user["id"], sid)

    threads = [threading.Thread(target=write, args=(u, 15)) for u in (bob, carol, bob, carol)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    alive = {sid for _, sid in posted if r.exists(keys.status(sid))}
    assert len(posted) == 60 and len(alive) == 40
    assert count(r, parent) == 40
    assert {int(m) for m in r.zrange(keys.replies(parent), 0, -1)} == alive


def test_deleting_a_reply_uncounts_it_once_and_a_late_count_is_refused(r, alice, bob):
    parent = post(r, alice, "parent")
    sid = reply(r, bob, parent)
    stored = statuses.get_status(r, sid)
    assert statuses.delete_status(r, bob["id"], sid) is statuses.DeleteResult.DELETED
    assert statuses.delete_status(r, bob["id"], sid) is statuses.DeleteResult.NOT_FOUND
    assert count(r, parent) == 0
    # A step that counts the reply late (the sweep of unfinished posts, a form sent
    # again) after its deletion changes nothing.
    scripts.run_pipeline(r, lambda pipe: statuses._queue_conversation(pipe, stored))
    assert count(r, parent) == 0


def test_a_post_sent_twice_is_counted_and_notified_once(r, alice, bob):
    from socialsite.repository import notifications

    parent = post(r, alice, "parent")
    first = reply(r, bob, parent, "once", posting_key="form-1")
    again = reply(r, bob, parent, "once", posting_key="form-1")
    assert first == again
    assert count(r, parent) == 1
    assert len(notifications.events(r, alice["id"])) == 1
    assert notifications.unread(r, alice["id"]).count == 1


def test_a_form_sent_again_finishes_a_reply_whose_request_died(r, alice, bob, monkeypatch):
    parent = post(r, alice, "parent")
    # The first request stored the reply, then died before counting it.
    monkeypatch.setattr(statuses, "_queue_conversation", lambda *args: None)
    reply(r, bob, parent, posting_key="form-2")
    monkeypatch.undo()
    assert count(r, parent) == 0
    reply(r, bob, parent, posting_key="form-2")
    assert count(r, parent) == 1


def test_the_sweep_finishes_a_reply_and_takes_back_one_never_stored(r, alice, bob, monkeypatch):
    from socialsite.repository import notifications

    parent = post(r, alice, "parent")

    def die(*args):
        raise SystemExit("killed after the first step")

    # A request that stored the reply and its note, and died before the rest.
    monkeypatch.setattr(statuses, "_queue_conversation", lambda *args: None)
    monkeypatch.setattr(fanout, "deliver", die)
    with pytest.raises(SystemExit):
        reply(r, bob, parent)  # bob has no followers: noted for the conversation alone
    monkeypatch.undo()
    assert count(r, parent) == 0
    assert statuses.finish_unfinished(r, grace_ms=0) == 1
    assert count(r, parent) == 1
    assert notifications.unread(r, alice["id"]).count == 1
    # One never stored: its first step only, as a request dying right after it leaves.
    sid = r.incr(keys.STATUS_IDS)
    scripts.add_own_status(
        r, uid=bob["id"], sid=sid, now_ms=0, conversation=True, parent=parent,
        replied_to=alice["id"],
    )  # fmt: skip
    r.zadd(keys.replies(parent), {sid: sid})  # as if counted by a half-sent pipeline
    assert statuses.finish_unfinished(r, grace_ms=0) == 1
    assert count(r, parent) == 1
    assert sid not in timelines.profile_ids(r, bob["id"])
    assert r.zcard(keys.profile_replies(bob["id"])) == 1


def test_deleting_a_status_deletes_its_replies_list_and_replies_stay(r, alice, bob):
    parent = post(r, alice, "parent")
    child = reply(r, bob, parent)
    statuses.delete_status(r, alice["id"], parent)
    assert not r.exists(keys.replies(parent))
    assert statuses.get_status(r, child)["in_reply_to"] == parent


# --- the home timeline's reply rule ------------------------------------------------------


@pytest.fixture
def dave(r):
    return make_user(r, "dave", "Dave Lister")


@pytest.fixture
def network(r, alice, bob, carol, dave):
    """carol follows alice and bob; dave follows alice only; bob follows alice."""
    for follower, followed in [(carol, alice), (carol, bob), (dave, alice), (bob, alice)]:
        graph.follow(r, follower["id"], followed["id"])


def homes_holding(r, sid, *people):
    return {p["login"] for p in people if timelines.in_home(r, p["id"], sid)}


def test_a_reply_reaches_followers_who_follow_the_user_replied_to_or_are_them(
    r, network, alice, bob, carol, dave
):
    to_bob = reply(r, alice, post(r, bob, "bob's"))
    assert homes_holding(r, to_bob, alice, bob, carol, dave) == {"alice", "bob", "carol"}
    # Not a reply: everyone following alice.
    plain = post(r, alice, "to all")
    assert homes_holding(r, plain, alice, bob, carol, dave) == {"alice", "bob", "carol", "dave"}
    # A reply to herself: everyone following alice too.
    own = reply(r, alice, plain)
    assert homes_holding(r, own, alice, bob, carol, dave) == {"alice", "bob", "carol", "dave"}
    # Always on the author's profile.
    assert to_bob in timelines.profile_ids(r, alice["id"])


def test_deferred_fan_out_applies_the_reply_rule(r, network, alice, bob, carol, dave):
    to_bob = reply(r, alice, post(r, bob, "bob's"), inline_limit=0)
    assert homes_holding(r, to_bob, bob, carol, dave) == set()
    worker.work_until_idle(r)
    assert homes_holding(r, to_bob, alice, bob, carol, dave) == {"alice", "bob", "carol"}


def test_a_non_reply_is_delivered_with_the_same_keys_as_before(r, network, alice, monkeypatch):
    calls = []
    real = scripts.deliver.queue

    def record(pipe, **params):
        script_keys, args = scripts.deliver.keys_and_args(**params)
        calls.append((len(script_keys), len(args)))
        real(pipe, **params)

    monkeypatch.setattr(scripts.deliver, "queue", record)
    post(r, alice, "plain")
    # Followers bob, carol and dave: the unfollow, hiding, reposts-shown and listing notes
    # and one home each, per shard; no following lists, and no replied-to user among the
    # arguments.
    assert sorted(calls) == [(5, 4)] * 3


def test_the_follow_backfill_applies_the_reply_rule(r, alice, bob, carol, dave):
    graph.follow(r, dave["id"], carol["id"])
    to_bob = reply(r, alice, post(r, bob, "bob's"))
    to_carol = reply(r, alice, post(r, carol, "carol's"))
    to_dave = reply(r, alice, post(r, dave, "dave's"))
    plain = post(r, alice, "plain")
    graph.follow(r, dave["id"], alice["id"])
    home = timelines.home_ids(r, dave["id"])
    assert plain in home and to_carol in home and to_dave in home
    assert to_bob not in home


def test_the_unfollow_refill_applies_the_reply_rule(r, alice, bob, carol, dave):
    graph.follow(r, dave["id"], carol["id"])
    graph.follow(r, dave["id"], alice["id"])
    to_bob = reply(r, alice, post(r, bob, "bob's"))
    to_carol = reply(r, alice, post(r, carol, "carol's"))
    own = reply(r, dave, post(r, bob, "bob's again"))  # dave's own reply: always his
    plain = post(r, alice, "plain")
    # An emptied home timeline (as trims and unfollows leave one) refilled from scratch.
    r.delete(keys.home(dave["id"]))
    eviction.refill_home(r, dave["id"])
    home = timelines.home_ids(r, dave["id"])
    assert to_carol in home and own in home and plain in home
    assert to_bob not in home


# --- threads ---------------------------------------------------------------------------------


def test_a_thread_shows_ancestors_oldest_first_and_a_deleted_one_as_such(r, alice, bob):
    root = post(r, alice, "root")
    middle = reply(r, bob, root)
    leaf = reply(r, alice, middle)
    statuses.delete_status(r, bob["id"], middle)
    thread = conversations.thread(r, leaf)
    assert thread.status["id"] == leaf
    assert [a["id"] for a in thread.ancestors] == [root, middle]
    assert thread.ancestors[0]["author"]["login"] == "alice"
    assert thread.ancestors[1] == {"id": middle, "deleted": True}


def test_a_thread_nests_replies_three_levels_and_says_where_there_are_more(r, alice, bob):
    root = post(r, alice, "root")
    level1 = [reply(r, bob, root, f"1.{n}") for n in range(2)]
    level2 = [reply(r, alice, level1[0], f"2.{n}") for n in range(THREAD_NESTED_REPLIES + 1)]
    level3 = reply(r, bob, level2[0], "3")
    level4 = reply(r, alice, level3, "4")
    thread = conversations.thread(r, root)
    assert thread.status["replies"] == 2
    assert [x.status["id"] for x in thread.replies] == level1
    first = thread.replies[0]
    assert [x.status["id"] for x in first.replies] == level2[:THREAD_NESTED_REPLIES]
    assert first.more  # one more than shown
    deepest = first.replies[0].replies[0]
    assert deepest.status["id"] == level3
    assert deepest.replies == [] and deepest.more  # level 4 is on its own page
    assert conversations.thread(r, level3).replies[0].status["id"] == level4
    assert not thread.replies[1].more


def test_a_threads_direct_replies_come_thirty_a_page_oldest_first(r, alice, bob):
    root = post(r, alice, "root")
    replies = [reply(r, bob, root, str(n)) for n in range(35)]
    first = conversations.thread(r, root)
    assert [x.status["id"] for x in first.replies] == replies[:30]
    assert first.next_cursor == replies[29]
    second = conversations.thread(r, root, after=first.next_cursor)
    assert [x.status["id"] for x in second.replies] == replies[30:]
    assert second.next_cursor is None


def test_a_thread_of_an_unknown_status_is_none(r):
    assert conversations.thread(r, 424242) is None


def test_a_thread_costs_the_same_round_trips_whatever_its_size(
    r, alice, bob, round_trips, redis_backend
):
    def cost(sid):
        round_trips["n"] = 0
        conversations.thread(r, sid)
        return round_trips["n"]

    small = reply(r, bob, post(r, alice, "small"))
    root = post(r, alice, "big")
    sid = root
    for n in range(45):  # more ancestors than a page shows
        sid = reply(r, bob if n % 2 else alice, sid, str(n))
    for n in range(30):
        child = reply(r, alice, sid, f"child {n}")
        for m in range(4):
            grandchild = reply(r, bob, child, f"grandchild {m}")
            reply(r, alice, grandchild, "great-grandchild")
    from socialsite import memory

    memory.forget_all()
    big = cost(sid)
    memory.forget_all()
    little = cost(small)
    if not redis_backend.cluster:
        # The status and its page; ancestors and three levels; authors; whether the
        # reader may see the other authors' statuses (visibility.shown_statuses).
        assert big == 6
        assert little <= big
    assert big <= 6 * len(getattr(redis_backend, "nodes", [None]))

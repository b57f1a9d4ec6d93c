"""Following and unfollowing: the book's checks, plus races run with threads."""

import threading

import pytest

from socialsite.repository import graph, keys, statuses, timelines, users
from socialsite.repository.limits import HOME_TIMELINE_SIZE
from tests.support.helpers import make_user


def counts(r, uid):
    user = users.get_user(r, uid)
    return user["followers"], user["following"]


def test_follow_updates_both_lists_and_both_counts(r, alice, bob):
    assert graph.follow(r, alice["id"], bob["id"]) is graph.FollowResult.FOLLOWED
    assert graph.following_ids(r, alice["id"]) == {bob["id"]}
    assert graph.follower_ids(r, bob["id"]) == {alice["id"]}
    assert counts(r, alice["id"]) == (0, 1)
    assert counts(r, bob["id"]) == (1, 0)


def test_following_twice_changes_nothing(r, alice, bob):
    graph.follow(r, alice["id"], bob["id"])
    assert graph.follow(r, alice["id"], bob["id"]) is graph.FollowResult.ALREADY_FOLLOWING
    assert counts(r, alice["id"]) == (0, 1)
    assert counts(r, bob["id"]) == (1, 0)


def test_following_oneself_is_refused(r, alice):
    assert graph.follow(r, alice["id"], alice["id"]) is graph.FollowResult.SELF
    assert graph.unfollow(r, alice["id"], alice["id"]) is graph.FollowResult.SELF
    assert counts(r, alice["id"]) == (0, 0)
    assert graph.following_ids(r, alice["id"]) == set()


def test_unfollow_updates_both_lists_and_both_counts(r, alice, bob):
    graph.follow(r, alice["id"], bob["id"])
    assert graph.unfollow(r, alice["id"], bob["id"]) is graph.FollowResult.UNFOLLOWED
    assert graph.following_ids(r, alice["id"]) == set()
    assert graph.follower_ids(r, bob["id"]) == set()
    assert counts(r, alice["id"]) == (0, 0)
    assert counts(r, bob["id"]) == (0, 0)


def test_unfollowing_someone_not_followed_changes_nothing(r, alice, bob, carol):
    graph.follow(r, carol["id"], bob["id"])
    assert graph.unfollow(r, alice["id"], bob["id"]) is graph.FollowResult.NOT_FOLLOWING
    assert counts(r, bob["id"]) == (1, 0)
    assert counts(r, alice["id"]) == (0, 0)


def test_follow_copies_the_followed_users_statuses_into_home(r, alice, bob):
    posted = [statuses.post_status(r, bob["id"], f"bob {i}") for i in range(5)]
    graph.follow(r, alice["id"], bob["id"])
    assert timelines.home_ids(r, alice["id"]) == posted[::-1]


def test_follow_copies_at_most_the_cap_and_home_stays_capped(r, alice, bob):
    # Writing 1,010 statuses straight into bob's profile is much faster than posting them.
    r.zadd(keys.profile(bob["id"]), {str(sid): sid for sid in range(1, 1011)})
    r.set(keys.STATUS_IDS, 1010)
    own = statuses.post_status(r, alice["id"], "alice's newest")
    graph.follow(r, alice["id"], bob["id"])
    home = timelines.home_ids(r, alice["id"])
    assert len(home) == HOME_TIMELINE_SIZE
    assert home[0] == own
    assert home[-1] == 1011 - HOME_TIMELINE_SIZE + 1


def test_unfollow_removes_that_users_statuses_from_home_only(r, alice, bob, carol):
    graph.follow(r, alice["id"], bob["id"])
    graph.follow(r, alice["id"], carol["id"])
    bob_status = statuses.post_status(r, bob["id"], "from bob")
    carol_status = statuses.post_status(r, carol["id"], "from carol")
    own = statuses.post_status(r, alice["id"], "from alice")
    graph.unfollow(r, alice["id"], bob["id"])
    assert timelines.home_ids(r, alice["id"]) == [own, carol_status]
    assert bob_status not in timelines.home_ids(r, alice["id"])


def test_follow_scores_are_unique_even_in_one_millisecond(r, bob):
    followers = [make_user(r, f"fan{i}") for i in range(50)]
    for fan in followers:
        graph.follow(r, fan["id"], bob["id"])
    scores = [score for _, score in r.zrange(keys.followers(bob["id"]), 0, -1, withscores=True)]
    assert len(set(scores)) == len(followers)


def test_followers_and_following_pages_are_newest_first_without_repeats(r, bob):
    fans = [make_user(r, f"fan{i}") for i in range(7)]
    for fan in fans:
        graph.follow(r, fan["id"], bob["id"])
    seen, before = [], None
    while True:
        page = graph.followers_page(r, bob["id"], before=before, count=3)
        seen += [user["login"] for user in page.items]
        if page.next_cursor is None:
            break
        before = page.next_cursor
    assert seen == [fan["login"] for fan in reversed(fans)]
    assert [u["login"] for u in graph.following_page(r, fans[0]["id"]).items] == ["bob"]


def test_a_busy_follow_lock_is_reported_not_waited_on_forever(r, alice, bob):
    r.set(keys.follow_lock(alice["id"]), "someone else", px=10_000)
    with pytest.raises(graph.LockBusy):
        graph.locks.hold(r, keys.follow_lock(alice["id"]), wait_seconds=0.1).__enter__()
    assert graph.following_ids(r, alice["id"]) == set()


def run_together(*actions, rounds=1):
    """Run each action in its own thread, all released at once, ``rounds`` times."""
    errors = []
    start = threading.Barrier(len(actions))

    def run(action):
        try:
            for _ in range(rounds):
                start.wait()
                action()
        except Exception as error:  # noqa: BLE001 - reported below
            errors.append(error)

    threads = [threading.Thread(target=run, args=(action,)) for action in actions]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []


def test_concurrent_follow_and_unfollow_of_one_pair_keep_both_sides_agreeing(r, alice, bob):
    run_together(
        lambda: graph.follow(r, alice["id"], bob["id"]),
        lambda: graph.unfollow(r, alice["id"], bob["id"]),
        lambda: graph.follow(r, alice["id"], bob["id"]),
        rounds=30,
    )
    following = graph.following_ids(r, alice["id"])
    followers = graph.follower_ids(r, bob["id"])
    assert (bob["id"] in following) == (alice["id"] in followers)
    assert counts(r, alice["id"]) == (0, len(following))
    assert counts(r, bob["id"]) == (len(followers), 0)


def test_counts_stay_exact_under_many_concurrent_follows_and_unfollows(r, bob, carol):
    fans = [make_user(r, f"fan{i}") for i in range(12)]

    def churn(fan):
        def action():
            graph.follow(r, fan["id"], bob["id"])
            graph.follow(r, fan["id"], carol["id"])
            graph.unfollow(r, fan["id"], bob["id"])
            graph.follow(r, fan["id"], bob["id"])
            if fan["id"] % 2:
                graph.unfollow(r, fan["id"], carol["id"])

        return action

    run_together(*(churn(fan) for fan in fans), rounds=3)
    for star in (bob, carol):
        assert counts(r, star["id"])[0] == r.zcard(keys.followers(star["id"]))
    assert counts(r, bob["id"])[0] == len(fans)
    assert counts(r, carol["id"])[0] == len([f for f in fans if f["id"] % 2 == 0])
    for fan in fans:
        assert counts(r, fan["id"])[1] == r.zcard(keys.following(fan["id"]))

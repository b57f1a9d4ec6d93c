"""Likes in the repository: liking and unliking, the counts under concurrency, a like
racing a delete, the lists and their pages, who may like what, notifications, and an
account that leaves taking its likes back."""

import threading

from socialsite.repository import (
    blocks,
    graph,
    keys,
    leaving,
    likes,
    moderation,
    notifications,
    privacy,
    scripts,
    statuses,
    timelines,
)
from socialsite.repository.likes import LikeResult
from tests.support.helpers import make_user, post


def like_events(r, uid):
    return [e for e in notifications.events(r, uid) if e.kind == "like"]


def test_like_and_unlike_are_idempotent(r, alice, bob):
    sid = post(r, alice, "like me")
    assert likes.like(r, bob["id"], sid) is LikeResult.LIKED
    assert likes.like(r, bob["id"], sid) is LikeResult.ALREADY_LIKED
    assert likes.like_count(r, sid) == 1
    assert r.zrange(keys.likes(sid), 0, -1) == [str(bob["id"])]
    assert r.zrange(keys.user_likes(bob["id"]), 0, -1) == [str(sid)]
    assert [(e.actor, e.status, e.subject) for e in like_events(r, alice["id"])] == [
        (bob["id"], sid, sid)
    ]
    assert statuses.get_status(r, sid)["likes"] == 1

    assert likes.unlike(r, bob["id"], sid) is LikeResult.UNLIKED
    assert likes.unlike(r, bob["id"], sid) is LikeResult.NOT_LIKED
    assert likes.like_count(r, sid) == 0
    assert not r.exists(keys.likes(sid))
    assert r.zcard(keys.user_likes(bob["id"])) == 0
    assert like_events(r, alice["id"]) == []
    assert notifications.unread(r, alice["id"]).count == 0


def test_liking_ones_own_status_counts_without_a_notification(r, alice):
    sid = post(r, alice, "mine")
    assert likes.like(r, alice["id"], sid) is LikeResult.LIKED
    assert likes.like_count(r, sid) == 1
    assert like_events(r, alice["id"]) == []


def test_a_half_done_like_is_repaired_by_liking_again(r, alice, bob):
    sid = post(r, alice, "half")
    # The status's side written, then the request died before the liker's side.
    scripts.status_count(r, sid=sid, uid=bob["id"], kind="likes", action="add", now_ms=1000)
    assert likes.likes_of(r, bob["id"], [sid]) == frozenset()
    assert likes.like(r, bob["id"], sid) is LikeResult.ALREADY_LIKED
    assert likes.likes_of(r, bob["id"], [sid]) == {sid}
    assert likes.like_count(r, sid) == 1


def test_concurrent_likes_and_unlikes_leave_exact_counts(r, alice):
    sid = post(r, alice, "popular")
    likers = [make_user(r, f"liker{n}") for n in range(24)]
    stay = likers[::2]  # like, unlike, like again; the others like then unlike
    barrier = threading.Barrier(len(likers))

    def work(user):
        barrier.wait()
        for _ in range(3):
            likes.like(r, user["id"], sid)
            likes.unlike(r, user["id"], sid)
        if user in stay:
            likes.like(r, user["id"], sid)
            likes.like(r, user["id"], sid)

    threads = [threading.Thread(target=work, args=(user,)) for user in likers]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert likes.like_count(r, sid) == len(stay) == r.zcard(keys.likes(sid))
    assert {int(uid) for uid in r.zrange(keys.likes(sid), 0, -1)} == {u["id"] for u in stay}
    scores = r.zrange(keys.likes(sid), 0, -1, withscores=True)
    assert len({score for _, score in scores}) == len(scores)  # unique: pages are exact
    assert {e.actor for e in like_events(r, alice["id"])} == {u["id"] for u in stay}


def test_a_like_racing_a_delete_leaves_nothing_behind(r, alice):
    likers = [make_user(r, f"liker{n}") for n in range(12)]
    for _ in range(3):
        sid = post(r, alice, "going")
        barrier = threading.Barrier(len(likers) + 1)

        def like(user, sid=sid, barrier=barrier):
            barrier.wait()
            likes.like(r, user["id"], sid)

        threads = [threading.Thread(target=like, args=(user,)) for user in likers]
        for thread in threads:
            thread.start()
        barrier.wait()
        assert statuses.delete_status(r, alice["id"], sid) is statuses.DeleteResult.DELETED
        for thread in threads:
            thread.join()
        assert not r.exists(keys.likes(sid), keys.status_counts(sid), keys.status(sid))
    # After the delete, a like is refused and writes nothing.
    assert likes.like(r, likers[0]["id"], sid) is LikeResult.NOT_FOUND
    assert (
        scripts.status_count(r, sid=sid, uid=likers[0]["id"], kind="likes", action="add", now_ms=1)
        == -1
    )
    assert not r.exists(keys.likes(sid), keys.status_counts(sid))


def test_deleting_a_status_takes_its_like_notifications_back(r, alice, bob, carol):
    sid = post(r, alice, "soon gone")
    kept = post(r, alice, "stays")
    for user in (bob, carol):
        likes.like(r, user["id"], sid)
    likes.like(r, bob["id"], kept)
    assert notifications.unread(r, alice["id"]).count == 3
    statuses.delete_status(r, alice["id"], sid)
    assert [e.status for e in like_events(r, alice["id"])] == [kept]
    assert notifications.unread(r, alice["id"]).count == 1
    # The likers' lists still name it until read: the page skips it and takes it out.
    assert r.zscore(keys.user_likes(bob["id"]), sid) is not None
    page = likes.liked_page(r, bob["id"], bob["id"])
    assert [s["id"] for s in page.items] == [kept]
    assert r.zscore(keys.user_likes(bob["id"]), sid) is None


def test_who_may_like_what(r, alice, bob, carol):
    sid = post(r, alice, "hello")
    # Deleted, or never was.
    assert likes.like(r, bob["id"], 999_999) is LikeResult.NOT_FOUND
    # Blocked by the author: to bob the status is not there. Blocking her: refused.
    blocks.block(r, alice["id"], bob["id"])
    assert likes.like(r, bob["id"], sid) is LikeResult.NOT_FOUND
    blocks.unblock(r, alice["id"], bob["id"])
    blocks.block(r, bob["id"], alice["id"])
    assert likes.like(r, bob["id"], sid) is LikeResult.BLOCKED
    assert likes.unlike(r, bob["id"], sid) is LikeResult.BLOCKED
    blocks.unblock(r, bob["id"], alice["id"])
    # A private account not followed; followed, it may.
    privacy.set_private(r, alice["id"], True)
    assert likes.like(r, carol["id"], sid) is LikeResult.NOT_FOUND
    graph.follow(r, carol["id"], alice["id"])
    privacy.approve(r, alice["id"], carol["id"])
    assert likes.like(r, carol["id"], sid) is LikeResult.LIKED
    # A suspended author's statuses are not there for anyone.
    moderation.suspend(r, alice["id"], reason="spam")
    assert likes.like(r, bob["id"], sid) is LikeResult.NOT_FOUND
    assert likes.like_count(r, sid) == 1  # nothing refused was written
    assert r.zcard(keys.user_likes(bob["id"])) == 0


def test_likers_page_newest_first_and_paged(r, alice):
    sid = post(r, alice, "liked a lot")
    likers = [make_user(r, f"liker{n}") for n in range(7)]
    for user in likers:
        likes.like(r, user["id"], sid)
    first = likes.likers_page(r, sid, count=3)
    assert [u["login"] for u in first.items] == ["liker6", "liker5", "liker4"]
    second = likes.likers_page(r, sid, before=first.next_cursor, count=3)
    third = likes.likers_page(r, sid, before=second.next_cursor, count=3)
    assert [u["login"] for u in second.items + third.items] == [
        "liker3", "liker2", "liker1", "liker0"
    ]  # fmt: skip
    assert third.next_cursor is None


def test_liked_page_newest_like_first_paged_without_what_the_viewer_may_not_see(
    r, alice, bob, carol
):
    dave = make_user(r, "dave")
    mine = [post(r, alice, f"alice {n}") for n in range(4)]
    secret = post(r, dave, "private")
    graph.follow(r, bob["id"], dave["id"])
    for sid in mine:
        likes.like(r, bob["id"], sid)
    likes.like(r, bob["id"], secret)
    privacy.set_private(r, dave["id"], True)  # bob followed before: he still sees it
    likes.like(r, carol["id"], mine[0])
    page = likes.liked_page(r, bob["id"], carol["id"], count=3)
    # dave's is left out for carol; the page's ids are read all the same.
    assert [s["id"] for s in page.items] == [mine[3], mine[2]]
    assert page.liked == frozenset()
    rest = likes.liked_page(r, bob["id"], carol["id"], before=page.next_cursor, count=3)
    assert [s["id"] for s in rest.items] == [mine[1], mine[0]]
    assert rest.liked == {mine[0]}
    assert rest.next_cursor is None
    own = likes.liked_page(r, bob["id"], bob["id"], count=10)
    assert [s["id"] for s in own.items] == [secret, *reversed(mine)]
    assert own.liked == {secret, *mine}
    assert all(s["author"] and s["likes"] >= 1 for s in own.items)


def test_counts_are_read_with_every_status(r, alice, bob, carol):
    sid = post(r, alice, "counted")
    post(r, bob, "a reply", in_reply_to=sid)
    likes.like(r, bob["id"], sid)
    likes.like(r, carol["id"], sid)
    r.hincrby(keys.status_counts(sid), "reposts", 3)  # as the reposts' script does
    (status,) = statuses.get_statuses(r, [sid])
    assert (status["replies"], status["likes"], status["reposts"]) == (1, 2, 3)
    seen = statuses.ViewerLikes(bob["id"])
    statuses.get_statuses(r, [sid], viewer_likes=seen)
    assert seen.ids == {sid}
    fresh = post(r, alice, "nothing yet")
    (status,) = statuses.get_statuses(r, [fresh])
    assert (status["replies"], status["likes"], status["reposts"]) == (0, 0, 0)


def test_the_home_page_shows_the_likers_own_like_at_once(r, alice, bob):
    graph.follow(r, bob["id"], alice["id"])
    sid = post(r, alice, "on bob's home")
    page = timelines.home_page(r, bob["id"])
    assert page.items[0]["likes"] == 0 and page.liked == frozenset()
    # Liked through another process: this one's memory still trusts the count...
    scripts.status_count(r, sid=sid, uid=bob["id"], kind="likes", action="add", now_ms=1000)
    scripts.mark_like(r, uid=bob["id"], sid=sid, now_ms=1000)
    # ...but the liker's page reads it fresh, since likes_changed stands.
    page = timelines.home_page(r, bob["id"])
    assert page.items[0]["likes"] == 1 and page.liked == {sid}
    # Read with the session too (HomeIdsRead), the same.
    read = timelines.HomeIdsRead(None, 30)
    pipe = r.pipeline(transaction=False)
    read.queue(pipe, bob["id"])
    read.take(bob["id"], pipe.execute())
    assert read.liked == {sid} and read.likes_changed


def test_leaving_takes_the_accounts_likes_back(r, alice, bob):
    leaver = make_user(r, "leaver")
    sids = [post(r, alice, f"status {n}") for n in range(5)]
    for sid in sids:
        likes.like(r, leaver["id"], sid)
        likes.like(r, bob["id"], sid)
    assert len(like_events(r, alice["id"])) == 10
    own = post(r, leaver, "liked by bob")
    likes.like(r, bob["id"], own)
    # A budget smaller than the likes: the workers' runs finish it.
    assert leaving.delete_account(r, leaver["id"], inline_budget=3) is False
    while not leaving.continue_deletion(r, leaver["id"], 3):
        pass
    for sid in sids:
        assert likes.like_count(r, sid) == 1
        assert r.zrange(keys.likes(sid), 0, -1) == [str(bob["id"])]
    assert {e.actor for e in like_events(r, alice["id"])} == {bob["id"]}
    assert not r.exists(keys.user_likes(leaver["id"]), keys.likes_changed(leaver["id"]))
    # The account's own statuses go with their likes and counts.
    assert not r.exists(keys.likes(own)) and not r.exists(keys.status_counts(own))
    assert [s["id"] for s in likes.liked_page(r, bob["id"], bob["id"]).items] == sids[::-1]

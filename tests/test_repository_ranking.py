"""The Top timeline's ranking (repository/ranking.py): the documented formula on a seeded
home (engagement against recency by the stated amounts, affinity lifting an author, the
diversity rule, muted authors never shown), exact paging through a snapshot while likes
arrive, the "why" line, the settings' effect, and affinity written by the acts."""

import math
import time

import pytest

from socialsite.repository import affinity, blocks, graph, keys, likes, ranking, reposts, statuses
from tests.support.helpers import make_user, post

HOUR = 3600.0
WINDOW = 48 * HOUR


def aged(r, sid, hours):
    """Make status ``sid`` ``hours`` old (before any page has read it)."""
    r.hset(keys.status(sid), "posted", time.time() - hours * HOUR)
    statuses._known.forget(sid)
    return sid


def people(r, *logins):
    return [make_user(r, login) for login in logins]


@pytest.fixture
def reader(r):
    return make_user(r, "reader")


@pytest.fixture
def friends(r, reader):
    """Five accounts the reader follows."""
    found = people(r, "ann", "ben", "cat", "dan", "eve")
    for friend in found:
        graph.follow(r, reader["id"], friend["id"])
    return found


DEFAULTS = ranking.Weights()


def ranked_ids(r, uid, weights=DEFAULTS, now=None):
    ranked, _ = ranking.rank(r, uid, weights, candidates=800, window=WINDOW, now=now)
    return [item.status["id"] for item in ranked]


def test_the_formula_engagement_against_recency():
    """Three likes from people one follows (log2(1 + 3 * 3) = 3.32) make a status worth
    4.32 new ones: it stays above a new status with nothing for 12 * log2(4.32) = 25.3
    hours of age, no more."""
    now = 1_800_000_000.0

    def status(sid, uid, hours):
        return {"id": sid, "uid": uid, "posted": now - hours * HOUR, "likes": 3,
                "reposts": 0, "replies": 0, "author": {"login": f"u{uid}"}}  # fmt: skip

    def scores(hours, weights=DEFAULTS):
        fresh = {**status(2, 20, 0), "likes": 0}
        found = ranking.score_candidates(
            [fresh, status(1, 10, hours)], reader=1, following={10, 20, 30, 40, 50},
            likers={1: [30, 40, 50]}, affinities={}, weights=weights, now=now, window=WINDOW,
        )  # fmt: skip
        return {item.status["id"]: item.score for item in found}

    assert scores(0)[1] == pytest.approx(1 + math.log2(10))
    assert scores(12)[1] == pytest.approx((1 + math.log2(10)) / 2)
    assert scores(25)[1] > scores(25)[2] == 1
    assert scores(26)[1] < scores(26)[2]
    # "Newest: more" halves the half-life: the same status is overtaken after 12.7 h.
    newest = ranking.Weights(newest=2.0)
    assert scores(12, newest)[1] > scores(12, newest)[2]
    assert scores(13, newest)[1] < scores(13, newest)[2]
    # "Popular: less" halves the engagement term.
    assert scores(0, ranking.Weights(popular=0.5))[1] == pytest.approx(1 + math.log2(10) / 2)


def test_likes_from_follows_count_three_times_and_on_a_log_scale():
    now = 1_800_000_000.0
    base = {"uid": 10, "posted": now, "reposts": 0, "replies": 0, "author": {"login": "x"}}
    items = [{**base, "id": 1, "likes": 3}, {**base, "id": 2, "likes": 3},
             {**base, "id": 3, "likes": 10_000}]  # fmt: skip
    found = ranking.score_candidates(
        items, reader=1, following={20, 21, 22}, likers={1: [20, 21, 22], 2: [90, 91, 92]},
        affinities={}, weights=ranking.Weights(), now=now, window=WINDOW,
    )  # fmt: skip
    by_id = {item.status["id"]: item.score for item in found}
    assert by_id[1] == pytest.approx(1 + math.log2(1 + 9))
    assert by_id[2] == pytest.approx(1 + math.log2(1 + 3))
    # 10,000 likes are worth about 14 "new statuses", not 10,000.
    assert by_id[3] == pytest.approx(1 + math.log2(10_001))


def test_engaged_status_beats_newer_ones_and_says_why(r, reader, friends):
    ann, ben, cat, dan, eve = friends
    old = aged(r, post(r, ann, "an old one everyone liked"), 10)
    new = aged(r, post(r, ben, "a new one"), 0.1)
    for friend in (cat, dan, eve):
        likes.like(r, friend["id"], old)
    ranked, _ = ranking.rank(r, reader["id"], ranking.Weights(), candidates=800, window=WINDOW)
    assert [item.status["id"] for item in ranked] == [old, new]
    assert ranked[0].why == "liked by 3 people you follow"
    assert ranked[1].why == "new"


def test_statuses_older_than_the_window_are_left_out(r, reader, friends):
    kept = aged(r, post(r, friends[0], "yesterday"), 24)
    aged(r, post(r, friends[1], "three days ago"), 72)
    assert ranked_ids(r, reader["id"]) == [kept]


def test_affinity_lifts_an_author(r, reader, friends):
    ann, ben = friends[:2]
    earlier = [aged(r, post(r, ann, f"ann {i}"), 60) for i in range(2)]
    ben_status = aged(r, post(r, ben, "ben, newer"), 0.5)
    ann_status = aged(r, post(r, ann, "ann, older"), 3)
    assert ranked_ids(r, reader["id"]) == [ben_status, ann_status]
    # Two replies to ann (now, past the window themselves) make her the reader's
    # closest: 2 * 3 = 6, worth 2 * log2(7) = 5.6 "new statuses".
    for sid in earlier:
        aged(r, statuses.post_status(r, reader["id"], "@ann yes", in_reply_to=sid), 60)
    near = affinity.decode(r.zrange(keys.affinity(reader["id"]), 0, -1, withscores=True))
    assert near[ann["id"]] == pytest.approx({"reply": 6.0}, rel=0.01)
    ranked, _ = ranking.rank(r, reader["id"], ranking.Weights(), candidates=800, window=WINDOW)
    assert [item.status["id"] for item in ranked] == [ann_status, ben_status]
    assert ranked[0].why == "you often reply to @ann"
    assert ranked[0].terms["affinity"] == pytest.approx(2 * math.log2(7), rel=0.01)


def test_the_acts_write_affinity_riding_along(r, reader, friends):
    ann = friends[0]
    sid = post(r, ann, "hello")
    likes.like(r, reader["id"], sid)
    reposts.repost(r, reader["id"], sid)
    statuses.post_status(r, reader["id"], "hi", in_reply_to=sid)
    from socialsite.repository import timelines

    timelines.profile_page(r, ann["id"], viewer_id=reader["id"], opened=True)
    near = affinity.decode(r.zrange(keys.affinity(reader["id"]), 0, -1, withscores=True))
    assert near[ann["id"]] == pytest.approx(
        {"like": 1.0, "repost": 2.0, "reply": 3.0, "open": 0.5}, rel=0.01
    )
    # One's own statuses count for nothing.
    likes.like(r, ann["id"], sid)
    assert r.zcard(keys.affinity(ann["id"])) == 0


def test_diversity_at_most_two_of_an_author_in_ten(r, reader, friends):
    ann, ben, cat, dan, eve = friends
    liked = [post(r, ann, f"popular {i}") for i in range(6)]
    for sid in liked:
        for friend in (ben, cat, dan, eve):
            likes.like(r, friend["id"], sid)
    for i, friend in enumerate((ben, cat, dan, eve) * 6):
        post(r, friend, f"plain {i}")
    ranked, _ = ranking.rank(r, reader["id"], ranking.Weights(), candidates=800, window=WINDOW)
    authors = [item.status["uid"] for item in ranked]
    assert len(authors) == 30
    # Ann's six liked statuses would take the first six places: two of them do, the
    # next two wait for places 11 and 12, the last two for 21 and 22.
    assert [i for i, author in enumerate(authors) if author == ann["id"]] == [0, 1, 10, 11, 20, 21]
    for start in range(len(authors) - 9):
        run = authors[start : start + 10]
        assert max(run.count(author) for author in run) <= 2, authors


def test_muted_and_blocked_authors_never_appear(r, reader, friends):
    ann, ben, cat = friends[:3]
    muted = post(r, ann, "muted")
    for friend in friends[1:]:
        likes.like(r, friend["id"], muted)
    post(r, ben, "blocked")
    kept = post(r, cat, "kept")
    blocks.mute(r, reader["id"], ann["id"])
    blocks.block(r, reader["id"], ben["id"])
    assert ranked_ids(r, reader["id"]) == [kept]


def test_a_muted_author_is_left_out_of_later_pages_too(r, reader, friends):
    ann, ben = friends[:2]
    for i in range(4):
        post(r, ann, f"ann {i}")
        post(r, ben, f"ben {i}")
    first = ranking.rank_page(r, reader["id"], ranking.Weights(), count=2, window=WINDOW)
    blocks.mute(r, reader["id"], ann["id"])
    rest = ranking.rank_page(
        r, reader["id"], ranking.Weights(), before=first.next_cursor, count=10, window=WINDOW
    )
    assert rest.items and {s["uid"] for s in rest.items} == {ben["id"]}


def test_paging_through_five_pages_never_repeats_or_skips_while_likes_arrive(r, reader, friends):
    posted = []
    for i in range(15):
        posted.append(aged(r, post(r, friends[i % 5], f"status {i}"), i * 0.5))
    first = ranking.rank_page(r, reader["id"], ranking.Weights(), count=3, window=WINDOW)
    expected = ranked_ids(r, reader["id"])
    seen = [s["id"] for s in first.items]
    cursor = first.next_cursor
    pages = 1
    while cursor is not None:
        # Likes move the scores between pages: the snapshot holds the order.
        for friend in friends:
            likes.like(r, friend["id"], posted[-1 - pages])
        page = ranking.rank_page(
            r, reader["id"], ranking.Weights(), before=cursor, count=3, window=WINDOW
        )
        assert not page.refreshed
        assert all(s["top_why"] for s in page.items)
        seen += [s["id"] for s in page.items]
        cursor = page.next_cursor
        pages += 1
    assert pages == 5
    assert seen == expected
    assert sorted(seen) == sorted(posted)
    # A new first page ranks afresh: the statuses liked since come first now.
    fresh = ranking.rank_page(r, reader["id"], ranking.Weights(), count=3, window=WINDOW)
    assert [s["id"] for s in fresh.items] != seen[:3]


def test_an_expired_snapshot_ranks_afresh(r, reader, friends):
    for i in range(4):
        post(r, friends[i], f"s {i}")
    first = ranking.rank_page(r, reader["id"], ranking.Weights(), count=2, window=WINDOW)
    token = first.next_cursor // ranking.CURSOR_SPAN
    assert r.ttl(keys.top_snapshot(reader["id"], token)) > 500
    r.delete(keys.top_snapshot(reader["id"], token))
    page = ranking.rank_page(
        r, reader["id"], ranking.Weights(), before=first.next_cursor, count=2, window=WINDOW
    )
    assert page.refreshed
    assert [s["id"] for s in page.items] == [s["id"] for s in first.items]


def test_settings_hide_replies_and_reposts(r, reader, friends):
    ann, ben = friends[:2]
    stranger = make_user(r, "stranger")
    top = post(r, ann, "a status")
    reply = post(r, ben, "a reply", in_reply_to=top)
    shown_by_repost = post(r, stranger, "a stranger's")
    reposts.repost(r, ann["id"], shown_by_repost)
    everything = ranked_ids(r, reader["id"])
    assert set(everything) == {top, reply, shown_by_repost}
    no_replies = ranked_ids(r, reader["id"], ranking.Weights(hide_replies=True))
    assert set(no_replies) == {top, shown_by_repost}
    no_reposts = ranked_ids(r, reader["id"], ranking.Weights(hide_reposts=True))
    assert set(no_reposts) == {top, reply}


def test_the_why_line_names_replies_and_reposts_by_follows(r, reader, friends):
    ann, ben, cat = friends[:3]
    stranger = make_user(r, "stranger")
    sid = post(r, stranger, "interesting")
    reposts.repost(r, ann["id"], sid)
    talked = post(r, ann, "let's talk")
    post(r, ben, "yes", in_reply_to=talked)
    post(r, cat, "indeed", in_reply_to=talked)
    ranked, _ = ranking.rank(r, reader["id"], ranking.Weights(), candidates=800, window=WINDOW)
    why = {item.status["id"]: item.why for item in ranked}
    assert why[sid] == "reposted by 1 person you follow"
    assert why[talked] == "2 people you follow replied"


def test_weights_pack_and_unpack():
    weights = ranking.Weights(people=2.0, popular=0.5, newest=1.0, hide_replies=True)
    assert weights.pack() == "2,0.5,1,0,1"
    assert ranking.Weights.unpack(weights.pack()) == weights
    assert ranking.Weights.unpack("") == ranking.Weights()
    assert ranking.Weights.unpack("9,1,1,0,0") == ranking.Weights()
    assert ranking.Weights.unpack("x,y") == ranking.Weights()


def test_a_pulled_accounts_statuses_are_candidates_as_on_the_home_page(r, reader, friends):
    """A pulled account's statuses (decision 0054) are merged into Top's candidates by
    the home page's own read, and rank by the same score."""
    star = make_user(r, "star")
    for follower in (reader, *friends[:2]):
        graph.follow(r, follower["id"], star["id"])

    def star_posts(message):
        return statuses.post_status(r, star["id"], message, pull_followers=3)

    star_posts("registers the account")
    pulled = star_posts("pulled, read at page time")
    assert r.hget(keys.user(star["id"]), keys.FANOUT_PATH_FIELD) == "pulled"
    assert not r.sismember(keys.home(reader["id"]), pulled)
    plain = post(r, friends[2], "delivered")
    for friend in friends[:2]:
        likes.like(r, friend["id"], pulled)
    order = ranked_ids(r, reader["id"])
    assert order[0] == pulled and plain in order


def test_the_settings_change_the_order_as_documented(r, reader, friends):
    """A 14-hour-old status liked by three people the reader follows: 4.32 * 2 ** (-14 /
    12) = 1.92 beats a new one (1) by default; with "newest: more" (a 6-hour half-life)
    4.32 * 2 ** (-14 / 6) = 0.86 does not."""
    ann, ben, cat, dan, eve = friends
    old = aged(r, post(r, ann, "liked, 14 hours ago"), 14)
    for friend in (cat, dan, eve):
        likes.like(r, friend["id"], old)
    new = post(r, ben, "new")
    assert ranked_ids(r, reader["id"]) == [old, new]
    assert ranked_ids(r, reader["id"], ranking.Weights(newest=2.0)) == [new, old]
    # "Popular: less" halves the engagement: (1 + 3.32 / 2) * 0.45 = 1.19, still above.
    assert ranked_ids(r, reader["id"], ranking.Weights(popular=0.5)) == [old, new]
    # "Newest: less" (a 24-hour half-life) keeps it above longer.
    assert ranked_ids(r, reader["id"], ranking.Weights(newest=0.5)) == [old, new]


def read_along(r, uid, before, candidates=800):
    """A TopRead made as the session's round trip makes it (sessions.load_with_user)."""
    from socialsite.repository import client

    read = ranking.TopRead(before, candidates)
    replies = client.round_trip(r, lambda pipe: read.queue(pipe, uid))
    read.take(uid, replies)
    return read


def test_pages_from_reads_along_the_session_are_the_same_pages(r, reader, friends):
    """What ranking.TopRead reads with the session makes the same first and later pages
    as rank_page's own reads; one read for another reader or page is not used."""
    for i in range(9):
        sid = aged(r, post(r, friends[i % 5], f"status {i}"), i * 0.5)
        if i % 3 == 0:
            likes.like(r, friends[(i + 1) % 5]["id"], sid)
    weights, now = ranking.Weights(), time.time()

    def page(before=None, read=None):
        return ranking.rank_page(
            r, reader["id"], weights, before=before, count=3, window=WINDOW, now=now, read=read
        )

    plain = page()
    along = page(read=read_along(r, reader["id"], None))
    assert [s["id"] for s in along.items] == [s["id"] for s in plain.items]
    assert [s["top_why"] for s in along.items] == [s["top_why"] for s in plain.items]
    cursor = along.next_cursor
    later_plain = page(before=cursor)
    later_along = page(before=cursor, read=read_along(r, reader["id"], cursor))
    assert [s["id"] for s in later_along.items] == [s["id"] for s in later_plain.items]
    # Read for someone else (their home, their snapshot), or for another page: ignored.
    other = friends[0]
    assert [s["id"] for s in page(read=read_along(r, other["id"], None)).items] == [
        s["id"] for s in plain.items
    ]
    wrong = page(before=cursor, read=read_along(r, reader["id"], None))
    assert [s["id"] for s in wrong.items] == [s["id"] for s in later_plain.items]

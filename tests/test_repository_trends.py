"""Trending tags (repository: trends): counting distinct users per tag per day at
posting, Mastodon's score on a constructed history, decay and forgetting on a
controlled clock, one recompute whatever the number of workers, hidden tags."""

import calendar
import threading
import time

import pytest
from django.core.management import call_command

from socialsite.repository import graph, keys, statuses, timelines, trends
from socialsite.repository.limits import TREND_DAYS_KEPT, TRENDS_RECOMPUTE_MS
from tests.support.helpers import make_user, post

# 08:00 UTC: a day with room for a few hours of decay before midnight.
NOW = calendar.timegm((2026, 11, 24, 8, 0, 0))
DAY = 24 * 3600
HOUR = 3600


def used(r, tag, users, at):
    """``users`` (ids) used ``tag`` at ``at`` (seconds), as posting counts them; the
    site has handed out ids up to theirs at least (a site of 10,000 accounts and more:
    Mastodon's rule, trends.min_users)."""
    users = list(users)
    accounts = int(r.get(keys.USER_IDS) or 0)
    r.set(keys.USER_IDS, max([accounts, 10_000, *users]))
    pipe = r.pipeline(transaction=False)
    for uid in users:
        trends.queue_use(pipe, uid, [tag], at)
    pipe.execute()


def history(r, tag, yesterday, today, now=NOW):
    """``tag`` used by ``yesterday`` distinct users the day before ``now`` and by
    ``today`` others on its day."""
    used(r, tag, range(1, yesterday + 1), now - DAY)
    used(r, tag, range(10_000, 10_000 + today), now)


def by_tag(found):
    return {trend.tag: trend for trend in found}


def test_the_score_is_mastodons():
    assert trends.score(observed=30, expected=2) == 28**2 / 2
    assert trends.score(observed=30, expected=0) == 29**2 / 1  # expected at least 1
    assert trends.score(observed=4, expected=0) == 0  # under 5 users
    assert trends.score(observed=3, expected=0, least=3) == 2**2 / 1  # a small site's
    assert trends.score(observed=5, expected=5) == 0  # not above what was expected
    assert trends.score(observed=400, expected=500) == 0


def test_posting_counts_each_user_once_per_tag_and_day(r, alice, bob):
    post(r, alice, "#Redis and #redis again, #django")
    post(r, alice, "more #redis")
    post(r, bob, "#ＲＥＤＩＳ")
    day = trends.day_of(float(r.hget(keys.status(1), "posted")))
    assert trends.distinct_users(r, "redis", day) == 2
    assert trends.distinct_users(r, "django", day) == 1
    assert r.smembers(keys.trend_tags(day)) == {"redis", "django"}
    ttl = r.ttl(keys.trend_users("redis", day))
    assert TREND_DAYS_KEPT * DAY - 60 < ttl <= TREND_DAYS_KEPT * DAY


def test_a_tag_rising_from_2_to_30_users_trends(r):
    history(r, "rising", yesterday=2, today=30)
    found = by_tag(trends.recompute(r, now=NOW))
    assert found["rising"].uses == 30
    assert found["rising"].score == pytest.approx(28**2 / 2)
    assert by_tag(trends.trending(r))["rising"].uses == 30


def test_a_steady_tag_of_500_users_a_day_does_not_trend(r):
    history(r, "steady", yesterday=500, today=500)
    history(r, "rising", yesterday=2, today=30)
    found = trends.recompute(r, now=NOW)
    assert [trend.tag for trend in found] == ["rising"]
    assert [trend.tag for trend in trends.trending(r)] == ["rising"]


def test_a_tag_of_fewer_than_5_users_never_trends(r):
    history(r, "quiet", yesterday=0, today=4)
    assert trends.recompute(r, now=NOW) == []
    used(r, "quiet", [99_999], NOW)  # the fifth
    assert [trend.tag for trend in trends.recompute(r, now=NOW)] == ["quiet"]


def test_the_best_score_decays_with_a_4_hour_half_life(r):
    history(r, "rising", yesterday=2, today=30)
    peak = by_tag(trends.recompute(r, now=NOW))["rising"].score
    # Four hours later, the same day and the same users: no better score, half the peak.
    later = by_tag(trends.recompute(r, now=NOW + 4 * HOUR))["rising"]
    assert later.score == pytest.approx(peak / 2)
    assert later.uses == 30
    # A better score the next hour is the new peak.
    used(r, "rising", range(20_000, 20_030), NOW + 5 * HOUR)
    assert by_tag(trends.recompute(r, now=NOW + 5 * HOUR))["rising"].score == pytest.approx(
        58**2 / 2
    )
    # Decayed under 1 (Mastodon's threshold): no longer listed, its peak still kept.
    assert trends.recompute(r, now=NOW + 5 * HOUR + 48 * HOUR - 60) == []
    assert r.hget(keys.TREND_PEAKS, "rising") is not None


def test_a_peak_is_forgotten_after_2_days(r):
    history(r, "huge", yesterday=2, today=3000)
    peak = by_tag(trends.recompute(r, now=NOW))["huge"].score
    nearly = NOW + 2 * DAY - 1
    # Not used since (another day): only the peak keeps it, at 1/4096 of itself.
    assert by_tag(trends.recompute(r, now=nearly))["huge"].score == pytest.approx(
        peak / 4096, rel=0.001
    )
    assert trends.recompute(r, now=nearly + 2) == []
    assert r.hget(keys.TREND_PEAKS, "huge") is None
    assert trends.trending(r) == []


def test_the_trends_are_ranked_by_decayed_score(r):
    history(r, "old", yesterday=1, today=100)  # a big peak, 8 hours old
    trends.recompute(r, now=NOW)
    history(r, "new", yesterday=1, today=40, now=NOW + 8 * HOUR)
    found = trends.recompute(r, now=NOW + 8 * HOUR)
    # old: 99^2 / 4 = 2450; new: 39^2 = 1521.
    assert [trend.tag for trend in found] == ["old", "new"]
    assert found[0].score == pytest.approx(99**2 / 4)


def test_two_workers_recompute_once(r):
    history(r, "rising", yesterday=2, today=30)
    results = []
    start = threading.Barrier(2)

    def worker():
        start.wait()
        results.append(trends.recompute_if_due(r, now=NOW))

    threads = [threading.Thread(target=worker) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(results, key=lambda found: found is None)[1] is None
    assert [trend.tag for trend in next(found for found in results if found)] == ["rising"]
    assert 0 < r.pttl(keys.TRENDS_RECOMPUTE_LOCK) <= TRENDS_RECOMPUTE_MS
    assert trends.recompute_if_due(r, now=NOW) is None  # not due again yet
    r.delete(keys.TRENDS_RECOMPUTE_LOCK)  # as when it expires
    assert trends.recompute_if_due(r, now=NOW) is not None


def test_a_hidden_tag_leaves_the_trends_at_once_and_comes_back_once_unhidden(r):
    history(r, "rising", yesterday=2, today=30)
    history(r, "spam", yesterday=1, today=50)
    trends.recompute(r, now=NOW)
    assert trends.hide(r, "spam") is True
    assert trends.hide(r, "spam") is False
    assert [trend.tag for trend in trends.trending(r)] == ["rising"]
    assert [trend.tag for trend in trends.recompute(r, now=NOW)] == ["rising"]
    assert trends.hidden_tags(r) == ["spam"]
    assert trends.unhide(r, "spam") is True
    assert [trend.tag for trend in trends.recompute(r, now=NOW)] == ["spam", "rising"]


def test_hidden_at_read_too_when_hidden_behind_a_recompute(r):
    history(r, "spam", yesterday=1, today=50)
    trends.recompute(r, now=NOW)
    r.sadd(keys.HIDDEN_TRENDS, "spam")  # as if hidden while the recompute stored it
    assert trends.trending(r) == []


def test_the_trends_command_hides_unhides_and_lists(r, capsys):
    history(r, "spam", yesterday=1, today=50)
    call_command("trends", "hide", "#SPAM")
    assert trends.hidden_tags(r) == ["spam"]
    call_command("trends", "recompute")
    call_command("trends", "list")
    out = capsys.readouterr().out
    assert "hidden: #spam" in out
    call_command("trends", "unhide", "spam")
    assert trends.hidden_tags(r) == []
    with pytest.raises(Exception, match="not a tag"):
        call_command("trends", "hide", "#!!")


def test_a_users_posts_feed_the_trends_end_to_end(r):
    people = [make_user(r, f"user{n}") for n in range(6)]
    for person in people:
        post(r, person, "look at #launch")
    found = trends.recompute(r)
    assert [(trend.tag, trend.uses) for trend in found] == [("launch", 6)]


def test_fan_out_workers_recompute_the_trends_once_between_them(r):
    people = [make_user(r, f"user{n}") for n in range(6)]
    for person in people:
        post(r, person, "look at #launch")
    call_command("fanout", "--exit-when-idle", "--name", "first")
    assert [trend.tag for trend in trends.trending(r)] == ["launch"]
    r.delete(keys.TRENDS)
    call_command("fanout", "--exit-when-idle", "--name", "second")
    assert trends.trending(r) == []  # not due: the first worker's recompute stands


def test_the_least_number_of_users_scales_with_the_site():
    assert [trends.min_users(n) for n in (0, 1, 4, 8, 9, 10, 12, 13, 16)] == [
        2, 2, 2, 2, 3, 3, 3, 4, 4,
    ]  # fmt: skip
    assert {trends.min_users(n) for n in (17, 20, 100, 1_000_000)} == {5}  # Mastodon's


def test_on_a_site_of_10_people_a_tag_3_of_them_used_within_the_hour_trends(r):
    people = [make_user(r, f"user{n}") for n in range(10)]
    now = NOW
    for minutes, person in zip((50, 20, 1), people[:3], strict=True):
        used(r, "meetup", [person["id"]], now - minutes * 60)  # within the hour
    # used() keeps the site at 10 accounts here: ids up to 10 were handed out.
    r.set(keys.USER_IDS, 10)
    found = by_tag(trends.recompute(r, now=now))
    assert found["meetup"].uses == 3
    assert [trend.tag for trend in trends.trending(r)] == ["meetup"]


def test_on_a_site_of_10_people_posts_by_3_of_them_trend_end_to_end(r):
    people = [make_user(r, f"user{n}") for n in range(10)]
    for n, person in enumerate(people[:3]):
        post(r, person, f"#Meetup tonight, {n}")
        post(r, person, "again #meetup")  # 6 tagged posts by 3 people
    assert [(trend.tag, trend.uses) for trend in trends.recompute(r)] == [("meetup", 3)]


def test_on_a_big_site_3_people_do_not_make_a_trend_and_5_do(r):
    people = [make_user(r, f"user{n}") for n in range(5)]
    r.set(keys.USER_IDS, 5_000)  # 5,000 accounts: Mastodon's rule
    for person in people[:3]:
        post(r, person, "#meetup")
    assert trends.recompute(r) == []
    for person in people[3:]:
        post(r, person, "#meetup")
    assert [(trend.tag, trend.uses) for trend in trends.recompute(r)] == [("meetup", 5)]


def test_a_tag_whose_peak_was_forgotten_can_peak_again(r):
    history(r, "again", yesterday=2, today=30)
    trends.recompute(r, now=NOW)
    later = NOW + 3 * DAY  # the old peak forgotten, and a new rise that day
    history(r, "again", yesterday=2, today=30, now=later)
    assert by_tag(trends.recompute(r, now=later))["again"].score == pytest.approx(28**2 / 2)
    assert r.hget(keys.TREND_PEAKS, "again") is not None
    assert "again" in by_tag(trends.recompute(r, now=later + 60))


def test_a_failing_recompute_does_not_stop_a_fan_out_worker(r, alice, bob, monkeypatch, caplog):
    def broken(r, now=None):
        raise ValueError("a bug")

    monkeypatch.setattr(trends, "recompute", broken)
    graph.follow(r, bob["id"], alice["id"])
    sid = post(r, alice, "still delivered", inline_limit=0)  # all by the worker
    call_command("fanout", "--exit-when-idle", "--name", "worker")
    assert timelines.in_home(r, bob["id"], sid)
    assert "Recomputing the trends failed" in caplog.text


def test_a_post_sent_twice_counts_its_author_once(r, alice):
    for _ in range(2):
        statuses.post_status(r, alice["id"], "#once", posting_key="k" * 22)
    assert trends.distinct_users(r, "once", trends.day_of(time.time())) == 1

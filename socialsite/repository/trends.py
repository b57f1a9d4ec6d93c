"""Trending tags: the hashtags whose number of distinct users today most exceeds
yesterday's, scored as Mastodon scores them (app/models/trends/tags.rb).

Counting, at posting (queue_use, in posting's round trip): each tag's users of a UTC
day go into a HyperLogLog (keys.trend_users: PFADD, about 12 KB at most per tag and day
whatever the number of users, 0.81% standard error) in the tag's own slot, kept
TREND_DAYS_KEPT days; the day's tags into one SET (keys.trend_tags), so that the
recompute knows which HyperLogLogs to count without scanning keys. Every command is
safe to repeat: a post retried counts its author once.

Scoring, every TRENDS_RECOMPUTE_MS by one fan-out worker (recompute_if_due), for each
tag used today or with a peak not yet forgotten:
- expected = distinct users yesterday (at least 1), observed = today;
- score = (observed - expected)^2 / expected when observed > expected and observed >=
  the site's least number of users (min_users), else 0;
- the peak (the best score and when) is kept; a better score replaces it; a peak older
  than TREND_PEAK_FORGOTTEN_MS counts as none;
- the trend's score is the peak decayed: peak * 0.5^(age / TREND_HALF_LIFE_MS); under
  TREND_MIN_SCORE it is not listed (Mastodon's decay_threshold).
The least number of users scales with the site (min_users): Mastodon's TREND_MIN_USERS
(5) on a site of more than 16 accounts; on a smaller one, one account in
TREND_MIN_USERS_SHARE (4), at least TREND_MIN_USERS_SMALL (2): on a site of 10 people, a
tag 3 of them used today (within the hour, say) rises from yesterday's 0 to a score of 4
and trends. The site's size is the number of accounts ever made (keys.USER_IDS: one GET
at each recompute; not "active" accounts, which would need a count kept at every post).
The best TRENDS_KEPT by that score, with today's users, are stored in one script call
(lua/store_trends.lua); /explore/ reads them (trending) in one round trip.

Cluster: a tag's HyperLogLogs share its slot; every PFCOUNT counts one key (a command
each, in one pipeline: one round trip per node); the trends, peaks, day sets and the
hidden tags share the {trends} slot.
"""

import dataclasses
import math
import time

from . import keys, scripts
from .limits import (
    TREND_DAYS_KEPT,
    TREND_HALF_LIFE_MS,
    TREND_MIN_SCORE,
    TREND_MIN_USERS,
    TREND_MIN_USERS_SHARE,
    TREND_MIN_USERS_SMALL,
    TREND_PEAK_FORGOTTEN_MS,
    TRENDS_KEPT,
    TRENDS_RECOMPUTE_MS,
    TRENDS_SHOWN,
)

DAY_SECONDS = 24 * 3600
# The day's set of tags is read on that day only (and for yesterday's counts not at all:
# a tag used yesterday but not today scores 0), so two days is plenty.
TREND_TAGS_KEPT_SECONDS = 2 * DAY_SECONDS


@dataclasses.dataclass(frozen=True)
class Trend:
    tag: str
    score: float  # the decayed peak
    uses: int  # distinct users today, as of the recompute


def day_of(seconds):
    """The UTC day of a time in seconds, as YYYYMMDD (an int)."""
    return int(time.strftime("%Y%m%d", time.gmtime(seconds)))


def queue_use(pipe, uid, tags, posted):
    """Queue on ``pipe`` counting user ``uid`` among the users of each of ``tags``
    (normalized) on the UTC day of ``posted`` (seconds): a post's time, the same on
    every retry."""
    if not tags:
        return
    day = day_of(posted)
    for tag in tags:
        key = keys.trend_users(tag, day)
        pipe.pfadd(key, uid)
        pipe.expire(key, TREND_DAYS_KEPT * DAY_SECONDS)
    day_tags = keys.trend_tags(day)
    pipe.sadd(day_tags, *tags)
    pipe.expire(day_tags, TREND_TAGS_KEPT_SECONDS)


def min_users(accounts):
    """The least number of distinct users a day for a tag to score, on a site of
    ``accounts`` accounts: one account in TREND_MIN_USERS_SHARE, rounded up, at least
    TREND_MIN_USERS_SMALL and at most TREND_MIN_USERS (Mastodon's rule, which a site of
    more than 16 accounts gets)."""
    share = math.ceil(max(accounts, 0) / TREND_MIN_USERS_SHARE)
    return max(TREND_MIN_USERS_SMALL, min(TREND_MIN_USERS, share))


def score(observed, expected, least=TREND_MIN_USERS):
    """Mastodon's score of a day with ``observed`` distinct users after one with
    ``expected`` (0 counts as 1); 0 under ``least`` users (min_users)."""
    expected = max(expected, 1)
    if observed <= expected or observed < least:
        return 0.0
    return (observed - expected) ** 2 / expected


def decayed(peak, peak_ms, now_ms):
    """A peak score ``peak`` reached at ``peak_ms``, halved every TREND_HALF_LIFE_MS."""
    return peak * 0.5 ** ((now_ms - peak_ms) / TREND_HALF_LIFE_MS)


def _peaks(stored, now_ms):
    """{tag: (score, ms)} of the peaks hash, and the tags whose peak is forgotten."""
    peaks, forgotten = {}, []
    for tag, value in stored.items():
        peak, _, at = value.partition(":")
        if now_ms - int(at) > TREND_PEAK_FORGOTTEN_MS:
            forgotten.append(tag)
        else:
            peaks[tag] = (float(peak), int(at))
    return peaks, forgotten


def recompute(r, now=None):
    """Score every tag used today or with a standing peak and store the best
    TRENDS_KEPT; return them (Trends, best first). Four round trips: the day's tags, the
    peaks and the hidden tags; the number of accounts (min_users); two PFCOUNTs per tag
    used today (one pipeline); the store (one script call). ``now``: seconds (tests set
    the clock)."""
    now = time.time() if now is None else now
    now_ms = int(now * 1000)
    today, yesterday = day_of(now), day_of(now - DAY_SECONDS)
    pipe = r.pipeline(transaction=False)  # one slot: one node
    pipe.smembers(keys.trend_tags(today))
    pipe.hgetall(keys.TREND_PEAKS)
    pipe.smembers(keys.HIDDEN_TRENDS)
    used, stored_peaks, hidden = pipe.execute()
    peaks, forgotten = _peaks(stored_peaks, now_ms)
    forgotten += [tag for tag in peaks if tag in hidden]
    used = sorted(tag for tag in used if tag not in hidden)
    least = min_users(int(r.get(keys.USER_IDS) or 0)) if used else TREND_MIN_USERS

    def count(pipe):
        for tag in used:
            # execute_command: redis-py blocks pfcount on cluster pipelines (it may
            # name keys of several slots); one key is routed by its slot.
            pipe.execute_command("PFCOUNT", keys.trend_users(tag, today))
            pipe.execute_command("PFCOUNT", keys.trend_users(tag, yesterday))

    counts = scripts.run_pipeline(r, count) if used else []
    uses = {tag: counts[2 * n] for n, tag in enumerate(used)}
    new_peaks = {}
    for n, tag in enumerate(used):
        today_score = score(counts[2 * n], counts[2 * n + 1], least)
        # A peak under TREND_MIN_SCORE could never be listed: not stored.
        if today_score >= TREND_MIN_SCORE and today_score > peaks.get(tag, (0.0, 0))[0]:
            peaks[tag] = new_peaks[tag] = (today_score, now_ms)
    scored = (
        Trend(tag, decayed(peak, at, now_ms), uses.get(tag, 0))
        for tag, (peak, at) in peaks.items()
        if tag not in hidden
    )
    trends = sorted(
        (trend for trend in scored if trend.score >= TREND_MIN_SCORE),
        key=lambda trend: (-trend.score, trend.tag),
    )[:TRENDS_KEPT]
    scripts.store_trends(
        r,
        trends=[(trend.tag, repr(trend.score), trend.uses) for trend in trends],
        peaks={tag: f"{peak!r}:{at}" for tag, (peak, at) in new_peaks.items()},
        forgotten=[tag for tag in forgotten if tag not in new_peaks],  # a new peak stands
    )
    return trends


def recompute_if_due(r, now=None, every_ms=TRENDS_RECOMPUTE_MS):
    """Recompute the trends if no worker did in the last ``every_ms``: the one that
    sets keys.TRENDS_RECOMPUTE_LOCK (SET NX PX) does, whatever the number of workers;
    the key's expiry, not a release, lets the next one in. Returns the trends, or None
    if it was not due. The fan-out workers call it every few seconds: one SET when not
    due."""
    if not r.set(keys.TRENDS_RECOMPUTE_LOCK, "1", nx=True, px=every_ms):
        return None
    return recompute(r, now)


def trending(r, count=TRENDS_SHOWN):
    """The best ``count`` trends (Trends, best first), hidden tags left out (hidden
    since the last recompute, too). One round trip, one slot."""
    pipe = r.pipeline(transaction=False)
    pipe.zrevrange(keys.TRENDS, 0, TRENDS_KEPT - 1, withscores=True)
    pipe.hgetall(keys.TREND_USES)
    pipe.smembers(keys.HIDDEN_TRENDS)
    listed, uses, hidden = pipe.execute()
    shown = [
        Trend(tag, float(value), int(uses.get(tag, 0)))
        for tag, value in listed
        if tag not in hidden
    ]
    return shown[:count]


def daily_users(r, tags, days=7, now=None):
    """{tag: [(day start in seconds, distinct users that UTC day)]}, today first, for
    the last ``days`` days (at most TREND_DAYS_KEPT are counted): the client API's Tag
    history. One pipeline of PFCOUNTs, each in its tag's slot (one round trip per
    node)."""
    now = time.time() if now is None else now
    days = max(0, min(int(days), TREND_DAYS_KEPT))
    starts = [int(now // DAY_SECONDS - back) * DAY_SECONDS for back in range(days)]
    tags = list(tags)
    if not tags or not starts:
        return {tag: [] for tag in tags}
    pipe = r.pipeline(transaction=False)
    for tag in tags:
        for start in starts:
            # execute_command: redis-py blocks pfcount on cluster pipelines (recompute).
            pipe.execute_command("PFCOUNT", keys.trend_users(tag, day_of(start)))
    counts = iter(pipe.execute())
    return {tag: [(start, int(next(counts))) for start in starts] for tag in tags}


def hide(r, tag):
    """Hide ``tag`` (normalized) from trends, at once and at every recompute; True if it
    was not hidden."""
    pipe = r.pipeline(transaction=False)  # one slot: one node, in order
    pipe.sadd(keys.HIDDEN_TRENDS, tag)
    pipe.zrem(keys.TRENDS, tag)
    pipe.hdel(keys.TREND_USES, tag)
    pipe.hdel(keys.TREND_PEAKS, tag)
    return bool(pipe.execute()[0])


def unhide(r, tag):
    """Let ``tag`` trend again (from the next recompute); True if it was hidden."""
    return bool(r.srem(keys.HIDDEN_TRENDS, tag))


def hidden_tags(r):
    """The tags hidden from trends, sorted."""
    return sorted(r.smembers(keys.HIDDEN_TRENDS))


def distinct_users(r, tag, day):
    """The distinct users of ``tag`` on ``day`` (YYYYMMDD), as the HyperLogLog counts
    them (tests, the benchmark)."""
    return r.pfcount(keys.trend_users(tag, day))

"""The Top timeline: the reader's home from the last window, most important first, by a
score a person can read (docs/features.md, "Top") and tune (Weights).

A first page (rank_page without a cursor) reads the newest ``candidates`` entries of
the home as a home page reads them (timelines.home_page: pulled accounts merged,
deleted statuses, hidden authors, muted and blocked accounts and hidden reposts left
out by the one visibility path), keeps those posted within ``window`` seconds, and
scores each:

    score = (1 + popular * engagement + people * AFFINITY * log2(1 + affinity))
            * 2 ** (-age_hours / (HALF_LIFE_HOURS / newest))
    engagement = log2(1 + LIKE * likes + REPOST * reposts + REPLY * replies),
                 each counted FOLLOWED times from people the reader follows

``affinity`` is the reader's decayed counter of the author (affinity.py). Then the
diversity rule: at most DIVERSITY_MOST statuses of one author in any DIVERSITY_RUN
consecutive places (a status that would break it waits for the first place where it
does not).

What is read for it, whatever the number of candidates: the home page's round trips
(its ids; the statuses and counts not remembered: counts live in each status's slot,
so on a cluster this is one pipelined read per master; authors not shown lately), then
one pipeline: the reader's follows and affinities (their slot) and the newest
LIKERS_READ likers of each candidate with likes (each in its status's slot: again one
read per master), intersected here with the follows (decision 0068). Replies and
reposts by people the reader follows are on the home already: counted from the
candidates themselves, nothing read for them.

Paging is exact: the first page stores the whole ranking (ids, repost headers, "why"
lines) as a snapshot (keys.top_snapshot) for SNAPSHOT_SECONDS, and its cursor names
the snapshot and the offset (cursor = token * CURSOR_SPAN + offset), so no status
repeats or is skipped while scores move. A later page reads the snapshot with the
authors the reader does not get now (one round trip), then its statuses as a home page
does. A cursor whose snapshot expired ranks afresh (the page says so). Nothing ranks in
the background.
"""

import json
import math
import time
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from . import affinity, client, keys, paging, reposts, statuses, timelines, visibility
from .client import Client

# The formula's constants (docs/features.md, "Top").
LIKE, REPOST, REPLY = 1.0, 2.0, 2.0
FOLLOWED = 3.0  # an engagement by someone the reader follows counts this many times
AFFINITY = 2.0
HALF_LIFE_HOURS = 12.0
DIVERSITY_RUN, DIVERSITY_MOST = 10, 2
# How many of a status's newest likers are read to find those the reader follows.
LIKERS_READ = 100
# Thresholds of the "why" line.
OFTEN = 4.0  # a decayed affinity from which "you often ..." is said
MANY = 5  # a count from which "12 replies" is said
NEW_HOURS = 6

SNAPSHOT_SECONDS = 600
# cursor = token (the snapshot's time in ms) * CURSOR_SPAN + offset: below ids.MAX_ID
# (2 ** 53) until the year 2250; offsets up to 1023 (a home holds 1000).
CURSOR_SPAN = 1024

# The settings' three levels: less, as is, more.
LEVELS = (0.5, 1.0, 2.0)


@dataclass(frozen=True)
class Weights:
    """A reader's tuning of Top (their settings page): ``people`` multiplies the
    affinity term, ``popular`` the engagement term, ``newest`` divides the half-life;
    each one of LEVELS. ``hide_reposts``: statuses of people the reader does not follow,
    shown through reposts, are left out; ``hide_replies``: replies are."""

    people: float = 1.0
    popular: float = 1.0
    newest: float = 1.0
    hide_reposts: bool = False
    hide_replies: bool = False

    def pack(self) -> str:
        """As kept in the user hash (keys.TOP_WEIGHTS_FIELD): "1,1,1,0,0"."""
        flags = (int(self.hide_reposts), int(self.hide_replies))
        return ",".join([*(f"{w:g}" for w in (self.people, self.popular, self.newest)),
                         *map(str, flags)])  # fmt: skip

    @classmethod
    def unpack(cls, text: str | None) -> "Weights":
        """The Weights ``pack`` wrote; the defaults for anything else."""
        parts = (text or "").split(",")
        if len(parts) != 5:
            return cls()
        try:
            people, popular, newest = (float(part) for part in parts[:3])
        except ValueError:
            return cls()
        if not all(level in LEVELS for level in (people, popular, newest)):
            return cls()
        return cls(people, popular, newest, parts[3] == "1", parts[4] == "1")


@dataclass
class TopPage(paging.Page):
    """A page of Top: ``items`` (statuses as a home page shows them, each with its
    ``top_why`` line), ``next_cursor``, ``liked``; ``refreshed`` when the cursor's
    snapshot had expired and the page was ranked afresh."""

    refreshed: bool = False
    # The newest status id on a first page: live updates tell of those above it.
    newest: int | None = None


@dataclass
class Scored:
    """A candidate with its score, the terms that made it, and its "why" line."""

    status: dict[str, Any]
    score: float
    why: str
    terms: dict[str, float]


def _plural(n: int, one: str, many: str) -> str:
    return f"{n} {one if n == 1 else many}"


def _why(status, author_login, lf, rf, cf, near, age_hours):
    """The "why" line: the terms that scored the status, most telling first, two at
    most; "new" (or "from the last days") when nothing else did."""
    said = []
    if lf:
        said.append(f"liked by {_plural(lf, 'person', 'people')} you follow")
    if near:
        kind = max(near, key=near.get)
        if sum(near.values()) >= OFTEN:
            said.append({
                "reply": f"you often reply to @{author_login}",
                "like": f"you often like @{author_login}",
                "repost": f"you often repost @{author_login}",
                "open": f"you often visit @{author_login}",
            }[kind])  # fmt: skip
    if cf:
        said.append(f"{_plural(cf, 'person', 'people')} you follow replied")
    if rf:
        said.append(f"reposted by {_plural(rf, 'person', 'people')} you follow")
    for field, one, many in (("replies", "reply", "replies"), ("likes", "like", "likes"),
                             ("reposts", "repost", "reposts")):  # fmt: skip
        if int(status.get(field) or 0) >= MANY:
            said.append(_plural(int(status[field]), one, many))
    if not said:
        said.append("new" if age_hours < NEW_HOURS else "from the last days")
    return " · ".join(said[:2])


def score_candidates(
    items: Sequence[dict[str, Any]],
    *,
    reader: int,
    following: set[int],
    likers: Mapping[int, Iterable[int]],
    affinities: dict[int, dict[str, float]],
    weights: Weights,
    now: float,
    window: float,
) -> list[Scored]:
    """The candidates ``items`` (newest first, as a home page gives them) scored, in
    their order: those posted within ``window`` seconds before ``now`` and not left out
    by ``weights``. ``likers``: {status id: its newest likers read}."""
    replied: dict[int, int] = {}
    for item in items:
        parent = item.get("in_reply_to")
        if parent and item["uid"] != reader:
            replied[int(parent)] = replied.get(int(parent), 0) + 1
    half_life = HALF_LIFE_HOURS / weights.newest
    scored = []
    for status in items:
        if now - status["posted"] > window:
            continue
        through_repost = "reposted_by" in status
        if weights.hide_replies and status.get("in_reply_to"):
            continue
        if weights.hide_reposts and through_repost and status["uid"] not in following:
            if status["uid"] != reader:
                continue
        sid = status["id"]
        likes_n, reposts_n = int(status.get("likes") or 0), int(status.get("reposts") or 0)
        replies_n = int(status.get("replies") or 0)
        lf = sum(1 for liker in likers.get(sid, ()) if int(liker) in following)
        rf = 1 + int(status.get("reposted_others") or 0) if through_repost else 0
        cf = replied.get(sid, 0)
        amount = (
            LIKE * (FOLLOWED * lf + max(0, likes_n - lf))
            + REPOST * (FOLLOWED * rf + max(0, reposts_n - rf))
            + REPLY * (FOLLOWED * cf + max(0, replies_n - cf))
        )
        engagement = math.log2(1 + amount)
        near = affinities.get(status["uid"], {})
        closeness = AFFINITY * math.log2(1 + sum(near.values()))
        age_hours = max(0.0, now - status["posted"]) / 3600
        recency = 2.0 ** (-age_hours / half_life)
        score = (1 + weights.popular * engagement + weights.people * closeness) * recency
        login = status.get("author", {}).get("login", "")
        why = _why(status, login, lf, rf, cf, near, age_hours)
        terms = {"engagement": engagement, "affinity": closeness, "recency": recency}
        scored.append(Scored(status, score, why, terms))
    return scored


def diversify(ranked: Sequence[Scored]) -> list[Scored]:
    """``ranked`` (best first) so that no author has more than DIVERSITY_MOST statuses
    in any DIVERSITY_RUN consecutive places: each place takes the best waiting status
    whose author has fewer than DIVERSITY_MOST in the DIVERSITY_RUN - 1 places before;
    when none has (one author left), the best waiting one."""
    placed: list[Scored] = []
    waiting = list(ranked)
    while waiting:
        recent = [item.status["uid"] for item in placed[-(DIVERSITY_RUN - 1) :]]
        for i, item in enumerate(waiting):
            if recent.count(item.status["uid"]) < DIVERSITY_MOST:
                placed.append(waiting.pop(i))
                break
        else:
            placed.append(waiting.pop(0))
    return placed


class TopRead:
    """What a Top page reads first, read along with the session and its user
    (sessions.load_with_user's ``read_along``: ``queue``, ``take``, ``replies``), all
    in the reader's slot. A first page (``before`` None): the home's newest
    ``candidates`` entries (timelines.HomeIdsRead), the reader's follows and
    affinities. A later page: the snapshot its cursor names and the authors the reader
    does not get now. rank_page uses them if they were read for its reader and page."""

    def __init__(self, before: int | None, candidates: int) -> None:
        self.before = before
        self.uid: int | None = None
        self.home = timelines.HomeIdsRead(None, candidates) if before is None else None
        self.replies = 2 + (self.home.replies if self.home is not None else 0)
        self.following: Any = None
        self.affinity: Any = None
        self.snapshot: Any = None
        self.hides: Any = None

    def queue(self, pipe: Any, uid: int) -> None:
        if self.home is not None:
            self.home.queue(pipe, uid)
            pipe.zrange(keys.following(uid), 0, -1)
            affinity.queue_read(pipe, uid)
        else:
            token = int(self.before or 0) // CURSOR_SPAN
            pipe.get(keys.top_snapshot(uid, token))
            pipe.zrangebyscore(keys.hides(uid), f"({int(time.time() * 1000)}", "+inf")

    def take(self, uid: int, replies: list[Any]) -> None:
        self.uid = uid
        if self.home is not None:
            self.home.take(uid, replies[: self.home.replies])
            self.following, self.affinity = replies[self.home.replies :]
        else:
            self.snapshot, self.hides = replies

    def for_page(self, uid: int, before: int | None) -> "TopRead | None":
        """Itself if it was read for ``uid``'s page ``before``; else None."""
        return self if self.uid == uid and self.before == before else None


def rank(
    r: Client,
    uid: int,
    weights: Weights,
    *,
    candidates: int,
    window: float,
    now: float | None = None,
    read: TopRead | None = None,
) -> tuple[list[Scored], frozenset[int]]:
    """The Top ranking of ``uid``'s home (best first, diversity applied) and the ids of
    its statuses ``uid`` likes. Round trips: a home page's, and one pipeline; with
    ``read`` (a first page's TopRead, read for ``uid`` along with the session), the
    likers' pipeline alone, none when no candidate has likes."""
    now = time.time() if now is None else now
    if read is not None and (read.uid != uid or read.home is None):
        read = None
    home = timelines.home_page(
        r, uid, count=candidates, ids_read=read.home if read is not None else None
    )
    items = home.items
    in_window = [s for s in items if now - s["posted"] <= window]
    with_likes = [s["id"] for s in in_window if int(s.get("likes") or 0)]

    def fill(pipe):
        if read is None:
            pipe.zrange(keys.following(uid), 0, -1)
            affinity.queue_read(pipe, uid)
        for sid in with_likes:
            pipe.zrevrange(keys.likes(sid), 0, LIKERS_READ - 1)

    if read is None:
        following_read, affinity_read, *likers_read = client.round_trip(r, fill)
    else:
        following_read, affinity_read = read.following, read.affinity
        likers_read = client.round_trip(r, fill) if with_likes else []
    following = {int(other) for other in following_read or ()}
    likers = {
        sid: [int(liker) for liker in found]
        for sid, found in zip(with_likes, likers_read, strict=True)
        if isinstance(found, list)
    }
    scored = score_candidates(
        items,
        reader=uid,
        following=following,
        likers=likers,
        affinities=affinity.decode(affinity_read, now),
        weights=weights,
        now=now,
        window=window,
    )
    scored.sort(key=lambda item: (item.score, item.status["id"]), reverse=True)
    for item in scored:
        status = item.status
        status["top_via"] = "reposted_by" in status and status["uid"] not in following
    return diversify(scored), home.liked


def _entry(item: Scored) -> list[Any]:
    status = item.status
    by = status.get("reposted_by")
    return [status["id"], by["id"] if by else 0, int(status.get("reposted_others") or 0),
            1 if status.get("top_via") else 0, item.why]  # fmt: skip


def rank_page(
    r: Client,
    uid: int,
    weights: Weights,
    *,
    before: int | None = None,
    count: int = 30,
    candidates: int = 800,
    window: float = 48 * 3600,
    now: float | None = None,
    read: TopRead | None = None,
) -> TopPage:
    """A page of ``uid``'s Top timeline: the first (``before`` None) ranks afresh and
    keeps the ranking as a snapshot; a later one (``before``: the previous page's
    ``next_cursor``) reads it. Each status has its ``top_why`` line. ``read``: a
    TopRead made for this page along with the session (what it read costs nothing
    more; one read for another user or page is ignored)."""
    read = read.for_page(uid, before) if read is not None else None
    if before is not None:
        token, offset = divmod(int(before), CURSOR_SPAN)
        page = _snapshot_page(r, uid, token, offset, count, read)
        if page is not None:
            return page
        read = None  # expired: ranked afresh, all read now
    now = time.time() if now is None else now
    ranked, liked = rank(r, uid, weights, candidates=candidates, window=window, now=now, read=read)
    token = int(now * 1000)
    if len(ranked) > count:
        entries = json.dumps([_entry(item) for item in ranked], separators=(",", ":"))
        r.set(keys.top_snapshot(uid, token), entries, ex=SNAPSHOT_SECONDS)
    shown = []
    for item in ranked[:count]:
        status = {key: value for key, value in item.status.items() if key != "top_via"}
        status["top_why"] = item.why
        shown.append(status)
    next_cursor = token * CURSOR_SPAN + count if len(ranked) > count else None
    newest = max((status["id"] for status in shown), default=None)
    return TopPage(shown, next_cursor, liked=liked, refreshed=before is not None, newest=newest)


def _snapshot_page(r, uid, token, offset, count, read=None):
    """The page at ``offset`` of the snapshot ``token``, or None if it expired. Round
    trips: the snapshot with the authors ``uid`` does not get now (none when ``read``
    along with the session: TopRead); the statuses (with which the reader likes and
    reposted); the authors not shown lately."""
    if read is not None:
        stored, hides = read.snapshot, read.hides
    else:
        now_ms = int(time.time() * 1000)

        def fill(pipe):
            pipe.get(keys.top_snapshot(uid, token))
            pipe.zrangebyscore(keys.hides(uid), f"({now_ms}", "+inf")

        stored, hides = client.round_trip(r, fill)
    if not stored:
        return None
    entries = json.loads(stored)
    if offset < 0 or offset >= len(entries):
        return TopPage([], None)
    hidden = {int(author) for author in hides or ()}
    chosen = entries[offset : offset + count]
    ids = [entry[0] for entry in chosen]
    viewer_likes = statuses.ViewerLikes(uid)
    found, scores = statuses.get_statuses_and(
        r, ids, lambda pipe: pipe.zmscore(keys.reposted(uid), ids), viewer_likes=viewer_likes
    )
    reposted = {sid for sid, score in zip(ids, scores or (), strict=False) if score is not None}
    found = visibility.shown_statuses(r, uid, found, delivered_hidden=hidden)
    # The headers as the first page had them: {entry: (original, reposter, others)},
    # an entry other than the original for a status shown only through reposts.
    through = {
        (-sid if via else sid): (sid, reposter, others)
        for sid, reposter, others, via, _ in chosen
        if reposter
    }
    page = reposts.with_headers(r, found, None, through, reposted, uid)
    why = {entry[0]: entry[4] for entry in chosen}
    for status in page.items:
        status["top_why"] = why.get(status["id"], "")
    more = offset + count < len(entries)
    return TopPage(
        page.items,
        token * CURSOR_SPAN + offset + count if more else None,
        liked=frozenset(viewer_likes.ids),
    )

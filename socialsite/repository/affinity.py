"""Affinity: how much a reader turned to an author lately, for the Top timeline
(ranking.py).

A decaying counter per (reader, author, kind), kept in the reader's keys.affinity ZSET
without ever rewriting old entries: an act at time t adds ``weight * 2 ** ((t - EPOCH)
/ HALF_LIFE)``, and a reading at time now divides by ``2 ** ((now - EPOCH) /
HALF_LIFE)``, so each act counts ``weight`` when new, half that HALF_LIFE later, and so
on (the sum of decayed weights). A ZINCRBY rides the pipeline the act sends already
(likes.like, reposts.repost, statuses.post_status for a reply, timelines.profile_page
for a profile opened): no round trip of its own. The ZSET keeps the KEPT strongest
entries (the weakest: the oldest and rarest, trimmed in the same pipeline).

A ZINCRBY is not idempotent: a pipeline run again (after NOSCRIPT, scripts.run_pipeline)
counts the act twice; an affinity a little high for a fortnight is harmless. The scale
grows by 2 every HALF_LIFE: doubles reach their limit (2 ** 1023) after 1023 half-lives,
about 39 years past EPOCH; before then, EPOCH must move forward (and the ZSETs scaled
down, or simply deleted: they rebuild in a fortnight).
"""

import time

from . import keys

EPOCH = 1_767_225_600  # 2026-01-01T00:00:00Z
HALF_LIFE = 14 * 86_400  # seconds
KEPT = 300
# What each act adds (before decay).
WEIGHTS = {"like": 1.0, "repost": 2.0, "reply": 3.0, "open": 0.5}


def _scale(now: float) -> float:
    return 2.0 ** ((now - EPOCH) / HALF_LIFE)


def queue_bump(pipe, uid: int, author: int | str | None, kind: str, now: float | None = None):
    """Queue on ``pipe`` what ``uid`` doing ``kind`` (a key of WEIGHTS) to ``author``'s
    status or profile adds to their affinity (nothing for oneself)."""
    if author is None or int(author) == int(uid):
        return
    now = time.time() if now is None else now
    key = keys.affinity(uid)
    pipe.zincrby(key, WEIGHTS[kind] * _scale(now), f"{kind}:{int(author)}")
    pipe.zremrangebyrank(key, 0, -(KEPT + 1))


def queue_read(pipe, uid: int) -> None:
    """Queue the read of ``uid``'s affinities (decode with ``decode``)."""
    pipe.zrange(keys.affinity(uid), 0, -1, withscores=True)


def decode(pairs, now: float | None = None) -> dict[int, dict[str, float]]:
    """{author: {kind: decayed count}} from ``queue_read``'s reply."""
    now = time.time() if now is None else now
    scale = _scale(now)
    found: dict[int, dict[str, float]] = {}
    for member, score in pairs or ():
        kind, _, author = str(member).partition(":")
        if kind in WEIGHTS and author.isdigit():
            found.setdefault(int(author), {})[kind] = float(score) / scale
    return found


def forget(r, uid: int, budget: int) -> int:
    """A deletion step (leaving.DELETION_STEPS): the account's affinities (one unit of
    work when there were some, none once gone)."""
    return int(r.delete(keys.affinity(uid)))

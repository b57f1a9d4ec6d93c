"""Cursor paging over sorted sets whose scores are unique (status ids, follow times).

A cursor is the score of the last item shown; the next page starts just below it.
Because scores are unique, nothing repeats or goes missing when items arrive at the
top while someone pages down, which offset paging (ZREVRANGE start stop) cannot do.
"""

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar, cast

from . import scripts
from .client import Client

# (member, score) pairs of a sorted set, newest first, and the cursor of the next page.
Pairs = list[tuple[int, int]]

Item = TypeVar("Item")


@dataclass
class Page(Generic[Item]):
    """One page of a list read newest first: its items (records.Status, records.User,
    ids...), the cursors to the pages around it, and the viewer's likes among them."""

    items: list[Item] = field(default_factory=list)
    next_cursor: int | None = None  # pass as ``before`` for the next (older) page
    # The ids of the items the viewer likes (statuses; read with the page, likes.py).
    liked: frozenset[int] = frozenset()
    # The highest cursor read (items left out included): pass as ``above`` for the
    # next newer page; None when nothing was read.
    prev_cursor: int | None = None
    # Pinned statuses: a profile's first page's, shown above it.
    pinned: list = field(default_factory=list)
    # Followed hashtags: whether the reader follows a tag page's tag.
    following: bool = False


def read_ids(
    r: Client,
    key: str,
    before: int | None = None,
    count: int = 30,
    since: int | None = None,
    above: int | None = None,
) -> tuple[Pairs, int | None]:
    """Up to ``count`` (member, score) pairs below ``before``, newest first: the newest
    of them, and only those above ``since`` if given; with ``above``, the ``count``
    just above it instead (the oldest of those above ``above``: a page read upward,
    as Mastodon's ``min_id``), still newest first.

    Returns (pairs, next_cursor). One extra entry is read to learn whether an older
    page exists, so the "Older" link never leads to an empty page; read upward, a
    ZCOUNT of what is at or below ``above`` rides along (one round trip: one key).
    """
    pairs, next_cursor, _ = read_ids_and(r, key, before, count, since, above)
    return pairs, next_cursor


def read_ids_and(
    r: Client,
    key: str,
    before: int | None = None,
    count: int = 30,
    since: int | None = None,
    above: int | None = None,
    queue_extra: Callable[[Any], None] | None = None,
) -> tuple[Pairs, int | None, Any]:
    """read_ids, and the reply of the one command ``queue_extra(pipe)`` queues (None
    without it) in the same round trip: (pairs, next_cursor, its reply)."""
    top = f"({int(before)}" if before is not None else "+inf"
    bottom = f"({int(since)}" if since is not None else "-inf"
    if above is None and queue_extra is None:  # one command: no pipeline needed
        scored = r.zrevrangebyscore(key, top, bottom, start=0, num=count + 1, withscores=True)
        return (*_newest_first(cast(list[tuple[str, float]], scored), count), None)

    def fill(pipe: Any) -> None:
        if above is not None:
            pipe.zrangebyscore(key, f"({int(above)}", top, start=0, num=count, withscores=True)
            pipe.zcount(key, "-inf", int(above))
        else:
            pipe.zrevrangebyscore(key, top, bottom, start=0, num=count + 1, withscores=True)
        if queue_extra is not None:
            queue_extra(pipe)

    # client.round_trip, not redis-py's pipeline: a tag's or a group's page reads here
    # (docs/decisions/0007).
    replies = scripts.run_pipeline(r, fill)
    extra = replies[-1] if queue_extra is not None else None
    if above is not None:
        found, older = replies[0], replies[1]
        pairs = [(int(member), int(score)) for member, score in reversed(found)]
        return pairs, (pairs[-1][1] if pairs and older else None), extra
    return (*_newest_first(cast(list[tuple[str, float]], replies[0]), count), extra)


def queue_read_ids(pipe: Any, key: str, before: int | None = None, count: int = 30) -> None:
    """Queue on ``pipe`` the read of read_ids(key, before, count): its reply is for
    ids_read (a page's ids read along with other reads, in their round trip)."""
    top = f"({int(before)}" if before is not None else "+inf"
    pipe.zrevrangebyscore(key, top, "-inf", start=0, num=count + 1, withscores=True)


def ids_read(reply: Any, count: int) -> tuple[Pairs, int | None]:
    """(pairs, next_cursor) of the reply to what queue_read_ids queued."""
    return _newest_first(cast(list[tuple[str, float]], reply or []), count)


def _newest_first(scored: list[tuple[str, float]], count: int) -> tuple[Pairs, int | None]:
    """ZREVRANGEBYSCORE's (member, score) pairs (with scores: redis-py's type does not
    tell them apart), ``count`` + 1 read: the first ``count`` and the next cursor."""
    next_cursor = int(scored[count - 1][1]) if len(scored) > count else None
    return [(int(member), int(score)) for member, score in scored[:count]], next_cursor


def top_cursor(pairs: Pairs) -> int | None:
    """The highest score of ``pairs`` (newest first), or None: a Page's ``prev_cursor``."""
    return pairs[0][1] if pairs else None


def cut_to(
    ids: list[int], next_cursor: int | None, since: int | None, above: int | None
) -> tuple[list[int], int | None]:
    """A page's entry ids (newest first) and its cursor, cut to the entries above
    ``since`` or ``above`` (the client API's since_id, min_id). Read upward
    (home_page.lua's ``above``), the page's entries at or below ``above`` are what it
    read to fill up: the next (older) page starts below its oldest entry kept."""
    lower = above if above is not None else since
    if lower is None:
        return ids, next_cursor
    kept = [sid for sid in ids if sid > lower]
    if above is not None:
        next_cursor = kept[-1] if kept else None
    return kept, next_cursor

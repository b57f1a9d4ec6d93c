"""Cursor paging over sorted sets whose scores are unique (status ids, follow times).

A cursor is the score of the last item shown; the next page starts just below it.
Because scores are unique, nothing repeats or goes missing when items arrive at the
top while someone pages down, which offset paging (ZREVRANGE start stop) cannot do.
"""

from dataclasses import dataclass, field


@dataclass
class Page:
    items: list = field(default_factory=list)
    next_cursor: int | None = None  # pass as ``before`` for the next (older) page
    # The ids of the items the viewer likes (statuses; read with the page, likes.py).
    liked: frozenset = frozenset()


def read_ids(r, key, before=None, count=30):
    """Up to ``count`` (member, score) pairs below ``before``, newest first.

    Returns (pairs, next_cursor). One extra entry is read to learn whether an older
    page exists, so the "Older" link never leads to an empty page.
    """
    top = f"({int(before)}" if before is not None else "+inf"
    pairs = r.zrevrangebyscore(key, top, "-inf", start=0, num=count + 1, withscores=True)
    next_cursor = int(pairs[count - 1][1]) if len(pairs) > count else None
    return [(int(member), int(score)) for member, score in pairs[:count]], next_cursor

"""Full-text search of statuses: the book's inverted index (chapter 7 of *Redis in
Action*), sharded for a cluster.

**The index** (keys.status_words): one SET of status ids per normalized word, as the
book's ``idx:<word>``. A status's words (status_index.status_words) are the words of
its message and content warning, folded as people's names are (search.fold: NFKC,
accents removed, case folded), at least 2 characters, cut to SEARCH_TERM_MAX_LENGTH,
without the stop words (STOP_WORDS, the book's list with a few of the web's: "https",
"www"); and ``has:media``, a word no text can make (it holds a ":"). ``from:`` reads
the author's statuses (their profile) instead of the index. The index is cut into
keys.STATUS_SEARCH_SHARDS shards by status id, and each shard into blocks of 65,536 ids
(keys.STATUS_SEARCH_BLOCK_BITS): every word of a status is in its shard's slot, so one
script intersects a query's words in a shard (lua/search_statuses.lua: SINTER walks the
rarest word's set), block by block from the newest until it has a page; the shards
spread over a cluster's nodes, and a shard's word in a block stays an intset.

**What goes in** is decided by ``indexable`` alone (Mastodon 4.2's rule): a public
status (not posted while its author was private, not a repost) of an author who lets
their public statuses be found (keys.INDEXABLE_FIELD, off by default). Posting writes
the entries in its second round trip (statuses.post_status, queue_index: no round trip
of its own); deleting a status, or an account's statuses, takes them out in the round
trip that deletes them (queue_unindex). Turning the setting on or off indexes or
unindexes the author's statuses (set_indexable, from their profile, in batches).

**Reading checks again**: a query reads the newest ids of every shard below a cursor
(one pipeline), the statuses (deleted ones skipped), their authors' setting and
privacy fresh, and keeps a status only if it is still indexable and has every word and
phrase asked; then everything passes visibility.shown_statuses (suspended, blocked
either way, muted, private authors left out). Suspension therefore needs no write
here: a suspended author's statuses are left out at read and back when it ends.

**The reader's own**: a reader also finds, among the newest STATUS_SEARCH_OWN_SCAN of
each, their own statuses, those they like or bookmarked and those that mention or reply to them,
whatever the setting or privacy (as Mastodon's ``searchable_by``), matched at read
from the statuses themselves.
"""

import functools
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from . import keys, paging, scripts, statuses, users, visibility
from .client import Client
from .limits import (
    NOTIFICATIONS_KEPT,
    SEARCH_QUERY_MAX_LENGTH,
    STATUS_SEARCH_AUTHOR_SCAN,
    STATUS_SEARCH_BLOCKS_READ,
    STATUS_SEARCH_OWN_SCAN,
    STATUS_SEARCH_PAGE_SIZE,
    STATUS_SEARCH_READS,
)
from .status_index import (
    AUTHOR_FIELDS,
    MEDIA_WORD,
    folded_words,
    indexable,
    queue_index,
    queue_unindex,
    text_of,
    words,
)

# --- queries --------------------------------------------------------------------------


class QueryError(ValueError):
    """A query that cannot be searched; its text says why, for the page."""


_OPERATOR = re.compile(r"(?i)(?:^|(?<=\s))(from:@?(\w+)|has:(\w+))(?=\s|$)")
_PHRASE = re.compile(r'"([^"]*)"')


@dataclass(frozen=True)
class StatusQuery:
    """A parsed status query. ``words``: every index word a status must have (the
    query's, its phrases', none a stop word); ``phrases``: folded word sequences the
    status's text must hold in order; ``author``: the login of ``from:``; ``media``:
    ``has:media``. ``operators``: whether the query used any (then it searches
    statuses only)."""

    text: str
    words: tuple[str, ...] = ()
    phrases: tuple[tuple[str, ...], ...] = ()
    author: str | None = None
    media: bool = False

    @property
    def operators(self) -> bool:
        return self.author is not None or self.media

    @property
    def searchable(self) -> bool:
        """Whether it names anything an index word can find (not only stop words)."""
        return bool(self.words or self.author or self.media)


def parse_status_query(text: str | None) -> StatusQuery:
    """The StatusQuery of what a user typed. QueryError if it is empty, longer than
    SEARCH_QUERY_MAX_LENGTH characters, or uses an operator the site does not know
    (``has:`` other than ``has:media``)."""
    text = (text or "").strip()
    if not text:
        raise QueryError("Type at least one letter or digit to search.")
    if len(text) > SEARCH_QUERY_MAX_LENGTH:
        raise QueryError(
            f"A search is at most {SEARCH_QUERY_MAX_LENGTH} characters; this one has {len(text)}."
        )
    author = None
    media = False
    for match in _OPERATOR.finditer(text):
        if match.group(2) is not None:
            author = match.group(2).lower()
        elif match.group(3).lower() == "media":
            media = True
        else:
            raise QueryError(f"Unknown operator {match.group(1)}: has:media is the one there is.")
    rest = _OPERATOR.sub(" ", text)
    phrases = tuple(
        tuple(folded) for phrase in _PHRASE.findall(rest) if len(folded := folded_words(phrase)) > 1
    )
    found = tuple(dict.fromkeys(words(rest.replace('"', " "))))
    return StatusQuery(text, found, phrases, author, media)


def _has_phrase(sequence: Sequence[str], phrase: Sequence[str]) -> bool:
    size = len(phrase)
    return any(
        tuple(sequence[i : i + size]) == tuple(phrase) for i in range(len(sequence) - size + 1)
    )


@functools.lru_cache(maxsize=20_000)
def _word_set(text: str) -> frozenset[str]:
    """The index words of ``text``, remembered: a reader's own statuses are matched
    again on each of their searches, and a status's text does not change."""
    return frozenset(words(text))


def matches(status: Any, query: StatusQuery, author_id: int | None) -> bool:
    """Whether ``status`` has everything ``query`` asks (``author_id``: from:'s user)."""
    if author_id is not None and int(status["uid"]) != author_id:
        return False
    if query.media and not status.get(keys.STATUS_MEDIA_FIELD):
        return False
    text = text_of(status)
    have = _word_set(text)
    if not all(word in have for word in query.words):
        return False
    if query.phrases:
        sequence = folded_words(text)
        return all(_has_phrase(sequence, phrase) for phrase in query.phrases)
    return True


@dataclass
class _Shards:
    """What the shards gave: ``ids``, the newest of all, newest first; ``boundary``,
    the last of them when the index may hold more below it (0: every shard is read
    out)."""

    boundary: int = 0
    ids: list[int] = field(default_factory=list)


# The newest status id this process has seen handed out (keys.STATUS_IDS, read with
# every query's shards): a first page reads from its block and one newer, so that
# statuses posted since are found; should the ids have gone past that, the query
# reads again.
_newest: dict[str, int] = {}


def _read_shards(
    r: Client,
    index_words: Sequence[str],
    before: int | None,
    count: int,
    extra: Callable[[Any], None] | None = None,
    again: bool = True,
) -> tuple[_Shards, list[Any]]:
    """The newest ``count`` ids of the index below ``before`` (each shard's newest
    ``count``, merged) in the newest STATUS_SEARCH_BLOCKS_READ blocks, and the replies
    of what ``extra(pipe)`` queued (one round trip: a script call per shard; one more
    the first time a process searches, and when the newest ids went past its reading)."""
    if before is None and "id" not in _newest:
        _newest["id"] = int(r.get(keys.STATUS_IDS) or 0)
    high = _newest["id"] if before is None else int(before) - 1
    if high < 0:
        return _Shards(0, []), _run_extra(r, extra)
    top = keys.status_search_block(high) + (1 if before is None else 0)
    blocks = list(range(top, max(-1, top - STATUS_SEARCH_BLOCKS_READ), -1))

    def fill(pipe: Any) -> None:
        for shard in range(keys.STATUS_SEARCH_SHARDS):
            scripts.search_statuses.queue(
                pipe, shard=shard, blocks=blocks, words=index_words, before=before, count=count
            )
        pipe.get(keys.STATUS_IDS)
        if extra is not None:
            extra(pipe)

    replies = scripts.run_pipeline(r, fill)
    newest_id = int(replies[keys.STATUS_SEARCH_SHARDS] or 0)
    _newest["id"] = newest_id
    if before is None and again and not top - 1 <= keys.status_search_block(newest_id) <= top:
        # Posted past the blocks read (or this process's reading is from another
        # database: a restore, a test's): read again from the newest.
        return _read_shards(r, index_words, before, count, extra, again=False)
    more = replies[keys.STATUS_SEARCH_SHARDS + 1 :]
    # Below the oldest block read, nothing is known yet.
    floor = blocks[-1] << keys.STATUS_SEARCH_BLOCK_BITS
    complete_from = floor
    found: list[int] = []
    for reply in replies[: keys.STATUS_SEARCH_SHARDS]:
        ids = [int(sid) for sid in reply]
        found += ids
        if len(ids) >= count:
            complete_from = max(complete_from, ids[-1])
    # The newest ``count`` of all: each shard gave its newest ``count``, so these are
    # the newest of the index down to complete_from. More may follow below.
    found.sort(reverse=True)
    newest = [sid for sid in found if sid >= complete_from][:count]
    boundary = newest[-1] if len(newest) >= count else floor
    return _Shards(boundary, newest), more


def _read_profile(
    r: Client, author: int, before: int | None, count: int, extra: Callable[[Any], None] | None
) -> tuple[_Shards, list[Any]]:
    """The newest ``count`` ids of ``author``'s statuses below ``before`` (their
    profile), as _read_shards gives the index's, with ``extra``'s replies (one round
    trip)."""

    def fill(pipe: Any) -> None:
        high = f"({int(before)}" if before is not None else "+inf"
        pipe.zrevrangebyscore(keys.profile(author), high, "-inf", start=0, num=count)
        if extra is not None:
            extra(pipe)

    replies = scripts.run_pipeline(r, fill)
    ids = [int(sid) for sid in replies[0]]
    return _Shards(ids[-1] if len(ids) >= count else 0, ids), replies[1:]


def _run_extra(r: Client, extra: Callable[[Any], None] | None) -> list[Any]:
    if extra is None:
        return []
    pipe = r.pipeline(transaction=False)
    extra(pipe)
    return list(pipe.execute())


def _queue_own(pipe: Any, viewer: int, scan: int) -> None:
    """Queue the read of the newest ``scan`` ids of the viewer's own statuses, likes,
    bookmarks and notifications (their slot); _own_ids decodes it."""
    pipe.zrevrange(keys.profile(viewer), 0, scan - 1)
    pipe.zrevrange(keys.user_likes(viewer), 0, scan - 1)
    pipe.zrevrange(keys.bookmarks(viewer), 0, scan - 1)
    pipe.zrevrange(keys.notifications(viewer), 0, min(scan * 4, NOTIFICATIONS_KEPT) - 1)


def _own_ids(replies: list[Any], scan: int) -> list[int]:
    """The ids of the viewer's own statuses, likes, bookmarks, and statuses that mention
    or reply to them (the newest ``scan`` of each), from _queue_own's replies, newest
    first."""
    own, liked, bookmarked, events = replies
    ids = {int(sid) for sid in (*own, *liked, *bookmarked)}
    mentioned = 0
    for event in events:
        kind, _, rest = event.partition(":")
        if kind in ("mention", "reply") and mentioned < scan:
            ids.add(int(rest.split(":")[1]))
            mentioned += 1
    return sorted(ids, reverse=True)


def search_statuses(
    r: Client,
    viewer: int,
    query: StatusQuery,
    before: int | None = None,
    count: int = STATUS_SEARCH_PAGE_SIZE,
    own_scan: int = STATUS_SEARCH_OWN_SCAN,
) -> paging.Page:
    """A page of the statuses ``query`` finds for logged-in reader ``viewer``, newest
    first, below the id ``before`` (None: from the newest), and the cursor of the next
    page. Found: statuses of the shared index that are indexable now and those of the
    reader's own sets (_own_ids) that match; every one passed through
    visibility.shown_statuses.

    Round trips: from:'s login (when given); the shards' ids (with from:, the author's
    newest STATUS_SEARCH_AUTHOR_SCAN statuses instead) with the reader's own sets;
    the statuses (with which of them the reader likes); their authors' setting and
    privacy; the visibility check (and the authors not shown lately); the shards' part
    repeated at most STATUS_SEARCH_READS times while what was read is left out and the
    shards hold more; the reader's own matches, one or two more (read and checked)."""
    if not query.searchable:
        return paging.Page([], None)
    author_id: int | None = None
    if query.author is not None:
        found_id = users.get_user_id(r, query.author)
        if found_id is None:
            return paging.Page([], None)
        author_id = int(found_id)
    index_words = list(query.words)
    if query.media:
        index_words.append(MEDIA_WORD)
    # The rarest first is SINTER's business. With from:, the author's statuses are the
    # candidates (their profile, newest first), matched against their text.
    likes = statuses.ViewerLikes(viewer)
    kept: dict[int, Any] = {}
    own: set[int] = set()
    own_left: list[int] = []  # newest first, not checked yet
    cursor = before
    boundary = 0
    for read in range(STATUS_SEARCH_READS):
        extra = (lambda pipe: _queue_own(pipe, viewer, own_scan)) if read == 0 else None
        if author_id is not None:
            shards, more = _read_profile(r, author_id, cursor, STATUS_SEARCH_AUTHOR_SCAN, extra)
        else:
            shards, more = _read_shards(r, index_words, cursor, count + 1, extra)
        if read == 0:
            own_left = [sid for sid in _own_ids(more, own_scan) if before is None or sid < before]
            own = set(own_left)
        boundary = shards.boundary
        # The reader's own ids down to where the shards are complete, checked with them.
        reach = next((n for n, sid in enumerate(own_left) if sid < boundary), len(own_left))
        own_now, own_left = own_left[:reach], own_left[reach:]
        shared = [sid for sid in shards.ids if sid not in own]
        kept.update(_checked(r, viewer, shared, own_now, query, author_id, likes))
        if len(kept) > count or not boundary:
            break
        cursor = boundary
    ordered = [kept[sid] for sid in sorted(kept, reverse=True)]
    if len(ordered) > count:
        page = paging.Page(ordered[:count], ordered[count - 1]["id"])
    else:
        page = paging.Page(ordered, boundary or None)
    page.liked = frozenset(likes.ids)
    return page


def _checked(
    r: Client,
    viewer: int,
    shared: list[int],
    own: list[int],
    query: StatusQuery,
    author_id: int | None,
    likes: statuses.ViewerLikes,
) -> dict[int, Any]:
    """Of the shared index's ids ``shared`` and the reader's own ids ``own``, the
    statuses still there that match ``query``, those of ``shared`` indexable now, all
    shown to ``viewer`` (visibility.shown_statuses): {id: status}. Round trips: the
    statuses; the authors' setting (for matches of ``shared``); the visibility check."""
    if not shared and not own:
        return {}
    read = statuses.get_statuses(r, [*shared, *own], viewer_likes=likes)
    found = [s for s in read if not s.get("repost_of") and matches(s, query, author_id)]
    mine = set(own)
    others = [s for s in found if s["id"] not in mine]
    if others:
        authors = _authors_fields(r, [int(s["uid"]) for s in others])
        found = [s for s in found if s["id"] in mine or indexable(s, authors[int(s["uid"])])]
    if not found:
        return {}
    return {int(s["id"]): s for s in visibility.shown_statuses(r, viewer, found)}


# --- the setting ----------------------------------------------------------------------


def is_indexable(r: Client, uid: int) -> bool:
    """Whether user ``uid`` lets their public statuses be found by search."""
    return r.hget(keys.user(uid), keys.INDEXABLE_FIELD) == "1"


def set_indexable(r: Client, uid: int, on: bool, batch: int = 500) -> int:
    """Set whether user ``uid`` lets their public statuses be found, then index (or
    unindex) their statuses, from their profile, ``batch`` a round trip; how many
    entries of statuses were written. Reading applies the setting at once whatever
    this has reached (indexable is checked again), and every write is safe to repeat."""
    if not r.exists(keys.user(uid)):
        return 0
    r.hset(keys.user(uid), keys.INDEXABLE_FIELD, "1" if on else "")
    author = dict(zip(AUTHOR_FIELDS, r.hmget(keys.user(uid), AUTHOR_FIELDS), strict=True))
    written = 0
    start = 0
    while True:
        sids = r.zrevrange(keys.profile(uid), start, start + batch - 1)
        if not sids:
            return written
        start += batch
        pipe = r.pipeline(transaction=False)
        for sid in sids:
            pipe.hgetall(keys.status(sid))
        read = [statuses.decode_status(data) for data in pipe.execute()]

        def fill(pipe: Any, read: list[Any] = read) -> None:
            for status in read:
                if status is None:
                    continue
                if on and indexable(status, author):
                    queue_index(pipe, status)
                else:
                    queue_unindex(pipe, status)

        written += sum(1 for status in read if status is not None)
        scripts.run_pipeline(r, fill)


# --- rebuilding -----------------------------------------------------------------------


@dataclass
class RebuildReport:
    statuses_seen: int = 0
    statuses_indexed: int = 0
    index_keys: int = 0
    entries_removed: int = 0


def rebuild(
    r: Client, batch: int = 1000, progress: Callable[[int], None] | None = None
) -> RebuildReport:
    """Make the status index hold every indexable status under its words, and remove
    the entries of statuses gone or no longer indexable; a RebuildReport. Bounded
    memory: ``batch`` statuses (SCAN) or entries (SSCAN) at a time. ``progress(n)``
    is called after each batch of statuses with how many were read in it. Safe to run
    at any time, and again."""
    report = RebuildReport()
    found: list[str] = []
    for key in r.scan_iter(match=keys.ALL_STATUSES_PATTERN, count=batch):
        if keys.status_id_of(key) is not None:
            found.append(key)
        if len(found) >= batch:
            _index_batch(r, found, report, progress)
            found = []
    if found:
        _index_batch(r, found, report, progress)
    found = []
    for key in r.scan_iter(match=keys.ALL_STATUS_WORDS_PATTERN, count=batch):
        found.append(key)
        if len(found) >= batch:
            report.entries_removed += _prune_keys(r, found, batch)
            report.index_keys += len(found)
            found = []
    if found:
        report.entries_removed += _prune_keys(r, found, batch)
        report.index_keys += len(found)
    return report


def _authors_fields(r: Client, uids: Iterable[int]) -> dict[int, dict[str, Any]]:
    """The fields indexable reads of the users ``uids``, fresh (one round trip)."""
    uids = list(set(uids))
    pipe = r.pipeline(transaction=False)
    for uid in uids:
        pipe.hmget(keys.user(uid), AUTHOR_FIELDS)
    return {
        uid: dict(zip(AUTHOR_FIELDS, values, strict=True))
        for uid, values in zip(uids, pipe.execute(), strict=True)
    }


def _index_batch(
    r: Client, found: list[str], report: RebuildReport, progress: Callable[[int], None] | None
) -> None:
    pipe = r.pipeline(transaction=False)
    for key in found:
        pipe.hgetall(key)
    read = [s for s in (statuses.decode_status(data) for data in pipe.execute()) if s is not None]
    authors = _authors_fields(r, [int(s["uid"]) for s in read])
    pipe = r.pipeline(transaction=False)
    for status in read:
        report.statuses_seen += 1
        if indexable(status, authors[int(status["uid"])]):
            queue_index(pipe, status)
            report.statuses_indexed += 1
    pipe.execute()
    if progress is not None:
        progress(len(found))


# What pruning reads of a status: whether it is there, and what indexable asks of it.
_PRUNE_FIELDS = ("uid", "private", "repost_of")


def _stale(r: Client, members: Iterable[Any]) -> set[Any]:
    """Of the status ids ``members``, those whose status is gone or not indexable now
    (two round trips: the statuses' fields, their authors')."""
    sids = list(dict.fromkeys(members))
    pipe = r.pipeline(transaction=False)
    for sid in sids:
        pipe.hmget(keys.status(sid), _PRUNE_FIELDS)
    read = {
        sid: dict(zip(_PRUNE_FIELDS, values, strict=True))
        for sid, values in zip(sids, pipe.execute(), strict=True)
    }
    there = {sid: status for sid, status in read.items() if status["uid"]}
    authors = _authors_fields(r, [int(status["uid"]) for status in there.values()])
    return {
        sid
        for sid in sids
        if sid not in there or not indexable(there[sid], authors[int(there[sid]["uid"])])
    }


def _prune_keys(r: Client, found: list[str], batch: int) -> int:
    """Remove the entries of the index keys ``found`` whose status is gone or not
    indexable now; how many. Small keys are read whole together (most keys hold a few
    ids), larger ones a batch at a time (SSCAN)."""
    pipe = r.pipeline(transaction=False)
    for key in found:
        pipe.scard(key)
    sizes = pipe.execute()
    small = [key for key, size in zip(found, sizes, strict=True) if 0 < size <= batch // 10]
    removed = 0
    for start in range(0, len(small), 10):
        chunk = small[start : start + 10]
        pipe = r.pipeline(transaction=False)
        for key in chunk:
            pipe.smembers(key)
        members = pipe.execute()
        stale = _stale(r, [sid for ids in members for sid in ids])
        if stale:
            pipe = r.pipeline(transaction=False)
            for key, ids in zip(chunk, members, strict=True):
                gone = stale & set(ids)
                if gone:
                    pipe.srem(key, *gone)
            removed += sum(pipe.execute())
    for key, size in zip(found, sizes, strict=True):
        if size > batch // 10:
            removed += _prune(r, key, batch)
    return removed


def _prune(r: Client, key: str, batch: int) -> int:
    """Remove the entries of ``key`` whose status is gone or not indexable now; how many."""
    removed = 0
    cursor = 0
    while True:
        cursor, members = r.sscan(key, cursor, count=batch)
        if members:
            stale = _stale(r, members)
            if stale:  # SSCAN still returns every member there throughout
                removed += r.srem(key, *stale)
        if cursor == 0:
            return removed


def index_bytes(r: Client, sample: int = 200) -> int:
    """The index's bytes (MEMORY USAGE of every key, SCAN): the benchmark's measure."""
    total = 0
    for key in r.scan_iter(match=keys.ALL_STATUS_WORDS_PATTERN, count=1000):
        total += int(r.memory_usage(key, samples=sample) or 0)
    return total

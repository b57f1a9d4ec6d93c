"""Keyword filters (Mastodon's v2 filters): a user's own rules that hide statuses, or show
them collapsed behind "Filtered: <title>", where their text matches a keyword.

A user's filters are one HASH in their slot (keys.filters: filter id -> JSON), read
with every logged-in page's session in the round trip it makes anyway (Read), and by the
client API once per call that shows statuses. Ids (of filters and of their keywords) come
from the user's own counter (keys.filter_ids): another user's id names nothing.

Matching (Matcher) is pure Python over a status as the pages give it: its text as
posted, its content warning, its images' descriptions and its poll's options, compared
case-insensitively; a ``whole_word`` keyword matches only at word boundaries (as
Mastodon: a boundary on each side that is a word character). A reader's filters become
one regular expression per context and action, compiled once per process for the same
filters (matcher_for: an LRU of the compiled ones), so a page of 30 statuses costs 30
searches of one expression. An expired filter (``expires_ms`` past) stays listed and
applies nowhere.
"""

import dataclasses
import functools
import json
import re
import time
from collections.abc import Iterable, Mapping
from enum import Enum
from typing import Any

from . import keys, scripts
from .client import Client
from .limits import FILTERS_PER_USER

# Where a filter applies (Mastodon's filter contexts): the home timeline and lists;
# notifications; the public timelines (a tag's, the local one, a group's); a thread; a
# profile.
CONTEXTS = ("home", "notifications", "public", "thread", "account")
WARN, HIDE = "warn", "hide"
ACTIONS = (WARN, HIDE)


@dataclasses.dataclass(frozen=True)
class Keyword:
    id: int
    keyword: str
    whole_word: bool


@dataclasses.dataclass(frozen=True)
class Filter:
    id: int
    title: str
    context: tuple[str, ...]
    action: str
    keywords: tuple[Keyword, ...]
    expires_ms: int  # 0: never

    def active(self, now_ms: int) -> bool:
        return not self.expires_ms or self.expires_ms > now_ms


def now_ms() -> int:
    return int(time.time() * 1000)


class SaveResult(Enum):
    SAVED = "saved"
    FULL = "full"  # FILTERS_PER_USER filters already
    MISSING = "missing"  # no such filter (to replace)


def _decode(fid: Any, text: Any) -> Filter | None:
    try:
        data = json.loads(text)
        words = data.get("keywords") or []  # Lua's cjson writes an empty list as {}
        return Filter(
            id=int(fid),
            title=str(data["title"]),
            context=tuple(c for c in data.get("context") or () if c in CONTEXTS),
            action=HIDE if data.get("action") == HIDE else WARN,
            keywords=tuple(
                Keyword(int(w["id"]), str(w["keyword"]), bool(w.get("whole_word")))
                for w in (words if isinstance(words, list) else [])
            ),
            expires_ms=int(data.get("expires") or 0),
        )
    except (ValueError, KeyError, TypeError):
        return None


def decode_all(raw: Mapping[Any, Any] | None) -> tuple[Filter, ...]:
    """The filters of a keys.filters hash as read (HGETALL), by id. Every logged-in
    page reads the hash, which rarely changes: the same hash is decoded once per
    process (the JSON of 10 filters cost a home page a tenth of a millisecond)."""
    if not raw:
        return ()
    return _decoded(tuple(raw.items()))


@functools.lru_cache(maxsize=4096)
def _decoded(items: tuple[tuple[Any, Any], ...]) -> tuple[Filter, ...]:
    found = (_decode(fid, text) for fid, text in items)
    return tuple(sorted((f for f in found if f is not None), key=lambda f: f.id))


def get_filters(r: Client, uid: int) -> tuple[Filter, ...]:
    """``uid``'s filters, by id (one round trip)."""
    return decode_all(r.hgetall(keys.filters(uid)))


def get_filter(r: Client, uid: int, fid: int) -> Filter | None:
    """``uid``'s filter ``fid``, or None (one round trip)."""
    text = r.hget(keys.filters(uid), int(fid))
    return None if text is None else _decode(fid, text)


def save_filter(
    r: Client,
    uid: int,
    fid: int,
    *,
    title: str,
    context: Iterable[str],
    action: str,
    keywords: Iterable[tuple[int, str, bool]],
    expires_ms: int,
    limit: int = FILTERS_PER_USER,
) -> tuple[SaveResult, int | None]:
    """Create (``fid`` 0) or replace ``uid``'s filter ``fid``; ``keywords`` as (id,
    keyword, whole_word), id 0 for a new keyword. Returns (SaveResult, the filter's id):
    FULL for a new one at ``limit`` filters, MISSING for one to replace that is not
    there. The caller has checked the values (actions.filters)."""
    body = {
        "title": title,
        "context": list(context),
        "action": action,
        "keywords": [{"id": int(k), "keyword": w, "whole_word": bool(b)} for k, w, b in keywords],
        "expires": int(expires_ms or 0),
    }
    found, saved = scripts.save_filter(
        r, uid=uid, fid=int(fid), filter_json=json.dumps(body, ensure_ascii=False), limit=limit
    )
    return SaveResult(found), (int(saved) if saved else None)


def delete_filter(r: Client, uid: int, fid: int) -> bool:
    """Delete ``uid``'s filter ``fid``; whether it was there (a retry finds it gone)."""
    return bool(r.hdel(keys.filters(uid), int(fid)))


def forget(r: Client, uid: int, budget: int) -> int:
    """A deletion step (leaving.DELETION_STEPS): the account's filters and their counter
    (one unit of work when there were some, none once gone)."""
    pipe = r.pipeline(transaction=False)  # one slot: one node
    pipe.delete(keys.filters(uid))
    pipe.delete(keys.filter_ids(uid))
    return 1 if any(pipe.execute()) else 0


class Read:
    """The filters of the user a session names, read along with the session
    (sessions.load_with_user): one HGETALL more in the round trip every logged-in page
    makes anyway. ``for_user`` gives them (a tuple of Filters) for that user only, None
    when nothing was read for them."""

    replies = 1

    def __init__(self) -> None:
        self.uid: int | None = None
        self.found: tuple[Filter, ...] = ()

    def queue(self, pipe: Any, uid: int) -> None:
        pipe.hgetall(keys.filters(uid))

    def take(self, uid: int, replies: list[Any]) -> None:
        self.uid, self.found = uid, decode_all(replies[0])

    def for_user(self, uid: int | None) -> tuple[Filter, ...] | None:
        return self.found if uid is not None and self.uid == uid else None


# --- matching ------------------------------------------------------------------------------


def status_text(status: Mapping[str, Any]) -> str:
    """What filters match in ``status`` (a status as the pages give it): its text as
    posted, its content warning, its images' descriptions and its poll's options."""
    parts = [str(status.get("message") or ""), str(status.get("spoiler") or "")]
    packed = status.get("media")
    if packed:
        try:
            items = json.loads(packed) if isinstance(packed, str) else packed
            parts.extend(str(item.get("a") or "") for item in items if isinstance(item, dict))
        except ValueError:
            pass
    poll = status.get("poll")
    if poll:
        try:
            data = json.loads(poll) if isinstance(poll, str) else poll
            options = data.get("options") if isinstance(data, dict) else None
            parts.extend(str(option) for option in options or ())
        except ValueError:
            pass
    return "\n".join(parts)


def keyword_pattern(keyword: str, whole_word: bool) -> str:
    """A keyword as a regular expression (case is ignored by the expression's flag): as
    Mastodon, a whole word is bounded by \\b on each side where the keyword has a word
    character there, so "#tag" or "c++" still match as whole words."""
    escaped = re.escape(keyword)
    if not whole_word:
        return escaped
    start = r"\b" if re.match(r"\w", keyword) else ""
    end = r"\b" if re.search(r"\w$", keyword) else ""
    return f"{start}{escaped}{end}"


@dataclasses.dataclass(frozen=True)
class Match:
    """A status's filter result: ``action`` (HIDE wins over WARN), the filters that
    matched (for HIDE, the first), and per filter the keywords found (Mastodon's
    ``keyword_matches``)."""

    action: str
    filters: tuple[Filter, ...]
    keyword_matches: tuple[tuple[str, ...], ...]

    @property
    def titles(self) -> str:
        return ", ".join(f.title for f in self.filters)


def _expression(filters: tuple[Filter, ...]) -> re.Pattern[str] | None:
    groups = [
        f"(?P<f{f.id}>{'|'.join(keyword_pattern(k.keyword, k.whole_word) for k in f.keywords)})"
        for f in filters
        if f.keywords
    ]
    return re.compile("|".join(groups), re.IGNORECASE) if groups else None


class Matcher:
    """A reader's filters of one context, compiled: ``check(status)`` gives a Match or
    None. Two expressions: the hide filters', searched first, then the warn filters'."""

    # How many statuses' results a Matcher remembers (check).
    REMEMBERED = 4096

    def __init__(self, filters: tuple[Filter, ...]) -> None:
        self.filters = {f"f{f.id}": f for f in filters}
        self.hide = _expression(tuple(f for f in filters if f.action == HIDE))
        self.warn = _expression(tuple(f for f in filters if f.action == WARN))
        # {(status id, its edit time): Match or None}. A status's text changes only by
        # an edit, so its result holds until then; matching 30 statuses against 50
        # keywords cost a home page more than the rest of it (Python's re tries every
        # alternative at every position). A Matcher is made once per process for the
        # same filters (_compiled), so the same reader's next page finds its results here.
        self.results: dict[tuple[Any, Any], Match | None] = {}

    def __bool__(self) -> bool:
        return self.hide is not None or self.warn is not None

    def check(self, status: Mapping[str, Any]) -> Match | None:
        sid = status.get("id")
        if sid is None:
            return self._check(status)
        key = (sid, status.get("edited"))
        try:
            return self.results[key]
        except KeyError:
            pass
        found = self._check(status)
        if len(self.results) >= self.REMEMBERED:
            self.results.clear()
        self.results[key] = found
        return found

    def _check(self, status: Mapping[str, Any]) -> Match | None:
        text = status_text(status)
        for expression in (self.hide, self.warn):
            if expression is None:
                continue
            found: dict[str, list[str]] = {}
            for hit in expression.finditer(text):
                group = hit.lastgroup or ""
                words = found.setdefault(group, [])
                if hit.group() not in words:
                    words.append(hit.group())
                if expression is self.hide:
                    break  # hidden: one is enough
            if found:
                chosen = tuple(self.filters[group] for group in found)
                action = HIDE if expression is self.hide else WARN
                return Match(action, chosen, tuple(tuple(found[g]) for g in found))
        return None


@functools.lru_cache(maxsize=2048)
def _compiled(filters: tuple[Filter, ...]) -> Matcher:
    return Matcher(filters)


def matcher_for(
    filters: tuple[Filter, ...] | None, context: str, now_ms: int | None = None
) -> Matcher | None:
    """The Matcher of ``filters`` (a reader's) active in ``context`` now, None when none
    applies; compiled once per process for the same filters."""
    if not filters:
        return None
    now = int(time.time() * 1000) if now_ms is None else int(now_ms)
    chosen = tuple(f for f in filters if context in f.context and f.active(now) and f.keywords)
    if not chosen:
        return None
    return _compiled(chosen)


def apply(
    matcher: Matcher | None,
    items: list[dict[str, Any]],
    reader_id: int | None,
    focus: int | None = None,
) -> tuple[list[dict[str, Any]], dict[int, Match]]:
    """``items`` (statuses as the pages give them) less those a hide filter matches, and
    {status id: Match} of those a warn filter matches. The reader's own statuses are
    never filtered (as Mastodon). ``focus``: a status shown for itself (a thread's),
    which a hide filter only collapses, as a warn one: a link to it still shows it."""
    if matcher is None:
        return items, {}
    kept, warned = [], {}
    for item in items:
        if reader_id is not None and item.get("uid") == reader_id:
            kept.append(item)
            continue
        found = matcher.check(item)
        if found is None:
            kept.append(item)
        elif found.action == WARN or item["id"] == focus:
            warned[item["id"]] = found
            kept.append(item)
    return kept, warned

"""A person's keyword filters: make one, change it, delete it (socialsite/repository/
filters.py, decision 0073). The settings pages (timeline/filters.py) and the client API's
v2 filters (api/filters.py) call these.

Filters are their owner's alone: every act names the actor's own filter by its id, and
another person's filter id is NotFound, as one that does not exist. The values are
checked here once (``Invalid`` with the field it is about), for both doors.
"""

import time
from collections.abc import Sequence
from dataclasses import dataclass

from socialsite.connection import get_redis
from socialsite.repository import events, filters
from socialsite.repository.limits import (
    FILTER_KEYWORD_LENGTH,
    FILTER_KEYWORDS,
    FILTER_TITLE_LENGTH,
    FILTERS_PER_USER,
)

from .core import Actor, Invalid, NotFound

Filter = filters.Filter

NO_SUCH_FILTER = "You have no such filter."
# The longest expiry: ten years (Mastodon sets none; this keeps the time a number).
MAX_EXPIRES_IN = 10 * 365 * 86400


@dataclass(frozen=True)
class KeywordChange:
    """A keyword as a door gives it: a new one (``id`` 0), one of the filter's to keep
    with new values (its ``id``), or with ``destroy`` one to take off."""

    keyword: str = ""
    whole_word: bool = True
    id: int = 0
    destroy: bool = False


class _Unchanged:
    pass


UNCHANGED = _Unchanged()


def _title(title: str) -> str:
    title = " ".join(str(title or "").split())
    if not title:
        raise Invalid("Give the filter a title.", field="title")
    if len(title) > FILTER_TITLE_LENGTH:
        raise Invalid(f"A title is at most {FILTER_TITLE_LENGTH} characters.", field="title")
    return title


def _context(context: Sequence[str]) -> tuple[str, ...]:
    chosen = tuple(c for c in filters.CONTEXTS if c in set(context))
    unknown = [c for c in context if c not in filters.CONTEXTS]
    if unknown:
        raise Invalid(
            f"A filter's context is one of {', '.join(filters.CONTEXTS)}.", field="context"
        )
    if not chosen:
        raise Invalid("Choose where the filter applies.", field="context")
    return chosen


def _action(action: str) -> str:
    if action not in filters.ACTIONS:
        raise Invalid("A filter's action is warn or hide.", field="filter_action")
    return action


def _expires_ms(expires_in: int | None, now_ms: int) -> int:
    if expires_in is None:
        return 0
    if not 1 <= int(expires_in) <= MAX_EXPIRES_IN:
        raise Invalid("The filter's expiry must be a positive number of seconds.",
                      field="expires_in")  # fmt: skip
    return now_ms + int(expires_in) * 1000


def _keywords(
    current: Sequence[filters.Keyword], changes: Sequence[KeywordChange]
) -> list[tuple[int, str, bool]]:
    """The filter's keywords after ``changes``: as (id, keyword, whole_word), id 0 for a
    new one; one of the same words (ignoring case) once."""
    kept = {k.id: (k.id, k.keyword, k.whole_word) for k in current}
    new: list[tuple[int, str, bool]] = []
    for change in changes:
        if change.id and change.id not in kept:
            raise Invalid("The filter has no such keyword.", field="keywords_attributes")
        if change.destroy:
            kept.pop(change.id, None)
            continue
        word = str(change.keyword or "").strip()
        if not word:
            if change.id:
                raise Invalid("A keyword cannot be empty.", field="keywords_attributes")
            continue  # an empty row of a form
        if len(word) > FILTER_KEYWORD_LENGTH:
            raise Invalid(f"A keyword is at most {FILTER_KEYWORD_LENGTH} characters.",
                          field="keywords_attributes")  # fmt: skip
        if change.id:
            kept[change.id] = (change.id, word, bool(change.whole_word))
        else:
            new.append((0, word, bool(change.whole_word)))
    result: list[tuple[int, str, bool]] = []
    seen: set[str] = set()
    for entry in [*kept.values(), *new]:
        if entry[1].casefold() not in seen:
            seen.add(entry[1].casefold())
            result.append(entry)
    if len(result) > FILTER_KEYWORDS:
        raise Invalid(f"A filter has at most {FILTER_KEYWORDS} keywords.",
                      field="keywords_attributes")  # fmt: skip
    return result


def _tell_live_pages(actor: Actor) -> None:
    """The actor's open live pages and streams read their filters again at once (as
    after a follow), not at their next periodic refresh."""
    events.publish_relations_changed(get_redis(), [actor.uid])


def _saved(actor: Actor, fid: int) -> Filter:
    found = filters.get_filter(get_redis(), actor.uid, fid)
    if found is None:
        raise NotFound(NO_SUCH_FILTER)
    return found


def get_filter(actor: Actor, filter_id: int) -> Filter:
    """The actor's filter ``filter_id``; NotFound for none of theirs."""
    return _saved(actor, filter_id)


def create_filter(
    actor: Actor,
    title: str,
    context: Sequence[str],
    action: str,
    keywords: Sequence[KeywordChange],
    expires_in: int | None = None,
) -> Filter:
    """Make a filter for the actor: ``title`` (1 to 100 characters), ``context`` (some
    of filters.CONTEXTS), ``action`` (warn, hide), ``keywords``, expiring in
    ``expires_in`` seconds (None: never). Invalid for a value out of bounds, or at
    FILTERS_PER_USER filters."""
    now_ms = int(time.time() * 1000)
    result, fid = filters.save_filter(
        get_redis(),
        actor.uid,
        0,
        title=_title(title),
        context=_context(context),
        action=_action(action),
        keywords=_keywords((), [k for k in keywords if not k.id and not k.destroy]),
        expires_ms=_expires_ms(expires_in, now_ms),
        limit=FILTERS_PER_USER,
    )
    if result is filters.SaveResult.FULL or fid is None:
        raise Invalid(f"You have {FILTERS_PER_USER} filters, the most one may have.",
                      field="title")  # fmt: skip
    _tell_live_pages(actor)
    return _saved(actor, fid)


def update_filter(
    actor: Actor,
    filter_id: int,
    *,
    title: str | None = None,
    context: Sequence[str] | None = None,
    action: str | None = None,
    keywords: Sequence[KeywordChange] = (),
    replace_keywords: bool = False,
    expires_in: int | None | _Unchanged = UNCHANGED,
) -> Filter:
    """Change the actor's filter ``filter_id``: each value given (None, UNCHANGED: as it
    is); ``keywords`` changes its keywords as Mastodon's ``keywords_attributes`` do (an
    id changes or with ``destroy`` removes that keyword, none adds one), or with
    ``replace_keywords`` become all of them (the settings page's list; a keyword of the
    same words keeps its id). NotFound for none of theirs; Invalid as create_filter."""
    current = _saved(actor, filter_id)
    now_ms = int(time.time() * 1000)
    changes = list(keywords)
    if replace_keywords:
        ids = {k.keyword.casefold(): k.id for k in current.keywords}
        changes = [KeywordChange(k.keyword, k.whole_word) for k in changes]
        changes = [
            KeywordChange(k.keyword, k.whole_word, id=ids.pop(k.keyword.strip().casefold(), 0))
            for k in changes
        ]
        kept = {k.id for k in changes}
        changes += [KeywordChange(id=k.id, destroy=True) for k in current.keywords
                    if k.id not in kept]  # fmt: skip
    expires_ms = (
        current.expires_ms
        if isinstance(expires_in, _Unchanged)
        else _expires_ms(expires_in, now_ms)
    )
    result, _ = filters.save_filter(
        get_redis(),
        actor.uid,
        current.id,
        title=current.title if title is None else _title(title),
        context=current.context if context is None else _context(context),
        action=current.action if action is None else _action(action),
        keywords=_keywords(current.keywords, changes),
        expires_ms=expires_ms,
    )
    if result is filters.SaveResult.MISSING:
        raise NotFound(NO_SUCH_FILTER)
    _tell_live_pages(actor)
    return _saved(actor, filter_id)


def delete_filter(actor: Actor, filter_id: int) -> Filter:
    """Delete the actor's filter ``filter_id``; it, as it was. NotFound for none of
    theirs (a retry of a delete included)."""
    found = _saved(actor, filter_id)
    if not filters.delete_filter(get_redis(), actor.uid, filter_id):
        raise NotFound(NO_SUCH_FILTER)
    _tell_live_pages(actor)
    return found

"""Mastodon's paging of lists: ``max_id``, ``since_id``, ``min_id``, ``limit`` in, and a
``Link`` header out (``<...?max_id=X>; rel="next", <...?min_id=Y>; rel="prev"``), which
the apps follow (Mastodon.py's fetch_next and fetch_previous). The ids are the
repository's cursors (status ids, follow times...): a list reads ``max_id`` as its
``before``.

As Mastodon (Paginable's paginate_by_max_id and paginate_by_min_id): ``since_id``
gives the newest ``limit`` entries above it; ``min_id`` the ``limit`` entries just
above it (the oldest of those above it), still answered newest first, so that an app
reading upward from where it is (the ``prev`` link) skips nothing. With ``min_id``,
``since_id`` is not used; ``max_id`` bounds either from above. A list reads
``min_id`` as its ``above``, ``since_id`` as its ``since``."""

from dataclasses import dataclass
from urllib.parse import urlencode

from django.http import QueryDict

from socialsite.repository.ids import parse_cursor

from .entities import account, site_base
from .responses import json_response

DEFAULT_LIMIT = 20
MAX_LIMIT = 40


class BadParameter(ValueError):
    """A paging parameter that is not a number: a 422 saying which."""


@dataclass(frozen=True)
class Params:
    max_id: int | None
    since_id: int | None
    min_id: int | None
    limit: int

    @property
    def upward(self):
        """Whether the page is read upward from ``min_id`` (the entries just above it)."""
        return self.min_id is not None

    @property
    def lower(self):
        """The id the entries must be above: ``min_id`` when given (it decides where
        the page starts), else ``since_id``; None for neither."""
        return self.min_id if self.upward else self.since_id

    @property
    def since(self):
        """The ``since_id`` a newest-first read stops at, or None (not with ``min_id``)."""
        return None if self.upward else self.since_id

    def bounds(self):
        """The repository's paging arguments: before, count, since, above."""
        return {"before": self.max_id, "count": self.limit, "since": self.since,
                "above": self.min_id}  # fmt: skip


def _number(query, name):
    value = query.get(name)
    if value in (None, ""):
        return None
    number = parse_cursor(value)
    if number is None:
        raise BadParameter(f"'{name}' must be a number")
    return number


def params(request, default=DEFAULT_LIMIT, most=MAX_LIMIT):
    """The request's Params; ``limit`` clamped to 1..``most`` as Mastodon does."""
    query = request.GET
    limit = _number(query, "limit")
    limit = default if limit is None else max(1, min(limit, most))
    return Params(_number(query, "max_id"), _number(query, "since_id"),
                  _number(query, "min_id"), limit)  # fmt: skip


def link_header(request, next_max_id, prev_min_id):
    """The ``Link`` header of a page: ``next`` (older: max_id) when there is an older
    page, ``prev`` (newer: min_id) when the page read anything; None for neither. The
    request's other parameters (limit, types[], exclude_replies...) are kept."""
    kept = QueryDict(mutable=True)
    for name, values in request.GET.lists():
        if name not in ("max_id", "since_id", "min_id", "access_token"):
            kept.setlist(name, values)
    base = site_base(request) + request.path
    links = []
    if next_max_id is not None:
        links.append(f'<{_url(base, kept, "max_id", next_max_id)}>; rel="next"')
    if prev_min_id is not None:
        links.append(f'<{_url(base, kept, "min_id", prev_min_id)}>; rel="prev"')
    return ", ".join(links) or None


def _url(base, kept, name, value):
    query = kept.copy()
    query[name] = str(value)
    return f"{base}?{query.urlencode()}" if query else f"{base}?{urlencode({name: value})}"


def with_link(response, request, next_max_id, prev_min_id):
    """``response`` with the page's Link header (if any)."""
    header = link_header(request, next_max_id, prev_min_id)
    if header:
        response["Link"] = header
    return response


def accounts_response(request, people, page):
    """A page of a list of accounts: the Account entities of ``people`` (user dicts) as
    JSON, with the Link header of ``page`` (its next and prev cursors)."""
    base = site_base(request)
    response = json_response([account(base, person) for person in people])
    return with_link(response, request, page.next_cursor, page.prev_cursor)

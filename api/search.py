"""GET /api/v2/search: people and hashtags, as the search page finds them
(search.search: blocks either way, suspended and leaving accounts left out; a tag only
a private account used is listed to nobody), and for a token with a user, statuses by
their words (status_search.search_statuses: Mastodon 4.2's rules, the visibility path),
newest first: ``max_id`` pages them by cursor, ``offset`` skips up to MAX_STATUS_OFFSET,
``account_id`` keeps one author's (as ``from:``). A query of one "#tag" or "@person"
searches no statuses; one with an operator (``from:``, ``has:media``) only statuses.
``resolve`` is ignored: there are no other servers to ask.

A query that is exactly an account's name (``alice``, ``@alice``, ``@alice@this.domain``)
finds that account first whatever the relationship, as Mastodon's exact match and
/api/v1/accounts/lookup do: ``toot unblock alice`` finds the account it blocks so."""

import json
from urllib.parse import urlsplit

from socialsite.connection import get_redis
from socialsite.repository import search, status_search, users
from socialsite.repository.paging import Page

from . import entities, paging
from .auth import api_view
from .responses import error, json_text_response

TYPES = ("accounts", "hashtags", "statuses")
# The most statuses ``offset`` may skip: deeper pages are read by ``max_id``.
MAX_STATUS_OFFSET = 200


@api_view(scope="read:search", public=True)
def search_v2(request):
    kind = request.GET.get("type") or None
    if kind is not None and kind not in TYPES:
        return error(422, f"'type' must be one of {', '.join(TYPES)}")
    offset = request.GET.get("offset", "0")
    if not (offset.isascii() and offset.isdigit()) or len(offset) > 6:
        return error(422, "'offset' must be a number")
    text = request.GET.get("q", "")
    try:
        limit = paging.params(request).limit
        query = _people_and_tags_query(text, kind)
        found_statuses = _found_statuses(request, text, kind, int(offset), limit)
    except (paging.BadParameter, search.QueryError, status_search.QueryError) as bad:
        return error(422, str(bad))
    found = search.Results()
    if query is not None:
        found = search.search(
            get_redis(), query, request.user.id, offset=int(offset), count=limit, relations=False
        )
    base = entities.site_base(request)
    people = found.people
    if kind in (None, "accounts") and offset == "0":
        exact = exact_account(text, base)
        if exact is not None:
            people = [exact, *(p for p in people if p["id"] != exact["id"])][:limit]
    accounts = json.dumps([entities.account(base, person) for person in people])
    hashtags = json.dumps([entities.tag(base, name) for name, _ in found.tags])
    shown = entities.shown_statuses_json(base, found_statuses.items, found_statuses.liked)
    return json_text_response(f'{{"accounts":{accounts},"statuses":{shown},"hashtags":{hashtags}}}')


def exact_account(text, base):
    """The account whose login the query is exactly (an ``@`` in front, this server's
    domain after, allowed), shown or not to the searcher's other searches; None for
    none, or a hidden account (suspended, being deleted)."""
    login, _, domain = text.strip().lstrip("@").partition("@")
    if not login or (domain and domain.lower() != urlsplit(base).netloc.lower()):
        return None
    user = users.get_user_by_login(get_redis(), login)
    if user is None or users.is_hidden(user):
        return None
    return user


def _people_and_tags_query(text, kind):
    """The people and tags query of ``text`` for ``type`` ``kind``; None when neither
    is searched (statuses only: the type, or an operator)."""
    if kind == "statuses" or (kind is None and _has_operator(text)):
        return None
    query = search.parse_query(text)
    if kind == "accounts":
        return search.Query(query.text, True, False, query.words, query.tag)
    if kind == "hashtags":
        return search.Query(query.text, False, True, query.words, query.tag)
    return query


def _has_operator(text):
    try:
        return status_search.parse_status_query(text).operators
    except status_search.QueryError:
        return False


def _found_statuses(request, text, kind, offset, limit):
    """The page of statuses of the search (empty for a token without a user, a type
    other than statuses, a "#tag" or "@person" query)."""
    empty = Page([], None)
    empty.liked = frozenset()
    if not request.user.is_authenticated or kind not in (None, "statuses"):
        return empty
    if text.strip()[:1] in ("#", "\uff03", "@") or offset > MAX_STATUS_OFFSET:
        return empty
    query = status_search.parse_status_query(text)
    account = request.GET.get("account_id")
    if account:
        user = users.get_user(get_redis(), int(account)) if account.isdigit() else None
        if user is None:
            return empty
        query = status_search.StatusQuery(
            query.text, query.words, query.phrases, user["login"].lower(), query.media
        )
    bounds = paging.params(request)
    page = status_search.search_statuses(
        get_redis(), request.user.id, query, before=bounds.max_id, count=offset + limit
    )
    page.items = page.items[offset:]
    return page

"""GET /api/v2/search: people and hashtags, as the search page finds them
(search.search: blocks either way, suspended and leaving accounts left out; a tag only
a private account used is listed to nobody). Statuses are not searched (the site has no
full-text search of statuses): ``statuses`` is always empty. ``resolve`` is ignored:
there are no other servers to ask.

A query that is exactly an account's name (``alice``, ``@alice``, ``@alice@this.domain``)
finds that account first whatever the relationship, as Mastodon's exact match and
/api/v1/accounts/lookup do: ``toot unblock alice`` finds the account it blocks so."""

from urllib.parse import urlsplit

from socialsite.connection import get_redis
from socialsite.repository import search, users

from . import entities, paging
from .auth import api_view
from .responses import error, json_response

TYPES = ("accounts", "hashtags", "statuses")


@api_view(scope="read:search", public=True)
def search_v2(request):
    kind = request.GET.get("type") or None
    if kind is not None and kind not in TYPES:
        return error(422, f"'type' must be one of {', '.join(TYPES)}")
    offset = request.GET.get("offset", "0")
    if not (offset.isascii() and offset.isdigit()) or len(offset) > 6:
        return error(422, "'offset' must be a number")
    try:
        limit = paging.params(request).limit
        query = search.parse_query(request.GET.get("q", ""))
    except (paging.BadParameter, search.QueryError) as bad:
        return error(422, str(bad))
    if kind == "accounts":
        query = search.Query(query.text, True, False, query.words, query.tag)
    elif kind == "hashtags":
        query = search.Query(query.text, False, True, query.words, query.tag)
    found = search.Results()
    if kind != "statuses":
        found = search.search(
            get_redis(), query, request.user.id, offset=int(offset), count=limit, relations=False
        )
    base = entities.site_base(request)
    people = found.people
    if kind in (None, "accounts") and offset == "0":
        exact = exact_account(request.GET.get("q", ""), base)
        if exact is not None:
            people = [exact, *(p for p in people if p["id"] != exact["id"])][:limit]
    return json_response(
        {
            "accounts": [entities.account(base, person) for person in people],
            "statuses": [],
            "hashtags": [entities.tag(base, name) for name, _ in found.tags],
        }
    )


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

"""The client API's timelines (/api/v1/timelines/...): home, public (this server's:
there is no other), a hashtag's and a list's, paged by ``max_id``/``since_id``/
``min_id``/``limit`` with a ``Link`` header. Each reads the page through the same
repository function as its page (timelines.home_page, tag_page, lists.list_page), so
the same statuses are left out for the same reasons, in the same few round trips.

``since_id`` and ``min_id`` both give the newest statuses above the id (Mastodon's
``min_id`` gives those just above it: the same whenever fewer than ``limit`` are
newer, which is what an app catching up asks for)."""

from django.http import Http404

from socialsite.connection import get_redis
from socialsite.repository import blocks, lists, reposts, timelines
from socialsite.repository import entities as parsed_entities

from . import entities, paging
from .auth import api_view
from .responses import error, json_response, json_text_response


def _params(request):
    try:
        return paging.params(request), None
    except paging.BadParameter as bad:
        return None, error(422, str(bad))


def _answer(request, query, page):
    """A page of statuses (a repository Page) as Status entities, newest first, with
    the Link header: ``next`` below the page's cursor, ``prev`` above its first. An
    original shown under a "reposted" header is given as the repost wrapping it (one or
    two round trips more when the page has any: reposts.reposts_of)."""
    items = paging.above(page.items, query.lower)
    base = entities.site_base(request)
    next_cursor = page.next_cursor if len(items) == len(page.items) else None
    shown_by = [
        (item["reposted_by"]["id"], item["id"]) for item in items if item.get("reposted_by")
    ]
    found = reposts.reposts_of(get_redis(), shown_by)
    response = json_text_response(entities.shown_statuses_json(base, items, page.liked, found))
    first = None
    if items:
        first = items[0]["id"]
        if items[0].get("reposted_by"):
            first = found.get((items[0]["reposted_by"]["id"], first), (first,))[0]
    return paging.with_link(response, request, next_cursor, first)


@api_view(scope="read:statuses")
def home(request):
    """GET /api/v1/timelines/home."""
    query, refused = _params(request)
    if refused is not None:
        return refused
    page = timelines.home_page(get_redis(), request.user.id, before=query.max_id, count=query.limit)
    return _answer(request, query, page)


@api_view(scope="read:statuses", public=True)
def tag(request, tag):
    """GET /api/v1/timelines/tag/:hashtag (public, as the tag's page)."""
    query, refused = _params(request)
    if refused is not None:
        return refused
    normalized = parsed_entities.normalize_tag(tag.lstrip("#"))
    if not parsed_entities.is_tag(normalized):
        return json_response([])
    page = timelines.tag_page(
        get_redis(), normalized, before=query.max_id, count=query.limit,
        viewer_id=request.user.id,
    )  # fmt: skip
    return _answer(request, query, page)


@api_view(scope="read:lists")
def list_timeline(request, list_id):
    """GET /api/v1/timelines/list/:list_id (one's own lists only)."""
    query, refused = _params(request)
    if refused is not None:
        return refused
    if not (list_id.isascii() and list_id.isdigit() and len(list_id) <= 19):
        raise Http404
    found, page = lists.list_page(
        get_redis(), request.user.id, int(list_id), before=query.max_id, count=query.limit
    )
    if found is None:
        raise Http404
    return _answer(request, query, page)


@api_view(scope="read:statuses", public=True)
def public(request):
    """GET /api/v1/timelines/public (with or without ``local``: every status here is
    local; ``remote`` or ``only_media`` give none): the recent public statuses, as the
    streaming API catches up from them (timelines.recent_public), less the authors a
    logged-in viewer does not get (blocks either way, mutes)."""
    query, refused = _params(request)
    if refused is not None:
        return refused
    if request.GET.get("remote") in ("true", "1") or request.GET.get("only_media") in ("true", "1"):
        return json_response([])
    r = get_redis()
    found, lowest, full = timelines.recent_public(
        r, after=query.lower or 0, below=query.max_id, count=query.limit
    )
    viewer = request.user.id
    hidden = blocks.hidden_authors(r, viewer) if viewer is not None else set()
    base = entities.site_base(request)
    shown = []
    for item in found:
        original = item.get("retweeted_status")
        if item["uid"] in hidden or (original and original["uid"] in hidden):
            continue
        reblog = entities.status(base, original, original["author"]) if original else None
        shown.append(entities.status(base, item, item["author"], reblog=reblog))
    response = json_response(shown)
    prev = found[0]["id"] if found else None
    return paging.with_link(response, request, lowest if full else None, prev)

"""The client API's timelines (/api/v1/timelines/...): home, public (this server's:
there is no other), a hashtag's and a list's, paged by ``max_id``/``since_id``/
``min_id``/``limit`` with a ``Link`` header, as Mastodon pages them (paging.py:
``min_id`` gives the entries just above it). Each reads the page through the same
repository function as its page (timelines.home_page, tag_page, lists.list_page;
public_page, as tag_page), so the same statuses are left out for the same reasons, in
the same few round trips, each with its counts and the caller's likes and reposts."""

from django.conf import settings
from django.http import Http404

from socialsite.connection import get_redis
from socialsite.repository import communities, lists, ranking, reposts, timelines
from socialsite.repository import entities as parsed_entities

from . import entities, paging
from .auth import api_view
from .common import filter_statuses, id_or_404, read_viewer_marks
from .responses import error, json_response, json_text_response


def _params(request):
    try:
        return paging.params(request), None
    except paging.BadParameter as bad:
        return None, error(422, str(bad))


def _answer(request, page, context="home"):
    """A page of statuses (a repository Page) as Status entities, newest first, with
    the Link header: ``next`` below the page's cursor, ``prev`` above the newest entry
    it read, shown or not (``prev_cursor``). An original shown under a "reposted"
    header is given as the repost wrapping it (one or two round trips more when the
    page has any: reposts.reposts_of)."""
    items = filter_statuses(request, page.items, context)  # keyword filters
    base = entities.site_base(request)
    shown_by = [
        (item["reposted_by"]["id"], item["id"]) for item in items if item.get("reposted_by")
    ]
    found = reposts.reposts_of(get_redis(), shown_by)
    # Bookmarks and the caller's poll votes, one round trip (a logged-in caller's).
    marked = read_viewer_marks(get_redis(), request.user.id, items)
    text = entities.shown_statuses_json(base, items, page.liked, found, bookmarked=marked)
    response = json_text_response(text)
    return paging.with_link(response, request, page.next_cursor, page.prev_cursor)


@api_view(scope="read:statuses")
def home(request):
    """GET /api/v1/timelines/home."""
    query, refused = _params(request)
    if refused is not None:
        return refused
    page = timelines.home_page(get_redis(), request.user.id, **query.bounds())
    return _answer(request, page)


@api_view(scope="read:statuses", public=True)
def tag(request, tag):
    """GET /api/v1/timelines/tag/:hashtag (public, as the tag's page)."""
    query, refused = _params(request)
    if refused is not None:
        return refused
    normalized = parsed_entities.normalize_tag(tag.lstrip("#"))
    if not parsed_entities.is_tag(normalized):
        return json_response([])
    page = timelines.tag_page(get_redis(), normalized, viewer_id=request.user.id, **query.bounds())
    return _answer(request, page, "public")


@api_view(scope="read:lists")
def list_timeline(request, list_id):
    """GET /api/v1/timelines/list/:list_id (one's own lists only)."""
    query, refused = _params(request)
    if refused is not None:
        return refused
    found, page = lists.list_page(
        get_redis(), request.user.id, id_or_404(list_id), **query.bounds()
    )
    if found is None:
        raise Http404
    return _answer(request, page)


@api_view(scope="read:statuses", public=True)
def public(request):
    """GET /api/v1/timelines/public (with or without ``local``: every status here is
    local; ``remote`` or ``only_media`` give none): the recent public statuses the
    streaming API catches up from, less the authors a logged-in viewer does not get
    (blocks either way, mutes): timelines.public_page."""
    query, refused = _params(request)
    if refused is not None:
        return refused
    if request.GET.get("remote") in ("true", "1") or request.GET.get("only_media") in ("true", "1"):
        return json_response([])
    page = timelines.public_page(get_redis(), viewer_id=request.user.id, **query.bounds())
    return _answer(request, page, "public")


# --- groups: this site's extension -----------------------------------------


@api_view(scope="read:statuses", public=True)
def group_timeline(request, slug):
    """GET /api/v1/timelines/group/:slug: a group's statuses (communities.timeline_page,
    as its page reads them), paged as the others; 404 for a group the caller may not
    read (none, deleted, suspended; a private one they are not a member of)."""
    query, refused = _params(request)
    if refused is not None:
        return refused
    r = get_redis()
    viewer = request.user.id
    community, standing = communities.by_slug(r, slug, viewer)
    if not communities.is_live(community) or (
        community["kind"] == "private" and not standing.member
    ):
        raise Http404
    bounds = query.bounds()
    page = communities.timeline_page(
        r, community["id"], viewer_id=viewer, member=standing.member, **bounds
    )
    return _answer(request, page, "public")


@api_view(scope="read:statuses")
def top(request):
    """GET /api/v1/timelines/top: this site's extension, the Top timeline (the home's
    statuses from the last TOP_WINDOW, most important first: ranking.py), as the page
    /top/ ranks it with the caller's weights. Paged by ``max_id`` (the ``next`` link's
    cursor, naming the ranking's snapshot: not a status id) and ``limit``; ``since_id``
    and ``min_id`` mean nothing in a ranking and are ignored, and there is no ``prev``
    link."""
    query, refused = _params(request)
    if refused is not None:
        return refused
    page = ranking.rank_page(
        get_redis(),
        request.user.id,
        ranking.Weights.unpack(getattr(request.user, "top_weights", "")),
        before=query.max_id,
        count=query.limit,
        candidates=settings.TOP_CANDIDATES,
        window=settings.TOP_WINDOW,
    )
    page.prev_cursor = None
    return _answer(request, page)

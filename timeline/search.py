"""Search (/search/?q=...) and autocomplete (/search/complete.json?q=...).

Checks, one repository call (repository/search.py), a response. Search is public:
what it shows (logins, names, tags, follower counts) is on every public profile and
tag page already, and a visitor looking for someone is who it is for; visitors are
throttled by address, logged-in users by account. Autocomplete serves the status form
and the header's search box (static/js/complete.js) of a logged-in user, so it answers
a visitor 401 (JSON).
"""

from django.http import JsonResponse
from django.shortcuts import render
from django.views.decorators.http import require_GET

from socialsite.connection import get_redis
from socialsite.repository import search
from socialsite.repository.limits import (
    SEARCH_CANDIDATES,
    SEARCH_PAGE_SIZE,
    SEARCH_QUERY_MAX_LENGTH,
)
from socialsite.status_markup import StatusLinks
from socialsite.throttling import throttle

# The last page a search has: no range is ranked past SEARCH_CANDIDATES entries.
MAX_PAGE = -(-SEARCH_CANDIDATES // SEARCH_PAGE_SIZE)


def _page_number(request):
    """``?page=N`` (1 to MAX_PAGE), else 1: a page link a user has mangled is answered
    with the first page rather than refused (nothing they typed is lost)."""
    value = request.GET.get("page", "1")
    if value.isascii() and value.isdigit() and len(value) <= 4:
        return min(max(int(value), 1), MAX_PAGE)
    return 1


@require_GET
@throttle("search", methods=("GET",))
def search_page(request):
    """People and tags starting with ``q``, 20 of each a page. A missing ``q`` shows
    the empty form; one that cannot be searched (empty, over 100 characters, no letter
    or digit) shows it again with why, on a 200 page."""
    text = request.GET.get("q")
    context = {"q": text or "", "max_length": SEARCH_QUERY_MAX_LENGTH, "results": None}
    if text is None:
        return render(request, "timeline/search.html", context)
    try:
        query = search.parse_query(text)
    except search.QueryError as error:
        context["error"] = str(error)
        return render(request, "timeline/search.html", context)
    number = _page_number(request)
    viewer = request.user.id if request.user.is_authenticated else None
    offset = (number - 1) * SEARCH_PAGE_SIZE
    results = search.search(
        get_redis(), query, viewer, offset, SEARCH_PAGE_SIZE, candidates=SEARCH_CANDIDATES
    )
    context.update(
        candidates=SEARCH_CANDIDATES,
        query=query,
        results=results,
        page=number,
        next_page=number + 1
        if number < MAX_PAGE and (results.more_people or results.more_tags)
        else None,
        previous_page=number - 1 if number > 1 else None,
    )
    return render(request, "timeline/search.html", context)


def _json_refused(request, counted):
    return JsonResponse({"error": counted.message}, status=429)


@require_GET
@throttle("autocomplete", methods=("GET",), refused=_json_refused)
def complete_json(request):
    """Up to 8 completions of ``q`` (the word under the caret: "@al", "#red") as JSON:
    ``{"query": q, "results": [{"value": "@alice", "login", "name", "url"} or {"value":
    "#redis", "tag", "url"}]}``, ``url`` the profile's or the tag's page. With
    ``mixed=1`` (the header's search box) a bare word gives people and tags
    (search.complete). 401 for a visitor, 400 for a query that cannot be searched,
    429 past the throttle: each with ``{"error": why}``."""
    if not request.user.is_authenticated:
        return JsonResponse({"error": "Log in to use autocomplete."}, status=401)
    text = request.GET.get("q", "")
    mixed = request.GET.get("mixed") == "1"
    try:
        results = search.complete(get_redis(), text, request.user.id, mixed=mixed)
    except search.QueryError as error:
        return JsonResponse({"error": str(error)}, status=400)
    links = StatusLinks()
    for result in results:
        result["url"] = (
            links.tag(result["tag"]) if "tag" in result else links.profile(result["login"])
        )
    response = JsonResponse({"query": text, "results": results})
    response["Cache-Control"] = "private, no-store"
    return response

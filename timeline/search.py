"""Search (/search/?q=...) and autocomplete (/search/complete.json?q=...).

Checks, one repository call (repository/search.py), a response. Search is public:
what it shows (logins, names, tags, follower counts) is on every public profile and
tag page already, and a visitor looking for someone is who it is for; visitors are
throttled by address, logged-in users by account. Autocomplete serves the status form
and the header's search box (static/js/complete.js) of a logged-in user, so it answers
a visitor 401 (JSON).

A logged-in reader's search also finds statuses by their words (repository/
status_search.py), newest first, 20 a page by cursor (``?before=<id>``, with
``type=statuses`` showing statuses alone); a query with an operator (``from:``,
``has:``) searches statuses only, one starting with "#" or "@" never does. The Search
form of the settings page (``search_settings``) says whether the reader's public
statuses may be found.
"""

from django.contrib import messages
from django.http import JsonResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_GET, require_POST

from accounts.decorators import login_required
from socialsite.acting import actor_of
from socialsite.actions import settings as settings_actions
from socialsite.connection import get_redis
from socialsite.query import page_cursor
from socialsite.repository import search, status_search
from socialsite.repository.limits import (
    SEARCH_CANDIDATES,
    SEARCH_PAGE_SIZE,
    SEARCH_QUERY_MAX_LENGTH,
    STATUS_SEARCH_PAGE_SIZE,
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
    context = {"q": text or "", "max_length": SEARCH_QUERY_MAX_LENGTH, "results": None,
               "found": None, "statuses_only": False}  # fmt: skip
    if text is None:
        return render(request, "timeline/search.html", context)
    found_statuses = _statuses_found(request, text, context)
    if context.get("error"):
        return render(request, "timeline/search.html", context)
    if context["statuses_only"]:
        context.update(results=search.Results(), query=None, page=1, next_page=None,
                       previous_page=None)  # fmt: skip
        return render(request, "timeline/search.html", context)
    try:
        query = search.parse_query(text)
    except search.QueryError as error:
        if found_statuses is None:
            context["error"] = str(error)
            return render(request, "timeline/search.html", context)
        query = search.Query(text, False, False, (), "")
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


def _statuses_found(request, text, context):
    """For a logged-in reader, the page of statuses ``text`` finds (put in ``context``
    as ``found``, with ``statuses_only`` when people and tags are not searched: an
    operator, or ``type=statuses``); None when statuses are not searched (a visitor,
    a query of one "#tag" or "@person"). A query that cannot be searched sets
    ``context["error"]``."""
    if text.strip()[:1] in ("#", "\uff03", "@"):
        return None
    try:
        query = status_search.parse_status_query(text)
    except status_search.QueryError as error:
        if request.user.is_authenticated:
            context["error"] = str(error)
        return None
    only = query.operators or request.GET.get("type") == "statuses"
    if not request.user.is_authenticated:
        # Statuses are searched for logged-in readers; a visitor asking for them alone
        # is told so rather than shown people.
        context.update(statuses_only=only, log_in_to_search=only)
        return None
    before = page_cursor(request) if only else None
    found = status_search.search_statuses(
        get_redis(), request.user.id, query, before=before, count=STATUS_SEARCH_PAGE_SIZE
    )
    context.update(found=found, status_query=query, statuses_only=only)
    return found


@require_POST
@login_required
def search_settings(request):
    """POST /settings/search/: whether the reader's public statuses may be found by
    search (the settings page's Search form; an unticked box sends nothing: off)."""
    on = request.POST.get("indexable") == "on"
    settings_actions.set_indexable(actor_of(request), on)
    if on:
        messages.success(request, "Your public statuses can now be found by search.")
    else:
        messages.success(request, "Your statuses are no longer found by other people's search.")
    return redirect("settings")


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

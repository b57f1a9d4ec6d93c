"""The client API's bookmarks: POST /api/v1/statuses/:id/bookmark and
/unbookmark (actions.statuses.bookmark, unbookmark), answered with the status; and
GET /api/v1/bookmarks, the caller's own bookmarks, the latest first, as the /bookmarks/
page reads them (bookmarks.bookmarks_page), paged by Link with the bookmarks' times as
cursors (``max_id``, ``since_id``, ``min_id`` as paging.py reads them)."""

from socialsite.acting import actor_of
from socialsite.actions import statuses as statuses_actions
from socialsite.connection import get_redis
from socialsite.repository import bookmarks as bookmarks_repository

from . import entities, paging
from .auth import api_view
from .common import status_entity, to_status_id, visible_status
from .responses import error, json_response, json_text_response


@api_view(scope="read:bookmarks")
def bookmarks(request):
    try:
        query = paging.params(request)
    except paging.BadParameter as bad:
        return error(422, str(bad))
    uid = request.user.id
    page = bookmarks_repository.bookmarks_page(get_redis(), uid, **query.bounds())
    marked = frozenset(item["id"] for item in page.items)
    text = entities.shown_statuses_json(
        entities.site_base(request), page.items, page.liked, bookmarked=marked
    )
    return paging.with_link(json_text_response(text), request, page.next_cursor, page.prev_cursor)


@api_view(scope="write:bookmarks", methods=("POST",))
def bookmark(request, status_id):
    sid = to_status_id(status_id)
    statuses_actions.bookmark(actor_of(request), sid)
    return json_response(status_entity(request, visible_status(get_redis(), request.user.id, sid)))


@api_view(scope="write:bookmarks", methods=("POST",))
def unbookmark(request, status_id):
    """Answered with the status when the caller may still see it; a bookmark of one they
    may not see any more is let go of all the same, answered 404 as a missing one."""
    sid = to_status_id(status_id)
    statuses_actions.unbookmark(actor_of(request), sid)
    return json_response(status_entity(request, visible_status(get_redis(), request.user.id, sid)))

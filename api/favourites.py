"""GET /api/v1/favourites: the statuses the user likes, the latest like first, as the
likes page reads them (likes.liked_page, through visibility.shown_statuses), paged by
Link with the likes' times as cursors (``max_id``, ``since_id``, ``min_id`` as
paging.py reads them)."""

from socialsite.connection import get_redis
from socialsite.repository import likes

from . import entities, paging
from .auth import api_view
from .responses import error, json_text_response


@api_view(scope="read:favourites")
def favourites(request):
    try:
        query = paging.params(request)
    except paging.BadParameter as bad:
        return error(422, str(bad))
    uid = request.user.id
    page = likes.liked_page(get_redis(), uid, viewer_id=uid, **query.bounds())
    text = entities.shown_statuses_json(entities.site_base(request), page.items, page.liked)
    return paging.with_link(json_text_response(text), request, page.next_cursor, page.prev_cursor)

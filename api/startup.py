"""What apps ask for as they start, each answering what is true here: the user's
preferences, the server's custom emojis and announcements (none), an account's
featured tags (none: the site has no featured tags), and trends (the site's trending
tags; it ranks no statuses nor links, so those lists are empty)."""

from socialsite.connection import get_redis
from socialsite.repository import trends

from . import entities
from .auth import api_view
from .common import shown_user
from .responses import error, json_response

TRENDS_DEFAULT, TRENDS_MOST = 10, 20


@api_view(scope="read:accounts")
def preferences(request):
    """GET /api/v1/preferences: what the user set that a client should follow. A
    private account's statuses reach its followers only (``private``); nothing here
    is sensitive by default, nor folded away."""
    private = (request.user_data or {}).get("private") == "1"
    return json_response(
        {
            "posting:default:visibility": "private" if private else "public",
            "posting:default:sensitive": False,
            "posting:default:language": None,
            "reading:expand:media": "default",
            "reading:expand:spoilers": False,
        }
    )


@api_view(public=True)
def custom_emojis(request):
    """GET /api/v1/custom_emojis: the site has none."""
    return json_response([])


@api_view(scope="read")
def announcements(request):
    """GET /api/v1/announcements: the site makes none."""
    return json_response([])


@api_view(scope="read:accounts", public=True)
def featured_tags(request, account_id):
    """GET /api/v1/accounts/:id/featured_tags: none (404 for no such account)."""
    shown_user(get_redis(), account_id)
    return json_response([])


def _window(request, default, most):
    """(offset, limit) of a trends list; ValueError with the reason for bad ones."""
    values = []
    for name, fallback, top in (("offset", "0", 10_000), ("limit", str(default), most)):
        text = request.GET.get(name) or fallback
        if not (text.isascii() and text.isdigit()) or len(text) > 6:
            raise ValueError(f"'{name}' must be a number")
        values.append(min(int(text), top))
    offset, limit = values
    return offset, max(limit, 1)


@api_view(public=True)
def trend_tags(request):
    """GET /api/v1/trends/tags (and /api/v1/trends): the trending tags as /explore/
    lists them, best first, each with the distinct users of each of its last 7 days
    (Mastodon's ``history``; ``uses`` counts people too: the site counts people per
    day, not posts)."""
    try:
        offset, limit = _window(request, TRENDS_DEFAULT, TRENDS_MOST)
    except ValueError as bad:
        return error(422, str(bad))
    r = get_redis()
    shown = trends.trending(r)[offset : offset + limit]
    history = trends.daily_users(r, [trend.tag for trend in shown])
    base = entities.site_base(request)
    return json_response(
        [
            entities.tag(
                base,
                trend.tag,
                [
                    {"day": str(day), "accounts": str(users), "uses": str(users)}
                    for day, users in history[trend.tag]
                ],
            )
            for trend in shown
        ]
    )


@api_view(public=True)
def trend_statuses(request):
    """GET /api/v1/trends/statuses: the site ranks no statuses."""
    return json_response([])


@api_view(public=True)
def trend_links(request):
    """GET /api/v1/trends/links: the site ranks no links."""
    return json_response([])

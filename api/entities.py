"""Mastodon's JSON entities (docs.joinmastodon.org/entities/) made from the
repository's records: ids as strings, times in ISO 8601."""

import datetime

from django.conf import settings

from media import files
from socialsite.repository import keys


def iso_time(seconds):
    """``seconds`` since the epoch as Mastodon writes times: 2026-11-27T19:30:00.000Z."""
    moment = datetime.datetime.fromtimestamp(float(seconds), datetime.UTC)
    return moment.isoformat(timespec="milliseconds").replace("+00:00", "Z")


def site_base(request):
    """The site's origin as apps reach it ("https://social.example"): SITE_URL, or the
    request's own scheme and host. Entities are made from it, not from a request, so
    that the stream server makes the same ones."""
    if settings.SITE_URL:
        return settings.SITE_URL.rstrip("/")
    return request.build_absolute_uri("/").rstrip("/")


def absolute(base, url):
    """``url`` (a path or an absolute URL) as an absolute URL on ``base``: apps fetch
    avatars and open pages by them."""
    if url.startswith(("http://", "https://")):
        return url
    return f"{base}{url}"


def account(base, user):
    """The Account entity of ``user`` (a repository user dict), URLs on ``base``."""
    picture = user.get(keys.AVATAR_FIELD)
    avatar = absolute(base, files.url(picture)) if picture else ""
    return {
        "id": str(user["id"]),
        "username": user["login"],
        "acct": user["login"],
        "display_name": user.get("name") or "",
        "locked": False,
        "bot": False,
        "group": False,
        "discoverable": True,
        "created_at": iso_time(user["signup"]),
        "note": "",
        "url": absolute(base, f"/@{user['login']}/"),
        "avatar": avatar,
        "avatar_static": avatar,
        "header": "",
        "header_static": "",
        "followers_count": int(user.get("followers", 0)),
        "following_count": int(user.get("following", 0)),
        "statuses_count": int(user.get("posts", 0)),
        "last_status_at": None,
        "emojis": [],
        "fields": [],
    }

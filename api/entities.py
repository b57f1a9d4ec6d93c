"""Mastodon's JSON entities (docs.joinmastodon.org/entities/) made from the
repository's records: ids as strings, times in ISO 8601."""

import datetime

from django.conf import settings

from media import files
from socialsite.repository import keys
from timeline.jinja_helpers import message_html


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


# --- Minimal Status and Notification entities (the pinned interface with api-rest) ---
# api-rest writes the full ones (media, mentions, tags, card, ...); these carry exactly
# the signature so that the stream server's Mastodon streams stand on them.

# What notifications.KINDS are in Mastodon's names (a reply is a mention there;
# follow_approved has no counterpart and is not sent).
NOTIFICATION_TYPES = {
    "follow": "follow",
    "mention": "mention",
    "reply": "mention",
    "follow_request": "follow_request",
    "like": "favourite",
    "repost": "reblog",
}


def status(base, status, author, *, counts=None, viewer=None, reblog=None):
    """The Status entity of ``status`` (a repository status dict) by ``author`` (a
    repository user or author dict): ``counts`` {replies, reblogs, favourites} (zeros
    if None), ``viewer`` {favourited, reblogged} (False if None), ``reblog`` the
    original's Status entity for a repost."""
    counts = counts or {}
    viewer = viewer or {}
    visibility = "private" if str(status.get("private", "")) == "1" else "public"
    reply_to = status.get("in_reply_to")
    url = absolute(base, f"/@{author['login']}/{status['id']}/")
    content = "" if reblog is not None else f"<p>{message_html(status)}</p>"
    return {
        "id": str(status["id"]),
        "uri": url,
        "url": url,
        "created_at": iso_time(status["posted"]),
        "account": account(base, author),
        "content": content,
        "visibility": visibility,
        "sensitive": False,
        "spoiler_text": "",
        "media_attachments": [],
        "application": None,
        "mentions": [],
        "tags": [],
        "emojis": [],
        "reblogs_count": int(counts.get("reblogs", 0)),
        "favourites_count": int(counts.get("favourites", 0)),
        "replies_count": int(counts.get("replies", 0)),
        "in_reply_to_id": str(reply_to) if reply_to else None,
        "in_reply_to_account_id": str(status["in_reply_to_uid"]) if reply_to else None,
        "reblog": reblog,
        "poll": None,
        "card": None,
        "language": None,
        "text": None,
        "edited_at": None,
        "favourited": bool(viewer.get("favourited", False)),
        "reblogged": bool(viewer.get("reblogged", False)),
        "muted": False,
        "bookmarked": False,
        "pinned": False,
    }


def notification(base, notification, account_user, status=None):
    """The Notification entity of ``notification`` (a notifications.Event) by
    ``account_user`` (a repository user dict), about ``status`` (its Status entity, or
    None). Its id is the event's score: unique in the user's list, and ordered."""
    return {
        "id": str(notification.score),
        "type": NOTIFICATION_TYPES.get(notification.kind, notification.kind),
        "created_at": iso_time(notification.score / 1000),
        "group_key": f"ungrouped-{notification.score}",
        "account": account(base, account_user),
        "status": status,
    }

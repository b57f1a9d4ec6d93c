"""GET /api/v1/instance and /api/v2/instance: what an app learns about the server
before anything else (Mastodon.py reads the version from it to know which calls the
server has). Public: no token needed."""

import functools
import tomllib
from urllib.parse import urlsplit

from django.conf import settings

from media import attachments, images
from socialsite.connection import get_redis
from socialsite.repository import pins, users

from . import entities
from .auth import api_view
from .responses import json_response

# The Mastodon API version this server speaks, and how it says so: apps compare the
# number in front, the rest names the server.
MASTODON_VERSION = "4.3.0"
TITLE = "socialsite"


@functools.cache
def software_version():
    """socialsite's version, as pyproject.toml gives it (the project is not installed as
    a package, so there is no package metadata to ask)."""
    try:
        with open(settings.BASE_DIR / "pyproject.toml", "rb") as file:
            return tomllib.load(file)["project"]["version"]
    except (OSError, KeyError, tomllib.TOMLDecodeError):
        return "unknown"


def version():
    return f"{MASTODON_VERSION} (compatible; socialsite {software_version()})"


def streaming_url(base):
    """Where apps reach the streaming API (Mastodon.py keeps only its scheme and host:
    the stream server answers /api/v1/streaming/* itself). STREAM_PUBLIC_URL when it is
    a URL; the site's own host when it is a path (a proxy routes it); else the site's
    host on STREAM_PORT. As ws:// or wss://."""
    public = settings.STREAM_PUBLIC_URL
    site = urlsplit(base)
    if public.startswith(("http://", "https://")):
        parts = urlsplit(public)
        scheme, netloc = parts.scheme, parts.netloc
    elif public:
        scheme, netloc = site.scheme, site.netloc
    else:
        scheme, netloc = site.scheme, f"{site.hostname}:{settings.STREAM_PORT}"
    return f"{'wss' if scheme == 'https' else 'ws'}://{netloc}"


def _configuration(base):
    return {
        "urls": {"streaming": streaming_url(base)},
        "accounts": {"max_featured_tags": 0, "max_pinned_statuses": pins.MAX_PINNED},
        "statuses": {
            "max_characters": settings.STATUS_MAX_LENGTH,
            "max_media_attachments": attachments.MAX_IMAGES,
            "characters_reserved_per_url": 23,
        },
        "media_attachments": {
            "supported_mime_types": ["image/jpeg", "image/png", "image/webp", "image/gif"],
            "image_size_limit": images.MAX_BYTES,
            "image_matrix_limit": 16_777_216,
            "video_size_limit": 0,
            "video_frame_rate_limit": 0,
            "video_matrix_limit": 0,
            "description_limit": attachments.ALT_MAX_LENGTH,
        },
        "polls": {
            "max_options": 0,
            "max_characters_per_option": 0,
            "min_expiration": 0,
            "max_expiration": 0,
        },  # fmt: skip
        "translation": {"enabled": False},
    }


def _domain(base):
    return urlsplit(base).netloc


@api_view(public=True)
def instance_v1(request):
    base = entities.site_base(request)
    accounts, posts = users.site_counts(get_redis())
    configuration = _configuration(base)
    return json_response(
        {
            "uri": _domain(base),
            "title": TITLE,
            "short_description": "",
            "description": "",
            "email": "",
            "version": version(),
            "urls": {"streaming_api": configuration["urls"]["streaming"]},
            "stats": {"user_count": accounts, "status_count": posts, "domain_count": 0},
            "thumbnail": None,
            "languages": ["en"],
            "registrations": True,
            "approval_required": False,
            "invites_enabled": False,
            "configuration": {k: v for k, v in configuration.items() if k != "urls"},
            "contact_account": None,
            "rules": [],
        }
    )


@api_view(public=True)
def instance_v2(request):
    base = entities.site_base(request)
    return json_response(
        {
            "domain": _domain(base),
            "title": TITLE,
            "version": version(),
            "api_versions": {"mastodon": 2},
            "description": "",
            "usage": {"users": {"active_month": 0}},
            "thumbnail": {"url": entities.absolute(base, entities.static(entities.MISSING_HEADER))},
            "languages": ["en"],
            "configuration": _configuration(base),
            "registrations": {"enabled": True, "approval_required": False, "message": None},
            "contact": {"email": "", "account": None},
            "rules": [],
        }
    )

"""The live home page's feed: Server-Sent Events for a logged-in browser.

``GET /live/home`` on the streaming server sends a logged-in user every status posted
or deleted by someone they follow, or by themselves, as it happens. static/js/live.js
shows them on the home page. This module holds what that needs from Django, called
from threads since Django's session and auth code is synchronous: the session lookup
(with the site's session cookie and accounts.auth's checks), the CORS check for the
development setup where pages and stream are on different ports, and the authors'
display names.
"""

import asyncio
import json
import time
from urllib.parse import urlsplit

from django.http.cookie import parse_cookie
from django.http.request import split_domain_port, validate_host
from django.utils.http import is_same_domain

from accounts.auth import user_from_session
from accounts.session_store import SessionStore
from socialsite.memory import make_room
from socialsite.repository import graph, users

from .hub import Format

# How often a live connection re-reads whom its user follows, and checks that its
# session is still logged in: a follow made in another tab shows up within this
# long, and a logout elsewhere ends the stream within this long.
REFRESH_SECONDS = 30.0
# Authors' display names are cached this long: a renamed user's new name reaches
# the live pages within a minute, and a busy author costs one lookup a minute.
AUTHOR_NAME_SECONDS = 60.0
AUTHOR_NAME_CACHE_SIZE = 10_000
# Browsers reconnect after this many milliseconds when the connection drops.
RECONNECT_MILLISECONDS = 5000


class ServerSentEvents(Format):
    """``event: status`` with the fields _status.html shows, ``event: delete`` with the
    id; a comment as keep-alive (EventSource ignores it, proxies see traffic)."""

    content_type = b"text/event-stream; charset=utf-8"
    needs_author_name = True
    keepalive = b": keep-alive\n\n"
    opening = f"retry: {RECONNECT_MILLISECONDS}\n\n".encode()

    def render(self, event):
        if event.deleted:
            kind, payload = "delete", {"id": event.id}
        else:
            status = event.status
            kind, payload = (
                "status",
                {
                    "id": event.id,
                    "uid": event.uid,
                    "login": status.get("login", ""),
                    "name": getattr(event, "author_name", None) or status.get("login", ""),
                    "message": event.message,
                    "posted": status.get("posted"),
                    "location": status.get("location", ""),
                },
            )
        # json.dumps escapes newlines, so the data always fits on one "data:" line.
        return f"event: {kind}\ndata: {json.dumps(payload)}\n\n".encode()


SERVER_SENT_EVENTS = ServerSentEvents()


class HomeFilter:
    """Statuses by the user or by anyone they follow (their home timeline's rule)."""

    def __init__(self, uid, following):
        self.uid = uid
        self.uids = frozenset(following) | {uid}

    def __call__(self, event):
        return event.uid in self.uids


class LiveHome:
    """What the /live/home endpoint asks of the site: who is logged in, whom they
    follow, which page origins may read the stream, and authors' names."""

    format = SERVER_SENT_EVENTS

    def __init__(
        self,
        redis,
        *,
        cookie_name,
        allowed_hosts,
        trusted_origins,
        site_port,
        refresh_seconds=REFRESH_SECONDS,
    ):
        self.redis = redis
        self.cookie_name = cookie_name
        self.allowed_hosts = list(allowed_hosts)
        self.trusted_origins = list(trusted_origins)
        self.site_port = site_port
        self.refresh_seconds = refresh_seconds
        self.author_names = {}

    # --- who is asking ---

    def session_key(self, cookie_header):
        """The session key from a Cookie header, or None."""
        if not cookie_header:
            return None
        return parse_cookie(cookie_header).get(self.cookie_name) or None

    async def authenticate(self, session_key):
        """The SiteUser logged in to this session, or None (checked as get_user does)."""
        if not session_key:
            return None

        def lookup():
            user = user_from_session(SessionStore(session_key))
            return user if user.is_authenticated else None

        return await asyncio.to_thread(lookup)

    async def filter_for(self, user):
        """A HomeFilter for ``user``, with whom they follow now."""
        following = await asyncio.to_thread(graph.following_ids, self.redis, user.id)
        return HomeFilter(user.id, following)

    # --- who may read the stream (CORS) ---

    def allowed_origin(self, origin):
        """Whether a page served from ``origin`` may read the user's stream.

        Allowed: a host of ALLOWED_HOSTS on the site's port (the development setup,
        where the pages are on one port and the stream on another), or an origin of
        CSRF_TRUSTED_ORIGINS (a production stream on a host of its own). With the
        stream behind the site's own origin (STREAM_PUBLIC_URL="/stream") no CORS is
        involved at all.
        """
        if not origin or origin == "null":
            return False
        parts = urlsplit(origin)
        if parts.scheme not in ("http", "https") or not parts.netloc:
            return False
        for trusted in self.trusted_origins:
            trusted_parts = urlsplit(trusted)
            if trusted_parts.scheme != parts.scheme:
                continue
            if trusted_parts.netloc.startswith("*."):
                if is_same_domain(parts.netloc, trusted_parts.netloc[1:]):
                    return True
            elif trusted_parts.netloc == parts.netloc:
                return True
        domain, port = split_domain_port(parts.netloc)
        if not domain or not validate_host(domain, self.allowed_hosts):
            return False
        port = int(port) if port else {"http": 80, "https": 443}[parts.scheme]
        return port == self.site_port

    def cors_headers(self, origin):
        """Headers that let the page at ``origin`` read the stream with its cookies,
        or none at all (the browser then keeps the stream from the page)."""
        headers = [(b"vary", b"Origin")]
        if self.allowed_origin(origin):
            headers += [
                (b"access-control-allow-origin", origin.encode("latin-1")),
                (b"access-control-allow-credentials", b"true"),
            ]
        return headers

    # --- authors' names ---

    async def prepare(self, event):
        """Give ``event`` its author's display name (the hub's prepare hook)."""
        now = time.monotonic()
        cached = self.author_names.get(event.uid)
        if cached is None or cached[1] < now:
            user = await asyncio.to_thread(users.get_user, self.redis, event.uid)
            name = user["name"] if user else event.status.get("login", "")
            make_room(self.author_names, AUTHOR_NAME_CACHE_SIZE)
            cached = self.author_names[event.uid] = (name, now + AUTHOR_NAME_SECONDS)
        event.author_name = cached[0]

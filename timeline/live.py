"""The live home page's feed: Server-Sent Events for a logged-in browser.

``GET /live/home`` on the streaming server sends a logged-in user every status posted
or deleted by someone they follow, or by themselves, as it happens (a reply by someone
they follow only if they also follow, or are, the user it replies to: the home
timeline's rule; not those of users they block, are blocked by or mute), and their
new unread notification counts; a reconnecting page first gets what it missed
(replay.py). static/js/live.js shows them on the home page. This module holds what
that needs from Django, called from threads since Django's session and auth code is
synchronous: the session lookup (with the site's session cookie and accounts.auth's
checks), the CORS check for the development setup where pages and stream are on
different ports, and each status's markup, made by the pages' own macro
(templates/_status.html).
"""

import asyncio
import concurrent.futures
import json
import logging
from urllib.parse import urlsplit

from django.http.cookie import parse_cookie
from django.http.request import split_domain_port, validate_host
from django.template import engines
from django.urls import reverse
from django.utils.http import is_same_domain
from markupsafe import Markup

from accounts.auth import user_from_session
from accounts.session_store import SessionStore
from socialsite import status_markup
from socialsite.repository import users
from streaming import filters, replay
from streaming.asgi import first, parse_query, request_headers, send_preflight, send_text
from streaming.home import HomeFilters, group_filter
from streaming.hub import Format
from streaming.refresh import refresh_until_ended
from timeline import jinja_helpers

log = logging.getLogger(__name__)

# How often a live connection re-reads whom its user follows, and checks that its
# session is still logged in, unless told sooner: follows, unfollows, blocks, mutes,
# logouts and password changes are published (events.publish_relations_changed) and
# read at once. This bounds how long a lost event (pub/sub is at most once) or an
# expired session goes unnoticed. 10,000 pages cost 33 reads a second at this period.
REFRESH_SECONDS = 300.0
# Browsers reconnect after this many milliseconds when the connection drops.
RECONNECT_MILLISECONDS = 5000

# The CSRF input of a live status's delete form: the stream server has no token to give,
# and static/js/live.js fills in the page's.
BLANK_CSRF_INPUT = Markup('<input type="hidden" name="csrfmiddlewaretoken" value="">')


class ServerSentEvents(Format):
    """``event: status`` with the status's markup, ``event: delete`` with its id,
    ``event: unread`` with the user's unread notification count, ``event: direct``
    with a new direct message's conversation and message ids and the user's count of
    conversations with unread messages; a comment as
    keep-alive (EventSource ignores it, proxies see traffic).

    A status's data is ``{"id": ID, "html": "<article ...>"}``: the markup a page shows
    for it (``status_html(event, own)``, LiveHome.status_html). Its author's own
    connections get the variant with a delete form, whose CSRF token is blank: the
    page's script puts the page's own in. A deletion's data is ``{"id": ID}``. An
    unread count's is ``{"count": N, "version": V}``: the page keeps the highest
    version it has seen (the hub sends it only to that user's connections).
    ``event: load-newer`` with ``{"after": S}`` ends a reconnection's replay that had more
    statuses than it sends (replay.py). Each event also gets an ``id:`` line, added per
    connection as it is queued (replay.LiveClient).

    One instance per connection (``for_viewer``), each knowing whose connection it is;
    the bytes of each event are made once per variant, whatever the number of
    connections.
    """

    content_type = b"text/event-stream; charset=utf-8"
    needs_author_name = True
    # A live page's filter is its viewer's home timeline (HomeFilter): a private
    # account's statuses reach its followers there, as in their home timelines.
    shows_private = True
    # A changed status (an edit, a poll's end): a ``change`` event, ``{"id", "html"}``,
    # which the page puts in place of the one it shows (and ignores when it shows none).
    tells_changes = True
    keepalive = b": keep-alive\n\n"
    opening = f"retry: {RECONNECT_MILLISECONDS}\n\n".encode()

    def __init__(self, status_html, viewer_id=None):
        self.status_html = status_html
        self.viewer_id = viewer_id
        # The connection's HomeFilter (GroupFilter), for its keyword filters (set by
        # live_home, live_group).
        self.home = None

    def for_viewer(self, uid):
        """The format of a connection of user ``uid``."""
        return ServerSentEvents(self.status_html, uid)

    def bytes_for(self, event):
        if event.kind == "direct":
            data = event.rendered.get(ServerSentEvents)
            if data is None:
                payload = json.dumps(
                    {
                        "conversation": event.conversation,
                        "message": event.message,
                        "count": event.count,
                        "version": event.version,
                    }
                )
                data = event.rendered[ServerSentEvents] = (
                    f"event: direct\ndata: {payload}\n\n".encode()
                )
            return data
        if event.kind == "unread":
            data = event.rendered.get(ServerSentEvents)
            if data is None:
                payload = json.dumps({"count": event.count, "version": event.version})
                data = event.rendered[ServerSentEvents] = (
                    f"event: unread\ndata: {payload}\n\n".encode()
                )
            return data
        own = not event.deleted and event.uid == self.viewer_id
        # Keyword filters: a warn filter's status collapsed behind its title (a hide
        # filter's never reaches here: the connection's HomeFilter leaves it out).
        warned = None if self.home is None else self.home.keyword_match(event)
        key = (self.status_html, own, warned.titles if warned else None)
        data = event.rendered.get(key)
        if data is None:
            data = event.rendered[key] = self.render(event, own, warned)
        return data

    def load_newer(self, after):
        """The "load newer" marker: more statuses came after status ``after`` than a
        reconnection replays (replay.LIVE_REPLAY_MAX); the page offers a reload."""
        return f"event: load-newer\ndata: {json.dumps({'after': after})}\n\n".encode()

    def render(self, event, own=False, warned=None):
        if event.deleted:
            kind, payload = "delete", {"id": event.id}
        else:
            try:
                html = self.status_html(event, own)
                if warned is not None:  # keyword filters
                    html = jinja_helpers.filtered_markup(html, warned)
            except Exception:
                # A malformed event must not stop the others (nor this one's clients
                # of other formats). A comment instead, which EventSource ignores; the
                # page shows the status on its next load.
                log.exception("Could not make the markup of status %s", event.id)
                return f": status {event.id} left out\n\n".encode()
            kind, payload = "status", {"id": event.id, "html": str(html)}
            if event.changed:
                kind = "change"  # the page replaces what it shows of it
            shows = event.status.get("repost_of")
            if shows is not None:
                # A repost shows its original: the page skips it if it shows that already.
                payload["shows"] = int(shows)
        # json.dumps escapes newlines, so the data always fits on one "data:" line.
        return f"event: {kind}\ndata: {json.dumps(payload)}\n\n".encode()


class LiveHome:
    """What the /live/home endpoint asks of the site: who is logged in, whom they
    follow, which page origins may read the stream, and statuses' markup."""

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
        self.format = ServerSentEvents(self.status_html)
        self.homes = HomeFilters(redis)
        # The StreamingApp serving the live pages (serve_on).
        self.app = None
        # Where prepare reads authors: events are handed out one at a time, so one
        # thread is all they can use.
        self.authors_executor = concurrent.futures.ThreadPoolExecutor(1, "stream-authors")
        # The links of the markup, with Django's script prefix outside a request
        # (settings.FORCE_SCRIPT_NAME, else "/"): the site's pages must be served there.
        self.links = status_markup.StatusLinks()
        self.home_url = reverse("home")
        self.article = engines["jinja2"].env.get_template("_status.html").module.status_article

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
        """The HomeFilter of ``user`` (home.HomeFilters)."""
        return await self.homes.filter_for(user.id)

    def serve_on(self, app):
        """Serve /live/home and /live/messages on ``app`` (a StreamingApp)."""
        self.app = app
        app.add_route("/live/home", ("GET", "OPTIONS"), self.live_home)
        app.add_route("/live/messages", ("GET", "OPTIONS"), self.live_messages)
        app.add_route("/live/group", ("GET", "OPTIONS"), self.live_group)

    # --- the streams ---

    async def _live_user(self, scope, send):
        """(user, session key, request headers, CORS headers) of a live page's stream
        request, or None when it is answered here: a preflight (EventSource sends none,
        but a browser may for a reconnection carrying Last-Event-ID: answered rather than
        failed), or a request without a logged-in session (401)."""
        headers = request_headers(scope)
        cors = self.cors_headers(headers.get("origin"))
        if scope["method"] == "OPTIONS":
            await send_preflight(send, cors, b"Last-Event-ID, Cache-Control")
            return None
        session_key = self.session_key(headers.get("cookie"))
        user = await self.authenticate(session_key)
        if user is None:
            await send_text(send, 401, "Log in to the site first: no logged-in session.", cors)
            return None
        return user, session_key, headers, cors

    async def live_home(self, scope, receive, send):
        """GET /live/home: the logged-in user's home timeline as Server-Sent Events."""
        logged_in = await self._live_user(scope, send)
        if logged_in is None:
            return
        user, session_key, headers, cors = logged_in
        home = await self.filter_for(user)
        # Where the page is: the browser's Last-Event-ID when it reconnects, else what
        # live.js passes from the page itself (?last_event_id=). A malformed one is
        # ignored (the stream starts from now), and said so in a comment.
        given = headers.get("last-event-id")
        if given is None:
            given = first(parse_query(scope), "last_event_id")
        ignored = None
        try:
            cursor, version = replay.parse_event_id(given)
        except ValueError as error:
            cursor, version, ignored = None, None, str(error)
        format = self.format_for(user)
        format.home = home  # keyword filters: the warn filters' collapsed markup

        def live_client(*args):
            return replay.LiveClient(*args, cursor=cursor, version=version)

        async def catch_up(client):
            if ignored is not None:
                note = f": Last-Event-ID ignored: {ignored}\n\n".encode()
                return [(None, note)]  # a comment: no event, no id
            return await replay.live_replay(self, self.app.hub, user, client, format)

        async def keep_up_to_date(client):
            # Whom the user follows changes; so may the session (a logout elsewhere).
            async def refresh():
                client.hidden_recently.clear()
                client.left_recently.clear()
                try:
                    if await self.authenticate(session_key) is None:
                        client.close()  # the writer ends the response
                        return False
                    fresh = await self.filter_for(user)
                    # A block or mute that came while reading may be missing from
                    # what was read: it stays applied (and the loop reads again); so
                    # does a group left.
                    fresh.hide(client.hidden_recently)
                    fresh.leave(client.left_recently)
                    client.match = fresh
                    format.home = fresh  # keyword filters read again
                except Exception:
                    # Redis away for a moment: keep the old list, try again later.
                    log.exception("Could not refresh the live feed of @%s", user.login)
                return True

            await refresh_until_ended(client, self.refresh_seconds, refresh)

        await self.app.stream(
            scope,
            receive,
            send,
            home,
            f"@{user.login}",
            format,
            headers=cors,
            background=keep_up_to_date,
            user_id=user.id,
            client_class=live_client,
            replay=catch_up,
        )

    async def live_group(self, scope, receive, send):
        """GET /live/group?slug=<slug>: a group's new statuses as Server-Sent Events, for
        its page (groups), as the home page's: no replay (a reconnection
        shows a "load the newest" link instead of what it missed); the reader's
        membership and blocks read again every refresh, the stream closed when they
        may no longer read the group."""
        logged_in = await self._live_user(scope, send)
        if logged_in is None:
            return
        user, session_key, _, cors = logged_in
        slug = first(parse_query(scope), "slug") or ""
        match = await asyncio.to_thread(group_filter, self.redis, slug, user.id)
        if match is None:
            await send_text(send, 404, "There is no such group.", cors)
            return
        format = self.format_for(user)
        format.home = match  # keyword filters: the warn filters' collapsed markup

        async def keep_up_to_date(client):
            async def refresh():
                try:
                    if await self.authenticate(session_key) is None:
                        client.close()
                        return False
                    client.left_recently.clear()
                    fresh = await asyncio.to_thread(group_filter, self.redis, slug, user.id)
                    if fresh is not None:
                        fresh.leave(client.left_recently)  # left while it was read
                    if fresh is None or fresh.closed:
                        client.close()  # left, removed, banned; the group suspended
                        return False
                    client.match = fresh
                    format.home = fresh  # keyword filters read again
                except Exception:
                    log.exception("Could not refresh the live group of @%s", user.login)
                return True

            await refresh_until_ended(client, self.refresh_seconds, refresh)

        await self.app.stream(
            scope, receive, send, match, f"@{user.login} in {slug}", format,
            headers=cors, background=keep_up_to_date, user_id=user.id,
        )  # fmt: skip

    async def live_messages(self, scope, receive, send):
        """GET /live/messages: the logged-in user's own events as Server-Sent Events (a
        new direct message in one of their conversations, their unread counts) and no
        statuses: a conversation's page (static/js/messages.js). No replay: the page
        fetches what it missed when it connects again."""
        logged_in = await self._live_user(scope, send)
        if logged_in is None:
            return
        user, session_key, headers, cors = logged_in

        async def keep_logged_in(client):
            # A logout, a password change or a suspension ends the stream.
            async def refresh():
                try:
                    if await self.authenticate(session_key) is None:
                        client.close()
                        return False
                except Exception:
                    log.exception("Could not check the session of @%s", user.login)
                return True

            await refresh_until_ended(client, self.refresh_seconds, refresh)

        await self.app.stream(
            scope,
            receive,
            send,
            filters.NothingFilter(),
            f"@{user.login} messages",
            self.format_for(user),
            headers=cors,
            background=keep_logged_in,
            user_id=user.id,
        )

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

    def format_for(self, user):
        """The event format of a connection of ``user``."""
        return self.format.for_viewer(user.id)

    # --- statuses' markup ---

    async def prepare(self, event):
        """Give ``event`` its author (id, login and name) for its markup (the hub's
        prepare hook): from this process's memory of authors, or read from Redis in a
        thread, so that the event loop never waits on Redis for it."""
        authors = users.remembered_authors([event.uid])
        if not authors:
            # Threads of their own: behind the default executor's queue of the live
            # pages' periodic refreshes, every event would wait for them.
            authors = await asyncio.get_running_loop().run_in_executor(
                self.authors_executor, users.get_authors, self.redis, [event.uid]
            )
        event.author = authors.get(event.uid)

    def status_html(self, event, own):
        """The markup of ``event``'s status, as a page shows it (_status.html's
        status_article); ``own``: the variant with the delete form, for its author."""
        author = getattr(event, "author", None)
        if author is None:  # the author is gone, or could not be read: the login stands in
            login = str(event.status.get("login", ""))
            author = {"id": event.uid, "login": login, "name": login}
        status = {**event.status, "author": author}
        original = event.status.get("retweeted_status")
        if isinstance(original, dict) and isinstance(original.get("author"), dict):
            # A repost: its original, under "↻ <reposter> reposted", as pages show it.
            status = {**original, "reposted_by": author, "reposted_others": 0}
            own = False
        # A new status: no counts, and the Like and Repost buttons, which submit the
        # home page's one actions form (live pages are the viewer's home page). The
        # author's own has a delete form whose CSRF token live.js puts in: the page's.
        return self.article(
            status,
            self.links,
            csrf_input=BLANK_CSRF_INPUT if own else None,
            delete_next=self.home_url if own else None,
            actions=True,
        )

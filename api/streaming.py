"""Mastodon's streaming API on the stream server (docs/api.md, "Streaming").

- ``GET /api/v1/streaming/health``: ``OK`` while the process is subscribed to Redis.
- Server-Sent Events at ``/api/v1/streaming/user`` (the token's user's home: statuses of
  the people they follow and their own, and ``notification`` events),
  ``/user/notification`` (notifications alone), ``/public`` and ``/public/local`` (the
  same on one server), ``/hashtag?tag=`` (and ``/hashtag/local``), ``/list?list=`` and
  ``/direct`` (the user's conversations: ``conversation`` events alone).
- A WebSocket at ``/api/v1/streaming`` (``?stream=user``, or ``{"type": "subscribe",
  "stream": ...}`` messages; several streams on one socket), each message
  ``{"stream": [...], "event": ..., "payload": "..."}``.

Events are ``update`` (the Status entity, api.entities.status, as a JSON string),
``delete`` (the status id), ``notification`` (the Notification entity) and
``conversation`` (the Conversation entity, as GET /api/v1/conversations gives it). A status's
entity is made once per event for every Mastodon client, as Mastodon makes it (without a
viewer: ``favourited`` and ``reblogged`` false); each transport's framing of it once per
format (one per kind of stream; per tag or list for a WebSocket's ``stream`` field).

Every stream is a hub client (streaming/hub.py) with the filter of its timeline, held to the same
rules as the live pages: the user stream's filter is the live home page's
(streaming.home.HomeFilter: blocks, mutes, the reply rule, a private account's statuses to its
followers only), the public ones leave out private statuses (the hub does, by the
format), reposts, and authors the user blocks, is blocked by or mutes; suspended authors
are left out by the hub. A token is checked when the stream starts and again when the
user's follows, blocks or session change (published on the channel) or every
``--live-refresh`` seconds: a revoked token's streams end then. The streams count
against the server's limits as any other (per process, per address): each subscription
of a WebSocket is one stream.

The direct stream takes no status: the hub tells it (Hub.tell_user, a look-up by user)
of each direct message delivered to its user (direct_member.lua's event: ids alone), and
it reads the conversation through the repository, as the conversations API does
(direct.inbox_conversations, api.direct_entities.conversation_entities), off the event
loop: only a conversation of the user's inbox makes an event, not a request, nor one
they left or deleted.
"""

import asyncio
import contextlib
import functools
import json
import logging

from django.conf import settings
from redis.exceptions import RedisError

from accounts.users import SiteUser
from api import entities
from api.auth import INVALID_TOKEN, OUTSIDE_SCOPES, scope_allows
from api.common import BadBody, check_json
from api.direct_entities import conversation_entities
from socialsite.repository import (
    blocks,
    conversations,
    direct,
    lists,
    notifications,
    oauth,
    users,
)
from socialsite.repository import filters as keyword_filters
from socialsite.repository.ids import parse_id
from streaming import filters
from streaming.asgi import parse_query, send_preflight, send_text
from streaming.filters import RequestError, StatusEvent
from streaming.home import keyword_match
from streaming.hub import Client, Format
from streaming.refresh import refresh_until_ended

log = logging.getLogger(__name__)

# The WebSocket's path, and the Server-Sent Events paths under it with the stream each
# names.
WEBSOCKET_PATH = "/api/v1/streaming"
SSE_PATHS = {
    f"{WEBSOCKET_PATH}/user": "user",
    f"{WEBSOCKET_PATH}/user/notification": "user:notification",
    f"{WEBSOCKET_PATH}/public": "public",
    f"{WEBSOCKET_PATH}/public/local": "public:local",
    f"{WEBSOCKET_PATH}/hashtag": "hashtag",
    f"{WEBSOCKET_PATH}/hashtag/local": "hashtag:local",
    f"{WEBSOCKET_PATH}/list": "list",
    f"{WEBSOCKET_PATH}/direct": "direct",
}

# The scope each stream needs, as Mastodon's streaming server asks it (a token with
# the top-level ``read`` has them all).
SCOPES = {
    "user": "read:statuses",
    "user:notification": "read:notifications",
    "public": "read:statuses",
    "public:local": "read:statuses",
    "hashtag": "read:statuses",
    "hashtag:local": "read:statuses",
    "list": "read:lists",
    "direct": "read:statuses",
}
# Streams whose filter is the user's own home (its followers-only statuses included).
HOME_STREAMS = ("user", "list")
# Streams that carry the user's notifications.
NOTIFYING_STREAMS = ("user", "user:notification")
# Streams one WebSocket may hold at a time (each one also counts as a stream of the
# server and of the client's address).
MAX_SUBSCRIPTIONS_PER_SOCKET = 50
# A WebSocket message from the client: a subscription is a few dozen bytes.
MAX_MESSAGE_CHARACTERS = 4096
# Notifications sent at most for one change (a burst of them while a stream lagged).
NOTIFICATIONS_PER_CHANGE = 40
# Conversations a direct stream reads at most at once: those with new messages since its
# last read (one event each, whatever the number of their messages); more wait their turn.
CONVERSATIONS_PER_READ = 40
# Mastodon's comment when an SSE stream opens; a keep-alive comment after silence.
SSE_OPENING = b":)\n\n"
SSE_KEEPALIVE = b":thump\n\n"

CORS = [(b"access-control-allow-origin", b"*")]
UNAVAILABLE = "The streaming server cannot reach its data; try again shortly"


def json_error(status, message):
    """A refusal: the app answers it on these paths as Mastodon's ``{"error": ...}``."""
    return RequestError(status, message)


# --- what is sent ---------------------------------------------------------------------


def status_payload(event):
    """The Status entity of ``event``'s status as JSON bytes, made once per event
    whatever the number of Mastodon clients and formats; None (logged) for an event it
    cannot be made of, which must not keep the event from the other clients."""
    if status_payload in event.rendered:
        return event.rendered[status_payload]
    try:
        payload = json.dumps(status_entity(event)).encode()
    except Exception:
        log.exception("Could not make the Status entity of status %s", event.id)
        payload = None
    event.rendered[status_payload] = payload
    return payload


def _event_author(status, remembered=None):
    """The author dict a status's event carries (users.event_author), or one made of its
    login; with the avatar of ``remembered`` (users.get_authors, via the hub's prepare)."""
    author = status.get("author")
    if not isinstance(author, dict):
        login = str(status.get("login", ""))
        author = {"id": status.get("uid"), "login": login, "name": login}
    author = {"signup": status.get("posted", 0), **author}
    small = (remembered or {}).get("avatar_small")
    if small and not author.get("avatar"):
        # The event carries no picture; the stream server's memory of authors has the
        # small avatar (users.get_authors), which apps show small anyway.
        author["avatar"] = small
    return author


def status_entity(event):
    """The Status entity of a status event: a repost's original as its ``reblog``."""
    base = settings.SITE_URL
    status = event.status
    author = _event_author(status, getattr(event, "author", None))
    original = status.get("retweeted_status")
    reblog = None
    if isinstance(original, dict):
        reblog = entities.status(base, original, _event_author(original))
    return entities.status(base, status, author, reblog=reblog)


def conversation_payloads(redis, uid, cids):
    """The Conversation entities, as JSON, of those of ``cids`` in ``uid``'s inbox
    (requests and conversations left or deleted make none): what GET
    /api/v1/conversations gives for them, read the same way. Blocking: run in a thread."""
    found = direct.inbox_conversations(redis, uid, cids)
    return [json.dumps(entity) for entity in conversation_entities(redis, settings.SITE_URL, found)]


def notification_payload(notice, match=None):
    """The Notification entity of a conversations.Notice, as JSON; ``match``: the
    keyword filters' warn filters.Match of its status (its ``filtered``)."""
    base = settings.SITE_URL
    about = None
    if notice.status is not None:
        about = entities.status(base, notice.status, notice.status_author)
        if match is not None:
            about["filtered"] = entities.filter_results(match)
    return json.dumps(entities.notification(base, notice.event, notice.actor, about))


class MastodonEvents(Format):
    """Server-Sent Events as Mastodon sends them: ``event: update`` with the Status
    entity, ``event: delete`` with the id, ``event: notification`` with the
    Notification entity; a comment as keep-alive."""

    content_type = b"text/event-stream; charset=utf-8"
    keepalive = SSE_KEEPALIVE
    opening = SSE_OPENING
    # The hub fills event.author (the avatar) once per event.
    needs_author_name = True
    # A user's unread counts are not sent: the notifications themselves are.
    tells_unread = False

    tells_changes = True  # status.update (an edit, a poll's end)

    def __init__(self, shows_private):
        self.shows_private = shows_private

    def payload(self, event):
        return status_payload(event)

    def render(self, event):
        if event.deleted:
            return f"event: delete\ndata: {event.id}\n\n".encode()
        payload = self.payload(event)
        if payload is None:
            return f": status {event.id} left out\n\n".encode()  # a comment: no event
        name = b"status.update" if event.changed else b"update"
        return b"event: " + name + b"\ndata: " + payload + b"\n\n"

    def notification(self, payload):
        return f"event: notification\ndata: {payload}\n\n".encode()

    def conversation(self, payload):
        return f"event: conversation\ndata: {payload}\n\n".encode()


class WebSocketMessages(Format):
    """One WebSocket text message per event: ``{"stream": [...], "event": ...,
    "payload": "..."}``, the payload a JSON string (a deletion's: the id)."""

    content_type = None
    # uvicorn pings the socket (ws_ping_interval): nothing else is needed.
    keepalive = b""
    needs_author_name = True
    tells_unread = False
    tells_changes = True  # status.update (an edit, a poll's end)

    def __init__(self, stream, shows_private):
        self.stream = list(stream)
        self.shows_private = shows_private

    def payload(self, event):
        return status_payload(event)

    def render(self, event):
        if event.deleted:
            name, payload = "delete", str(event.id)
        else:
            payload = self.payload(event)
            if payload is None:
                return b""  # no message (the writer sends none for an empty chunk)
            name = "status.update" if event.changed else "update"
            payload = payload.decode()
        return json.dumps({"stream": self.stream, "event": name, "payload": payload}).encode()

    def notification(self, payload):
        message = {"stream": self.stream, "event": "notification", "payload": payload}
        return json.dumps(message).encode()

    def conversation(self, payload):
        message = {"stream": self.stream, "event": "conversation", "payload": payload}
        return json.dumps(message).encode()


# --- keyword filters: a warn filter's status carries ``filtered`` ------------------------


def keywords_of(match):
    """The keyword filters (a filters.Matcher) of a stream's filter, when they hold warn
    filters; None else (the shared formats then serve the connection)."""
    match = getattr(match, "home", match)  # a list's stream: its home filter's
    keywords = getattr(match, "keywords", None)
    return keywords if keywords is not None and keywords.warn is not None else None


class WarnedPayloads:
    """A connection's own format (its user has warn filters): a status they match is
    sent with ``filtered`` (entities.filter_results), made for this connection; every
    other status's payload is the shared one. ``keywords`` is set again when the
    connection reads its filters again."""

    keywords = None
    uid = None

    def payload(self, event):
        shared = status_payload(event)
        found = keyword_match(self.keywords, event, self.uid)
        if shared is None or found is None or found.action != keyword_filters.WARN:
            return shared
        entity = json.loads(shared)
        results = entities.filter_results(found)
        entity["filtered"] = results
        if isinstance(entity.get("reblog"), dict):
            entity["reblog"]["filtered"] = results
        return json.dumps(entity).encode()


class WarnedMastodonEvents(WarnedPayloads, MastodonEvents):
    def __init__(self, shows_private, keywords, uid):
        super().__init__(shows_private)
        self.keywords, self.uid = keywords, uid


class WarnedWebSocketMessages(WarnedPayloads, WebSocketMessages):
    def __init__(self, stream, shows_private, keywords, uid):
        super().__init__(stream, shows_private)
        self.keywords, self.uid = keywords, uid


SSE_HOME = MastodonEvents(shows_private=True)
SSE_PUBLIC = MastodonEvents(shows_private=False)


@functools.lru_cache(maxsize=10_000)
def websocket_format(stream):
    """The one format of the subscriptions to ``stream`` (a tuple: ("hashtag", "tag")),
    so that their message is made once per event."""
    return WebSocketMessages(stream, shows_private=stream[0] in HOME_STREAMS)


# --- which statuses ---------------------------------------------------------------------


class PublicFilter:
    """The public timeline as a user sees it (``tag``: one hashtag's): public statuses
    (the hub sends no private one to this format), no reposts (Mastodon's public
    timelines have none), none by authors the user blocks, is blocked by or mutes."""

    def __init__(self, uid, hidden=(), tag=None, keywords=None):
        self.uid = uid
        self.hidden = frozenset(hidden) - {uid}
        self.tag = None if tag is None else filters.track_word("#" + tag)
        # Keyword filters: the user's of the public context (a filters.Matcher) or None.
        self.keywords = keywords

    def hide(self, authors):
        self.hidden = self.hidden | (frozenset(authors) - {self.uid})

    def index_keys(self):
        if self.tag is None:
            return [(filters.INDEX_EVERY, filters.ALWAYS)]
        return [(filters.INDEX_WORD, frozenset((self.tag,)))]

    def __call__(self, event):
        if event.uid in self.hidden or event.status.get("repost_of") is not None:
            return False
        if self.tag is not None and self.tag not in event.words:
            return False
        found = keyword_match(self.keywords, event, self.uid)  # keyword filters
        return found is None or found.action != keyword_filters.HIDE


class ListFilter:
    """A list's timeline: what the owner's home gets (home.HomeFilter) from its members."""

    def __init__(self, home, members):
        self.home = home
        self.members = frozenset(members)

    def hide(self, authors):
        self.home.hide(authors)

    def index_keys(self):
        return [(filters.INDEX_AUTHOR, self.home.uids & self.members)]

    def __call__(self, event):
        # The home's rule for followed authors only: a list has no groups.
        return event.uid in self.members and self.home.followed_match(event)


class MastodonClient(Client):
    """A Mastodon stream: a hub client that, when it carries notifications, reads its
    user's new ones whenever their unread count changes, and when it is the direct
    stream, the conversations a message reached (Hub.tell_user)."""

    __slots__ = ("notices", "conversations", "conversations_changed")

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        # Set when the user's notifications changed; None: this stream sends none.
        self.notices = None
        # The direct stream's: the ids of the conversations a message reached since the
        # last read (a dict, kept in order), and the event set when one is added; None:
        # this stream sends no conversation.
        self.conversations = self.conversations_changed = None

    def unread_changed(self, event):
        if event.kind == "direct":
            # A message delivered to the user (``message`` 0: only their badge changed).
            if self.conversations is not None and event.message:
                self.conversations[event.conversation] = None
                self.conversations_changed.set()
        elif self.notices is not None:
            self.notices.set()


# --- the endpoints ---------------------------------------------------------------------


class Request:
    """What a stream asks for: the stream's name, its tag or list, and the token."""

    def __init__(self, stream, tag=None, list_id=None):
        self.stream = stream
        self.tag = tag
        self.list_id = list_id

    @property
    def key(self):
        """The stream as Mastodon's messages name it: ["hashtag", "tag"], ["user"]."""
        if self.stream.startswith("hashtag"):
            return (self.stream, self.tag)
        if self.stream == "list":
            return (self.stream, str(self.list_id))
        return (self.stream,)

    @property
    def identity(self):
        """What tells two subscriptions of a socket apart: a tag in any case is one."""
        if self.tag is not None:
            return (self.stream, filters.track_word("#" + self.tag))
        return self.key


def parse_request(stream, fields):
    """The Request for stream ``stream`` with ``fields`` (tag, list); a RequestError
    (JSON) when the stream is unknown or a field is missing or malformed."""
    if stream not in SCOPES:
        raise json_error(400, f"Unknown stream type {stream!r}")
    tag = list_id = None
    if stream.startswith("hashtag"):
        tag = (fields.get("tag") or "").strip().lstrip("#")
        if not tag or len(tag) > 100:
            raise json_error(400, "Missing or malformed tag parameter")
    if stream == "list":
        value = str(fields.get("list") or "").strip()
        list_id = parse_id(value)
        if list_id is None:
            raise json_error(400, "Missing or malformed list parameter")
    return Request(stream, tag, list_id)


def request_token(scope, query):
    """The access token of a request: ``Authorization: Bearer``, the ``access_token``
    parameter, or (a browser's WebSocket, which cannot set headers) its
    ``Sec-WebSocket-Protocol``, as Mastodon takes it."""
    for name, value in scope["headers"]:
        if name == b"authorization":
            kind, _, token = value.decode("latin-1").partition(" ")
            if kind.lower() == "bearer" and token.strip():
                return token.strip()
    token = (query.get("access_token") or [""])[0]
    if token:
        return token
    protocols = scope.get("subprotocols") or []
    return protocols[0] if protocols else None


class MastodonStreams:
    """The Mastodon streams of a StreamingApp (``app``: its hub, limits and streams)."""

    def __init__(self, app, homes, refresh_seconds):
        self.app = app
        # The users' home filters (streaming.home.HomeFilters), shared with the live pages.
        self.homes = homes
        self.redis = app.redis
        self.refresh_seconds = refresh_seconds
        app.add_route(f"{WEBSOCKET_PATH}/health", ("GET", "HEAD"), self.health)
        for path, stream in SSE_PATHS.items():
            app.add_route(path, ("GET", "OPTIONS"), functools.partial(self.sse, stream=stream))
        app.add_websocket(WEBSOCKET_PATH, self.websocket)
        app.answer_json_errors_under(WEBSOCKET_PATH)

    # --- who is asking ---

    async def authenticate(self, token, scope_needed):
        """The token's (SiteUser, scopes); a RequestError (JSON) if it may not stream
        (``scope_needed``: None, any scope)."""
        if not token:
            raise json_error(401, INVALID_TOKEN)
        try:
            record, data = await asyncio.to_thread(oauth.token_and_user, self.redis, token)
        except (RedisError, OSError):
            raise json_error(503, UNAVAILABLE) from None
        if record is None or (record["uid"] and data is None):
            raise json_error(401, INVALID_TOKEN)
        if not record["uid"]:
            raise json_error(422, "This method requires an authenticated user")
        if users.is_hidden(data):
            raise json_error(403, "Your login is currently disabled")
        if scope_needed is not None and not scope_allows(record["scopes"], scope_needed):
            raise json_error(403, OUTSIDE_SCOPES)
        return SiteUser(data), record["scopes"]

    async def still_valid(self, token):
        """Whether ``token`` still names a user who may stream (not revoked, not
        suspended): the re-check of an open stream."""
        record, data = await asyncio.to_thread(oauth.token_and_user, self.redis, token)
        return record is not None and data is not None and not users.is_hidden(data)

    async def filter_for(self, request, user):
        """The filter of ``request``'s stream for ``user``; 404 (JSON) for a list that is
        not theirs, 503 when Redis cannot be reached."""
        try:
            return await self._filter_for(request, user)
        except (RedisError, OSError):
            raise json_error(503, UNAVAILABLE) from None

    async def _filter_for(self, request, user):
        if request.stream in HOME_STREAMS:
            home = await self.homes.filter_for(user.id)
            if request.stream == "user":
                return home
            members = await asyncio.to_thread(self._list_members, user.id, request.list_id)
            if members is None:
                raise json_error(404, "Record not found")
            return ListFilter(home, members)
        if request.stream in ("user:notification", "direct"):
            return Nothing()
        hidden = await asyncio.to_thread(blocks.hidden_authors, self.redis, user.id)
        matcher = None
        if user.id is not None:  # keyword filters
            mine = await asyncio.to_thread(keyword_filters.get_filters, self.redis, user.id)
            matcher = keyword_filters.matcher_for(mine, "public")
        return PublicFilter(user.id, hidden, request.tag, matcher)

    def _list_members(self, uid, list_id):
        if lists.get_list(self.redis, uid, list_id) is None:
            return None
        return lists.member_ids(self.redis, uid, list_id)

    # --- Server-Sent Events ---

    async def health(self, scope, receive, send):
        subscribed = self.app.hub.subscribed
        await send_text(
            send,
            200 if subscribed else 503,
            "OK" if subscribed else "Not subscribed to Redis",
            CORS,
            head=scope["method"] == "HEAD",
        )

    async def sse(self, scope, receive, send, stream):
        """GET /api/v1/streaming/<stream>: the stream as Server-Sent Events."""
        if scope["method"] == "OPTIONS":
            # A browser app's preflight: the token comes in the Authorization header.
            await send_preflight(send, CORS, b"Authorization, Last-Event-ID")
            return
        query = parse_query(scope)
        fields = {name: values[0] for name, values in query.items()}
        request = parse_request(stream, fields)
        token = request_token(scope, query)
        user, scopes = await self.authenticate(token, SCOPES[stream])
        match = await self.filter_for(request, user)
        format = SSE_HOME if stream in HOME_STREAMS else SSE_PUBLIC
        warned = keywords_of(match)  # keyword filters: a format of its own
        if warned is not None:
            format = WarnedMastodonEvents(format.shows_private, warned, user.id)
        notifying = self._notifying(stream, scopes)
        start = await self._notifications_start(user) if notifying else None

        def client_class(*args):
            client = MastodonClient(*args)
            if notifying:
                client.notices = asyncio.Event()
            if stream == "direct":
                client.conversations, client.conversations_changed = {}, asyncio.Event()
            return client

        async def background(client):
            await self.keep_up_to_date(client, token, request, user, start)

        await self.app.stream(
            scope,
            receive,
            send,
            match,
            f"mastodon:{stream}:@{user.login}",
            format=format,
            headers=CORS,
            background=background,
            user_id=user.id,
            client_class=client_class,
        )

    def _notifying(self, stream, scopes):
        """Whether ``stream`` carries notifications for a token with ``scopes``: the user
        stream only if the token may read them, as Mastodon's."""
        return stream in NOTIFYING_STREAMS and scope_allows(scopes, "read:notifications")

    async def _notifications_start(self, user):
        return await asyncio.to_thread(notifications.newest_score, self.redis, user.id)

    async def keep_up_to_date(self, client, token, request, user, start):
        """While the stream lasts: send the user's new notifications (if it carries
        them) or conversations (the direct stream), and check the token and re-read the
        filter when told (a follow, block, mute, logout or password change of the user:
        Hub.dispatch) or every ``refresh_seconds`` (randomly 0.8 to 1.2 of it): a revoked
        or suspended token's stream is ended then."""
        if client.notices is not None:
            sending = self._send_notifications(client, user, start)
        elif client.conversations is not None:
            sending = self._send_conversations(client, user)
        else:
            await self._recheck(client, token, request, user)
            return
        # One task more only for a stream that sends these: idle streams are most of a
        # server's memory.
        task = asyncio.create_task(sending)
        try:
            await self._recheck(client, token, request, user)
        finally:
            task.cancel()

    async def _recheck(self, client, token, request, user):
        async def refresh():
            client.hidden_recently.clear()
            client.left_recently.clear()
            try:
                if not await self.still_valid(token):
                    client.close()  # the writer ends the stream
                    return False
                fresh = await self.filter_for(request, user)
                if hasattr(fresh, "hide"):
                    fresh.hide(client.hidden_recently)
                if hasattr(fresh, "leave"):
                    fresh.leave(client.left_recently)  # groups left while it was read
                client.match = fresh
                if isinstance(client.format, WarnedPayloads):  # keyword filters read again
                    client.format.keywords = keywords_of(fresh)
            except RequestError as error:
                if error.status == 404:
                    client.close()  # the list is gone
                    return False
                log.warning("Could not re-read the filter of @%s: %s", user.login, error)
            except Exception:
                log.exception("Could not re-check the Mastodon stream of @%s", user.login)
            return True

        await refresh_until_ended(client, self.refresh_seconds, refresh)

    async def _send_notifications(self, client, user, after):
        while True:
            await client.notices.wait()
            client.notices.clear()
            try:
                notices, matcher = await asyncio.to_thread(self._notices, user.id, after)
            except Exception:
                log.exception("Could not read the notifications of @%s", user.login)
                continue
            for notice in notices:
                after = max(after, notice.event.score)
                # Keyword filters: a hide filter's notification is not sent.
                match = None
                if notice.status is not None:
                    match = keyword_match(matcher, StatusEvent(notice.status), user.id)
                if match is not None and match.action == keyword_filters.HIDE:
                    continue
                try:
                    data = client.format.notification(notification_payload(notice, match))
                except Exception:
                    # One notification that cannot be made must not stop the others.
                    log.exception("Could not make notification %s", notice.event.member)
                    continue
                self.app.hub.deliver(client, data)

    def _notices(self, uid, after):
        """(the notifications of ``uid`` after ``after``, the user's keyword filters of
        the notifications context or None). Blocking: run in a thread."""
        notices = conversations.notifications_after(
            self.redis, uid, after, NOTIFICATIONS_PER_CHANGE
        )
        if not any(notice.status is not None for notice in notices):
            return notices, None
        mine = keyword_filters.get_filters(self.redis, uid)
        return notices, keyword_filters.matcher_for(mine, "notifications")

    async def _send_conversations(self, client, user):
        while True:
            await client.conversations_changed.wait()
            client.conversations_changed.clear()
            cids = list(client.conversations)[:CONVERSATIONS_PER_READ]
            for cid in cids:
                del client.conversations[cid]
            if client.conversations:
                client.conversations_changed.set()  # the rest, next
            try:
                payloads = await asyncio.to_thread(conversation_payloads, self.redis, user.id, cids)
            except Exception:
                log.exception("Could not read the conversations of @%s", user.login)
                continue
            for payload in payloads:
                self.app.hub.deliver(client, client.format.conversation(payload))

    # --- the WebSocket ---

    async def websocket(self, scope, receive, send):
        """The WebSocket at /api/v1/streaming: subscriptions by message (and the first
        by ``?stream=``), each one a stream of the hub; its events as text messages."""
        if (await receive())["type"] != "websocket.connect":
            return
        query = parse_query(scope)
        token = request_token(scope, query)
        try:
            # Each subscription's own scope is checked as it is made.
            user, scopes = await self.authenticate(token, None)
        except RequestError as error:
            await refuse_websocket(send, error.status, error.message)
            return
        subprotocols = scope.get("subprotocols") or []
        accept = {"type": "websocket.accept"}
        if subprotocols and subprotocols[0] == token:
            accept["subprotocol"] = token  # a browser's way of sending it: echoed
        # The socket itself counts as a stream of its address, also before (and between)
        # its subscriptions: idle sockets are bounded like streams. Its first
        # subscription rides on that count.
        try:
            held = await self.app.hold_address(scope)
        except RequestError as error:
            await refuse_websocket(send, error.status, error.message)
            return
        try:
            await send(accept)
        except Exception:
            self.app.release_address(held)
            raise
        socket = Socket(self, scope, send, token, user, scopes, held)
        try:
            first = (query.get("stream") or [None])[0]
            if first:
                fields = {name: values[0] for name, values in query.items()}
                await socket.subscribe(first, fields)
            while True:
                message = await receive()
                if message["type"] == "websocket.disconnect":
                    return
                if message["type"] == "websocket.receive" and not socket.closed:
                    await socket.handle(message.get("text") or "")
        finally:
            socket.end()


class Nothing:
    """The filter of a stream of notifications or conversations alone: no status."""

    def index_keys(self):
        return []

    def __call__(self, event):
        return False


class Socket:
    """One WebSocket's subscriptions: {Request.identity: (client, address hold, task)}."""

    def __init__(self, streams, scope, send, token, user, scopes, held=None):
        self.streams = streams
        # The socket's own count among its address's streams (StreamingApp.hold_address),
        # and the subscription that uses it (None: free for the next one).
        self.held = held
        self.held_by = None
        self.app = streams.app
        self.scope = scope
        self.send = send
        self.token = token
        self.user = user
        self.scopes = scopes
        self.subscriptions = {}
        self.closed = False

    async def handle(self, text):
        """One message from the client: subscribe or unsubscribe; errors as messages."""
        try:
            if len(text) > MAX_MESSAGE_CHARACTERS:
                raise json_error(400, "Message too long")
            try:
                message = json.loads(text)
                check_json(message)  # no lone surrogate (a tag goes to Redis), not too deep
            except BadBody as bad:
                raise json_error(400, str(bad).replace("The request body", "The message")) from None
            except (ValueError, RecursionError):
                raise json_error(400, "Could not parse the message as JSON") from None
            if not isinstance(message, dict):
                raise json_error(400, "A message is a JSON object")
            kind = message.get("type")
            stream = message.get("stream")
            if kind not in ("subscribe", "unsubscribe") or not isinstance(stream, str):
                raise json_error(400, 'Send {"type": "subscribe", "stream": ...}')
            fields = {name: str(message[name]) for name in ("tag", "list") if name in message}
            if kind == "subscribe":
                await self.subscribe(stream, fields)
            else:
                self.unsubscribe(parse_request(stream, fields).identity)
        except RequestError as error:
            await self.error(error.status, error.message)
        except (RedisError, OSError):
            await self.error(503, UNAVAILABLE)

    async def error(self, status, message):
        await self.send(
            {"type": "websocket.send", "text": json.dumps({"error": message, "status": status})}
        )

    async def subscribe(self, stream, fields):
        streams, hub = self.streams, self.app.hub
        request = parse_request(stream, fields)
        key, identity = request.key, request.identity
        if identity in self.subscriptions:
            return  # subscribed already: as Mastodon, nothing more
        if not scope_allows(self.scopes, SCOPES[stream]):
            raise json_error(403, OUTSIDE_SCOPES)
        if not await streams.still_valid(self.token):
            # Revoked (or the user suspended) while the socket had no stream to end.
            await self.close(1008)
            return
        if len(self.subscriptions) >= MAX_SUBSCRIPTIONS_PER_SOCKET:
            raise json_error(
                429, f"At most {MAX_SUBSCRIPTIONS_PER_SOCKET} streams on one connection"
            )
        match = await streams.filter_for(request, self.user)
        if self.app.max_streams is not None and len(hub.clients) >= self.app.max_streams:
            raise json_error(429, "This server streams to as many clients as it can")
        if self.held is not None and self.held_by is None:
            held, self.held_by = None, identity  # the socket's own count
        else:
            held = await self.app.hold_address(self.scope)
        name = f"mastodon-ws:{':'.join(key)}:@{self.user.login}"
        format = websocket_format(key)
        warned = keywords_of(match)  # keyword filters: a format of its own
        if warned is not None:
            format = WarnedWebSocketMessages(key, format.shows_private, warned, self.user.id)
        client = MastodonClient(match, format, hub.client_buffer, name, self.user.id)
        notifying = streams._notifying(stream, self.scopes)
        start = None
        if notifying:
            client.notices = asyncio.Event()
            start = await streams._notifications_start(self.user)
        if stream == "direct":
            client.conversations, client.conversations_changed = {}, asyncio.Event()
        if not hub.add(client):
            self._release(key, held)
            raise json_error(503, "The server is shutting down; connect again.")
        client.writer = asyncio.create_task(self.write(client))
        background = asyncio.create_task(
            streams.keep_up_to_date(client, self.token, request, self.user, start)
        )
        self.subscriptions[identity] = (client, held, background)

    async def write(self, client):
        """Send the client's events, one message each (uvicorn's send waits while the
        socket is full: flow control). A client closed by its stream (its token revoked
        or its user suspended, the server stopping) or dropped as too slow ends the
        socket."""
        try:
            while (chunks := await client.next_chunks()) is not None:
                for chunk in chunks:
                    if chunk:  # b"": a keep-alive, which uvicorn's pings make needless
                        await self.send({"type": "websocket.send", "text": chunk.decode()})
        except asyncio.CancelledError:
            if client.dropped:
                # Too slow (Hub.drop_slow): 1013, "try again later"; the client
                # reconnects. A socket too full to take even that is cut by uvicorn's
                # pings, which go unanswered.
                await self.close(1013)
            raise
        except Exception:
            return  # the socket is gone (ClientDisconnected): its receive loop ends it
        await self.close(1001 if self.app.hub.stopping else 1008)  # going away; policy

    async def close(self, code):
        self.closed = True
        with contextlib.suppress(Exception):
            await asyncio.wait_for(self.send({"type": "websocket.close", "code": code}), 1.0)

    def unsubscribe(self, key):
        subscription = self.subscriptions.pop(key, None)
        if subscription is None:
            return
        client, held, background = subscription
        self.app.hub.remove(client)
        client.close()
        background.cancel()
        if client.writer is not None:
            client.writer.cancel()
        self._release(key, held)

    def _release(self, key, held):
        """Give back a subscription's count: its own, or the socket's, kept by the
        socket for the next subscription."""
        if held is not None:
            self.app.release_address(held)
        elif self.held_by == key:
            self.held_by = None

    def end(self):
        for key in list(self.subscriptions):
            self.unsubscribe(key)
        self.app.release_address(self.held)
        self.held = None


async def refuse_websocket(send, status, message):
    """Refuse a WebSocket handshake with an HTTP answer and Mastodon's JSON body
    (ASGI's websocket.http.response; uvicorn has it)."""
    body = json.dumps({"error": message}).encode()
    await send(
        {
            "type": "websocket.http.response.start",
            "status": status,
            "headers": [
                (b"content-type", b"application/json; charset=utf-8"),
                (b"content-length", str(len(body)).encode()),
            ],
        }
    )
    await send({"type": "websocket.http.response.body", "body": body})

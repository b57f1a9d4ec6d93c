"""Twitter's v1.1 streaming API on the stream server (section 8.5.2), as the book has it.

- ``GET /statuses/sample.json?percent=N&identifier=ID``: a sample of all statuses.
- ``POST /statuses/filter.json`` with form fields ``track``, ``follow`` and
  ``locations``: the statuses matching any of them.
- Also under Twitter's paths, /1.1/statuses/...
- ``since_id=ID`` on both: first what the client missed, then the live stream
  (replay.py).

Both send Twitter's v1.1 Tweet objects and delete notices (tweets.py), one JSON object
per line, a blank line after KEEPALIVE seconds of silence; ``identifier`` is optional
(client_identifier). The filters are the book's (filters.py).
"""

import asyncio
import json
import re
from urllib.parse import unquote

from media import files
from socialsite.repository import users
from socialsite.repository.ids import parse_id

from . import filters, replay, tweets
from .asgi import client_address, first, parse_query, read_form, request_headers
from .filters import RequestError
from .hub import Format

# Twitter's streaming API's paths began with its version.
TWITTER_PREFIX = "/1.1"
# One parameter of an OAuth Authorization header: name="value".
OAUTH_PARAMETER = re.compile(r'([A-Za-z0-9_.~%-]+)\s*=\s*"([^"]*)"')


class JsonLines(Format):
    """The streaming API's format, Twitter's: a status as one line of JSON, a Tweet
    object with the book's fields beside Twitter's (tweets.tweet), a deletion as
    Twitter's notice (tweets.delete_notice); a blank line as keep-alive. One instance
    serves every API client, so an event's line is made once, whatever their number."""

    # One JSON document per line ("JSON Lines", also known as NDJSON).
    content_type = b"application/x-ndjson; charset=utf-8"
    keepalive = b"\n"

    def render(self, event):
        if event.deleted:
            return json.dumps(tweets.delete_notice(event.status)).encode() + b"\n"
        made = tweets.tweet(event.status, event.entities, files.absolute_url)
        return json.dumps(made).encode() + b"\n"

    def catch_up_line(self, summary):
        """The line that ends a catch-up (replay.catch_up): ``{"catch_up": {...}}``."""
        return json.dumps({"catch_up": summary}).encode() + b"\n"


JSON_LINES = JsonLines()


class TwitterStreams:
    """The sample and filter endpoints of a StreamingApp (``app``: its hub, Redis client
    and streams)."""

    def __init__(self, app):
        self.app = app
        for path, methods, handler in (
            ("/statuses/sample.json", ("GET", "POST"), self.sample),
            ("/statuses/filter.json", ("POST",), self.filter),
        ):
            app.add_route(path, methods, handler)
            # Twitter's paths too (https://stream.twitter.com/1.1/statuses/...): a
            # client written for Twitter whose base URL can be set needs nothing else
            # changed.
            app.add_route(TWITTER_PREFIX + path, methods, handler)

    async def sample(self, scope, receive, send):
        """GET /statuses/sample.json?percent=N&identifier=ID (both optional), or a POST
        with them in its query string or form body."""
        fields = parse_query(scope)
        if scope["method"] == "POST":
            fields = {**await read_form(scope, receive), **fields}  # the query string's win
        identifier = client_identifier(scope, fields)
        percent = filters.parse_percent(first(fields, "percent"))
        since_id = replay.parse_since_id(first(fields, "since_id"))
        match = filters.SampleFilter(identifier, percent)
        await self.app.stream(
            scope, receive, send, match, identifier, JSON_LINES, **self.catching_up(since_id)
        )

    async def filter(self, scope, receive, send):
        """POST /statuses/filter.json with track, follow, locations in its form body
        (``identifier``, optional, and ``since_id`` in its query string)."""
        query = parse_query(scope)
        identifier = client_identifier(scope, query)
        since_id = replay.parse_since_id(first(query, "since_id"))
        form = await read_form(scope, receive)
        match = await self.build_filter(form)
        await self.app.stream(
            scope, receive, send, match, identifier, JSON_LINES, **self.catching_up(since_id)
        )

    def catching_up(self, since_id):
        """stream()'s arguments for an API client asking to catch up from ``since_id``
        (none when it does not): a held client, and the catch-up (replay.catch_up)."""
        if since_id is None:
            return {}

        async def catch_up(client):
            return await replay.catch_up(
                self.app.redis, self.app.hub, since_id, client.match, client.format, client
            )

        def held_client(*args):
            return replay.ReplayingClient(*args, floor=since_id)

        return {"client_class": held_client, "replay": catch_up}

    async def build_filter(self, form):
        """The filter for a filter request's fields; RequestError if none or bad."""
        track = form.get("track")
        follow = form.get("follow")
        # "location" is the book's name for Twitter's "locations"; both are accepted.
        locations = form.get("locations", []) + form.get("location", [])
        if track is None and follow is None and not locations:
            raise RequestError(
                401, "no filter given: post at least one of track, follow or locations."
            )
        # Every field's form is checked before any of them costs a Redis lookup.
        phrases = filters.parse_track(track) if track is not None else None
        boxes = filters.parse_locations(locations) if locations else None
        names = filters.parse_follow(follow) if follow is not None else None
        predicates = []
        if phrases is not None:
            predicates.append(filters.TrackFilter(phrases))
        if boxes is not None:
            predicates.append(filters.LocationFilter(boxes))
        if names is not None:
            uids, logins = await asyncio.to_thread(resolve_users, self.app.redis, names)
            predicates.append(filters.FollowFilter(uids, logins))
        return filters.any_of(predicates)


def client_identifier(scope, fields):
    """Who a streaming API client is, for its sample (filters.SampleFilter) and its name
    in the logs: its ``identifier`` field; without one, the OAuth consumer key its request
    is signed with, as Twitter's clients sign every request (the signature is not
    checked: the public stream is public); else its address (client_address, as the
    pages and the limits count it). 406 for one too long."""
    identifier = filters.parse_identifier(first(fields, "identifier"))
    if identifier is not None:
        return identifier
    key = oauth_consumer_key(request_headers(scope).get("authorization"))
    if key is None:
        key = first(fields, "oauth_consumer_key")  # OAuth 1.0 allows the query string too
    key = filters.parse_identifier(key, "oauth_consumer_key")
    if key is not None:
        return key
    return client_address(scope)


def oauth_consumer_key(authorization):
    """The ``oauth_consumer_key`` of an ``Authorization: OAuth ...`` header (RFC 5849,
    3.5.1: comma-separated ``name="value"``, percent-encoded), or None."""
    scheme, _, parameters = (authorization or "").strip().partition(" ")
    if scheme.lower() != "oauth":
        return None
    for name, value in OAUTH_PARAMETER.findall(parameters):
        if unquote(name) == "oauth_consumer_key":
            return unquote(value)
    return None


def resolve_users(redis, names):
    """(user ids, logins) of follow's names: logins (any case) or user ids.

    A name is first looked up as a login, then, if it is all digits, as a user id:
    a login made of digits wins over the id it looks like. RequestError 406 names
    those that are neither. Two round trips, whatever the number of names.
    """
    ids_by_login = users.get_user_ids(redis, names)
    rest = [name for name in names if name.lower() not in ids_by_login]
    numeric = [uid for uid in map(parse_id, rest) if uid is not None]
    by_id = users.get_users(redis, numeric) if numeric else {}
    unknown = [name for name in rest if parse_id(name) not in by_id]
    if unknown:
        listed = ", ".join(unknown[:5]) + (", ..." if len(unknown) > 5 else "")
        raise filters.malformed(f"follow: there is no user {listed}.")
    uids = set(ids_by_login.values()) | set(by_id)
    logins = set(ids_by_login) | {user["login"].lower() for user in by_id.values()}
    return uids, logins

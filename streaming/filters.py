"""The streaming API's filters (section 8.5.3) and the checks on their parameters.

Plain Python: no Django, no Redis, no asyncio (repository.entities is plain Python
too: it unpacks a status's stored entities). A filter is a callable that takes a
StatusEvent and says whether its client wants it. Deletions go through the same
filter as posts (the book's trick): a client is told of the deletion of exactly the
statuses it was sent, without the server remembering what it sent to whom.

The limits are Twitter's, whose streaming API the book imitates.
"""

import functools
import json
import math
import random
import re
import unicodedata

from socialsite.repository import entities

# Limits per connection, as Twitter's filter endpoint had them: they bound the work
# each event costs the server per client.
MAX_TRACK_PHRASES = 400
MAX_PHRASE_BYTES = 60
MAX_FOLLOWS = 5000
MAX_BOXES = 25
# An identifier only seeds the sample's choice; a bound keeps junk out of the logs.
MAX_IDENTIFIER_LENGTH = 200
DEFAULT_SAMPLE_PERCENT = 10

# The kinds of keys a filter is indexed under (index.py: an event is offered to the
# clients indexed under its own keys, whose filters then confirm it). Each filter's
# ``index_keys()`` gives (kind, keys) pairs; an event matching the filter has at
# least one of those keys.
INDEX_EVERY = "every"  # key None: clients that every event is offered to
INDEX_AUTHOR = "author"  # a user id: the statuses they post
INDEX_MENTION = "mention"  # a lowercased login: statuses that mention it
INDEX_WORD = "word"  # one word of a tracked phrase (track_word's form)
INDEX_CELL = "cell"  # a cell of the location grid (cell_of)
INDEX_WIDE = "wide"  # key None: location filters too wide for cells, offered every located event
INDEX_BUCKET = "bucket"  # a status id's sample bucket (bucket_of)
INDEX_COMMUNITY = "community"  # a group's id: its statuses (StatusEvent.community)
ALWAYS = (None,)
# The location grid: cells of CELL_DEGREES by CELL_DEGREES. A filter whose boxes
# cover more than MAX_CELLS cells (a continent, the world) goes to the WIDE list
# instead, so that a huge box costs one entry, not thousands.
CELL_DEGREES = 10.0
MAX_CELLS = 64

# A login as accounts.forms accepts it (a user id: ids.parse_id).
LOGIN = re.compile(r"[A-Za-z0-9_]{1,30}")
# "@bob" in a message, but not "carol@bob.example": the @ must start a word.
MENTION = re.compile(r"(?<![\w@])@([A-Za-z0-9_]{1,30})")
# Punctuation around a word: "world!" also counts as "world", "#django" as "django".
WORD_EDGES = re.compile(r"^\W+|\W+$")


class RequestError(Exception):
    """A request the streaming API refuses: an HTTP status and a sentence saying why."""

    def __init__(self, status, message):
        super().__init__(message)
        self.status = status
        self.message = message


def malformed(message):
    return RequestError(406, message)


def too_many(message):
    return RequestError(413, message)


class StatusEvent:
    """One posted or deleted status, decoded once and shared by every client's filter.

    What the filters look at (words, mentions, point) is worked out on first use, so
    an event nobody tracks words for never gets split into words.
    """

    kind = "status"

    def __init__(self, status):
        self.status = status
        self.id = int(status["id"])
        self.uid = int(status["uid"])
        self.deleted = bool(status.get("deleted"))
        # A status changed (an edit, a poll's end: repository.events.publish_changed),
        # sent to those the post went to, by the formats that tell changes
        # (hub.Format.tells_changes).
        self.changed = bool(status.get("changed"))
        # Posted while its author's account was private (repository/privacy.py): for
        # the author's followers only (Hub.dispatch).
        self.private = status.get("private") == "1"
        # Bytes already rendered for each output format (see hub.Format), so that a
        # thousand clients of one format cost one json.dumps.
        self.rendered = {}

    @classmethod
    def from_json(cls, text):
        """The event published as ``text`` (repository.events); ValueError if malformed."""
        return cls.from_data(json.loads(text))

    @classmethod
    def from_data(cls, status):
        """The event of a decoded JSON value; ValueError if malformed."""
        if not isinstance(status, dict):
            raise ValueError("an event must be a JSON object")
        try:
            return cls(status)
        except (KeyError, TypeError) as exc:
            raise ValueError(f"an event needs a numeric id and uid: {exc}") from None

    @property
    def message(self):
        return str(self.status.get("message", ""))

    @functools.cached_property
    def entities(self):
        """The status's mentions, hashtags and links in Twitter's format, from its
        stored ``entities`` field (entities.unpack: none for a status without one)."""
        return entities.unpack(self.message, self.status.get("entities"))

    @functools.cached_property
    def community(self):
        """The id of the group ("community") the status belongs to; None for none."""
        community = self.status.get("community")  # keys.STATUS_COMMUNITY_FIELD
        try:
            return None if community in (None, "") else int(community)
        except (TypeError, ValueError):
            return None

    @functools.cached_property
    def replied_to(self):
        """The id of the user a reply replies to; None for a status that is not one."""
        replied_to = self.status.get("in_reply_to_uid")
        try:
            return None if replied_to is None else int(replied_to)
        except (TypeError, ValueError):
            return None

    @functools.cached_property
    def words(self):
        """The message's whitespace-separated words, casefolded, with and without the
        punctuation around them: "Hello, world!" gives hello, hello, world and world!.
        Each hashtag also as its tag, with and without "#": "＃Ｒｅｄｉｓ's" gives
        redis and #redis (track_word reads a tracked word the same way)."""
        words = set()
        for token in self.message.casefold().split():
            words.add(token)
            core = WORD_EDGES.sub("", token)
            if core:
                words.add(core)
        if "entities" in self.status:
            for tag in entities.tags(self.entities):
                tag = tag.casefold()
                words.add(tag)
                words.add("#" + tag)
        return words

    @functools.cached_property
    def mentions(self):
        """Lowercased logins mentioned as @login in the message."""
        return {login.lower() for login in MENTION.findall(self.message)}

    @functools.cached_property
    def point(self):
        """(latitude, longitude) of the status, or None. Stored as "lat,lon"."""
        location = self.status.get("location")
        return None if location is None else point_of(location)


class AccountEvent:
    """An account hidden from the streams (suspended) or shown again:
    ``{"account": UID, "hidden": true}`` (repository.events.publish_account). Not a
    status: the hub keeps it for itself, no client is sent it."""

    kind = "account"

    def __init__(self, uid, hidden):
        self.uid = uid
        self.hidden = hidden


class RelationsEvent:
    """Users whose blocks or mutes changed (repository.events.publish_relations_changed):
    their live pages drop the authors they no longer get (``hidden``: viewer -> set of
    authors) and the groups they left (``left``: viewer -> set of group ids), and read
    their filters again (Hub.dispatch)."""

    kind = "relations"

    def __init__(self, uids, hidden=(), left=()):
        self.uids = frozenset(uids)
        self.hidden = {}
        for viewer, author in hidden:
            self.hidden.setdefault(viewer, set()).add(author)
        self.left = {}
        for viewer, cid in left:
            self.left.setdefault(viewer, set()).add(cid)

    @classmethod
    def from_data(cls, data):
        """The event of ``data``, a decoded JSON object with ``relations_changed``;
        ValueError if malformed."""
        uids, hidden = data["relations_changed"], data.get("hidden", [])
        left = data.get("left", [])
        if not isinstance(uids, list) or not all(type(uid) is int for uid in uids):
            raise ValueError("relations_changed must be a list of user ids")
        for name, pairs in (("hidden", hidden), ("left", left)):
            if not isinstance(pairs, list) or not all(
                isinstance(pair, list) and len(pair) == 2 and all(type(n) is int for n in pair)
                for pair in pairs
            ):
                raise ValueError(f"{name} must be a list of [viewer, id] pairs")
        return cls(uids, hidden, left)


class UnreadEvent:
    """A user's new count of unread notifications, and its version (each change of the
    user's notifications raises it: a page keeps the highest it has seen). Published by
    the notification scripts of the repository (notifications.py) on their own channel;
    routed to that user's live pages alone, never through the filters."""

    kind = "unread"

    def __init__(self, data):
        self.uid = int(data["unread"])
        self.count = int(data["count"])
        self.version = int(data["version"])
        self.rendered = {}


class DirectEvent:
    """A new direct message for a member, or a new count of their conversations with
    unread messages (``message`` 0), with its version: published by direct_member.lua
    on the users' channel; routed to that member's live pages alone, like UnreadEvent.
    It names the conversation and the message, never their text: the page fetches it."""

    kind = "direct"

    def __init__(self, data):
        self.uid = int(data["direct"])
        self.conversation = int(data["conversation"])
        self.message = int(data["message"])
        self.count = int(data["count"])
        self.version = int(data["version"])
        self.rendered = {}


class NothingFilter:
    """The filter of a live page that takes no statuses (a conversation's page,
    /live/messages): it gets its user's own events alone (Hub.tell_user)."""

    def __call__(self, event):
        return False

    def index_keys(self):
        return ()


def event_from_json(text):
    """The StatusEvent, RelationsEvent, AccountEvent, UnreadEvent or DirectEvent
    published as ``text``; ValueError if malformed."""
    if '"direct"' in text:
        data = json.loads(text)
        if isinstance(data, dict) and "direct" in data:
            try:
                return DirectEvent(data)
            except (KeyError, TypeError, ValueError) as exc:
                raise ValueError(f"a direct event needs numeric fields: {exc}") from None
    if '"account"' in text:
        data = json.loads(text)
        if isinstance(data, dict) and "account" in data:
            try:
                return AccountEvent(int(data["account"]), bool(data.get("hidden")))
            except (TypeError, ValueError) as exc:
                raise ValueError(f"an account event needs a numeric account: {exc}") from None
    if '"relations_changed"' in text:
        data = json.loads(text)
        if isinstance(data, dict) and "relations_changed" in data:
            return RelationsEvent.from_data(data)
    if '"unread"' not in text:
        return StatusEvent.from_json(text)
    data = json.loads(text)
    if isinstance(data, dict) and "unread" in data:
        try:
            return UnreadEvent(data)
        except (KeyError, TypeError, ValueError) as exc:
            raise ValueError(
                f"an unread count needs a numeric user, count and version: {exc}"
            ) from None
    return StatusEvent.from_json(text)


def point_of(location):
    """(latitude, longitude) of a stored location ("lat,lon"), or None if it is not one."""
    try:
        lat, lon = (float(part) for part in str(location).split(","))
    except ValueError:
        return None
    return (lat, lon) if math.isfinite(lat) and math.isfinite(lon) else None


def bucket_of(event):
    """The sample bucket of an event: its status id modulo 100 (SampleFilter)."""
    return event.id % 100


def _row(degrees, limit):
    """The grid row (or column) of a latitude (or longitude) clamped to +-``limit``.
    Clamping and floor() of the division are both monotonic, so a point inside a box
    (edges included) lies in a cell between the cells of the box's corners, even for a
    point off the globe (no box reaches there: it only gets a cell at the edge)."""
    return math.floor((min(max(degrees, -limit), limit) + limit) / CELL_DEGREES)


# Rows and columns of the grid (the last of each holds only the +90 or +180 edge).
GRID_ROWS = math.floor(180 / CELL_DEGREES) + 1
GRID_COLUMNS = math.floor(360 / CELL_DEGREES) + 1
# One shared int per cell: a client's cells cost a pointer each, not an int each.
CELL_IDS = tuple(range(GRID_ROWS * GRID_COLUMNS))


def cell_of(lat, lon):
    """The grid cell of a point: an int of CELL_IDS."""
    return CELL_IDS[_row(lat, 90) * GRID_COLUMNS + _row(lon, 180)]


def box_cells(boxes):
    """The cells covering ``boxes`` (west, south, east, north), as a tuple, or None if
    more than MAX_CELLS (counted before any is made: a box of the whole world costs
    nothing)."""
    spans = []
    total = 0
    for west, south, east, north in boxes:
        rows = range(_row(south, 90), _row(north, 90) + 1)
        columns = range(_row(west, 180), _row(east, 180) + 1)
        total += len(rows) * len(columns)
        if total > MAX_CELLS:
            return None
        spans.append((rows, columns))
    cells = {
        CELL_IDS[row * GRID_COLUMNS + column]
        for rows, columns in spans
        for row in rows
        for column in columns
    }
    return tuple(cells)


class SampleFilter:
    """``percent`` out of every 100 statuses, chosen by status id as the book does.

    The identifier seeds the choice, so the same identifier always gets the same
    sample (on any server process: ``random.Random(str)`` is seeded from the string's
    SHA-512, not from Python's per-process hash), and so also gets the deletions of
    what it was sent. Two clients with different identifiers get different samples.
    """

    def __init__(self, identifier, percent=DEFAULT_SAMPLE_PERCENT):
        ids = list(range(100))
        random.Random(identifier).shuffle(ids)
        self.keep = frozenset(ids[:percent])

    def __call__(self, event):
        return event.id % 100 in self.keep

    def index_keys(self):
        # The whole firehose is one plain set of clients, offered every event.
        if len(self.keep) == 100:
            return [(INDEX_EVERY, ALWAYS)]
        return [(INDEX_BUCKET, self.keep)]


def track_word(word):
    """A word of a ``track`` phrase as StatusEvent.words has it: casefolded, and a
    hashtag ("#Redis", "＃Ｒｅｄｉｓ") as its normalized tag after "#"."""
    if word[:1] in "#＃" and len(word) > 1:
        return "#" + unicodedata.normalize("NFKC", word[1:]).casefold()
    return word.casefold()


class TrackFilter:
    """Statuses containing every word of at least one phrase, ignoring case. A word
    matches a hashtag with or without its "#": "redis" and "#redis" both match the
    hashtag #Redis."""

    def __init__(self, phrases):
        self.groups = [frozenset(map(track_word, phrase.split())) for phrase in phrases]

    def __call__(self, event):
        words = event.words
        for group in self.groups:
            if group <= words:
                return True
        return False

    def index_keys(self):
        # One word per phrase is enough: an event with the phrase has that word. The
        # longest, as the likeliest to be rare (fewest events offered for nothing).
        if not all(self.groups):
            return [(INDEX_EVERY, ALWAYS)]  # an empty phrase matches everything
        return [
            (
                INDEX_WORD,
                frozenset(max(group, key=lambda word: (len(word), word)) for group in self.groups),
            )
        ]


class FollowFilter:
    """Statuses posted by the given users, or mentioning one of them as @login."""

    def __init__(self, uids, logins):
        self.uids = frozenset(int(uid) for uid in uids)
        self.logins = frozenset(login.lower() for login in logins)

    def __call__(self, event):
        return event.uid in self.uids or not self.logins.isdisjoint(event.mentions)

    def index_keys(self):
        return [(INDEX_AUTHOR, self.uids), (INDEX_MENTION, self.logins)]


class LocationFilter:
    """Statuses whose location lies in one of the boxes (edges included).

    A box is (west, south, east, north): south-west longitude and latitude, then
    north-east longitude and latitude, as Twitter's ``locations``.
    """

    def __init__(self, boxes):
        self.boxes = [tuple(box) for box in boxes]

    def __call__(self, event):
        point = event.point
        if point is None:
            return False
        lat, lon = point
        for west, south, east, north in self.boxes:
            if west <= lon <= east and south <= lat <= north:
                return True
        return False

    def index_keys(self):
        cells = box_cells(self.boxes)
        return [(INDEX_WIDE, ALWAYS)] if cells is None else [(INDEX_CELL, cells)]


class AnyFilter:
    """Several predicates in one request: a status matching any of them is sent."""

    def __init__(self, filters):
        self.filters = list(filters)

    def __call__(self, event):
        for match in self.filters:
            if match(event):
                return True
        return False

    def index_keys(self):
        keys = []
        for match in self.filters:
            index_keys = getattr(match, "index_keys", None)
            keys += [(INDEX_EVERY, ALWAYS)] if index_keys is None else index_keys()
        return keys


def any_of(predicates):
    """One filter for several predicates (the predicate itself when there is one:
    every client's filter runs on every event, so a layer less counts)."""
    return predicates[0] if len(predicates) == 1 else AnyFilter(predicates)


# --- parsing and checking the parameters ---------------------------------------------


def parse_identifier(value, name="identifier"):
    """A client's identifier (``name`` the field it came in); None when absent or blank
    (the client is then known otherwise: app.client_identifier), 406 when absurd."""
    identifier = (value or "").strip()
    if not identifier:
        return None
    if len(identifier) > MAX_IDENTIFIER_LENGTH:
        raise malformed(f"{name} too long: at most {MAX_IDENTIFIER_LENGTH} characters.")
    return identifier


def parse_percent(value):
    """The sample's percent, 1 to 100; the default when absent."""
    if value is None:
        return DEFAULT_SAMPLE_PERCENT
    text = value.strip()
    if not (text.isascii() and text.isdigit() and len(text) <= 3 and 1 <= int(text) <= 100):
        raise malformed(f"percent must be a whole number from 1 to 100, not {value!r}.")
    return int(text)


def _items(values):
    """Comma-separated items of every occurrence of a field (track=a,b&track=c)."""
    return [item.strip() for value in values for item in value.split(",")]


def parse_track(values):
    """The phrases of ``track`` fields: at most 400, each 1 to 60 bytes."""
    phrases = _items(values)
    if len(phrases) > MAX_TRACK_PHRASES:
        raise too_many(
            f"track has {len(phrases)} phrases; at most {MAX_TRACK_PHRASES} are allowed."
        )
    for phrase in phrases:
        if not phrase:
            raise malformed("track has an empty phrase (two commas in a row, or one at an end).")
        if len(phrase.encode()) > MAX_PHRASE_BYTES:
            raise malformed(
                f"track phrase {phrase[:20]!r}... is over {MAX_PHRASE_BYTES} bytes long."
            )
    return phrases


def parse_follow(values):
    """The users of ``follow`` fields, as written: logins (with or without @) or ids.

    Only their form is checked here; whether they exist is the caller's question.
    """
    names = [item.removeprefix("@") for item in _items(values)]
    if len(names) > MAX_FOLLOWS:
        raise too_many(f"follow has {len(names)} users; at most {MAX_FOLLOWS} are allowed.")
    for name in names:
        if not name:
            raise malformed("follow has an empty user (two commas in a row, or one at an end).")
        if not LOGIN.fullmatch(name):
            raise malformed(f"follow: {name[:40]!r} is neither a login nor a user id.")
    return names


def parse_locations(values):
    """The boxes of ``locations`` fields: groups of four numbers, at most 25 boxes."""
    items = _items(values)
    if len(items) > 4 * MAX_BOXES:
        raise too_many(f"locations has {len(items) / 4:g} boxes; at most {MAX_BOXES} are allowed.")
    numbers = []
    for item in items:
        try:
            number = float(item)
        except ValueError:
            number = math.nan
        if not math.isfinite(number):
            raise malformed(f"locations: {item[:40]!r} is not a number.")
        numbers.append(number)
    if not numbers or len(numbers) % 4:
        raise malformed(
            "locations takes groups of four numbers: south-west longitude and latitude, "
            "then north-east longitude and latitude."
        )
    boxes = [tuple(numbers[i : i + 4]) for i in range(0, len(numbers), 4)]
    for west, south, east, north in boxes:
        if not (-180 <= west <= 180 and -180 <= east <= 180):
            raise malformed("locations: longitudes lie between -180 and 180.")
        if not (-90 <= south <= 90 and -90 <= north <= 90):
            raise malformed("locations: latitudes lie between -90 and 90.")
        if west > east or south > north:
            raise malformed(
                f"locations: box {west:g},{south:g},{east:g},{north:g} does not give its "
                "south-west corner first, then its north-east corner."
            )
    return boxes

"""Direct messages: private conversations of two or more people. Never statuses: no
path leads from here to a timeline, search, trend, notification or the streaming API.

Storage (keys.py, "direct messages"):
- A conversation's own keys share its slot (hash tag "{dm<id>}"): its hash
  (keys.conversation: who started it, the newest message), its members
  (keys.conversation_members) and its messages, one Stream (keys.conversation_messages)
  whose entry ids are the message ids (1, 2, 3... as "<id>-0"). A message is written
  once, by direct_send.lua, whatever the number of members.
- Each member's side is in their own slot: their inbox and their requests (ZSETs of
  conversation ids by last activity), every conversation they are in
  (keys.direct_joined), and their state (keys.direct_state: per conversation the
  unread count, the newest message delivered, read and cleared, muted; and the
  badge, how many inbox conversations have unread messages). direct_member.lua changes
  one member's side in one step, so the badge is exact under any concurrency.
- Two people always share one conversation: its id is in the lower id's
  keys.conversation_pair hash, where HSETNX decides between two first messages.

Sending is two steps: the message (the conversation's slot), then each member's side
(one script call per member, in one round trip). Both are idempotent: a form sent
again (the same posting key) finds its message sent and delivers it again, which each
member's state, knowing the newest message it has, ignores. A request that died
between the steps is mended by sending the form again.

The shape maps onto Mastodon's /api/v1/conversations: a conversation's id, its
accounts (members less the reader), its last message and the reader's unread flag
(``Conversation.unread``).
"""

import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from socialsite.memory import Memory

from . import entities, keys, scripts, users
from .client import Client
from .records import User

# Who may start a conversation with an account (the user hash's
# keys.MESSAGES_FROM_FIELD): requests from anyone; only people the account follows
# (straight to the inbox); nobody.
MESSAGES_FROM = ("everyone", "following", "nobody")
MESSAGES_FROM_DEFAULT = "following"

# A message's length in characters (links count as written: a message is no status).
MESSAGE_MAX_CHARACTERS = 10_000
# Members of a conversation besides the one who starts it (Twitter's group size, 50).
MAX_OTHER_MEMBERS = 49
# Messages before a reported one that go to the moderators with it.
REPORT_CONTEXT_MESSAGES = 3
# Message ids are the first part of Stream entry ids, at most 2**64 - 1: cursors and
# ids from a URL are held below this, so that no number anyone types is an error.
MAX_MESSAGE_ID = 2**63


def _now_ms():
    return int(time.time() * 1000)


def messages_from(user: User) -> str:
    """Who may start a conversation with user dict ``user`` (MESSAGES_FROM)."""
    value = user.get(keys.MESSAGES_FROM_FIELD)
    return value if value in MESSAGES_FROM else MESSAGES_FROM_DEFAULT


def set_messages_from(r: Client, uid: int, value: str) -> None:
    """Set who may start a conversation with ``uid`` (one of MESSAGES_FROM)."""
    if value not in MESSAGES_FROM:
        raise ValueError(f"messages_from must be one of {MESSAGES_FROM}")
    users.forget_author(uid)
    scripts.set_user_field(r, uid=uid, field=keys.MESSAGES_FROM_FIELD, value=value)


# --- sending ----------------------------------------------------------------------------


class Refused(Exception):
    """A message that may not be sent; its text says why, for the sender."""


@dataclass
class Sent:
    """A message sent (or found sent: ``fresh`` False) as message ``mid`` of
    conversation ``cid``."""

    cid: int
    mid: int
    fresh: bool = True


def _relations(r, sender_id, others):
    """For each of the user dicts ``others``: (follows the sender, blocks the sender,
    blocked by the sender), read in one round trip, in each other's slot."""

    def fill(pipe):
        for other in others:
            uid = other["id"]
            pipe.zscore(keys.following(uid), sender_id)
            pipe.zscore(keys.blocks(uid), sender_id)
            pipe.zscore(keys.blocked_by(uid), sender_id)

    replies = scripts.run_pipeline(r, fill)
    return {
        other["id"]: tuple(reply is not None for reply in replies[3 * n : 3 * n + 3])
        for n, other in enumerate(others)
    }


def check_new_conversation(r: Client, sender_id: int, others: Sequence[User]) -> dict[int, str]:
    """Refused if ``sender_id`` may not start a conversation with every one of the
    user dicts ``others`` (their MESSAGES_FROM, blocks either way, suspended or leaving
    accounts); else each other's role for the first message: {uid: "inbox" (they follow
    the sender) or "request"}."""
    if not others:
        raise Refused("Say whom the message is for.")
    if len(others) > MAX_OTHER_MEMBERS:
        raise Refused(f"A conversation has at most {MAX_OTHER_MEMBERS} people besides you.")
    relations = _relations(r, sender_id, others)
    roles, refusals = {}, []
    for other in others:
        follows, blocks_sender, blocked = relations[other["id"]]
        login = other["login"]
        allowed = messages_from(other)
        if users.is_hidden(other):
            refusals.append(f"@{login} cannot be messaged.")
        elif blocks_sender or blocked:
            refusals.append(f"You and @{login} cannot message each other (a block).")
        elif allowed == "nobody":
            refusals.append(f"@{login} takes no direct messages.")
        elif allowed == "following" and not follows:
            refusals.append(f"@{login} takes direct messages only from people they follow.")
        roles[other["id"]] = "inbox" if follows else "request"
    if refusals:
        raise Refused(" ".join(refusals))
    return roles


def check_text(text: str) -> None:
    """Refused for a message that is empty or too long."""
    if not text.strip():
        raise Refused("Write a message: it is empty.")
    if len(text) > MESSAGE_MAX_CHARACTERS:
        raise Refused(
            f"A message has at most {MESSAGE_MAX_CHARACTERS:,} characters; this one has "
            f"{len(text):,}."
        )


def _packed(r, text):
    """The message's entities, packed (entities.pack); mentions of logins that exist
    are linked, and notify nobody."""
    found = entities.find(text)
    logins = found.mentioned_logins(text)
    ids = users.get_user_ids(r, logins) if logins else {}
    return entities.pack(entities.build(text, found, ids))


def _pair_conversation(r, low, high):
    """The id of the one conversation of users ``low`` < ``high``, made if there is none."""
    key = keys.conversation_pair(low)
    cid = r.hget(key, high)
    if cid is None:
        candidate = r.incr(keys.CONVERSATION_IDS)
        if r.hsetnx(key, high, candidate):
            return candidate
        cid = r.hget(key, high)  # another first message got there first
    return int(cid)


def _group_conversation(r, sender_id, key):
    """The id of the group the form submission ``key`` of ``sender_id`` starts (the
    same form sent again: the same group)."""
    started = keys.conversation_started(sender_id, key)
    candidate = r.incr(keys.CONVERSATION_IDS)
    if r.set(started, candidate, nx=True, ex=scripts.POSTING_KEY_SECONDS):
        return candidate
    return int(r.get(started))


def start(
    r: Client,
    sender_id: int,
    others: Sequence[User],
    text: str,
    key: str,
    now_ms: int | None = None,
) -> Sent:
    """``sender_id`` sends ``text`` to the user dicts ``others``: into the one
    conversation of the two for one other, else into a new group (one per form
    submission ``key``). Refused (nothing stored) if any may not be messaged
    (check_new_conversation) or the text is not a message. Returns Sent."""
    check_text(text)
    others = [other for other in others if other["id"] != sender_id]
    roles = check_new_conversation(r, sender_id, others)
    members = [sender_id, *(other["id"] for other in others)]
    if len(others) == 1:
        low, high = sorted(members)
        cid = _pair_conversation(r, low, high)
        pair = f"{low}:{high}"
    else:
        cid = _group_conversation(r, sender_id, key)
        pair = ""
    return _send(r, cid, sender_id, text, key, now_ms, roles, members=members, pair=pair)


def reply(
    r: Client, cid: int, sender_id: int, text: str, key: str, now_ms: int | None = None
) -> Sent | None:
    """``sender_id`` sends ``text`` into conversation ``cid``. Refused if they are not a
    member (None for no such conversation, as for one they are not in), or if the
    conversation is of two and the other may not be messaged (a block either way, an
    account suspended or gone). In a group, members who block the sender or whom the
    sender blocks, and hidden accounts, do not get it. Returns Sent."""
    check_text(text)

    def fill(pipe):
        pipe.zrange(keys.conversation_members(cid), 0, -1)
        pipe.hget(keys.conversation(cid), "pair")
        pipe.zrange(keys.blocks(sender_id), 0, -1)
        pipe.zrange(keys.blocked_by(sender_id), 0, -1)

    members, pair, blocking, blocked_by = scripts.run_pipeline(r, fill)
    member_ids = [int(uid) for uid in members]
    if sender_id not in member_ids:
        return None
    blocked = {int(uid) for uid in (*blocking, *blocked_by)}
    # Names from this process's memory where it has them: None for a hidden account.
    people = users.get_authors(r, [uid for uid in member_ids if uid != sender_id])
    if pair and not people:
        raise Refused("The other account is gone: nobody would read this.")
    roles = {}
    for uid, person in people.items():
        hidden = person is None or uid in blocked
        if hidden and pair:
            name = f"@{person['login']}" if person else "this account"
            raise Refused(f"You cannot message {name} now.")
        if not hidden:
            roles[uid] = "auto"  # inbox or request: by whether they follow the sender
    return _send(r, cid, sender_id, text, key, now_ms, roles)


def _send(r, cid, sender_id, text, key, now_ms, roles, members=(), pair=""):
    now = _now_ms() if now_ms is None else int(now_ms)
    reply_ = scripts.direct_send(
        r, cid=cid, sender=sender_id, text=text, packed=_packed(r, text), now_ms=now,
        key=key, pair=pair, members=members,
    )  # fmt: skip
    if reply_[0] < 0:
        raise Refused("You are not in this conversation.")
    mid, fresh, at = reply_[0], reply_[1], reply_[2]
    deliver(r, cid, mid, at, sender_id, roles)
    return Sent(cid, mid, bool(fresh))


def deliver(r, cid, mid, at_ms, sender_id, roles):
    """Message ``mid`` of ``cid`` (at ``at_ms``) reaches the sender's side and each of
    ``roles`` ({uid: "inbox", "request" or "auto"}): one script call each, one round
    trip."""

    def fill(pipe):
        scripts.direct_member.queue(
            pipe, uid=sender_id, cid=cid, action="deliver", mid=mid, at_ms=at_ms, role="sender"
        )
        for uid, role in roles.items():
            scripts.direct_member.queue(
                pipe, uid=uid, cid=cid, action="deliver", mid=mid, at_ms=at_ms, role=role,
                sender=sender_id,
            )  # fmt: skip

    scripts.run_pipeline(r, fill)


# --- a member's side --------------------------------------------------------------------


def _member_action(r, uid, cid, action):
    return scripts.direct_member(r, uid=uid, cid=cid, action=action)


def mark_read(r: Client, uid: int, cid: int) -> "Unread":
    """Member ``uid`` has read conversation ``cid``; returns the badge after it (an
    Unread)."""
    count, version, _ = _member_action(r, uid, cid, "read")
    return Unread(count, version)


def mute(r: Client, uid: int, cid: int, muted: bool = True) -> None:
    """Mute (or unmute) conversation ``cid`` for ``uid``: no badge, no live alert."""
    _member_action(r, uid, cid, "mute" if muted else "unmute")


def accept(r: Client, uid: int, cid: int) -> None:
    """Move conversation ``cid`` from ``uid``'s requests to their inbox."""
    _member_action(r, uid, cid, "accept")


def delete_for_member(r: Client, uid: int, cid: int) -> None:
    """Conversation ``cid`` leaves ``uid``'s inbox and requests, its messages so far
    cleared for them (a deleted request). They stay a member: a new message brings it
    back (as a request, from someone they do not follow)."""
    _member_action(r, uid, cid, "drop")


def leave(r: Client, uid: int, cid: int) -> None:
    """``uid`` leaves group ``cid``: no longer a member, it leaves their lists."""
    r.zrem(keys.conversation_members(cid), uid)
    r.delete(keys.conversation_hidden(cid, uid))
    _member_action(r, uid, cid, "leave")


# How far back an inbox row looks for a message its reader still sees, once they deleted
# the newest for themselves: a conversation page's worth.
ROW_LOOKBACK = 50


def hide_message(r: Client, uid: int, cid: int, mid: int) -> None:
    """Member ``uid`` deletes message ``mid`` of ``cid`` for themselves; their inbox row
    then shows the newest message they still see (of the newest ROW_LOOKBACK), until the
    next one reaches them."""
    r.sadd(keys.conversation_hidden(cid, uid), int(mid))
    page = conversation_page(r, uid, cid, count=ROW_LOOKBACK)
    if page is not None:
        shown = page.messages[-1]["id"] if page.messages else 0
        scripts.direct_member(
            r, uid=uid, cid=cid, action="show", mid=shown, newest=page.conversation.newest
        )


# --- reading ----------------------------------------------------------------------------


def _decode_entry(entry):
    entry_id, fields = entry
    message = {
        "id": int(entry_id.partition("-")[0]),
        "from": int(fields["from"]),
        "at": int(fields["at"]) / 1000,
        "message": fields["text"],
    }
    if fields.get("e"):
        message["entities"] = fields["e"]
    return message


@dataclass
class Conversation:
    """One conversation as member ``viewer`` sees it: ``members`` (user dicts, the
    viewer included, in joining order; ``gone``: ids of members whose account is
    gone), ``last`` (the newest message they see, or None), ``unread`` (their unread
    messages), ``request``, ``muted``, ``pair`` (a conversation of two)."""

    id: int
    viewer: int
    members: list = field(default_factory=list)
    gone: list = field(default_factory=list)
    last: dict | None = None
    newest: int = 0  # the newest message delivered to the viewer
    at: float = 0.0
    unread: int = 0
    request: bool = False
    muted: bool = False
    pair: bool = False
    cleared: int = 0

    @property
    def others(self):
        return [member for member in self.members if member["id"] != self.viewer]


STATE_FIELDS = ("u", "r", "x", "q", "m")


def _queue_state(pipe, uid, cid):
    pipe.hmget(keys.direct_state(uid), [f"{name}{cid}" for name in STATE_FIELDS])
    pipe.zscore(keys.direct_requests(uid), cid)


def _take_state(conversation, replies):
    unread, _read, cleared, muted, newest = (int(value or 0) for value in replies[0])
    conversation.unread, conversation.cleared, conversation.newest = unread, cleared, newest
    conversation.muted, conversation.request = bool(muted), replies[1] is not None


def _fill_members(r, conversations, member_ids):
    # Names from this process's memory of authors where it has them (users.get_authors):
    # an inbox names the same few dozen people page after page. A hidden account
    # (suspended, being deleted) is left out, as one that is gone.
    people = users.get_authors(r, {uid for ids in member_ids for uid in ids})
    for conversation, ids in zip(conversations, member_ids, strict=True):
        conversation.members = [people[uid] for uid in ids if people.get(uid)]
        conversation.gone = [uid for uid in ids if not people.get(uid)]
    return people


@dataclass
class InboxPage:
    """A page of an inbox, newest activity first: ``next_cursor`` the last activity
    (ms) to read the older page below (None: none older), ``newest_cursor`` that of
    its first conversation (None for an empty page), to read the newer ones above."""

    items: list = field(default_factory=list)
    next_cursor: int | None = None
    requests: int = 0  # how many conversations wait in the requests
    newest_cursor: int | None = None


class InboxIdsRead:
    """A page of the inbox (or the requests), the reader's side of each conversation on
    it and the number of requests: one command in the reader's slot (inbox_ids.lua), read
    along with the session (accounts.session_store), so it makes no round trip of its
    own. ``before``/``after``: below/above these last activities (ms); ``oldest_first``:
    the ``count`` just above ``after`` rather than the newest."""

    replies = 1

    def __init__(self, requests=False, before=None, count=20, after=None, oldest_first=False):
        self.requests, self.before, self.count = requests, before, count
        self.after, self.oldest_first = after, oldest_first
        self.uid, self.found = None, None

    def queue(self, pipe, uid):
        scripts.inbox_ids.queue(
            pipe, uid=uid, requests=self.requests, before=self.before, after=self.after,
            count=self.count + 1, oldest_first=self.oldest_first,
        )  # fmt: skip

    def take(self, uid, replies):
        self.uid, self.found = uid, replies[0]

    def for_user(self, uid):
        return self.found if self.uid == uid else None


# What an inbox row shows of its conversation, remembered by each process as a page of
# statuses is (repository/statuses.py), so that an inbox whose conversations this process
# showed lately reads nothing but the reader's own side (InboxIdsRead):
# - its newest message, by (conversation, message id). A message never changes once
#   sent (nothing deletes a Stream entry; "delete for me" hides it for one member) and
#   ids are never reused, except after a FLUSHALL, which empties every memory. Only
#   messages of at most REMEMBERED_MESSAGE_CHARACTERS are kept, which bounds the memory:
#   a longer one is read again each time.
# - its members, for MEMBERS_TRUST_SECONDS: a member who leaves a group may be named on
#   another member's inbox row for that long (never on the conversation's own page,
#   which reads them every time), as a changed name is on a status (users.get_authors).
REMEMBERED_MESSAGES = 20_000
REMEMBERED_MESSAGE_CHARACTERS = 1_000  # at most ~20 MB per process, with entities
MEMBERS_TRUST_SECONDS = 60.0
# {(cid, mid): decoded message (_decode_entry)}
_newest_messages = Memory("inbox messages", REMEMBERED_MESSAGES)
# {cid: [member id, ...] in joining order}
_members = Memory("conversation members", REMEMBERED_MESSAGES, ttl=MEMBERS_TRUST_SECONDS)


def _inbox_rows(r, rows):
    """{cid: (member ids, newest message or None)} of ``rows`` ([(cid, mid)], mid 0 for
    none): from this process's memory where it has both, the rest in one round trip
    (inbox_row.lua: one command per conversation, in its slot)."""
    messages = _newest_messages.get_many([row for row in rows if row[1]])
    members = _members.get_many([cid for cid, _ in rows])
    missing = [
        (cid, mid)
        for cid, mid in rows
        if cid not in members or (mid and (cid, mid) not in messages)
    ]
    if missing:

        def fill(pipe):
            for cid, mid in missing:
                scripts.inbox_row.queue(pipe, cid=cid, mid=mid)

        read_members, read_messages = {}, {}
        for (cid, mid), (ids, entry) in zip(missing, scripts.run_pipeline(r, fill), strict=True):
            read_members[cid] = members[cid] = [int(uid) for uid in ids]
            if entry:
                entry_id, flat = entry
                message = _decode_entry((entry_id, dict(zip(flat[::2], flat[1::2], strict=True))))
                messages[cid, mid] = message
                if len(message["message"]) <= REMEMBERED_MESSAGE_CHARACTERS:
                    read_messages[cid, mid] = message
        _members.put_many(read_members)
        _newest_messages.put_many(read_messages)
    return {cid: (members[cid], messages.get((cid, mid))) for cid, mid in rows}


# The fields of keys.direct_state an inbox row reads for each conversation, in the order
# inbox_ids.lua reads them.
ROW_FIELDS = ("u", "x", "q", "m", "s")


def _listed_conversations(r, uid, listed, sides, request):
    """The Conversations of ``listed`` ([(cid, last activity ms)]) as ``uid``'s inbox
    (``request``: requests) rows show them, ``sides`` the flat ROW_FIELDS of each
    (inbox_ids.lua): with the newest message delivered to ``uid`` (or the newest they
    still see once they deleted that one for themselves: hide_message), from this
    process's memory or one round trip (_inbox_rows), and their members."""
    width = len(ROW_FIELDS)
    conversations, rows = [], []
    for n, (cid, at) in enumerate(listed):
        side = sides[width * n : width * n + width]
        unread, cleared, muted, newest = (int(value or 0) for value in side[:4])
        # What the row shows: the newest message delivered, or (``s``) the newest the reader
        # still sees once they deleted that one for themselves (hide_message).
        instead = side[4]
        showing = newest if instead is None else int(instead)
        conversations.append(
            Conversation(
                int(cid), uid, at=int(at) / 1000, unread=unread, cleared=cleared,
                muted=bool(muted), request=request, newest=newest,
            )
        )  # fmt: skip
        rows.append((int(cid), showing if showing > cleared else 0))
    shown = _inbox_rows(r, rows)
    member_ids = []
    for conversation in conversations:
        ids, conversation.last = shown[conversation.id]
        conversation.pair = len(ids) == 2
        member_ids.append(ids)
    _fill_members(r, conversations, member_ids)
    return conversations


def inbox_page(
    r: Client,
    uid: int,
    requests: bool = False,
    before: int | None = None,
    count: int = 20,
    ids_read: Any = None,
    after: int | None = None,
    oldest_first: bool = False,
) -> InboxPage:
    """A page of ``uid``'s inbox (or, with ``requests``, their requests), newest
    activity first, as Conversations, each with the newest message delivered to ``uid``
    (not one a member they block, or who blocks them, sent since), or the newest they
    still see once they deleted that one for themselves (hide_message): the newest ``count``
    below last activity ``before`` and above ``after`` (ms), or with ``oldest_first`` the
    ``count`` just above ``after`` (still newest first on the page). One round trip,
    none if ``ids_read`` (an InboxIdsRead of the same page) was read with the session;
    the conversations and names this process has not shown lately take one more each."""
    found = ids_read.for_user(uid) if ids_read is not None else None
    if found is None:
        reader = InboxIdsRead(requests, before, count, after, oldest_first)
        found = scripts.run_pipeline(r, lambda pipe: reader.queue(pipe, uid))[0]
    listed, waiting, sides = found
    pairs = list(zip(listed[::2], listed[1::2], strict=True))[:count]
    # Each conversation's side, by its place in ``listed``, as the pairs are taken.
    width = len(ROW_FIELDS)
    sides = sides[: width * len(pairs)]
    if oldest_first:
        pairs.reverse()
        sides = [
            value
            for n in reversed(range(len(pairs)))
            for value in sides[width * n : width * n + width]
        ]
        # Those at or below ``after`` are older: the page below its oldest holds them.
        more_below = bool(pairs) and after is not None
    else:
        more_below = len(listed) > 2 * count
    next_cursor = int(pairs[-1][1]) if more_below else None
    newest_cursor = int(pairs[0][1]) if pairs else None
    conversations = _listed_conversations(r, uid, pairs, sides, requests)
    return InboxPage(conversations, next_cursor, int(waiting), newest_cursor)


def inbox_conversations(r, uid, cids):
    """The Conversations of ``cids`` that are in ``uid``'s inbox (not their requests,
    not deleted or left), as the inbox shows them (newest activity first): one round
    trip in ``uid``'s slot, and what inbox_page reads for its rows."""
    cids = list(dict.fromkeys(int(cid) for cid in cids))

    def fill(pipe):
        for cid in cids:
            pipe.zscore(keys.direct_inbox(uid), cid)
            pipe.hmget(keys.direct_state(uid), [f"{name}{cid}" for name in ROW_FIELDS])

    replies = scripts.run_pipeline(r, fill) if cids else []
    found = sorted(
        (
            (at, cid, side)
            for cid, at, side in zip(cids, replies[::2], replies[1::2], strict=True)
            if at is not None
        ),
        reverse=True,
    )
    listed = [(cid, int(at)) for at, cid, _ in found]
    sides = [value for _, _, side in found for value in side]
    return _listed_conversations(r, uid, listed, sides, False)


@dataclass
class ConversationPage:
    """What member ``viewer`` sees of one conversation: ``conversation``, ``messages``
    (oldest first) and ``older`` (the cursor of the page before, or None)."""

    conversation: Conversation
    messages: list
    older: int | None = None
    senders: dict = field(default_factory=dict)


def conversation_page(
    r: Client,
    uid: int,
    cid: int,
    before: int | None = None,
    after: int | None = None,
    count: int = 50,
) -> ConversationPage | None:
    """The messages of conversation ``cid`` that member ``uid`` sees, oldest first: the
    newest ``count`` (below message ``before``; or every one after message ``after``,
    up to ``count``), less those they deleted for themselves, those cleared for them,
    and those of anyone blocked either way. None if ``uid`` is no member
    (or there is no such conversation). Three round trips."""

    # Message ids start at 1: "before 0" (or less) is the empty page past the oldest,
    # which XREVRANGE cannot be asked for as "(0-0".
    before = None if before is None else min(max(int(before), 1), MAX_MESSAGE_ID)
    after = None if after is None else min(int(after), MAX_MESSAGE_ID)

    def fill(pipe):
        pipe.zscore(keys.conversation_members(cid), uid)
        pipe.zrange(keys.conversation_members(cid), 0, -1)
        pipe.hmget(keys.conversation(cid), ["pair", "at"])
        if after is not None:
            pipe.xrange(keys.conversation_messages(cid), f"({int(after)}-0", "+", count=count)
        else:
            top = f"({int(before)}-0" if before is not None else "+"
            pipe.xrevrange(keys.conversation_messages(cid), top, "-", count=count + 1)
        pipe.smembers(keys.conversation_hidden(cid, uid))
        _queue_state(pipe, uid, cid)
        # Whom the reader blocks or is blocked by: their messages are not shown.
        pipe.zrange(keys.blocks(uid), 0, -1)
        pipe.zrange(keys.blocked_by(uid), 0, -1)

    replies = scripts.run_pipeline(r, fill)
    joined, members, (pair, at), entries, deleted, *state = replies[:7]
    hidden_authors = {int(other) for other in (*replies[7], *replies[8])}
    if joined is None:
        return None
    conversation = Conversation(cid, uid, pair=bool(pair), at=int(at or 0) / 1000)
    _take_state(conversation, state)
    older = None
    if after is None:
        if len(entries) > count:
            entries = entries[:count]
            older = int(entries[-1][0].partition("-")[0])
        entries.reverse()
    deleted = {int(mid) for mid in deleted}
    messages = [
        message
        for message in map(_decode_entry, entries)
        if message["id"] > conversation.cleared
        and message["id"] not in deleted
        and message["from"] not in hidden_authors
    ]
    if older is not None and older <= conversation.cleared:
        older = None
    member_ids = [int(member) for member in members]
    senders = {message["from"] for message in messages} - set(member_ids)
    people = _fill_members(r, [conversation], [member_ids + list(senders)])
    conversation.members = [people[m] for m in member_ids if people.get(m)]
    conversation.gone = [m for m in member_ids if not people.get(m)]
    people = {uid: person for uid, person in people.items() if person}
    if messages:
        conversation.last = messages[-1]
    return ConversationPage(conversation, messages, older, people)


def is_member(r: Client, uid: int, cid: int) -> bool:
    return r.zscore(keys.conversation_members(cid), uid) is not None


def get_message(r: Client, cid: int, mid: int) -> dict[str, Any] | None:
    """Message ``mid`` of ``cid`` as a dict, or None."""
    if not 0 < int(mid) < MAX_MESSAGE_ID:
        return None
    entries = r.xrange(keys.conversation_messages(cid), f"{int(mid)}-0", f"{int(mid)}-0")
    return _decode_entry(entries[0]) if entries else None


def report_context(r, cid, mid, before=REPORT_CONTEXT_MESSAGES):
    """Message ``mid`` of ``cid`` and the ``before`` messages before it, oldest first,
    each with its sender's login: what a report shows the moderators."""
    entries = r.xrevrange(keys.conversation_messages(cid), f"{int(mid)}-0", "-", count=before + 1)
    messages = [_decode_entry(entry) for entry in reversed(entries)]
    people = users.get_users(r, {message["from"] for message in messages})
    for message in messages:
        person = people.get(message["from"])
        message["login"] = person["login"] if person else None
    return messages


@dataclass
class Unread:
    """The badge: how many inbox conversations have unread messages, and its version."""

    count: int = 0
    version: int = 0


class UnreadRead:
    """The badge of the user a session names, read along with the session
    (accounts.session_store): one HMGET in the round trip every page makes anyway."""

    replies = 1

    def __init__(self):
        self.uid, self.found = None, None

    def queue(self, pipe, uid):
        pipe.hmget(keys.direct_state(uid), ["unread", "version"])

    def take(self, uid, replies):
        count, version = (int(value or 0) for value in replies[0])
        self.uid, self.found = uid, Unread(count, version)

    def for_user(self, uid):
        return self.found if self.uid == uid else None


def unread(r: Client, uid: int) -> "Unread":
    count, version = (int(v or 0) for v in r.hmget(keys.direct_state(uid), ["unread", "version"]))
    return Unread(count, version)


# --- leaving the site -------------------------------------------------------------------


def leave_all_of_leaving_user(r, uid, budget):
    """Account ``uid`` leaves up to ``budget`` of its conversations (deletion's step):
    no longer a member, its own lists and marks go; its messages stay for the others,
    shown as from a deleted account once the user hash is gone. A conversation of two
    also leaves the pair's hash, so that nobody finds it by the pair again. Returns the
    conversations it left."""
    cids = [int(cid) for cid in r.zrange(keys.direct_joined(uid), 0, budget - 1)]
    for cid in cids:
        pair = r.hget(keys.conversation(cid), "pair")
        if pair:
            low, _, high = pair.partition(":")
            r.hdel(keys.conversation_pair(int(low)), high)
        leave(r, uid, cid)
    return len(cids)


def forget_keys(uid):
    """The keys of ``uid``'s side, in their slot (deleted with the account's others)."""
    return [
        keys.direct_inbox(uid),
        keys.direct_requests(uid),
        keys.direct_state(uid),
        keys.direct_joined(uid),
    ]


def export_conversations(r, uid, chunk=500):
    """Every conversation ``uid`` is in, each with its members' logins and the messages
    they see (a generator: one conversation's chunk in memory at once)."""
    cids = [int(cid) for cid in r.zrange(keys.direct_joined(uid), 0, -1)]
    for cid in cids:
        members = [int(m) for m in r.zrange(keys.conversation_members(cid), 0, -1)]
        cleared = int(r.hget(keys.direct_state(uid), f"x{cid}") or 0)
        deleted = {int(mid) for mid in r.smembers(keys.conversation_hidden(cid, uid))}
        people = users.get_users(r, members)
        messages, start = [], f"({cleared}-0"
        while True:
            entries = r.xrange(keys.conversation_messages(cid), start, "+", count=chunk)
            for message in map(_decode_entry, entries):
                if message["id"] not in deleted:
                    message.pop("entities", None)
                    messages.append(message)
            if len(entries) < chunk:
                break
            start = f"({entries[-1][0]}"
        yield {
            "id": cid,
            "members": [
                {"id": m, "login": people[m]["login"] if m in people else None} for m in members
            ],
            "messages": messages,
        }

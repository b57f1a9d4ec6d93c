"""Direct messages' acts (docs/messages.md): start a conversation, reply in one, mark it
read, mute and unmute it, accept a request, delete it or one message for oneself, leave
a group, and say who may start a conversation with one. Called by the pages
(timeline/direct.py) and the client API (api/direct.py, which POST /api/v1/statuses
with ``visibility: direct`` reaches).

Who may see what: a conversation is its members' alone. Anyone else (moderators
included) is refused NotFound, as for a conversation that does not exist; so is a member
acting on a message they do not see (deleted or cleared for them, or from someone
blocked either way). The repository (socialsite/repository/direct.py) owns the keys and
the rules of who may message whom (MESSAGES_FROM, blocks, suspended or leaving
accounts); its refusal's words become Invalid's here, which the pages show in the form
and the API as a 422, as both did before.

Throttles: "messages" counts every message sent (start and reply), "conversations" a
message that starts one, counted only once the message is otherwise fit to send. Both
need a verified address (EMAIL_VERIFICATION=required); the other acts need neither (one
may always read, mute, leave or delete).

No notification: a message is never a status, and reaches its members' inbox, badge and
direct stream only (NOTIFICATIONS_KEPT has nothing to keep here).
"""

from collections.abc import Sequence

from socialsite.connection import get_redis
from socialsite.repository import direct, users
from socialsite.repository.client import Client

from .core import Actor, Invalid, NotFound, require

# What start and reply return (a message sent, or found sent by its key), and what
# mark_read returns (the badge after it): the repository's own.
Sent = direct.Sent
Unread = direct.Unread

# Django's own words for a form field holding NUL, which the pages' form said first.
NULL_CHARACTERS = "Null characters are not allowed."


class NobodyNamed(Invalid):
    """A new message names nobody but its sender (or nobody at all). Its own kind so
    that a door may say how its input names people: the pages' "To" field, the API's
    @mentions."""


def message_text(text: str) -> str:
    """``text`` as a message holds it: a line break is one character, as the form's
    textarea counts it (browsers send CR LF, and so do some clients), so that its
    length is counted once and the same for every door."""
    return text.replace("\r\n", "\n")


def _checked_text(text: str) -> str:
    """The message's text, or Invalid (field "message") when it cannot be one: empty,
    too long (direct.check_text), or holding NUL, which no door's input may carry."""
    text = message_text(text)
    try:
        direct.check_text(text)
    except direct.Refused as refused:
        raise Invalid(str(refused), field="message") from None
    if "\x00" in text:
        raise Invalid(NULL_CHARACTERS, field="message")
    return text


def start(actor: Actor, logins: Sequence[str], text: str, key: str) -> Sent:
    """``actor`` sends ``text`` to the accounts ``logins`` name (without "@", any case):
    into the one conversation of the two for one other, else into a new group (one per
    ``key``, the form's or the client's idempotency key: the same key sent again finds
    its message sent). Rules, in this order: THROTTLE_MESSAGES and the verified address;
    the text (Invalid); at most direct.MAX_OTHER_MEMBERS besides the actor, every login
    an account (Invalid, field "to"), someone besides the actor (NobodyNamed);
    THROTTLE_CONVERSATIONS; then the repository's who may message whom (MESSAGES_FROM,
    blocks either way, suspended or leaving accounts: Invalid with its words)."""
    require(actor, throttle="messages", verified=True)
    text = _checked_text(text)
    wanted = list(dict.fromkeys(login.removeprefix("@").lower() for login in logins))
    wanted = [login for login in wanted if login]
    if not wanted:
        raise NobodyNamed("Say whom the message is for.", field="to")
    named = len([login for login in wanted if login != actor.login.lower()])
    if named > direct.MAX_OTHER_MEMBERS:
        # Before any name is looked up: a list this long is refused whoever is in it.
        raise Invalid(
            f"A conversation has at most {direct.MAX_OTHER_MEMBERS} people besides you; "
            f"you named {named}.",
            field="to",
        )
    r = get_redis()
    ids = users.get_user_ids(r, wanted)
    unknown = [login for login in wanted if login not in ids]
    if unknown:
        names = ", ".join(f"@{login}" for login in unknown)
        raise Invalid(f"There is no user {names}.", field="to")
    others = [user for uid, user in users.get_users(r, ids.values()).items() if uid != actor.uid]
    if not others:
        raise NobodyNamed("Name someone besides yourself.", field="to")
    # Counted only for a message that would start one: a mistyped name costs nothing.
    require(actor, throttle="conversations")
    try:
        return direct.start(r, actor.uid, others, text, key)
    except direct.Refused as refused:
        raise Invalid(str(refused)) from None


def reply(actor: Actor, cid: int, text: str, key: str) -> Sent:
    """``actor`` sends ``text`` into conversation ``cid`` (``key`` as for start). Rules:
    THROTTLE_MESSAGES and the verified address; a member only (NotFound, before anything
    is said about the text: a non-member learns nothing); the text (Invalid); in a
    conversation of two, the other may be messaged (no block either way, not suspended
    or gone: Invalid). In a group, members who block the actor or whom they block, and
    hidden accounts, do not get it."""
    require(actor, throttle="messages", verified=True)
    r = get_redis()
    try:
        text = _checked_text(text)
    except Invalid:
        # Membership is read here only when the text is refused: a message sent reads
        # it in the repository's own round trip (direct.reply answers None).
        if not direct.is_member(r, actor.uid, cid):
            raise NotFound("There is no such conversation.") from None
        raise
    try:
        sent = direct.reply(r, cid, actor.uid, text, key)
    except direct.Refused as refused:
        raise Invalid(str(refused)) from None
    if sent is None:
        raise NotFound("There is no such conversation.")
    return sent


def mark_read(actor: Actor, conversation: direct.Conversation) -> Unread | None:
    """``actor`` has read ``conversation`` (as a members-only read gave it to them:
    direct.conversation_page): everything delivered is read, the badge follows. Returns
    the badge after it, or None when nothing was unread (nothing written). NotFound if
    the conversation is not as ``actor`` sees it."""
    # The Conversation proves membership (only a member reads one), which saves the
    # page its own round trip; one read for someone else is refused as no conversation.
    if conversation.viewer != actor.uid:
        raise NotFound("There is no such conversation.")
    if not conversation.unread:
        return None
    return direct.mark_read(get_redis(), actor.uid, conversation.id)


def _member_or_not_found(r: Client, actor: Actor, cid: int) -> None:
    if not direct.is_member(r, actor.uid, cid):
        raise NotFound("There is no such conversation.")


def mute(actor: Actor, cid: int) -> None:
    """Mute conversation ``cid`` for ``actor``: no badge and no live alert for it.
    Members only (NotFound)."""
    r = get_redis()
    _member_or_not_found(r, actor, cid)
    direct.mute(r, actor.uid, cid)


def unmute(actor: Actor, cid: int) -> None:
    """Unmute conversation ``cid`` for ``actor``. Members only (NotFound)."""
    r = get_redis()
    _member_or_not_found(r, actor, cid)
    direct.mute(r, actor.uid, cid, muted=False)


def accept(actor: Actor, cid: int) -> None:
    """Accept a request: conversation ``cid`` moves from ``actor``'s requests to their
    inbox (nothing changes for one in the inbox already). Members only (NotFound)."""
    r = get_redis()
    _member_or_not_found(r, actor, cid)
    direct.accept(r, actor.uid, cid)


def delete_conversation(actor: Actor, cid: int) -> None:
    """Delete conversation ``cid`` (a request, or one of the inbox) for ``actor``: it
    leaves their inbox and requests, its messages so far cleared for them; they stay a
    member, and a new message brings it back. Members only (NotFound)."""
    r = get_redis()
    _member_or_not_found(r, actor, cid)
    direct.delete_for_member(r, actor.uid, cid)


def leave(actor: Actor, cid: int) -> None:
    """``actor`` leaves group ``cid``: its messages leave their inbox, new ones do not
    come. Members only (NotFound); a conversation of two cannot be left (Invalid: it is
    deleted instead)."""
    r = get_redis()
    page = direct.conversation_page(r, actor.uid, cid, count=1)
    if page is None:
        raise NotFound("There is no such conversation.")
    if page.conversation.pair:
        raise Invalid(
            "A conversation of two cannot be left: delete it instead (it leaves your inbox)."
        )
    direct.leave(r, actor.uid, cid)


def delete_message(actor: Actor, cid: int, mid: int) -> str:
    """``actor`` deletes message ``mid`` of ``cid`` for themselves: the others still see
    it. Only a message the actor sees (NotFound for one deleted or cleared for them
    already, from someone blocked either way, or of a conversation they are not in).
    Returns its text as written (the API answers with it: "delete and redraft")."""
    if not 0 < mid < direct.MAX_MESSAGE_ID:
        raise NotFound("There is no such message.")
    r = get_redis()
    page = direct.conversation_page(r, actor.uid, cid, after=mid - 1, count=1)
    if page is None:
        raise NotFound("There is no such conversation.")
    if not page.messages or page.messages[0]["id"] != mid:
        raise NotFound("There is no such message.")
    direct.hide_message(r, actor.uid, cid, mid)
    return str(page.messages[0]["message"])


def set_messages_from(actor: Actor, value: str) -> None:
    """Say who may start a conversation with ``actor``: one of direct.MESSAGES_FROM
    ("everyone": others land in the requests; "following"; "nobody"), else Invalid
    (field "messages_from")."""
    if value not in direct.MESSAGES_FROM:
        choices = ", ".join(direct.MESSAGES_FROM)
        raise Invalid(f"Choose one of {choices}.", field="messages_from")
    direct.set_messages_from(get_redis(), actor.uid, value)

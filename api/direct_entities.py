"""The Conversation entities of direct messages, made from the repository's
Conversations of one member: what GET /api/v1/conversations answers (api/direct.py) and
what the stream server's ``direct`` stream sends (api/streaming.py), the same serializer
for both (decision 0064)."""

from socialsite.repository import users

from . import entities


def _senders(r, conversations):
    """{uid: user dict} of the senders of ``conversations``' last messages: the
    members', and in one round trip those of senders who left a group (an account that
    is gone or hidden is left out)."""
    people = {member["id"]: member for c in conversations for member in c.members}
    missing = {c.last["from"] for c in conversations if c.last} - set(people)
    if missing:
        found = users.get_users(r, missing)
        people.update({uid: user for uid, user in found.items() if not users.is_hidden(user)})
    return people


def conversation_entities(r, base, conversations):
    """The Conversation entities of ``conversations`` (repository Conversations of one
    member): what GET /api/v1/conversations answers, and what the stream server's
    ``direct`` stream sends (api/streaming.py)."""
    people = _senders(r, conversations)
    return [
        entities.conversation(base, c, people.get(c.last["from"]) if c.last else None)
        for c in conversations
    ]

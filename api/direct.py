"""The client API's conversations (/api/v1/conversations) over the direct messages
(socialsite/repository/direct.py, docs/messages.md), and direct messages as Mastodon's
"direct" statuses: posted by POST /api/v1/statuses with ``visibility: direct``
(api/statuses.py calls ``post_direct``), read by GET /api/v1/statuses/:id with the id
"dm-<conversation>-<message>" (``direct_status``). Only the members of a conversation
read it, through the repository's own reads, which leave out what the pages leave out
(messages deleted or cleared for the reader, those of anyone blocked either way). A
message is never a status: no timeline, search, notification or stream other than the
members' own carries it. Each act is socialsite.actions.direct's, as for the pages:
this module reads the request and answers with the entities; api_view answers the
refusals."""

import re
import secrets

from django.http import Http404
from django.views.decorators.csrf import csrf_exempt

from socialsite.acting import actor_of
from socialsite.actions import Invalid
from socialsite.actions import direct as acts
from socialsite.connection import get_redis
from socialsite.repository import direct
from socialsite.repository import entities as parsed_entities

from . import entities, paging
from .auth import api_view
from .common import id_or_404
from .direct_entities import conversation_entities
from .responses import error, json_response

DIRECT_STATUS_ID = re.compile(r"dm-([0-9]{1,18})-([0-9]{1,18})")


def parse_direct_status_id(value):
    """(conversation id, message id) of a direct status id, or None for any other."""
    found = DIRECT_STATUS_ID.fullmatch(str(value))
    if found is None:
        return None
    cid, mid = int(found[1]), int(found[2])
    return (cid, mid) if cid > 0 and mid > 0 else None


@api_view(scope="read:statuses")
def conversation_list(request):
    """GET /api/v1/conversations: the caller's inbox, newest activity first, paged by
    ``max_id``, ``since_id`` and ``min_id`` (the Link header's: last activities in ms):
    ``since_id`` gives the newest above it, ``min_id`` the ones just above it (still
    newest first), as Mastodon. Requests (from people the caller does not follow) wait
    on the pages' Requests until accepted there, as the pages keep them apart."""
    try:
        query = paging.params(request)
    except paging.BadParameter as bad:
        return error(422, str(bad))
    r = get_redis()
    page = direct.inbox_page(
        r, request.user.id, before=query.max_id, after=query.lower, count=query.limit,
        oldest_first=query.min_id is not None,
    )  # fmt: skip
    base = entities.site_base(request)
    response = json_response(conversation_entities(r, base, page.items))
    return paging.with_link(response, request, page.next_cursor, page.newest_cursor)


def _member_conversation(r, uid, cid_text):
    """The Conversation ``cid_text`` (from the URL) as member ``uid`` sees it, or
    Http404 (not a member, no such conversation)."""
    page = direct.conversation_page(r, uid, id_or_404(cid_text), count=1)
    if page is None:
        raise Http404
    return page.conversation


@api_view(scope="write:conversations", methods=("POST",))
def read(request, conversation_id):
    """POST /api/v1/conversations/:id/read: marked read (the pages' badge too)."""
    r = get_redis()
    conversation = _member_conversation(r, request.user.id, conversation_id)
    acts.mark_read(actor_of(request), conversation)
    conversation.unread = 0  # as it is now: the entity says it read
    (entity,) = conversation_entities(r, entities.site_base(request), [conversation])
    return json_response(entity)


@csrf_exempt
def one(request, conversation_id):
    return remove(request, conversation_id=conversation_id)


@api_view(scope="write:conversations", methods=("DELETE",))
def remove(request, conversation_id):
    """DELETE /api/v1/conversations/:id: off the caller's list, its messages so far
    cleared for them (the pages' Delete); the others keep theirs, and a new message
    brings it back."""
    acts.delete_conversation(actor_of(request), id_or_404(conversation_id))
    return json_response({})


def direct_status(request, cid, mid):
    """The Status entity of message ``mid`` of ``cid`` for the caller, or Http404
    unless they are a member who sees it (not deleted or cleared for them, not from
    someone blocked either way)."""
    if request.user.id is None:
        raise Http404
    r = get_redis()
    page = direct.conversation_page(r, request.user.id, cid, after=mid - 1, count=1)
    if page is None or not page.messages or page.messages[0]["id"] != mid:
        raise Http404
    message = page.messages[0]
    sender = page.senders.get(message["from"])
    if sender is None:
        raise Http404
    return entities.direct_status(entities.site_base(request), cid, message, sender)


def delete_direct_status(request, cid, mid):
    """DELETE /api/v1/statuses/:id of a direct status: the message deleted for the
    caller alone (the pages' "Delete for me"; the others still see it), answered with
    it, ``text`` its message as written. Http404 unless the caller sees it."""
    entity = direct_status(request, cid, mid)
    entity["text"] = acts.delete_message(actor_of(request), cid, mid)
    return entity


def post_direct(request, params, idempotency_key):
    """POST /api/v1/statuses with ``visibility: direct``: the text to the accounts it
    @mentions (into the conversation of the two for one, else a new group), or with
    ``in_reply_to_id`` a direct status id, into that conversation: the pages' acts
    (actions.direct.start and reply) with their rules, refused as api_view answers
    refusals (Invalid's words are the 422's)."""
    if params.get("poll[options][]") or params.get("poll"):
        return error(422, "Polls are not supported")
    if str(params.get("spoiler_text") or "").strip():
        return error(422, "Validation failed: a direct message has no content warning")
    text = str(params.get("status") or "")
    key = idempotency_key or secrets.token_urlsafe(16)
    actor = actor_of(request)
    in_reply_to = params.get("in_reply_to_id") or None
    if in_reply_to is not None:
        target = parse_direct_status_id(in_reply_to)
        if target is None:
            return error(
                422,
                "Validation failed: a direct message replies only to a direct message"
                " (in_reply_to_id dm-...)",
            )
        sent = acts.reply(actor, target[0], text, key)
    else:
        # Whom a status names: the accounts it @mentions, as Mastodon's.
        logins = parsed_entities.find(text).mentioned_logins(text)
        try:
            sent = acts.start(actor, logins, text, key)
        except acts.NobodyNamed:
            raise Invalid(
                "Validation failed: a direct message goes to the accounts it @mentions:"
                " mention someone besides yourself"
            ) from None
    return json_response(direct_status(request, sent.cid, sent.mid))

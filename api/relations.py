"""The client API's blocks, mutes and follow requests: ``/api/v1/accounts/:id/block``,
``unblock``, ``mute`` (``duration``), ``unmute``, ``/api/v1/blocks``, ``/api/v1/mutes``,
``/api/v1/follow_requests`` and their ``authorize`` and ``reject``. Each act through
the action its page calls (socialsite/actions/relations.py), answering Mastodon's
Relationship (entities.relationship) or a page of Accounts with a Link header."""

from django.http import Http404

from socialsite.actions import Actor, Invalid
from socialsite.actions import relations as relation_actions
from socialsite.connection import get_redis
from socialsite.repository import blocks, graph, privacy, users

from . import entities, paging
from .acting_on_accounts import act_on_account
from .auth import api_view
from .common import BadBody, body
from .responses import error, json_response


@api_view(scope="write:blocks", methods=("POST",))
def block(request, account_id):
    """POST /api/v1/accounts/:id/block: as the profile's Block button (neither follows
    the other after it)."""
    return act_on_account(request, account_id, relation_actions.block)


@api_view(scope="write:blocks", methods=("POST",))
def unblock(request, account_id):
    return act_on_account(request, account_id, relation_actions.unblock)


@api_view(scope="write:mutes", methods=("POST",))
def mute(request, account_id):
    """POST /api/v1/accounts/:id/mute, ``duration`` in seconds (0 or none: until
    unmuted; its range: relation_actions.mute). ``notifications`` is not taken: a mute
    here always hides their notifications too, as on the pages."""
    try:
        params = body(request)
    except BadBody as bad:
        return error(422, str(bad))
    duration = str(params.get("duration", "0") or "0")
    if not (duration.isascii() and duration.isdigit() and len(duration) <= 12):
        raise Invalid(relation_actions.MUTE_DURATION_RULE, field="duration")
    duration_ms = int(duration) * 1000 or None

    def act(actor, other_uid):
        return relation_actions.mute(actor, other_uid, duration_ms=duration_ms)

    return act_on_account(request, account_id, act)


@api_view(scope="write:mutes", methods=("POST",))
def unmute(request, account_id):
    return act_on_account(request, account_id, relation_actions.unmute)


def _people(request, read_page):
    """A page of accounts from ``read_page(r, uid, before=, count=, since=, above=)``,
    latest first, with the Link header Mastodon gives (``max_id``: the page's cursor,
    ``min_id``: the newest read)."""
    try:
        query = paging.params(request)
    except paging.BadParameter as bad:
        return error(422, str(bad))
    page = read_page(get_redis(), request.user.id, **query.bounds())
    shown = [person for person in page.items if not users.is_hidden(person)]
    return paging.accounts_response(request, shown, page)


@api_view(scope="read:blocks")
def blocks_list(request):
    """GET /api/v1/blocks: whom the user blocks, latest first (the settings page's)."""
    return _people(request, blocks.blocks_page)


@api_view(scope="read:mutes")
def mutes_list(request):
    """GET /api/v1/mutes: whom the user mutes now, latest first, each with
    ``mute_expires_at`` (null: no end)."""
    try:
        query = paging.params(request)
    except paging.BadParameter as bad:
        return error(422, str(bad))
    page = blocks.mutes_page(get_redis(), request.user.id, **query.bounds())
    base = entities.site_base(request)
    shown = []
    for person in page.items:
        if users.is_hidden(person):
            continue
        entity = entities.account(base, person)
        ends = person["mute_ends"]
        entity["mute_expires_at"] = entities.iso_time(ends / 1000) if ends else None
        shown.append(entity)
    return paging.with_link(json_response(shown), request, page.next_cursor, page.prev_cursor)


@api_view(scope="read:follows")
def follow_requests(request):
    """GET /api/v1/follow_requests: who asks to follow the user, latest first."""
    return _people(request, privacy.requests_page)


def _approve(actor: Actor, requester_id: int) -> graph.FollowResult:
    result = relation_actions.approve(actor, requester_id)
    if result is graph.FollowResult.NO_REQUEST:
        raise Http404  # Mastodon's answer to a request that is not there
    return result


@api_view(scope="write:follows", methods=("POST",))
def authorize(request, account_id):
    """POST /api/v1/follow_requests/:id/authorize: they follow the user now (already
    following: the same answer, so a retry is harmless); 404 if they do not ask."""
    return act_on_account(request, account_id, _approve)


@api_view(scope="write:follows", methods=("POST",))
def reject(request, account_id):
    """POST /api/v1/follow_requests/:id/reject: their request is dropped (none left to
    drop: the same answer, so a retry is harmless). They are not told."""
    return act_on_account(request, account_id, relation_actions.reject)

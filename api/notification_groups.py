"""Mastodon 4.3's grouped notifications (/api/v2/notifications...), what web clients
call when the instance says ``api_versions: {"mastodon": 2}``. The v1 endpoints
(api/notifications.py) stay.

A notification's group is its key (entities.notification_group_key): favourites and
reblogs of one status, and follows, within one fixed window; every other kind alone
(``ungrouped-<id>``). The notifications are those v1 lists, one by one, read through
conversations.notices (what the notifications page leaves out is left out here), and a
page is ``limit`` groups: notifications are read newest first, batch after batch, until
the next one would open a group past the limit. A group that goes on past a page's end
is on the next page too, as Mastodon's: clients join pages by key.

Round trips: each batch of notices costs three (conversations.notices); a page of
groups reads at most MAX_BATCHES batches."""

from django.conf import settings
from django.http import Http404

from socialsite.acting import actor_of
from socialsite.actions import reading
from socialsite.connection import get_redis
from socialsite.repository import conversations, notifications

from . import entities, paging
from .auth import api_view
from .common import filter_notices, get_list
from .notifications import KINDS_OF_TYPE
from .responses import error, json_response

# Mastodon's types -> the repository's kinds, as v1's.
GROUPED_KINDS_OF_TYPE = KINDS_OF_TYPE
SHOWN_KINDS = set().union(*GROUPED_KINDS_OF_TYPE.values())

DEFAULT_GROUPS, MOST_GROUPS = 40, 80
BATCH = 80  # notices read at once
MAX_BATCHES = 5
SAMPLE_ACCOUNTS = 8  # Mastodon's sample_account_ids
UNREAD_DEFAULT, UNREAD_MOST = 100, 1000
EXPAND = ("full", "partial_avatars")


class BadParameter(ValueError):
    pass


def _kinds(request):
    """The kinds ``types[]`` and ``exclude_types[]`` ask for (unknown types: none)."""
    types = get_list(request.GET, "types")
    kinds = set(SHOWN_KINDS)
    if types:
        kinds = set().union(*(GROUPED_KINDS_OF_TYPE.get(name, set()) for name in types))
    for name in get_list(request.GET, "exclude_types"):
        kinds -= GROUPED_KINDS_OF_TYPE.get(name, set())
    return kinds


def _grouped(request):
    """The types ``grouped_types[]`` lets be grouped (all of GROUPABLE_TYPES if not
    given)."""
    asked = get_list(request.GET, "grouped_types")
    if not asked:
        return entities.GROUPABLE_TYPES
    return tuple(name for name in entities.GROUPABLE_TYPES if name in asked)


def _account_filter(request):
    """``account_id``: only the notifications by that account, or None."""
    value = request.GET.get("account_id")
    if value is None or value == "":
        return None
    if not (value.isascii() and value.isdigit()) or len(value) > 19:
        raise BadParameter("'account_id' must be an id")
    return int(value)


def _expand(request):
    value = request.GET.get("expand_accounts") or "full"
    if value not in EXPAND:
        raise BadParameter(f"'expand_accounts' must be one of {', '.join(EXPAND)}")
    return value


class _Page:
    """Groups of notices, in order: ``groups`` {key: [ListedNotice, newest first]}, in
    the order of each group's newest notice, newest first."""

    def __init__(self, grouped, limit):
        self.grouped, self.limit = grouped, limit
        self.groups = {}
        self.full = False

    def add(self, notice):
        """Put ``notice`` in its group; False (and nothing added) when it would open a
        group past the limit."""
        key = entities.notification_group_key(notice.event, self.grouped)
        if key not in self.groups:
            if len(self.groups) >= self.limit:
                self.full = True
                return False
            self.groups[key] = []
        self.groups[key].append(notice)
        return True

    @property
    def scores(self):
        return [notice.event.score for found in self.groups.values() for notice in found]


def _read_page(r, uid, kinds, grouped, query, account, shown=None):
    """(a _Page, the next page's max_id or None). ``shown``: what of a batch of notices
    the caller is shown (keyword filters: common.filter_notices)."""
    page = _Page(grouped, query.limit)

    def wanted(found):
        found = [n for n in found if account is None or n.event.actor == account]
        return found if shown is None else shown(found)

    if query.upward:
        found, more = conversations.notices(
            r, uid, kinds=kinds, before=query.max_id, after=query.min_id, count=BATCH,
            upward=True,
        )  # fmt: skip
        for notice in reversed(wanted(found)):  # oldest first: the groups just above
            if not page.add(notice):
                break
        page.groups = dict(sorted(page.groups.items(), key=lambda item: -item[1][-1].event.score))
        for found in page.groups.values():
            found.sort(key=lambda notice: -notice.event.score)
        scores = page.scores
        return page, (min(scores) if scores and more is not None else None)
    cursor, more = query.max_id, None
    for _ in range(MAX_BATCHES):
        found, more = conversations.notices(
            r, uid, kinds=kinds, before=cursor, after=query.since_id, count=BATCH
        )
        for notice in wanted(found):
            if not page.add(notice):
                break
        if page.full or more is None:
            break
        cursor = more
    scores = page.scores
    if not scores:
        return page, None
    return page, (min(scores) if page.full or more is not None else None)


def _partial_account(base, user):
    """Mastodon's PartialAccountWithAvatar."""
    entity = entities.account(base, user)
    keep = ("id", "acct", "url", "avatar", "avatar_static", "locked", "bot")
    return {name: entity[name] for name in keep}


def _results(base, groups, expand="full"):
    """The GroupedNotificationsResults of ``groups`` ({key: notices newest first})."""
    accounts, partial, statuses, made = {}, {}, {}, []
    for key, found in groups.items():
        newest = found[0]
        kind = entities.NOTIFICATION_TYPES.get(newest.event.kind, newest.event.kind)
        sample = []
        for notice in found:
            actor = notice.actor
            if actor["id"] in sample:
                continue
            if len(sample) < SAMPLE_ACCOUNTS:
                sample.append(actor["id"])
                if expand == "full" or len(sample) == 1:
                    accounts.setdefault(actor["id"], actor)
                elif actor["id"] not in accounts:
                    partial.setdefault(actor["id"], actor)
        group = {
            "group_key": key,
            "notifications_count": len(found),
            "type": kind,
            "most_recent_notification_id": str(newest.event.score),
            "page_min_id": str(found[-1].event.score),
            "page_max_id": str(newest.event.score),
            "latest_page_notification_at": entities.iso_time(newest.event.score / 1000),
            "sample_account_ids": [str(uid) for uid in sample],
        }
        if newest.status is not None:
            group["status_id"] = str(newest.status["id"])
            statuses.setdefault(newest.status["id"], newest.status)
        made.append(group)
    for uid in accounts:
        partial.pop(uid, None)
    results = {
        "accounts": [entities.account(base, user) for user in accounts.values()],
        "statuses": [entities.shown_status(base, item) for item in statuses.values()],
        "notification_groups": made,
    }
    if expand == "partial_avatars":
        results["partial_accounts"] = [_partial_account(base, u) for u in partial.values()]
    return results


@api_view(scope="read:notifications")
def group_list(request):
    """GET /api/v2/notifications: ``limit`` groups (40, at most 80), newest first,
    paged by ``max_id``/``since_id``/``min_id`` (notification ids) with the Link
    header; ``types[]``, ``exclude_types[]``, ``grouped_types[]``, ``account_id``,
    ``expand_accounts``."""
    try:
        query = paging.params(request, default=DEFAULT_GROUPS, most=MOST_GROUPS)
        account, expand = _account_filter(request), _expand(request)
    except (paging.BadParameter, BadParameter) as bad:
        return error(422, str(bad))
    page, next_cursor = _read_page(
        get_redis(), request.user.id, _kinds(request), _grouped(request), query, account,
        shown=lambda found: filter_notices(request, found),  # keyword filters
    )  # fmt: skip
    response = json_response(_results(entities.site_base(request), page.groups, expand))
    scores = page.scores
    return paging.with_link(response, request, next_cursor, max(scores) if scores else None)


def _group_notices(request, group_key):
    """The notices of group ``group_key`` the user is shown, newest first; Http404 for
    none (a key that is no group's, or a group all gone)."""
    kind, _, rest = group_key.partition("-")
    parts = rest.split("-")
    if not all(part.isascii() and part.isdigit() and len(part) <= 19 for part in parts):
        raise Http404
    numbers = [int(part) for part in parts]
    r, uid = get_redis(), request.user.id
    if kind == "ungrouped" and len(numbers) == 1:
        found, _ = conversations.notices(r, uid, kinds=SHOWN_KINDS, score=numbers[0], count=1)
        if not found:
            raise Http404
        return found
    kinds = {"favourite": {"like"}, "reblog": {"repost"}, "follow": {"follow"}}.get(kind)
    if kinds is None or len(numbers) != (1 if kind == "follow" else 2):
        raise Http404
    start = numbers[-1] * 3_600_000
    found, _ = conversations.notices(
        r, uid, kinds=kinds, before=start + entities.GROUP_WINDOW_MS, after=start - 1,
        count=settings.NOTIFICATIONS_KEPT,
    )  # fmt: skip
    found = [n for n in found if entities.notification_group_key(n.event) == group_key]
    if not found:
        raise Http404
    return found


@api_view(scope="read:notifications")
def group_one(request, group_key):
    """GET /api/v2/notifications/:group_key: that group whole."""
    try:
        expand = _expand(request)
    except BadParameter as bad:
        return error(422, str(bad))
    found = _group_notices(request, group_key)
    return json_response(_results(entities.site_base(request), {group_key: found}, expand))


@api_view(scope="read:notifications")
def group_accounts(request, group_key):
    """GET /api/v2/notifications/:group_key/accounts: who is in the group, newest
    first, each once."""
    base = entities.site_base(request)
    people = {}
    for notice in _group_notices(request, group_key):
        people.setdefault(notice.actor["id"], notice.actor)
    return json_response([entities.account(base, user) for user in people.values()])


@api_view(scope="write:notifications", methods=("POST",))
def group_dismiss(request, group_key):
    """POST /api/v2/notifications/:group_key/dismiss: every notification of the group."""
    found = _group_notices(request, group_key)
    reading.dismiss_notifications(actor_of(request), [notice.event.score for notice in found])
    return json_response({})


@api_view(scope="read:notifications")
def unread_count(request):
    """GET /api/v2/notifications/unread_count: how many groups are newer than the
    notifications read marker, at most ``limit`` (100, at most 1000); ``types[]``,
    ``exclude_types[]``, ``grouped_types[]``, ``account_id`` as the list takes them."""
    text = request.GET.get("limit") or str(UNREAD_DEFAULT)
    if not (text.isascii() and text.isdigit()) or len(text) > 6:
        return error(422, "'limit' must be a number")
    try:
        account = _account_filter(request)
    except BadParameter as bad:
        return error(422, str(bad))
    limit = max(1, min(int(text), UNREAD_MOST))
    r, uid = get_redis(), request.user.id
    read = notifications.unread(r, uid).read
    found, _ = conversations.notices(
        r, uid, kinds=_kinds(request), after=read or None, count=settings.NOTIFICATIONS_KEPT
    )
    grouped = _grouped(request)
    keys = {
        entities.notification_group_key(notice.event, grouped)
        for notice in found
        if account is None or notice.event.actor == account
    }
    return json_response({"count": min(len(keys), limit)})

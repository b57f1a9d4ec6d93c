"""Named lists (the chapter's exercise): a user's own timelines of some of the people
they follow, filled by the same fan-out as home timelines.

Every key of a list is in its owner's slot (keys.lists, keys.list_members,
keys.list_timeline, keys.listed), and list ids are handed out per owner (keys.list_ids):
another user's list id names nothing among one's own lists, so a list is found only by
its owner, and a stranger's guess is a plain 404.

How statuses reach a list (docs/decisions/0037):
- Only people the owner follows can be on the owner's lists (list_member.lua checks the
  follow in the same step as the add; an unfollow takes the member off every list:
  graph.unfollow). So every list owner is among the followers a fan-out batch already
  reaches, and deliver.lua puts the status into the owner's lists in the same step as
  into their home: exactly once, whatever the number of workers, by the same reasoning
  as for the home (fanout.py). SADD into a set makes a repeated delivery change nothing.
- keys.listing(uid, author) notes, per shard, who lists the author. deliver.lua reads
  it with one EXISTS per shard group and looks further only when it exists: a post to
  followers of whom nobody lists the author costs one EXISTS per group more than before.
- The home timeline's rules hold for lists because they are decided before: a follower
  who unfollowed, blocks or mutes the author gets nothing; a reply reaches a list only
  if its owner follows the user replied to (or is them).
- Adding a member first writes the membership, then reads the member's newest statuses
  and copies them in (list_fill.lua): a status posted in between is delivered by the
  fan-out (it sees the membership) or found on the profile (a status is on its
  profile before any fan-out), so none is missed. Removing one mirrors it: the
  membership goes first, then the statuses read after it.
- A deleted status leaves lists with the workers' remove job (fanout.remove), and until
  then the list page skips the ids noted as deleted, as the home page does
  (home_page.lua, which reads list timelines too).
"""

import enum
import time
import unicodedata
from typing import Any, cast

from . import eviction, fanout, keys, paging, scripts, statuses, users, visibility
from .client import Client
from .limits import (
    HOME_TIMELINE_SIZE,
    LIST_MEMBERS,
    LIST_NAME_MAX_LENGTH,
    LISTS_PER_USER,
)

# Members a list's page shows above its timeline (the members page shows them all).
LIST_PAGE_MEMBERS = 20


class ListResult(enum.Enum):
    CREATED = "created"
    EXISTS = "exists"  # the owner has a list by that name
    FULL = "full"  # LISTS_PER_USER lists already
    RENAMED = "renamed"
    DELETED = "deleted"
    MISSING = "missing"  # no such list of the owner's


class MemberResult(enum.Enum):
    ADDED = "added"
    ALREADY = "already"
    REMOVED = "removed"
    ABSENT = "absent"  # not on the list
    MISSING = "missing"  # no such list of the owner's
    NOT_FOLLOWING = "not following"
    FULL = "full"  # LIST_MEMBERS members already
    SELF = "self"


def normalize_name(name: str) -> str:
    """A list name as stored: NFKC, without surrounding spaces. (What characters it may
    hold is the form's to check: timeline/forms.py applies the display-name rules.)"""
    return unicodedata.normalize("NFKC", name).strip()


def _checked_name(name):
    name = normalize_name(name)
    if not 1 <= len(name) <= LIST_NAME_MAX_LENGTH:
        raise ValueError(f"A list name has 1 to {LIST_NAME_MAX_LENGTH} characters.")
    return name


def _now_ms():
    return int(time.time() * 1000)


def create_list(
    r: Client, uid: int, name: str, limit: int = LISTS_PER_USER
) -> tuple[ListResult, int | None]:
    """Create a list named ``name`` for ``uid``; return (ListResult, list id).

    CREATED with the new id; EXISTS with the id of the owner's list of that name (a
    form sent twice makes one list); FULL (id None) at ``limit`` lists. ValueError for
    a name out of bounds. Ids come from the owner's own counter (keys.list_ids)."""
    found, lid = scripts.create_list(r, uid=uid, name=_checked_name(name), limit=limit)
    return ListResult(found), (int(lid) if lid else None)


def rename_list(r: Client, uid: int, lid: int, name: str) -> ListResult:
    """Rename ``uid``'s list ``lid``: RENAMED, EXISTS (another list has that name) or
    MISSING. ValueError for a name out of bounds."""
    return ListResult(scripts.rename_list(r, uid=uid, lid=lid, name=_checked_name(name)))


def delete_list(r: Client, uid: int, lid: int) -> ListResult:
    """Delete ``uid``'s list ``lid`` with its members and timeline: DELETED or MISSING
    (gone already: a retry)."""
    deleted = scripts.delete_list(r, uid=uid, lid=lid)
    return ListResult.DELETED if deleted else ListResult.MISSING


def get_lists(r: Client, uid: int) -> list[dict[str, Any]]:
    """``uid``'s lists as [{id, name}], by name (one round trip)."""
    found = [{"id": int(lid), "name": name} for lid, name in r.hgetall(keys.lists(uid)).items()]
    return sorted(found, key=lambda one: (one["name"].casefold(), one["id"]))


def get_list(r: Client, uid: int, lid: int) -> dict[str, Any] | None:
    """{id, name} of ``uid``'s list ``lid``, or None."""
    name = r.hget(keys.lists(uid), int(lid))
    return None if name is None else {"id": int(lid), "name": name}


def _member(r, action, uid, lid, member_uid, limit=LIST_MEMBERS):
    return scripts.list_member(
        r, uid=uid, lid=lid, member=member_uid, action=action, now_ms=_now_ms(), limit=limit
    )


def _newest_statuses(r, member_uid):
    """The member's newest HOME_TIMELINE_SIZE status ids but their reposts, replies
    marked "<id>:<replied-to user>" (eviction.list_statuses_marked), one round trip."""
    pipe = r.pipeline(transaction=False)  # one slot: the member's
    pipe.zrevrange(keys.profile(member_uid), 0, HOME_TIMELINE_SIZE - 1)
    pipe.zrange(keys.profile_replies(member_uid), 0, -1)
    pipe.zrange(keys.profile_reposts(member_uid), 0, -1)
    return eviction.list_statuses_marked(*pipe.execute())


def _fill(r, action, uid, member_uid, lid, marked_ids):
    """list_fill.lua: the member's statuses into (or out of) list ``lid`` ("" for every
    list holding them)."""
    if not marked_ids:
        return 0
    return scripts.list_fill(
        r, uid=uid, member=member_uid, action=action, now_ms=_now_ms(), lid=lid,
        marked_ids=marked_ids,
    )  # fmt: skip


def add_member(
    r: Client, uid: int, lid: int, member_uid: int, limit: int = LIST_MEMBERS
) -> MemberResult:
    """Add ``member_uid``, whom ``uid`` follows, to ``uid``'s list ``lid``; return a
    MemberResult. Then copy the member's newest statuses in (the module's docstring
    says why in that order); ALREADY copies them again, which finishes an add that
    died half-way and changes nothing otherwise."""
    if int(uid) == int(member_uid):
        return MemberResult.SELF
    result = MemberResult(_member(r, "add", uid, lid, member_uid, limit))
    if result in (MemberResult.ADDED, MemberResult.ALREADY):
        _fill(r, "fill", uid, member_uid, int(lid), _newest_statuses(r, member_uid))
    return result


def remove_member(r: Client, uid: int, lid: int, member_uid: int) -> MemberResult:
    """Take ``member_uid`` off ``uid``'s list ``lid``, then their statuses out of it;
    return a MemberResult (ABSENT also takes the statuses out: a retry finishes)."""
    result = MemberResult(_member(r, "remove", uid, lid, member_uid))
    if result in (MemberResult.REMOVED, MemberResult.ABSENT):
        ids = r.zrevrange(keys.profile(member_uid), 0, HOME_TIMELINE_SIZE - 1)
        _fill(r, "empty", uid, member_uid, int(lid), ids)
    return result


def queue_forget(pipe, uid, member_uid, status_ids):
    """Queue list_forget.lua: ``member_uid`` off every list of ``uid``'s, with
    ``status_ids`` (their newest) out of them. graph.unfollow runs it in the same round
    trip as unfollow.lua, in the same slot; for an owner who never listed the member it
    is one HGET."""
    scripts.list_forget.queue(pipe, uid=uid, member=member_uid, status_ids=status_ids)


def hide_statuses(r, uid, member_uid, status_ids):
    """Take ``status_ids`` of ``member_uid`` out of every list of ``uid``'s holding them,
    who stay members (a mute: blocks.mute)."""
    return _fill(r, "empty", uid, member_uid, "", status_ids)


def restore_statuses(r, uid, member_uid, marked_ids):
    """Bring ``member_uid``'s statuses (``marked_ids``: replies marked as
    graph.replies_marked makes them) back into every list of ``uid``'s holding them, if
    ``uid`` follows and gets them again (a mute ended: blocks.restore)."""
    return _fill(r, "fill", uid, member_uid, "", marked_ids)


def list_page(
    r: Client,
    uid: int,
    lid: int,
    before: int | None = None,
    count: int = 30,
    members: int = LIST_PAGE_MEMBERS,
    now_ms: int | None = None,
    since: int | None = None,
    above: int | None = None,
) -> tuple[dict[str, Any], paging.Page] | tuple[None, None]:
    """The list ``lid`` of ``uid`` and a page of its timeline: ({id, name, size,
    members}, Page), or (None, None) if ``uid`` has no such list. ``members``: the
    ``members`` most recently added, as {id, login, name} (not hidden accounts), and
    ``size`` how many it has.

    One round trip reads the name, the members' ids and the page's ids (home_page.lua
    on the list's timeline: newest first, deleted statuses skipped, with the authors
    the owner does not get); then the statuses, as a home page does, and the authors
    and members together (users.get_authors): often neither. ``since``, ``above``: the
    client API's paging, as timelines.home_page takes them."""
    now_ms = _now_ms() if now_ms is None else now_ms

    def fill(pipe, before=before, above=None, read=count + 1, merge=True):
        pipe.hget(keys.lists(uid), int(lid))
        pipe.zcard(keys.list_members(uid, lid))
        pipe.zrevrange(keys.list_members(uid, lid), 0, members - 1)
        scripts.home_page.queue(
            pipe, uid=uid, list_id=lid, before=before, count=read, now_ms=now_ms, merge=merge,
            above=above,
        )  # fmt: skip

    if above is None:
        name, size, member_ids, (ids, hidden, pulled) = eviction.page_read(r, uid, fill)
        if name is None:
            return None, None
        # The list's pulled members' statuses, merged as a home page merges them (fanout.py).
        merged = fanout.merged_page(r, uid, [int(sid) for sid in ids], pulled, before, count)
    else:  # read upward, as a home page (fanout.read_upward)
        listed = {}

        def read(before, above, merge):
            listed["name"], listed["size"], listed["members"], reply = eviction.page_read(
                r, uid, lambda pipe: fill(pipe, before, above, count, merge)
            )
            return None if listed["name"] is None else reply

        found = fanout.read_upward(r, uid, read, before, count, above)
        if found is None:
            return None, None
        (_, hidden, *_), merged, above = found
        name, size, member_ids = listed["name"], listed["size"], listed["members"]
    hidden = {int(author) for author in hidden}
    member_ids = [int(member) for member in member_ids]
    ids, next_cursor = paging.cut_to(merged.ids, merged.next_cursor, since, above)
    found = statuses.get_statuses(r, ids, deletions_skipped=True)
    # The statuses' authors and the members shown, in one pipeline (often none).
    authors = users.get_authors(r, [*(status["uid"] for status in found), *member_ids])
    # A list's timeline is filled by the owner's deliveries (fanout.py): as a home page.
    shown = visibility.shown_statuses(r, uid, found, delivered_hidden=hidden)
    # A list holds its members' own statuses, never their reposts; one a fill copied in
    # from a profile before fills left reposts out is not shown (nor counted).
    shown = [status for status in shown if "repost_of" not in status]
    page = paging.Page(shown, next_cursor, prev_cursor=ids[0] if ids else None)
    shown = [authors[member] for member in member_ids if authors.get(member)]
    return {"id": int(lid), "name": name, "size": size, "members": shown}, page


def members_page(
    r: Client,
    uid: int,
    lid: int,
    before: int | None = None,
    count: int = 30,
    since: int | None = None,
    above: int | None = None,
) -> tuple[dict[str, Any], paging.Page] | tuple[None, None]:
    """The list ``lid`` of ``uid`` and a page of its members, most recently added
    first: ({id, name, size}, Page of user dicts), or (None, None) for no such list.
    Two round trips. Suspended and leaving accounts are not shown. ``since``,
    ``above``: the client API's paging, as paging.read_ids takes them."""
    top = f"({int(before)}" if before is not None else "+inf"
    members = keys.list_members(uid, lid)
    pipe = r.pipeline(transaction=False)  # one slot: the owner's
    pipe.hget(keys.lists(uid), int(lid))
    pipe.zcard(members)
    if above is None:
        bottom = f"({int(since)}" if since is not None else "-inf"
        pipe.zrevrangebyscore(members, top, bottom, start=0, num=count + 1, withscores=True)
    else:  # read upward, as paging.read_ids
        pipe.zrangebyscore(members, f"({int(above)}", top, start=0, num=count, withscores=True)
        pipe.zcount(members, "-inf", int(above))
    name, size, pairs, *older = pipe.execute()
    if name is None:
        return None, None
    pairs = [(int(member), int(score)) for member, score in pairs]
    if above is None:
        next_cursor = pairs[count - 1][1] if len(pairs) > count else None
        pairs = pairs[:count]
    else:
        pairs = pairs[::-1]
        next_cursor = pairs[-1][1] if pairs and older[0] else None
    ids = [member for member, _ in pairs]
    found = users.get_users(r, ids)
    shown = [found[m] for m in ids if m in found and not users.is_hidden(found[m])]
    page = paging.Page(shown, next_cursor, prev_cursor=paging.top_cursor(pairs))
    return {"id": int(lid), "name": name, "size": size}, page


def list_ids_of(r, uid, lid):
    """The timeline of ``uid``'s list ``lid`` as ids, newest first (tests, maintenance)."""
    return sorted((int(sid) for sid in r.smembers(keys.list_timeline(uid, lid))), reverse=True)


def member_ids(r: Client, uid: int, lid: int) -> set[int]:
    """The members of ``uid``'s list ``lid`` (tests, maintenance)."""
    members = cast(list[str], r.zrange(keys.list_members(uid, lid), 0, -1))
    return {int(member) for member in members}


def delete_lists_of_leaving_user(r, uid, budget):
    """Delete up to ``budget`` of ``uid``'s lists (leaving.DELETION_STEPS); when none is
    left, their id counter. Returns the number deleted."""
    lids = [int(lid) for lid in r.hkeys(keys.lists(uid))][:budget]
    for lid in lids:
        delete_list(r, uid, lid)
    if len(lids) < budget:
        r.delete(keys.list_ids(uid), keys.listed(uid))
    return len(lids)

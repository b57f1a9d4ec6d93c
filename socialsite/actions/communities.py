"""Groups ("communities" in code: docs/decisions/0067): making one, joining and leaving,
what its admins do (requests, invitations, admins, removals and bans, statuses, edits,
deletion; each written to the group's audit log) and what site moderators do
(suspending one). The group pages (timeline/groups.py) call these; posting into a
group is statuses.post's ``group``, which asks posting_place here.

A group the actor may not see (there is none, it is deleted or suspended: site
moderators still see a suspended one) is NotFound; an admin's act by someone who is not
an admin is NotAllowed.
"""

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from django.conf import settings

from socialsite.connection import get_redis
from socialsite.repository import communities, users

from . import rules
from .core import Actor, Invalid, NotAllowed, NotFound, require

JoinResult = communities.JoinResult
Standing = communities.Standing

NO_SUCH_GROUP = "There is no such group."
NOT_ADMIN = "Only the group's admins may do that."
SLUG_PATTERN = re.compile(r"[A-Za-z0-9_]{1,30}")
NAME_MAX_LENGTH = 50
DESCRIPTION_MAX_LENGTH = 500
KINDS = communities.KINDS


@dataclass(frozen=True)
class Made:
    cid: int
    slug: str


@dataclass(frozen=True)
class PostingPlace:
    """Where a status goes: community ``cid``; ``members_only`` in a private one."""

    cid: int
    members_only: bool
    replied_to: int | None = None  # the author of the status it replies to
    slug: str = ""  # the group's URL name and name at posting, shown with the status
    name: str = ""


def _group(actor: Actor | None, slug: str) -> tuple[dict[str, Any], Standing]:
    """The live community ``slug`` and the actor's standing in it; NotFound if there is
    none for them (a site moderator sees a suspended one)."""
    community, standing = communities.by_slug(
        get_redis(), slug, actor.uid if actor is not None else None
    )
    if community is None or community.get("deleted"):
        raise NotFound(NO_SUCH_GROUP)
    if community.get("suspended") and not (actor is not None and actor.is_moderator):
        raise NotFound(NO_SUCH_GROUP)
    return community, standing


def _admin_group(actor: Actor, slug: str) -> dict[str, Any]:
    community, standing = _group(actor, slug)
    if not standing.admin:
        raise NotAllowed(NOT_ADMIN)
    if community.get("suspended"):
        raise NotAllowed("This group is suspended by the site's moderators.")
    return community


def _person(login: str, field: str = "login") -> Any:
    person = users.get_user_by_login(get_redis(), login.strip().lstrip("@"))
    if person is None or users.is_hidden(person):
        raise Invalid(f"There is no user @{login.strip().lstrip('@')}.", field=field)
    return person


def check_fields(name: str, description: str, kind: str) -> tuple[str, str, str]:
    """A group's name, description and kind as kept, or Invalid."""
    name = " ".join(name.split())
    reason = rules.display_name_problem(name)
    if reason is not None:
        raise Invalid(reason.replace("A display name", "A group's name"), field="name")
    if not name:
        raise Invalid("Give the group a name.", field="name")
    if len(name) > NAME_MAX_LENGTH:
        raise Invalid(f"A group's name has at most {NAME_MAX_LENGTH} characters.", field="name")
    description = description.strip().replace("\r\n", "\n")
    if len(description) > DESCRIPTION_MAX_LENGTH:
        raise Invalid(
            f"A description has at most {DESCRIPTION_MAX_LENGTH} characters.", field="description"
        )
    if kind not in KINDS:
        raise Invalid("Choose public, private or announcement.", field="kind")
    return name, description, kind


def create(actor: Actor, slug: str, name: str, description: str, kind: str) -> Made:
    """Make a group: the actor is its owner and first admin. Throttle "communities", a
    verified address. Invalid for a slug not made of 1 to 30 letters, digits or
    underscores, or taken; a name, description or kind check_fields refuses."""
    slug = slug.strip()
    if not SLUG_PATTERN.fullmatch(slug):
        raise Invalid("Use 1 to 30 letters, digits or underscores.", field="slug")
    name, description, kind = check_fields(name, description, kind)
    require(actor, throttle="communities", verified=True)
    r = get_redis()
    cid = communities.create(r, actor.uid, slug, name, description, kind)
    if cid is None:
        raise Invalid(f"The address /g/{slug}/ is taken: choose another.", field="slug")
    communities.record(r, cid, "create", actor.uid)
    return Made(cid, slug)


def join(actor: Actor, slug: str) -> JoinResult:
    """Join a public or announcement group at once, or a private one the actor is
    invited to; ask to join another private one (its admins decide). Throttle "joins",
    a verified address. NotAllowed for someone banned from it."""
    community, standing = _group(actor, slug)
    if standing.member:
        return JoinResult.MEMBER
    require(actor, throttle="joins", verified=True)
    r = get_redis()
    result = communities.join(r, community["id"], actor.uid)
    if result is JoinResult.REQUESTED:
        admins = communities.admin_ids(r, community["id"])
        communities.notify(
            r, admins, "group_request", actor.uid, community["id"], settings.NOTIFICATIONS_KEPT
        )
    if result is JoinResult.BANNED:
        raise NotAllowed("You are banned from this group.")
    if result is JoinResult.MISSING:
        raise NotFound(NO_SUCH_GROUP)
    return result


def leave(actor: Actor, slug: str) -> bool:
    """Leave a group (a private one's statuses leave the actor's home); whether they
    were a member. NotAllowed for its last admin: they promote another first, or
    delete it."""
    community, standing = _group(actor, slug)
    r = get_redis()
    if standing.admin and communities.admin_ids(r, community["id"]) == [actor.uid]:
        raise NotAllowed(
            "You are this group's only admin: make another member an admin first, or delete"
            " the group."
        )
    if standing.requested:
        return communities.reject(r, community["id"], actor.uid)
    return communities.leave(r, community["id"], actor.uid)


def set_in_home(actor: Actor, slug: str, in_home: bool) -> None:
    """Whether the group's statuses come into the actor's home (they are a member)."""
    community, standing = _group(actor, slug)
    if not standing.member:
        raise NotAllowed("Only the group's members get its statuses at home.")
    communities.set_in_home(get_redis(), community["id"], actor.uid, in_home)


def decide_request(actor: Actor, slug: str, login: str, approve: bool) -> JoinResult | None:
    """An admin approves (JOINED) or rejects (None) someone's request to join."""
    community = _admin_group(actor, slug)
    person = _person(login)
    r = get_redis()
    cid = community["id"]
    if not approve:
        if communities.reject(r, cid, person["id"]):
            communities.record(r, cid, "reject", actor.uid, person["id"])
        return None
    result = communities.join(r, cid, person["id"], approve=True)
    if result is JoinResult.NOT_REQUESTED:
        raise Invalid(f"@{person['login']} has not asked to join.", field="login")
    if result is JoinResult.JOINED:
        communities.record(r, cid, "approve", actor.uid, person["id"])
        communities.notify(
            r, [person["id"]], "group_approved", actor.uid, cid, settings.NOTIFICATIONS_KEPT
        )
    return result


def invite(actor: Actor, slug: str, login: str) -> str:
    """An admin invites someone (by login): their join is let in at once, a request
    they made is approved. Their login."""
    community = _admin_group(actor, slug)
    person = _person(login)
    r = get_redis()
    cid = community["id"]
    if person["id"] in communities.member_ids_of_community(r, cid, [person["id"]]):
        raise Invalid(f"@{person['login']} is a member already.", field="login")
    if communities.invite(r, cid, person["id"]):
        communities.record(r, cid, "invite", actor.uid, person["id"])
        communities.notify(
            r, [person["id"]], "group_invite", actor.uid, cid, settings.NOTIFICATIONS_KEPT
        )
    if communities.has_requested(r, cid, person["id"]):
        communities.join(r, cid, person["id"], approve=True)
    return str(person["login"])


def set_admin(actor: Actor, slug: str, login: str, admin: bool) -> str:
    """An admin makes a member an admin, or no longer one (not the last one)."""
    community = _admin_group(actor, slug)
    person = _person(login)
    r = get_redis()
    cid = community["id"]
    if person["id"] not in communities.member_ids_of_community(r, cid, [person["id"]]):
        raise Invalid(f"@{person['login']} is not a member.", field="login")
    if not admin and communities.admin_ids(r, cid) == [person["id"]]:
        raise NotAllowed("A group keeps at least one admin.")
    if communities.set_admin(r, cid, person["id"], admin):
        communities.record(r, cid, "promote" if admin else "demote", actor.uid, person["id"])
    return str(person["login"])


def remove_member(actor: Actor, slug: str, login: str, ban: bool) -> str:
    """An admin removes a member (with ``ban``: bans them, member or not: they cannot
    join again). Not the owner."""
    community = _admin_group(actor, slug)
    person = _person(login)
    if person["id"] == community["owner"]:
        raise NotAllowed("The group's owner cannot be removed.")
    r = get_redis()
    cid = community["id"]
    communities.leave(r, cid, person["id"], ban=ban)
    communities.record(r, cid, "ban" if ban else "remove", actor.uid, person["id"])
    return str(person["login"])


def unban(actor: Actor, slug: str, login: str) -> str:
    """An admin lifts a ban."""
    community = _admin_group(actor, slug)
    person = _person(login)
    r = get_redis()
    if communities.unban(r, community["id"], person["id"]):
        communities.record(r, community["id"], "unban", actor.uid, person["id"])
    return str(person["login"])


def remove_status(actor: Actor, slug: str, status_id: int) -> None:
    """An admin takes a status off the group's timeline (it stays its author's)."""
    community = _admin_group(actor, slug)
    r = get_redis()
    if communities.status_community(r, status_id) != community["id"]:
        raise NotFound("There is no such status in this group.")
    communities.remove_status(r, community["id"], status_id)
    communities.record(r, community["id"], "remove_status", actor.uid, sid=str(status_id))


def edit(
    actor: Actor, slug: str, name: str, description: str, kind: str, confirmed: bool = False
) -> bool:
    """An admin changes the group's name, description and kind. Making a private group
    public needs ``confirmed`` (its member list opens, statuses posted from then on are
    public): without it, nothing changes and False is returned."""
    community = _admin_group(actor, slug)
    name, description, kind = check_fields(name, description, kind)
    if community["kind"] == "private" and kind != "private" and not confirmed:
        return False
    r = get_redis()
    communities.edit(r, community["id"], name, description, kind)
    communities.record(r, community["id"], "edit", actor.uid)
    return True


def delete(actor: Actor, slug: str) -> str:
    """An admin deletes the group: its page, members and slug go; its statuses stay
    their authors' (a private group's seen by their authors alone). Its name."""
    community = _admin_group(actor, slug)
    r = get_redis()
    communities.record(r, community["id"], "delete", actor.uid)
    communities.delete(r, community["id"], community["slug"])
    return str(community["name"])


def suspend(actor: Actor, slug: str, suspended: bool) -> None:
    """A site moderator suspends the group (nobody else sees it, nothing is posted to
    it) or lifts the suspension. NotAllowed for anyone else."""
    if not actor.is_moderator:
        raise NotAllowed("Only the site's moderators may suspend a group.")
    community, _ = _group(actor, slug)
    r = get_redis()
    communities.set_suspended(r, community["id"], suspended)
    communities.record(r, community["id"], "suspend" if suspended else "unsuspend", actor.uid)


def posting_place(actor: Actor, slug: str | None, in_reply_to: int | None) -> PostingPlace | None:
    """Where the actor's new status goes: the group ``slug``, or the group of the status
    it replies to (a reply stays in its group); None for a plain status. NotAllowed
    (nothing is posted) for a non-member's status, a top-level status of a member who is
    not an admin in an announcement group, a banned member's; NotFound for no such
    group."""
    r = get_redis()
    parent_cid, parent_uid = (
        communities.status_place(r, in_reply_to) if in_reply_to else (None, None)
    )
    if slug:
        community, standing = _group(actor, slug)
        if parent_cid is not None and parent_cid != community["id"]:
            raise Invalid("A reply stays in its status's group.", field="group")
    elif parent_cid is not None:
        community, standing = communities.get(r, parent_cid, actor.uid)
        if not communities.is_live(community):
            raise NotAllowed("The group of the status you reply to is closed.")
        assert community is not None
    else:
        return None
    if community.get("suspended"):
        raise NotAllowed("This group is suspended: nothing can be posted to it.")
    if standing.banned:
        raise NotAllowed("You are banned from this group: your status was not posted.")
    if not standing.member:
        raise NotAllowed("Only the group's members may post to it: join it first.")
    if community["kind"] == "announcement" and not standing.admin and in_reply_to is None:
        raise NotAllowed(
            "Only the admins post in an announcement group; members reply to their posts."
        )
    replied_to = parent_uid if parent_uid != actor.uid else None
    return PostingPlace(
        community["id"],
        community["kind"] == "private",
        replied_to,
        slug=str(community["slug"]),
        name=str(community["name"]),
    )


def deliver(place: PostingPlace, status_id: int, author: int) -> None:
    """Put a status posted into a group on its timeline and in its members' homes
    (INLINE_FANOUT_LIMIT of them; a group of FANOUT_PULL_FOLLOWERS members or more is
    read from its page). Called by statuses.post."""
    communities.add_status(
        get_redis(),
        place.cid,
        status_id,
        author,
        replied_to=place.replied_to,
        inline_limit=settings.INLINE_FANOUT_LIMIT,
        pull_members=settings.FANOUT_PULL_FOLLOWERS,
    )


def report_reached(account_id: int, status_ids: Sequence[int]) -> None:
    """A report naming ``status_ids`` (of account ``account_id``) was filed: each group
    status among them is told to its group's admins (a notification naming the status;
    the reporter is not named), as well as to the site's moderators (the queue)."""
    r = get_redis()
    for sid in status_ids:
        cid = communities.status_community(r, sid)
        if cid is None:
            continue
        admins = [uid for uid in communities.admin_ids(r, cid) if uid != account_id]
        communities.notify(
            r, admins, "group_report", account_id, cid, settings.NOTIFICATIONS_KEPT, sid=sid
        )

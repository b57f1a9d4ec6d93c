"""A person's named lists: make one, rename it, delete it, put someone on it or take
them off (socialsite/repository/lists.py, decision 0037). The lists pages
(timeline/lists.py) and the client API (api/lists.py) call these.

Lists are their owner's alone: every act names the actor's own list by its id, and
another person's list id is NotFound, as a list that does not exist. A name is checked
by rules.check_list_name; the refusals' words are rules' (the pages show them beside
the field, the API in its 422).
"""

from dataclasses import dataclass
from typing import Any

from socialsite.connection import get_redis
from socialsite.repository import lists, users

from . import rules
from .core import Actor, Invalid, NotFound

MemberResult = lists.MemberResult

NO_SUCH_LIST = "You have no such list."


@dataclass(frozen=True)
class ListMade:
    """The list a create_list left: ``created`` False when the actor had one of that
    name already (a form sent twice makes one list), which is then the one given."""

    list_id: int
    name: str
    created: bool


@dataclass(frozen=True)
class MemberChange:
    """What add_member or remove_member did: ``result`` ADDED or ALREADY, REMOVED or
    ABSENT; ``login`` the person's, ``list_name`` the list's as it is now."""

    result: MemberResult
    login: str
    list_name: str


def _list(actor: Actor, list_id: int) -> dict[str, Any]:
    found = lists.get_list(get_redis(), actor.uid, list_id)
    if found is None:
        raise NotFound(NO_SUCH_LIST)
    return found


def create_list(actor: Actor, name: str) -> ListMade:
    """Make a list named ``name`` (rules.check_list_name) for the actor. A name they
    use already gives that list (not created); Invalid at LISTS_PER_USER lists."""
    name = rules.check_list_name(name)
    result, list_id = lists.create_list(get_redis(), actor.uid, name)
    if result is lists.ListResult.FULL or list_id is None:
        raise Invalid(rules.LISTS_FULL, field="name")
    return ListMade(list_id, name, created=result is lists.ListResult.CREATED)


def rename_list(actor: Actor, list_id: int, name: str) -> str:
    """Rename the actor's list ``list_id`` to ``name`` (rules.check_list_name); the
    name as stored. NotFound for no list of theirs; Invalid for a name another of
    their lists has."""
    name = rules.check_list_name(name)
    result = lists.rename_list(get_redis(), actor.uid, list_id, name)
    if result is lists.ListResult.MISSING:
        raise NotFound(NO_SUCH_LIST)
    if result is lists.ListResult.EXISTS:
        raise Invalid(rules.LIST_EXISTS.format(name=name), field="name")
    return name


def delete_list(actor: Actor, list_id: int) -> str:
    """Delete the actor's list ``list_id`` with its members and timeline; its name.
    NotFound for no list of theirs (a retry of a delete included)."""
    r = get_redis()
    found = _list(actor, list_id)
    if lists.delete_list(r, actor.uid, list_id) is lists.ListResult.MISSING:
        raise NotFound(NO_SUCH_LIST)  # deleted in between, by another of their tabs
    return str(found["name"])


# The refusals of a member change the repository answers, in the words of rules.
_MEMBER_REFUSALS = {
    MemberResult.NOT_FOLLOWING: rules.NOT_FOLLOWING,
    MemberResult.FULL: rules.LIST_FULL,
    MemberResult.SELF: rules.LIST_SELF,
}


def _change_member(actor: Actor, list_id: int, other_id: int, add: bool) -> MemberChange:
    r = get_redis()
    other = users.get_user(r, other_id)
    # A suspended account, or one being deleted, is no one to put on a list: as the
    # pages and the API show it, there is no such user.
    if other is None or users.is_hidden(other):
        raise NotFound("There is no such user.")
    change = lists.add_member if add else lists.remove_member
    result = change(r, actor.uid, list_id, other["id"])
    if result is MemberResult.MISSING:
        raise NotFound(NO_SUCH_LIST)
    if result in _MEMBER_REFUSALS:
        raise Invalid(_MEMBER_REFUSALS[result].format(login=other["login"]), field="login")
    found = _list(actor, list_id)
    return MemberChange(result, str(other["login"]), str(found["name"]))


def add_member(actor: Actor, list_id: int, other_id: int) -> MemberChange:
    """Put account ``other_id`` on the actor's list ``list_id`` (ADDED, or ALREADY on
    it), with their newest statuses. NotFound for no list of the actor's, or no
    account shown; Invalid for someone the actor does not follow, themselves, or a
    list holding LIST_MEMBERS people."""
    return _change_member(actor, list_id, other_id, add=True)


def remove_member(actor: Actor, list_id: int, other_id: int) -> MemberChange:
    """Take account ``other_id`` off the actor's list ``list_id`` (REMOVED, or ABSENT:
    not on it), with their statuses. NotFound for no list of the actor's, or no
    account shown."""
    return _change_member(actor, list_id, other_id, add=False)

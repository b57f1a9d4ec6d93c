"""Moderation's acts: reporting an account or a direct message, and what moderators do
(dismiss a report, delete a status, suspend and unsuspend an account, make and unmake
moderators, hide a tag from the trends and let it trend again).

Doors: the report page and ``POST /api/v1/reports`` (report_account), a conversation's
report button (report_message), the moderation pages and ``manage.py moderation``,
``moderators`` and ``trends`` (the moderators' acts). A command acts as
``command_line_actor()`` (recorded as ``manage.py``) or as the moderator its ``--by``
names (``moderator_actor``).

Every moderator's act checks that the actor is a moderator (NotAllowed), writes the
audit log once (the repository's moderation log: repository/moderation.py records an
entry when the act changed something, never twice for a repeated act), and counts
itself in the metrics (``socialsite_moderation_acts_total``). Reports count against the
"reports" throttle, whichever door sends them, and need no verified address: anyone
logged in may tell the moderators about abuse.
"""

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from media import pictures
from socialsite import metrics
from socialsite.connection import get_redis
from socialsite.repository import direct, entities, moderation, statuses, trends, users
from socialsite.repository.ids import parse_id
from socialsite.repository.limits import (
    MODERATION_REASON_MAX_LENGTH,
    REPORT_COMMENT_MAX_LENGTH,
    REPORT_STATUSES_MAX,
)
from socialsite.repository.moderation import REASONS, Result
from socialsite.repository.records import User

from . import communities
from .core import Actor, Invalid, NotAllowed, NotFound, require

__all__ = [
    "REASONS",
    "CannotReportSelf",
    "FiledReport",
    "Result",
    "TagOutcome",
    "add_moderator",
    "command_line_actor",
    "delete_status",
    "dismiss_report",
    "hide_tag",
    "moderator_actor",
    "parse_status_ids",
    "remove_moderator",
    "report_account",
    "report_message",
    "suspend",
    "unhide_tag",
    "unsuspend",
]

# The uid of command_line_actor(): ids start at 1, and the audit log records no uid for
# the command line (repository/moderation.py: by_uid None).
COMMAND_LINE_UID = 0

REASON_REQUIRED = "Give a reason: the audit log records why."
YOURSELF = "You cannot report yourself."
YOUR_OWN_MESSAGE = "You cannot report your own message."


class CannotReportSelf(Invalid):
    """A report about oneself (an account, or one's own message)."""


@dataclass(frozen=True)
class FiledReport:
    """A report in the moderators' queue: its id, the account it is about (its user
    dict as read for the report), and what it says."""

    id: int
    account: User
    reason: str
    comment: str
    status_ids: tuple[int, ...] = ()

    @property
    def login(self) -> str:
        return str(self.account["login"])


# --- who acts from the command line -----------------------------------------------------


def command_line_actor() -> Actor:
    """The Actor of a moderation command run without ``--by``: recorded in the audit
    log as done by ``manage.py``, with no account."""
    return Actor(uid=COMMAND_LINE_UID, login=moderation.COMMAND_LINE, is_moderator=True)


def moderator_actor(login: str) -> Actor:
    """The Actor of moderator ``login`` (with or without "@"), for a command's ``--by``;
    NotAllowed if there is no such moderator."""
    login = login.lstrip("@")
    user = users.get_user_by_login(get_redis(), login)
    if user is None or not moderation.is_moderator(user):
        raise NotAllowed(f"@{login} is not a moderator.")
    return Actor(uid=int(user["id"]), login=str(user["login"]), is_moderator=True)


def _moderator(actor: Actor) -> dict[str, Any]:
    """The audit log's "by" and "by_uid" of ``actor``; NotAllowed unless a moderator."""
    if not actor.is_moderator:
        raise NotAllowed("Only moderators may do this.")
    return {"by": actor.login, "by_uid": actor.uid or None}


def _reason(reason: str, required: bool) -> str:
    """The reason a moderator gives, for the audit log: stripped, at most
    MODERATION_REASON_MAX_LENGTH; Invalid if missing where the act needs one."""
    reason = reason.strip()
    if required and not reason:
        raise Invalid(REASON_REQUIRED, field="reason")
    if len(reason) > MODERATION_REASON_MAX_LENGTH:
        raise Invalid(
            f"Ensure this value has at most {MODERATION_REASON_MAX_LENGTH} characters "
            f"(it has {len(reason)}).",
            field="reason",
        )
    if "\x00" in reason:
        raise Invalid("Null characters are not allowed.", field="reason")
    return reason


def _done(act: str, result: Result) -> Result:
    # The metrics count what the audit log records: an act that changed something.
    if result is Result.DONE:
        metrics.moderation_act(act)
    return result


# --- reporting --------------------------------------------------------------------------


def parse_status_ids(values: Iterable[str | int]) -> list[int]:
    """Status ids as a form or the API sends them, as ints in order, once each;
    Invalid for one that is not a number. 0 is read (it names no status: "not one of
    theirs" when reported)."""
    ids = []
    for value in values:
        number = parse_id(value, lowest=0)
        if number is None:
            raise Invalid(f"A status is named by its number, not {str(value)[:40]!r}.")
        ids.append(number)
    return list(dict.fromkeys(ids))


def _report_words(reason: str, comment: str) -> str:
    """The comment of a report, stripped, once ``reason`` and it are checked: the report
    form's own rules and words (moderation/forms.py shows the same fields)."""
    if not reason:
        raise Invalid("Say what is wrong: pick a reason.", field="reason")
    if reason not in REASONS:
        raise Invalid(
            f"Select a valid choice. {reason} is not one of the available choices.",
            field="reason",
        )
    comment = comment.strip()
    if len(comment) > REPORT_COMMENT_MAX_LENGTH:
        raise Invalid(
            f"Ensure this value has at most {REPORT_COMMENT_MAX_LENGTH} characters "
            f"(it has {len(comment)}).",
            field="comment",
        )
    if "\x00" in comment:
        raise Invalid("Null characters are not allowed.", field="comment")
    return comment


def report_account(
    actor: Actor,
    account_id: int,
    reason: str,
    comment: str = "",
    status_ids: Sequence[int] = (),
) -> FiledReport:
    """``actor`` reports account ``account_id`` for ``reason`` (a key of REASONS),
    naming up to REPORT_STATUSES_MAX of its statuses: into the moderators' queue.

    Rules, whichever door (the report page, ``POST /api/v1/reports``): the "reports"
    throttle; no verified address needed; NotFound for no account, a suspended one or
    one being deleted; CannotReportSelf (Invalid) for oneself; Invalid for a reason not
    offered, a comment over REPORT_COMMENT_MAX_LENGTH, too many statuses, or a status
    that is not one the actor may see of the account's (moderation.reportable_statuses:
    someone else's, deleted, or hidden from the actor by a block or a private account,
    all said in the same words). An account that blocks the actor may still be
    reported, with none of its statuses.
    """
    require(actor, throttle="reports")
    r = get_redis()
    account = users.get_user(r, account_id)
    if account is None or users.is_hidden(account):
        raise NotFound("There is no such account.")
    if account["id"] == actor.uid:
        raise CannotReportSelf(YOURSELF)
    comment = _report_words(reason, comment)
    ids = list(dict.fromkeys(int(sid) for sid in status_ids))
    if len(ids) > REPORT_STATUSES_MAX:
        raise Invalid(
            f"A report names at most {REPORT_STATUSES_MAX} statuses; this one {len(ids)}.",
            field="status",
        )
    theirs = moderation.reportable_statuses(r, actor.uid, account, ids)
    unknown = [str(sid) for sid in ids if sid not in theirs]
    if unknown:
        raise Invalid(
            f"Status {', '.join(unknown)} is not one of @{account['login']}'s statuses "
            "(deleted since, or someone else's): untick it to send the report.",
            field="status",
        )
    reporter: User = {"id": actor.uid, "login": actor.login}
    rid = moderation.file_report(r, reporter, account, reason, comment, theirs)
    communities.report_reached(account["id"], theirs)  # groups: their admins
    metrics.moderation_act("report")
    return FiledReport(int(rid), account, reason, comment, tuple(theirs))


def report_message(
    actor: Actor, conversation_id: int, message_id: int, reason: str, comment: str = ""
) -> FiledReport:
    """``actor`` reports message ``message_id`` of conversation ``conversation_id``:
    a report about its sender carrying a copy of it and the few before it
    (direct.report_context), all the moderators see of the conversation.

    Rules: the "reports" throttle, as reporting an account; NotFound unless the actor is
    a member of the conversation and the message is in it; CannotReportSelf (Invalid)
    for one's own message; NotAllowed when its sender is gone (deleted, being deleted,
    or suspended: nobody left to report, as the report page answers 404 for them);
    the reason and the comment as a report's.
    """
    require(actor, throttle="reports")
    r = get_redis()
    if not direct.is_member(r, actor.uid, conversation_id):
        raise NotFound("There is no such conversation.")
    message = direct.get_message(r, conversation_id, message_id)
    if message is None:
        raise NotFound("There is no such message.")
    if message["from"] == actor.uid:
        raise CannotReportSelf(YOUR_OWN_MESSAGE)
    comment = _report_words(reason, comment)
    sender = users.get_user(r, message["from"])
    if sender is not None and users.is_suspended(sender):
        raise NotAllowed("That account is suspended: the moderators have acted already.")
    if sender is None or users.is_hidden(sender):
        raise NotAllowed("That account is deleted: there is nobody to report.")
    reporter: User = {"id": actor.uid, "login": actor.login}
    context = direct.report_context(r, conversation_id, message_id)
    rid = moderation.file_report(r, reporter, sender, reason, comment, messages=context)
    metrics.moderation_act("report message")
    return FiledReport(int(rid), sender, reason, comment)


# --- a moderator's acts -----------------------------------------------------------------


def _report(rid: int) -> dict[str, Any]:
    report: dict[str, Any] | None = moderation.get_report(get_redis(), rid)
    if report is None:
        raise NotFound("There is no such report.")
    return report


def dismiss_report(actor: Actor, report_id: int, reason: str = "") -> Result:
    """Close report ``report_id`` with nothing done (DONE, or ALREADY if it was closed).
    Moderators only; NotFound for no such report; a reason is optional."""
    who = _moderator(actor)
    reason = _reason(reason, required=False)
    _report(report_id)
    result = moderation.dismiss_report(get_redis(), report_id, reason=reason, **who)
    if result is Result.NOT_FOUND:  # expired between the two reads
        raise NotFound("There is no such report.")
    return _done("dismiss report", result)


def delete_status(
    actor: Actor, status_id: int, reason: str, report_id: int | None = None
) -> Result:
    """A moderator deletes status ``status_id``, whoever posted it (a repost is undone):
    the same cleanup as its author's deletion, and the files of its pictures
    (pictures.delete_unused). With ``report_id``, the status must be one the report
    names, and the report is closed once none of them is left.

    Moderators only; a reason is needed (Invalid); NotFound for no such report, or no
    such status (deleted already); Invalid for a status the report does not name.
    DONE, or ALREADY when it was deleted meanwhile.
    """
    who = _moderator(actor)
    reason = _reason(reason, required=True)
    if report_id is not None and status_id not in _report(report_id)["status_ids"]:
        raise Invalid(f"Report {report_id} does not name status {status_id}.", field="status")
    r = get_redis()
    if statuses.locate(r, status_id) is None:  # a check, not a read of what it says
        raise NotFound(f"There is no status {status_id}.")
    result = moderation.delete_status(r, status_id, reason=reason, report_id=report_id, **who)
    pictures.delete_unused(r)  # its images' files, which the deletion listed
    if result is Result.NOT_FOUND:  # deleted between the two reads
        raise NotFound(f"There is no status {status_id}.")
    return _done("delete status", result)


def _account(account_id: int) -> User:
    user = users.get_user(get_redis(), account_id)
    if user is None:
        raise NotFound("There is no such account.")
    return user


def suspend(actor: Actor, account_id: int, reason: str) -> Result:
    """Suspend account ``account_id`` (repository moderation.suspend: hidden
    everywhere, its sessions and tokens ended, the open reports about it closed).
    Moderators only; a reason is needed (Invalid); NotFound for no such account or one
    being deleted. DONE, or ALREADY (the rest redone, which mends a suspension cut
    short)."""
    who = _moderator(actor)
    reason = _reason(reason, required=True)
    user = _account(account_id)
    result = moderation.suspend(get_redis(), account_id, reason=reason, **who)
    if result is Result.NOT_FOUND:
        raise NotFound(f"@{user['login']} is leaving the site.")
    return _done("suspend", result)


def unsuspend(actor: Actor, account_id: int, reason: str = "") -> Result:
    """End the suspension of account ``account_id``. Moderators only; NotFound for no
    such account; a reason is optional. DONE, or ALREADY if it was not suspended."""
    who = _moderator(actor)
    reason = _reason(reason, required=False)
    _account(account_id)
    result = moderation.unsuspend(get_redis(), account_id, reason=reason, **who)
    if result is Result.NOT_FOUND:
        raise NotFound("There is no such account.")
    return _done("unsuspend", result)


def add_moderator(actor: Actor, account_id: int) -> Result:
    """Make account ``account_id`` a moderator (it sees the moderation pages at once).
    Moderators only (the command line is one); NotFound for no such account, a
    suspended one or one being deleted. DONE, or ALREADY."""
    who = _moderator(actor)
    user = _account(account_id)
    result = moderation.add_moderator(get_redis(), account_id, **who)
    if result is Result.NOT_FOUND:
        raise NotFound(f"@{user['login']} is suspended or leaving the site.")
    return _done("add moderator", result)


def remove_moderator(actor: Actor, account_id: int) -> Result:
    """Make account ``account_id`` a moderator no more. Moderators only; NotFound for
    no such account. DONE, or ALREADY if it was not one."""
    who = _moderator(actor)
    _account(account_id)
    result = moderation.remove_moderator(get_redis(), account_id, **who)
    if result is Result.NOT_FOUND:
        raise NotFound("There is no such account.")
    return _done("remove moderator", result)


# --- trends -----------------------------------------------------------------------------


@dataclass(frozen=True)
class TagOutcome:
    """A tag hidden or unhidden: the tag as normalized, and DONE, or ALREADY when it
    was so."""

    tag: str
    result: Result


def _tag(tag: str) -> str:
    """``tag`` as hashtags are stored (with or without "#", any case or width);
    Invalid if it is no tag."""
    normalized = entities.normalize_tag(tag.removeprefix("#").removeprefix("＃"))
    if not entities.is_tag(normalized):
        raise Invalid(
            f"{tag!r} is not a tag: 1 to {entities.MAX_TAG_LENGTH} letters, digits and "
            "underscores, with at least one letter.",
            field="tag",
        )
    return str(normalized)


def hide_tag(actor: Actor, tag: str, reason: str = "") -> TagOutcome:
    """Leave ``tag`` out of the trends, at once and at every recompute (ALREADY if it
    was hidden). Moderators only; Invalid for no tag; a reason is optional."""
    who = _moderator(actor)
    reason = _reason(reason, required=False)
    tag = _tag(tag)
    r = get_redis()
    if not trends.hide(r, tag):
        return TagOutcome(tag, Result.ALREADY)
    moderation.record(r, "hide tag", reason=reason, tag=tag, **who)
    metrics.moderation_act("hide tag")
    return TagOutcome(tag, Result.DONE)


def unhide_tag(actor: Actor, tag: str, reason: str = "") -> TagOutcome:
    """Let hidden ``tag`` trend again, from the next recompute (ALREADY if it was not
    hidden). Moderators only; Invalid for no tag; a reason is optional."""
    who = _moderator(actor)
    reason = _reason(reason, required=False)
    tag = _tag(tag)
    r = get_redis()
    if not trends.unhide(r, tag):
        return TagOutcome(tag, Result.ALREADY)
    moderation.record(r, "unhide tag", reason=reason, tag=tag, **who)
    metrics.moderation_act("unhide tag")
    return TagOutcome(tag, Result.DONE)

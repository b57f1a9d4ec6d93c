"""Moderation: reports, moderators, suspensions and the audit log.

- Anyone logged in may *report* an account, naming some of its statuses
  (file_report). Open reports wait in a queue, newest first (open_reports_page), until
  a moderator closes them: dismissing one, deleting a status, suspending the account.
- *Moderators* are users whose hash carries keys.MODERATOR_FIELD, so that every page
  knows whether its viewer is one at no cost (the session's round trip reads the
  hash); keys.MODERATORS lists them.
- A *suspension* hides an account everywhere and keeps it out until it is undone
  (suspend, unsuspend): the user hash's keys.SUSPENDED_FIELD, which every read of the
  hash sees (users.is_hidden), and the keys.SUSPENDED list, which the stream servers
  read. Its sessions end at once (sessions.end_all).
- Every action is recorded in the audit log (keys.MODERATION_LOG): who, what, when,
  why. It is never trimmed.

Each step can be repeated: a suspension repeated finds the flag set and redoes the
rest (ending sessions, closing reports), without a second entry in the log.
"""

import enum
import json
import re
import time
from collections.abc import Iterable, Sequence
from typing import Any, cast

from . import events, keys, oauth, paging, reposts, search, sessions, statuses, users, visibility
from .client import Client
from .limits import MODERATION_REASON_MAX_LENGTH, REPORT_KEEP_SECONDS
from .records import User

# What a report may say is wrong, and how the queue words it.
REASONS = {
    "spam": "Spam",
    "abuse": "Abuse or harassment",
    "illegal": "Illegal content",
    "other": "Something else",
}

# Who an action from the command line is recorded as done by (manage.py moderation).
COMMAND_LINE = "manage.py"


class Result(enum.Enum):
    DONE = "done"
    ALREADY = "already so"
    NOT_FOUND = "not found"


# --- the audit log ----------------------------------------------------------------------

# A cursor of the log's pages: a stream entry id.
LOG_CURSOR = re.compile(r"[0-9]{1,20}-[0-9]{1,20}")


def record(
    r: Client,
    action: str,
    by: str,
    by_uid: int | None = None,
    target: User | None = None,
    reason: str = "",
    **details: Any,
) -> str:
    """Add an entry to the audit log: ``action`` (suspend, unsuspend, delete status,
    dismiss report, add moderator, remove moderator) done by ``by`` (a login, or
    COMMAND_LINE) to ``target`` (a user dict), why (``reason``); ``details`` such as
    status=<id>, report=<id>. The entry's id says when. Returns it."""
    fields: dict[str, Any] = {
        "action": action,
        "by": by,
        "by_id": "" if by_uid is None else int(by_uid),
        "target": target["login"] if target else "",
        "target_id": target["id"] if target else "",
        "reason": reason[:MODERATION_REASON_MAX_LENGTH],
        **{name: "" if value is None else value for name, value in details.items()},
    }
    return cast(str, r.xadd(keys.MODERATION_LOG, fields))  # type: ignore[arg-type]


def _log_entry(entry_id, fields):
    return {**fields, "id": entry_id, "at": int(entry_id.split("-")[0]) / 1000}


def log_page(r, before=None, count=50):
    """A page of the audit log, newest first: entries as dicts (their fields, ``id``
    and ``at``, seconds since the epoch), and the cursor of the next page (an entry id
    to pass as ``before``) or None."""
    top = "+" if before is None else f"({before}"
    entries = r.xrevrange(keys.MODERATION_LOG, max=top, min="-", count=count + 1)
    next_cursor = entries[count - 1][0] if len(entries) > count else None
    return paging.Page([_log_entry(*entry) for entry in entries[:count]], next_cursor)


# --- moderators -------------------------------------------------------------------------


def is_moderator(user: User | None) -> bool:
    """Whether the user dict ``user`` is a moderator's."""
    return bool(user and user.get(keys.MODERATOR_FIELD))


def add_moderator(r: Client, uid: int, by: str = COMMAND_LINE, by_uid: int | None = None) -> Result:
    """Make ``uid`` a moderator; a Result."""
    user = users.get_user(r, uid)
    if user is None or users.is_hidden(user):
        return Result.NOT_FOUND
    changed = users.flag(r, uid, keys.MODERATOR_FIELD, "1")
    r.sadd(keys.MODERATORS, uid)
    if not changed:
        return Result.ALREADY
    record(r, "add moderator", by, by_uid, user)
    return Result.DONE


def remove_moderator(
    r: Client, uid: int, by: str = COMMAND_LINE, by_uid: int | None = None
) -> Result:
    """Make ``uid`` a moderator no more; a Result."""
    user = users.get_user(r, uid)
    if user is None:
        r.srem(keys.MODERATORS, uid)
        return Result.NOT_FOUND
    changed = users.flag(r, uid, keys.MODERATOR_FIELD, "")
    r.srem(keys.MODERATORS, uid)
    if not changed:
        return Result.ALREADY
    record(r, "remove moderator", by, by_uid, user)
    return Result.DONE


def moderators(r):
    """The moderators' user dicts, by login."""
    found = users.get_users(r, r.smembers(keys.MODERATORS))
    return sorted((u for u in found.values() if is_moderator(u)), key=lambda u: u["login"])


def forget_moderator(r: Client, uid: int) -> None:
    """Take ``uid`` off the list of moderators (their account is being deleted)."""
    r.srem(keys.MODERATORS, uid)


# --- reports ----------------------------------------------------------------------------


def statuses_of(r: Client, uid: int, status_ids: Iterable[int]) -> list[int]:
    """Those of ``status_ids`` that are statuses of ``uid`` (on their profile), in the
    order given; one round trip."""
    status_ids = list(dict.fromkeys(int(sid) for sid in status_ids))
    if not status_ids:
        return []
    pipe = r.pipeline(transaction=False)  # one key: one node
    for sid in status_ids:
        pipe.zscore(keys.profile(uid), sid)
    return [sid for sid, score in zip(status_ids, pipe.execute(), strict=True) if score]


def reportable_statuses(
    r: Client, reporter_id: int, account: User, status_ids: Iterable[int]
) -> list[int]:
    """Those of ``status_ids`` that are statuses of user dict ``account`` (read fresh)
    and that ``reporter_id`` may see (visibility.statuses_visibility, as its profile
    decides), in the order given: what a report may name. A status the reporter may
    not see is left out as one that is not there, or someone else's: nothing tells
    them apart. Two round trips: the relationship, the profile."""
    if not _reporter_sees(r, reporter_id, account):
        return []
    return statuses_of(r, account["id"], status_ids)


def _reporter_sees(r, reporter_id, account):
    """Whether ``reporter_id`` may see the statuses of user dict ``account``: none of a
    private account they do not follow, none when the account blocks them. One round
    trip."""
    rel = visibility.relationship(r, reporter_id, account["id"])
    return (
        visibility.statuses_visibility(reporter_id, account, rel) is visibility.Visibility.VISIBLE
    )


def report_form_statuses(
    r: Client, reporter_id: int, account: User, ticked: Iterable[int], count: int
) -> tuple[list[dict[str, Any]], list[int]]:
    """The statuses the report form offers ``reporter_id`` to tick about user dict
    ``account``: those of ``ticked`` (ids) that are the account's, then its newest
    ``count``, each once, and only as the reporter may see them: none of a private
    account they do not follow, none when the account blocks them
    (visibility.statuses_visibility, as its profile decides), and through
    visibility.shown_statuses like every list of statuses shown; a repost as its
    original under "reposted" (reposts.with_originals, as a profile shows it; its
    ``repost_id`` is what the form ticks). Returns (statuses, the ticked ids the report
    may name, as reportable_statuses gives them). Four round trips: the relationship, the ticked,
    the ids, the statuses; one more for reposts' originals."""
    from . import timelines  # timelines imports this module's neighbours: read late

    uid = account["id"]
    if not _reporter_sees(r, reporter_id, account):
        return [], []
    ticked = statuses_of(r, uid, ticked)
    newest = timelines.profile_ids(r, uid, count)
    found = statuses.get_statuses(r, list(dict.fromkeys([*ticked, *newest])))
    shown = visibility.shown_statuses(r, reporter_id, found, checked={uid})
    if any("repost_of" in status for status in shown):
        shown = reposts.with_originals(r, shown, None, reporter_id).items
    return shown, ticked


def file_report(
    r: Client,
    reporter: User,
    account: User,
    reason: str,
    comment: str = "",
    status_ids: Iterable[int] = (),
    messages: Sequence[dict[str, Any]] = (),
) -> int:
    """User dict ``reporter`` reports user dict ``account`` for ``reason`` (a key of
    REASONS), naming ``status_ids`` (the caller checked they are the account's:
    statuses_of), or ``messages``: a reported direct message and the few before it
    (direct.report_context), copied into the report, which is all the moderators see
    of that conversation. Returns the report's id.

    The hash is written first, then listed among the reports about the account, then
    in the queue: a report in the queue is always whole.
    """
    rid = r.incr(keys.REPORT_IDS)
    r.hset(
        keys.report(rid),
        mapping={
            "id": rid,
            "reporter": reporter["id"],
            "reporter_login": reporter["login"],
            "account": account["id"],
            "login": account["login"],
            "reason": reason,
            "comment": comment,
            "statuses": ",".join(str(int(sid)) for sid in status_ids),
            "created": time.time(),
            "state": "open",
            **({"messages": json.dumps(list(messages))} if messages else {}),
        },
    )
    # redis-py types a member as str or bytes; an int is sent as its digits.
    r.zadd(keys.reports_about(account["id"]), {rid: rid})  # type: ignore[type-var]
    r.zadd(keys.OPEN_REPORTS, {rid: rid})  # type: ignore[type-var]
    return rid


def _decode_report(data):
    if not data:
        return None
    report = dict(data)
    for field in ("id", "reporter", "account"):
        report[field] = int(report[field])
    report["created"] = float(report["created"])
    report["status_ids"] = [int(sid) for sid in report["statuses"].split(",") if sid]
    report["reason_label"] = REASONS.get(report["reason"], report["reason"])
    report["messages"] = json.loads(report["messages"]) if report.get("messages") else []
    return report


def get_report(r: Client, rid: int) -> dict[str, Any] | None:
    """The report ``rid`` as a dict (with ``status_ids``, a list), or None."""
    return _decode_report(r.hgetall(keys.report(rid)))


def open_report_count(r: Client) -> int:
    return r.zcard(keys.OPEN_REPORTS)


def open_reports_page(r, before=None, count=20):
    """A page of the open reports, newest first, each with what a moderator needs to
    judge it: ``account`` (the reported user dict, None if gone), ``reporter`` (the
    same), ``statuses`` (the named statuses, each None once deleted: a list of
    (id, status) pairs; a repost as its original under "reposted", as pages show it:
    reposts.shown_as_repost) and ``open_about`` (how many open reports name the
    account). A fixed number of round trips, whatever the page holds."""
    pairs, next_cursor = paging.read_ids(r, keys.OPEN_REPORTS, before, count)
    pipe = r.pipeline(transaction=False)
    for rid, _ in pairs:
        pipe.hgetall(keys.report(rid))
    reports = [report for report in map(_decode_report, pipe.execute()) if report]
    status_ids = list(dict.fromkeys(sid for report in reports for sid in report["status_ids"]))
    account_ids = list(dict.fromkeys(report["account"] for report in reports))
    pipe = r.pipeline(transaction=False)
    for sid in status_ids:
        pipe.hgetall(keys.status(sid))
    for uid in account_ids:
        pipe.zcard(keys.reports_about(uid))
    replies = pipe.execute()
    found = {
        sid: statuses.decode_status(data) for sid, data in zip(status_ids, replies, strict=False)
    }
    open_about = dict(zip(account_ids, replies[len(status_ids) :], strict=True))
    # Reported reposts show their originals, whoever may see them: moderators judge.
    reported_reposts = [status for status in found.values() if status and "repost_of" in status]
    originals = {
        status["id"]: status
        for status in statuses.get_statuses(r, map(reposts.original_of, reported_reposts))
    }
    people = users.get_users(
        r,
        [report["account"] for report in reports]
        + [report["reporter"] for report in reports]
        + [status["uid"] for status in [*reported_reposts, *originals.values()]],
    )
    for status in reported_reposts:
        original = originals.get(reposts.original_of(status))
        shown = original is not None and {status["uid"], original["uid"]} <= people.keys()
        found[status["id"]] = (
            reposts.shown_as_repost(
                status, {**original, "author": people[original["uid"]]}, people[status["uid"]]
            )
            if shown
            else None
        )
    for report in reports:
        report["account_user"] = people.get(report["account"])
        report["reporter_user"] = people.get(report["reporter"])
        report["statuses_found"] = [(sid, found.get(sid)) for sid in report["status_ids"]]
        report["open_about"] = open_about.get(report["account"], 0)
    return paging.Page(reports, next_cursor)


def _close_reports(r, reports, outcome, by, by_uid=None):
    """Close the open ones of ``reports`` (dicts) with ``outcome``; return how many."""
    if not reports:
        return 0
    now = time.time()
    pipe = r.pipeline(transaction=False)
    for report in reports:
        pipe.zrem(keys.OPEN_REPORTS, report["id"])
    for report in reports:
        pipe.zrem(keys.reports_about(report["account"]), report["id"])
        pipe.hset(
            keys.report(report["id"]),
            mapping={
                "state": "closed",
                "outcome": outcome,
                "closed_by": by,
                "closed_by_id": "" if by_uid is None else int(by_uid),
                "closed_at": now,
            },
        )
        pipe.expire(keys.report(report["id"]), REPORT_KEEP_SECONDS)
    return sum(pipe.execute()[: len(reports)])


def dismiss_report(
    r: Client, rid: int, by: str, by_uid: int | None = None, reason: str = ""
) -> Result:
    """Close report ``rid`` with nothing done; a Result."""
    report = get_report(r, rid)
    if report is None:
        return Result.NOT_FOUND
    if not _close_reports(r, [report], "dismissed", by, by_uid):
        return Result.ALREADY
    account = users.get_user(r, report["account"]) or {
        "id": report["account"],
        "login": report["login"],
    }
    record(r, "dismiss report", by, by_uid, account, reason, report=rid)
    return Result.DONE


def close_reports_about(
    r: Client, uid: int, outcome: str, by: str, by_uid: int | None = None
) -> int:
    """Close every open report about ``uid``; return how many were open."""
    rids = [int(rid) for rid in cast(list[str], r.zrange(keys.reports_about(uid), 0, -1))]
    pipe = r.pipeline(transaction=False)
    for rid in rids:
        pipe.hgetall(keys.report(rid))
    reports = [report for report in map(_decode_report, pipe.execute()) if report]
    closed = _close_reports(r, reports, outcome, by, by_uid)
    r.delete(keys.reports_about(uid))
    return closed


# --- deleting statuses ------------------------------------------------------------------


def delete_status(
    r: Client,
    sid: int,
    by: str,
    by_uid: int | None = None,
    reason: str = "",
    report_id: int | None = None,
) -> Result:
    """Delete status ``sid`` whoever posted it (statuses.delete_status: the same
    cleanup as its author's deletion); a Result. With ``report_id``, the report is
    closed once none of the statuses it names is left."""
    status = statuses.get_status(r, sid)
    if status is None:
        return Result.NOT_FOUND
    if status.get("repost_of"):
        # A repost is undone, not deleted (reposts.py): the reposter's undo.
        undone = reposts.unrepost(r, status["uid"], sid, rid=sid)
        if undone is not reposts.RepostResult.UNREPOSTED:
            return Result.ALREADY
    elif statuses.delete_status(r, status["uid"], sid) is not statuses.DeleteResult.DELETED:
        return Result.ALREADY  # deleted meanwhile, by its author or another moderator
    target: User = {"id": status["uid"], "login": status["login"]}
    record(r, "delete status", by, by_uid, target, reason, status=sid, report=report_id)
    report = get_report(r, report_id) if report_id is not None else None
    if report is not None and report["account"] == status["uid"]:
        pipe = r.pipeline(transaction=False)
        for other in report["status_ids"]:
            pipe.exists(keys.status(other))
        if not any(pipe.execute()):
            _close_reports(r, [report], "status deleted", by, by_uid)
    return Result.DONE


# --- suspensions ------------------------------------------------------------------------


def suspend(
    r: Client, uid: int, by: str = COMMAND_LINE, by_uid: int | None = None, reason: str = ""
) -> Result:
    """Suspend account ``uid``; a Result.

    1. Flag the user hash (users.flag), and take the account off the search index in
       the same round trip (search.set_hidden): from here on the account cannot log
       in, and every read of its hash hides it: profile, status pages, home pages
       (within users.AUTHOR_CACHE_SECONDS in other processes), follower lists,
       fan-out, search.
    2. List it among the suspended (the stream servers read the list), end every
       session it has (sessions.end_all), revoke every app's access token
       (oauth.revoke_user_tokens: an unsuspended account authorizes its apps again),
       and tell the stream servers at once.
    3. Close the open reports about it, and record the action (the first time only).
    Repeating a suspension repeats 2 and 3, which mends one that was cut short.
    """
    user = users.get_user(r, uid)
    if user is None or user.get(keys.LEAVING_FIELD):
        return Result.NOT_FOUND
    now = time.time()
    changed = search.set_hidden(r, user, keys.SUSPENDED_FIELD, repr(now))
    r.zadd(keys.SUSPENDED, {uid: int(now * 1000)}, nx=True)  # type: ignore[type-var]
    sessions.end_all(r, uid)
    oauth.revoke_user_tokens(r, uid)
    users.forget_author(uid)
    events.publish_account(r, uid, hidden=True)
    close_reports_about(r, uid, "account suspended", by, by_uid)
    if not changed:
        return Result.ALREADY
    record(r, "suspend", by, by_uid, user, reason)
    return Result.DONE


def unsuspend(
    r: Client, uid: int, by: str = COMMAND_LINE, by_uid: int | None = None, reason: str = ""
) -> Result:
    """End the suspension of account ``uid``: all it had is shown again (its statuses
    never left its profile or the home timelines they were in); a Result."""
    user = users.get_user(r, uid)
    if user is None:
        r.zrem(keys.SUSPENDED, uid)
        return Result.NOT_FOUND
    # Back in the search index in the same round trip (unless being deleted).
    changed = search.set_shown(r, user, keys.SUSPENDED_FIELD)
    r.zrem(keys.SUSPENDED, uid)
    users.forget_author(uid)
    events.publish_account(r, uid, hidden=False)
    if not changed:
        return Result.ALREADY
    record(r, "unsuspend", by, by_uid, user, reason)
    return Result.DONE


def suspended_ids(r: Client) -> set[int]:
    """The ids of every suspended account (for the stream servers: a short list)."""
    return {int(uid) for uid in cast(list[str], r.zrange(keys.SUSPENDED, 0, -1))}


def suspended_page(r, before=None, count=50):
    """A page of the suspended accounts, the latest suspension first: user dicts with
    ``suspended_at`` (seconds since the epoch), and a cursor."""
    pairs, next_cursor = paging.read_ids(r, keys.SUSPENDED, before, count)
    found = users.get_users(r, [uid for uid, _ in pairs])
    page = [{**found[uid], "suspended_at": score / 1000} for uid, score in pairs if uid in found]
    return paging.Page(page, next_cursor)


def forget_suspension(r, uid):
    """Take ``uid`` off the list of suspended accounts (the account is being deleted)."""
    r.zrem(keys.SUSPENDED, uid)

"""Private accounts: their statuses are for their approved followers only, and
following them is a request that their owner approves or rejects.

An account is private while its user hash has ``private`` = "1". Whether a status is
shown is read from its author's account at display (docs/decisions/0032): turning
private hides every status from all but followers at once; turning public shows them
all. Followers at the time an account turns private stay approved. Each status also
carries ``private`` = "1" in its hash if posted while private: the streaming API, which
has no time to ask, sends none of those (streaming/hub.py), and live pages
only to followers.

A request lives in follow_requests:{owner} (graph.follow records it, in the owner's
slot in the same step as it reads the account's privacy). Approving it is the follow
itself (graph.follow with ``approved``), which answers the request in the same step
as it adds the follower. Turning public approves every request waiting.
"""

from typing import Any, cast

from . import graph, jobs, keys, notifications, paging, scripts, users
from .client import Client
from .limits import NOTIFICATIONS_KEPT

# Requests approved within the request that turns an account public; the rest go to
# the fan-out workers (approve_job), so that an account with thousands waiting does
# not keep its owner waiting.
INLINE_APPROVALS = 100
# Requests read per round trip while approving them all.
_APPROVAL_BATCH = 100


def is_private(r: Client, uid: int) -> bool:
    """Whether ``uid``'s account is private."""
    return r.hget(keys.user(uid), "private") == "1"


def set_private(
    r: Client, uid: int, private: bool, notifications_kept: int = NOTIFICATIONS_KEPT
) -> int:
    """Make ``uid``'s account private or public; return how many waiting requests were
    approved (turning public approves them all: INLINE_APPROVALS now, the rest by a
    job for the fan-out workers). ``notifications_kept``: as graph.follow's, for the
    approvals made now."""
    users.forget_author(uid)  # this process's pages see the change at once
    if private:
        r.hset(keys.user(uid), "private", "1")
        return 0
    r.hdel(keys.user(uid), "private")
    approved, more = approve_waiting(
        r, uid, limit=INLINE_APPROVALS, notifications_kept=notifications_kept
    )
    if more:
        jobs.enqueue(r, approve_job(uid, notifications_kept))
    return approved


def approve_job(uid: int, notifications_kept: int = NOTIFICATIONS_KEPT) -> dict[str, Any]:
    """A job that approves every request waiting on the public account ``uid`` (each
    approval's notifications keeping ``notifications_kept``, the setting of the act that
    queued it)."""
    return {"kind": "approve_requests", "uid": uid, "notifications_kept": notifications_kept}


def approve_waiting(
    r: Client, uid: int, limit: int | None = None, notifications_kept: int = NOTIFICATIONS_KEPT
) -> tuple[int, bool]:
    """Approve the requests waiting on ``uid`` while the account is public; return
    (how many were approved, whether some are left because of ``limit``).

    Each approval is a follow (graph.follow), which answers its request. A request
    that cannot be approved (a block since, an account deleted since) is dropped; one
    whose requester's follow lock stays busy is left for the owner to approve by hand,
    or for the next switch.
    Stops if the account turns private again meanwhile. Safe to run twice at once.
    """
    approved, tried = 0, set()
    while not is_private(r, uid):
        batch = [
            int(other)
            for other in cast(
                list[str], r.zrange(keys.follow_requests(uid), 0, _APPROVAL_BATCH - 1)
            )
        ]
        batch = [other for other in batch if other not in tried]
        if not batch:
            return approved, False
        existing = users.get_users(r, batch)
        for requester in batch:
            if requester not in existing:  # the account is gone: so is its request
                tried.add(requester)
                r.zrem(keys.follow_requests(uid), requester)
                continue
            if limit is not None and approved >= limit:
                return approved, True
            tried.add(requester)
            try:
                result = graph.follow(
                    r, requester, uid, approved=True, notifications_kept=notifications_kept
                )
            except graph.LockBusy:
                continue
            if result in (graph.FollowResult.FOLLOWED, graph.FollowResult.ALREADY_FOLLOWING):
                approved += 1
            else:
                r.zrem(keys.follow_requests(uid), requester)
    return approved, False


def approve(
    r: Client, uid: int, requester_uid: int, notifications_kept: int = NOTIFICATIONS_KEPT
) -> graph.FollowResult:
    """``uid`` approves ``requester_uid``'s request to follow them: a graph.FollowResult
    (FOLLOWED; NO_REQUEST if it was withdrawn or answered; BLOCKED/BLOCKING).
    ``notifications_kept``: as graph.follow's."""
    return graph.follow(r, requester_uid, uid, approved=True, notifications_kept=notifications_kept)


def reject(r: Client, uid: int, requester_uid: int) -> bool:
    """``uid`` rejects ``requester_uid``'s request to follow them; whether there was one.
    The requester is not told; they may ask again. The request's notification goes too
    (one slot: uid's)."""
    request = notifications.member("follow_request", requester_uid)

    def fill(pipe):
        pipe.zrem(keys.follow_requests(uid), requester_uid)
        notifications.queue_unnotify(pipe, uid, [request])

    return bool(scripts.run_pipeline(r, fill)[0])


def has_requested(r: Client, uid: int, owner_uid: int) -> bool:
    """Whether ``uid`` asks to follow ``owner_uid``."""
    return r.zscore(keys.follow_requests(owner_uid), uid) is not None


def requests_page(
    r: Client,
    uid: int,
    before: int | None = None,
    count: int = 30,
    since: int | None = None,
    above: int | None = None,
) -> paging.Page:
    """A page of the users asking to follow ``uid``, latest first, and a cursor.
    ``since``, ``above``: the client API's paging, as paging.read_ids takes them."""
    pairs, next_cursor = paging.read_ids(r, keys.follow_requests(uid), before, count, since, above)
    found = users.get_users(r, [other for other, _ in pairs])
    return paging.Page(
        [found[other] for other, _ in pairs if other in found], next_cursor,
        prev_cursor=paging.top_cursor(pairs),
    )  # fmt: skip


def request_count(r: Client, uid: int) -> int:
    return r.zcard(keys.follow_requests(uid))

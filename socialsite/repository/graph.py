"""The social graph: following and unfollowing, and the two lists (section 8.3).

Each follow is two entries: ``o`` in following:{u} and ``u`` in followers:{o}. They
live in different slots (one per user), so no single step can change both. Instead:
- each side is changed by a script that updates the list and its count together
  (add_edge.lua, remove_edge.lua, unfollow.lua), so a count always equals its list;
- every step is idempotent, and a follow or unfollow always runs all of its steps,
  so repeating one after a crash repairs a half-done earlier attempt;
- ``u`` holds a short lock (lock:follow:{u}) while following or unfollowing, so two
  requests of the same user (a double click, two tabs) cannot interleave their steps
  and leave the two sides disagreeing.

A follow is refused while a block stands either way (blocks.py), and a follow of a
private account is a request until its owner approves it (privacy.py).
"""

import enum
import time
from typing import cast

from . import (
    events,
    fanout,
    jobs,
    keys,
    lists,
    locks,
    notifications,
    paging,
    scripts,
    search,
    suggestions,
    users,
)
from .client import Client
from .limits import (
    HOME_TIMELINE_SIZE,
    NOTIFICATIONS_KEPT,
)

LockBusy = locks.LockBusy


class FollowResult(enum.Enum):
    FOLLOWED = "followed"
    UNFOLLOWED = "unfollowed"
    ALREADY_FOLLOWING = "already following"
    NOT_FOLLOWING = "not following"
    SELF = "self"
    # A private account (privacy.py): following it asks its owner first.
    REQUESTED = "requested"
    ALREADY_REQUESTED = "already requested"
    REQUEST_WITHDRAWN = "request withdrawn"  # unfollow of an account only asked for
    NO_REQUEST = "no request"  # approving a request withdrawn or answered meanwhile
    # A block (blocks.py) refuses a follow either way.
    BLOCKED = "blocked"  # the other user blocks this one
    BLOCKING = "blocking"  # this user blocks the other


_CHECKED = {
    "blocked": FollowResult.BLOCKED,
    "blocking": FollowResult.BLOCKING,
    "requested": FollowResult.REQUESTED,
    "already requested": FollowResult.ALREADY_REQUESTED,
    "no request": FollowResult.NO_REQUEST,
}


# --- call points for notifications ------------------------------------------------------
# Notifications are not built here. These are called where a private account's owner
# is to hear of a request and the requester of its approval; a notifications module
# below this one fills them in.


def notify_follow_requested(
    r: Client, owner_uid: int, requester_uid: int, keep: int = NOTIFICATIONS_KEPT
) -> None:
    """Notify the private account ``owner_uid`` that ``requester_uid`` asks to follow
    them (once per request: the same event again is the same notification), keeping the
    newest ``keep``. Taken back when the request is answered or withdrawn."""
    event = notifications.member("follow_request", requester_uid)
    scripts.run_pipeline(
        r, lambda pipe: notifications.queue_notify(pipe, owner_uid, event, _now_ms(), keep)
    )


def notify_follow_approved(
    r: Client, requester_uid: int, owner_uid: int, keep: int = NOTIFICATIONS_KEPT
) -> None:
    """Notify ``requester_uid`` that ``owner_uid`` approved their request to follow
    them (by hand, or by turning the account public), keeping the newest ``keep``, and
    take the request's notification back from the owner."""
    approved = notifications.member("follow_approved", owner_uid)
    request = notifications.member("follow_request", requester_uid)

    def fill(pipe):
        notifications.queue_notify(pipe, requester_uid, approved, _now_ms(), keep)
        notifications.queue_unnotify(pipe, owner_uid, [request])

    scripts.run_pipeline(r, fill)


def replies_marked(status_ids, replies):
    """Status ids read from a profile, as backfill.lua takes them: each reply as
    "<id>:<replied-to user>", to be checked against the home timeline's reply rule.
    ``replies``: the members of keys.profile_replies, "<id>:<replied-to user>"."""
    replied = dict(reply.split(":") for reply in replies)
    return [f"{sid}:{replied[sid]}" if sid in replied else sid for sid in status_ids]


def reposts_marked(status_ids, reposts, reposter=None):
    """Status ids read from a profile with each repost among them marked as the
    scripts that put reposts into home timelines, or take them out, take it:
    "<rid>/<orig>/<author>", and "/<reposter>" after that when ``reposter`` is given
    (backfill.lua; unfollow.lua and take_out.lua go without). ``reposts``: the members
    of keys.profile_reposts, "<rid>:<orig>:<author>". Returns (the marked ids, the
    originals of the reposts among them, in their order)."""
    if not reposts:
        return list(status_ids), []
    found = {}
    for repost in reposts:
        rid, orig, author = repost.split(":")
        found[rid] = (orig, author)
    marked, originals = [], []
    for sid in status_ids:
        sid = str(sid)
        if sid in found:
            orig, author = found[sid]
            tail = f"/{reposter}" if reposter is not None else ""
            marked.append(f"{sid}/{orig}/{author}{tail}")
            originals.append(int(orig))
        else:
            marked.append(sid)
    return marked, originals


def queue_backfill(pipe, uid, other_uid, now, status_ids, replies, reposts):
    """Queue on ``pipe`` the copy of ``other_uid``'s statuses ``status_ids`` (newest
    first, from their profile; ``replies`` and ``reposts`` their keys.profile_replies
    and keys.profile_reposts members, read with it) into ``uid``'s home timeline by the
    home timeline's rules: replies by the reply rule, reposts by the dedupe rules
    (backfill.lua). Its reply is how many entries were added."""
    marked, originals = reposts_marked(
        replies_marked(status_ids, replies), reposts, reposter=other_uid
    )
    scripts.backfill.queue(
        pipe, uid=uid, followed=other_uid, now_ms=now, items=marked, originals=originals
    )


def backfill(r, uid, other_uid, now, status_ids, replies, reposts):
    """queue_backfill in a round trip of its own; returns how many entries were added."""
    return scripts.run_pipeline(
        r, lambda pipe: queue_backfill(pipe, uid, other_uid, now, status_ids, replies, reposts)
    )[0]


def take_out_of_home(r, uid, other_uid):
    """Take ``other_uid``'s newest HOME_TIMELINE_SIZE statuses and reposts out of
    ``uid``'s home timeline (a block, a mute), by the dedupe rules: an original that
    another followed user's repost still brings stays (take_out.lua). Two round trips;
    returns the ids read from the profile (statuses and reposts), for named lists."""
    pipe = r.pipeline(transaction=False)  # one slot: other's
    pipe.zrevrange(keys.profile(other_uid), 0, HOME_TIMELINE_SIZE - 1)
    pipe.zrange(keys.profile_reposts(other_uid), 0, -1)
    status_ids, reposts = pipe.execute()
    if not status_ids:
        return []
    marked, originals = reposts_marked(status_ids, reposts)
    scripts.take_out(r, uid=uid, author=other_uid, items=marked, originals=originals)
    return status_ids


def _now_ms():
    return int(time.time() * 1000)


def follow(
    r: Client,
    uid: int,
    other_uid: int,
    approved: bool = False,
    notifications_kept: int = NOTIFICATIONS_KEPT,
) -> FollowResult:
    """User ``uid`` follows ``other_uid``; return a FollowResult.

    0. In other's slot: refuse if a block stands either way; if other is private,
       record a request instead (and notify other of it), unless ``approved`` (other
       approves uid's request, privacy.approve: refused if there is no request)
       (follow_check.lua).
    1. Add other to following:{uid} (and count it), under the lock, unless a block
       stands either way (checked again in uid's slot: a block made since step 0
       refuses it here, or, made after this step, undoes it: blocks.block unfollows
       under this lock).
    2. Add uid to followers:{other} (and count it; any request of uid's is answered),
       notify other (nothing if the notification is there: a repeated follow) and, in
       the same round trip, read other's newest HOME_TIMELINE_SIZE status ids and which
       of them are replies, and what the search index's tiers need of other
       (search.followers_changed: a round trip more when that leaves other near a
       threshold of the index's tiers).
    3. Add those ids to home:{uid} and trim it to the cap, unless uid mutes other; a
       reply only if uid follows the user it replies to, or is them (backfill.lua).
       In the same round trip, set other's follower count (read in step 2, after the
       script) in the most-followed list (suggestions.queue_followers_count).
    Every notification it makes (the follow, a request, an approval) keeps the newest
    ``notifications_kept`` of its user's.
    Raises LockBusy if another follow or unfollow of ``uid`` takes too long.
    """
    uid, other_uid = int(uid), int(other_uid)
    if uid == other_uid:
        return FollowResult.SELF
    with locks.hold(r, keys.follow_lock(uid)):
        now = _now_ms()
        checked = scripts.follow_check(r, uid=uid, other=other_uid, now_ms=now, approved=approved)
        if checked != "follow":
            if checked == "requested":
                notify_follow_requested(r, other_uid, uid, notifications_kept)
                suggestions.forget(r, uid)  # the request is in other's slot
            return _CHECKED[checked]
        added = scripts.add_edge(r, follower=uid, followed=other_uid, now_ms=now, side="following")
        if added == -1:
            return FollowResult.BLOCKING if is_blocking(r, uid, other_uid) else FollowResult.BLOCKED

        def fill(pipe):
            scripts.add_edge.queue(
                pipe, follower=uid, followed=other_uid, now_ms=now, side="followers"
            )
            # After the script, in its slot: the count it left, for the most-followed list.
            pipe.hget(keys.user(other_uid), "followers")
            event = notifications.member("follow", uid)
            notifications.queue_notify(pipe, other_uid, event, now, notifications_kept)
            search.queue_read_for_tiers(pipe, other_uid)
            pipe.zrevrange(keys.profile(other_uid), 0, HOME_TIMELINE_SIZE - 1)
            # After the profile, in the same slot: a reply or a repost the profile
            # read shows is listed here too.
            pipe.zrange(keys.profile_replies(other_uid), 0, -1)
            pipe.zrange(keys.profile_reposts(other_uid), 0, -1)

        edge, followers_count, *_, for_tiers, status_ids, replies, reposts = scripts.run_pipeline(
            r, fill
        )
        if edge:
            search.followers_changed(r, other_uid, for_tiers, gained=True)

        def after(pipe):
            if status_ids:
                queue_backfill(pipe, uid, other_uid, now, status_ids, replies, reposts)
            if followers_count is not None:
                # In the same round trip (another slot): the account's place among the
                # most-followed, for who-to-follow (suggestions.py).
                suggestions.queue_followers_count(pipe, other_uid, followers_count, follow=True)

        scripts.run_pipeline(r, after)
    if added:
        # uid's open live pages start showing other's statuses now, not at their next
        # periodic refresh (timeline/live.py).
        events.publish_relations_changed(r, [uid])
    if approved and added:
        notify_follow_approved(r, uid, other_uid, notifications_kept)
    return FollowResult.FOLLOWED if added else FollowResult.ALREADY_FOLLOWING


def unfollow(
    r: Client, uid: int, other_uid: int, refill: bool = True, tell_live_pages: bool = True
) -> FollowResult:
    """User ``uid`` stops following ``other_uid``; return a FollowResult.

    1. Read other's newest HOME_TIMELINE_SIZE status ids.
    2. Remove other from following:{uid} (and uncount it) and those ids from
       home:{uid}, and note the unfollow for fan-outs in progress, in one step
       (unfollow.lua); then, in the same round trip, take other off uid's named lists
       with those ids (lists.queue_forget).
    3. Remove uid from followers:{other} (and uncount it), and take back the
       notification of the follow.
    3b. Set other's follower count (read in step 3, after the script) in the
       most-followed list (suggestions.queue_followers_count): one round trip.
    4. Queue a job to refill home:{uid} (fanout.refill_job), unless ``refill`` is
       False (``uid``'s account is being deleted: its home timeline goes too).
    5. Tell uid's open live pages (events.publish_relations_changed), unless
       ``tell_live_pages`` is False (the caller publishes an event of its own).
    Step 3 also withdraws a request of uid's to follow other (a private account):
    the result is then REQUEST_WITHDRAWN.
    Raises LockBusy if another follow or unfollow of ``uid`` takes too long.
    """
    uid, other_uid = int(uid), int(other_uid)
    if uid == other_uid:
        return FollowResult.SELF
    with locks.hold(r, keys.follow_lock(uid)):
        pipe = r.pipeline(transaction=False)  # one slot: one node
        pipe.zrevrange(keys.profile(other_uid), 0, HOME_TIMELINE_SIZE - 1)
        pipe.zrange(keys.profile_reposts(other_uid), 0, -1)
        status_ids, reposts = pipe.execute()
        marked, originals = reposts_marked(status_ids, reposts)

        def unfollow_and_unlist(pipe):
            scripts.unfollow.queue(
                pipe, uid=uid, followed=other_uid, now_ms=_now_ms(), items=marked,
                originals=originals,
            )  # fmt: skip
            # Off uid's named lists too, after the follow is gone (one slot, one trip).
            lists.queue_forget(pipe, uid, other_uid, status_ids)

        removed, _ = scripts.run_pipeline(r, unfollow_and_unlist)

        def fill(pipe):
            scripts.remove_edge.queue(pipe, follower=uid, followed=other_uid)
            pipe.hget(keys.user(other_uid), "followers")  # the count the script left
            taken_back = [
                notifications.member("follow", uid),
                notifications.member("follow_request", uid),
            ]
            notifications.queue_unnotify(pipe, other_uid, taken_back)
            search.queue_read_for_tiers(pipe, other_uid)

        (edge, withdrawn), followers_count, *_, for_tiers = scripts.run_pipeline(r, fill)
        if edge:
            search.followers_changed(r, other_uid, for_tiers, gained=False)
        if followers_count is not None:
            # Whatever ``removed`` says: a retry after a crash past step 2 must still
            # set it (an absolute count: setting it again changes nothing).
            scripts.run_pipeline(
                r,
                lambda pipe: suggestions.queue_followers_count(
                    pipe, other_uid, followers_count, follow=False
                ),
            )
    if removed and tell_live_pages:
        events.publish_relations_changed(r, [uid])  # uid's open live pages (as follow)
    if removed and refill:
        # Deferred, so the unfollow returns at once: top the home timeline up again
        # with older statuses of the people still followed (the book's exercise).
        jobs.enqueue(r, fanout.refill_job(uid))
        return FollowResult.UNFOLLOWED
    return FollowResult.REQUEST_WITHDRAWN if withdrawn else FollowResult.NOT_FOLLOWING


def is_following(r: Client, uid: int, other_uid: int) -> bool:
    return r.zscore(keys.following(uid), other_uid) is not None


def is_blocking(r: Client, uid: int, other_uid: int) -> bool:
    """Whether ``uid`` blocks ``other_uid``."""
    return r.zscore(keys.blocks(uid), other_uid) is not None


def _page_of_users(r, key, before, count, since=None, above=None):
    pairs, next_cursor = paging.read_ids(r, key, before, count, since, above)
    found = users.get_users(r, [uid for uid, _ in pairs])
    # Suspended accounts, and those being deleted, are listed nowhere.
    shown = [found[uid] for uid, _ in pairs if uid in found and not users.is_hidden(found[uid])]
    return paging.Page(shown, next_cursor, prev_cursor=paging.top_cursor(pairs))


def followers_page(
    r: Client,
    uid: int,
    before: int | None = None,
    count: int = 30,
    since: int | None = None,
    above: int | None = None,
) -> paging.Page:
    """A page of the users following ``uid``, most recent follow first, and a cursor.
    ``since``, ``above``: the client API's paging, as paging.read_ids takes them."""
    return _page_of_users(r, keys.followers(uid), before, count, since, above)


def following_page(
    r: Client,
    uid: int,
    before: int | None = None,
    count: int = 30,
    since: int | None = None,
    above: int | None = None,
) -> paging.Page:
    """A page of the users ``uid`` follows, most recent follow first, and a cursor.
    ``since``, ``above``: the client API's paging, as paging.read_ids takes them."""
    return _page_of_users(r, keys.following(uid), before, count, since, above)


def follower_ids(r: Client, uid: int) -> set[int]:
    """All follower ids of ``uid`` (tests and maintenance)."""
    members = cast(list[str], r.zrange(keys.followers(uid), 0, -1))  # no scores: members only
    return {int(member) for member in members}


def following_ids(r: Client, uid: int) -> set[int]:
    """All ids ``uid`` follows (tests and maintenance)."""
    members = cast(list[str], r.zrange(keys.following(uid), 0, -1))  # no scores: members only
    return {int(member) for member in members}

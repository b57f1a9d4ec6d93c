"""Leaving the site: deleting an account and all that is its; exporting it first.

Deleting an account (delete_account) begins at once and finishes in steps:

1. begin_deletion, in the request: the user hash is flagged (keys.LEAVING_FIELD), which
   hides the account everywhere as a suspension does (users.is_hidden); a job is
   queued that finishes the deletion, before anything is removed, so that nothing is
   left half done if the request dies; the login is reserved for
   limits.LOGIN_RESERVED_SECONDS (sign-up refuses it) and then freed; every session
   ends.
2. continue_deletion runs the DELETION_STEPS in order, each doing at most a budget of
   work: in the request up to limits.DELETION_INLINE_BUDGET units, the rest in the
   fan-out workers' "leave" jobs, each run up to limits.DELETION_JOB_BUDGET, queueing
   itself again until every step is done. Every step reads what is left from Redis,
   so a step repeated (a retried job, a request and a worker at once) does nothing
   twice.

The steps are one function per kind of data, ``step(r, uid, budget)`` returning the
units of work it did (fewer than ``budget``: it is done). A feature that keeps data of
its own about a user (likes, reposts, lists, notifications, blocks, mutes...) adds its
step to DELETION_STEPS, before delete_user_keys, which must stay last: it removes the
user hash that marks the deletion as under way.
"""

from . import (
    affinity,
    blocks,
    communities,
    direct,
    emails,
    eviction,
    filters,
    followed_tags,
    graph,
    jobs,
    keys,
    likes,
    lists,
    moderation,
    oauth,
    paging,
    profiles,
    reposts,
    search,
    sessions,
    statuses,
    users,
)
from .limits import DELETION_INLINE_BUDGET, LOGIN_RESERVED_SECONDS


def leave_job(uid):
    """The job that goes on deleting account ``uid`` (worker.py runs it)."""
    return {"kind": "leave", "uid": int(uid)}


def delete_account(r, uid, inline_budget=DELETION_INLINE_BUDGET, now=None):
    """Delete account ``uid``: begin_deletion, then continue_deletion with
    ``inline_budget``. Returns None if there is no such account, else whether it is
    all gone already (False: the workers finish it)."""
    if not begin_deletion(r, uid, now=now):
        return None
    try:
        return continue_deletion(r, uid, inline_budget)
    except graph.LockBusy:
        return False  # someone's follow lock held too long: the job does the rest


def begin_deletion(r, uid, now=None):
    """Hide account ``uid``, queue the job that deletes it, reserve its login and end
    its sessions (see the module's docstring). Returns False if there is no such
    account. Repeating it is harmless: the job finds nothing left to do."""
    user = users.get_user(r, uid)
    if user is None:
        return False
    search.set_hidden(r, user, keys.LEAVING_FIELD, "1")  # flagged and out of search at once
    jobs.enqueue(r, leave_job(uid))
    # Reserved before it is freed: a sign-up that gets the login sees the reservation.
    users.reserve_login(r, user["login"], LOGIN_RESERVED_SECONDS, now=now)
    users.release_login(r, user["login"], uid)
    sessions.end_all(r, uid)
    users.forget_author(uid)
    moderation.forget_moderator(r, uid)
    moderation.forget_suspension(r, uid)
    return True


def continue_deletion(r, uid, budget):
    """Run the DELETION_STEPS for ``uid`` with ``budget`` units of work at most; return
    whether the account is all gone (False: there may be more to do). Only for an
    account begin_deletion has flagged: for any other, nothing is done and None
    returned (a job for it ends there)."""
    if not r.hexists(keys.user(uid), keys.LEAVING_FIELD) and r.exists(keys.user(uid)):
        return None  # not being deleted: never remove a live account's data
    for step in DELETION_STEPS:
        budget -= step(r, uid, budget)
        if budget <= 0:
            return False  # perhaps more: the next run goes on from here
    return True


# --- the steps ----------------------------------------------------------------------


def unfollow_followers(r, uid, budget):
    """Everyone who follows ``uid`` stops: their following counts drop, the account's
    statuses leave their home timelines, which are topped up again (graph.unfollow).
    First, while the statuses are still on the profile for unfollow to find."""
    followers = [int(f) for f in r.zrange(keys.followers(uid), 0, budget - 1)]
    for follower in followers:
        graph.unfollow(r, follower, uid)
    return len(followers)


def unfollow_following(r, uid, budget):
    """``uid`` stops following everyone (their follower counts drop); no refill of a
    home timeline that goes anyway."""
    following = [int(f) for f in r.zrange(keys.following(uid), 0, budget - 1)]
    for other in following:
        graph.unfollow(r, uid, other, refill=False)
    return len(following)


def end_blocks_and_mutes(r, uid, budget):
    """Undo every block of ``uid``'s or on them, and every mute of theirs, so that the
    notes the others' fan-outs and pages read (keys.hiding, keys.hides in their slots)
    forget them. Mutes of ``uid`` by others stay with the others (their own lists) and
    name an id nobody will have again."""
    done = 0
    for key, undo in (
        (keys.blocks(uid), lambda other: blocks.unblock(r, uid, other)),
        (keys.blocked_by(uid), lambda other: blocks.unblock(r, other, uid)),
        (keys.mutes(uid), lambda other: blocks.unmute(r, uid, other)),
    ):
        for other in r.zrange(key, 0, budget - done - 1):
            undo(int(other))
            done += 1
        if done >= budget:
            break
    return done


def undo_reposts(r, uid, budget):
    """Undo the account's reposts (counts on the originals, the authors'
    notifications; its followers' homes lost them with the unfollows), then delete its
    reposted, profile-reposts and home-reposts keys (reposts.undo_all_of)."""
    return reposts.undo_all_of(r, uid, budget)


# Statuses deleted per round trip (statuses.delete_statuses_of_leaving_user).
_STATUS_CHUNK = 100


def delete_statuses(r, uid, budget):
    """Delete the account's statuses, newest first, and queue the undoing of others'
    reposts of them."""
    sids = [int(sid) for sid in r.zrevrange(keys.profile(uid), 0, budget - 1)]
    for start in range(0, len(sids), _STATUS_CHUNK):
        chunk = sids[start : start + _STATUS_CHUNK]
        pipe = r.pipeline(transaction=False)
        for sid in chunk:
            pipe.exists(keys.reposts(sid))
        reposted = [sid for sid, found in zip(chunk, pipe.execute(), strict=True) if found]
        statuses.delete_statuses_of_leaving_user(r, uid, chunk)
        if reposted:
            # Others' reposts of them go too, with the workers (reposts.purge_reposts).
            jobs.enqueue(r, *(reposts.purge_job(sid, uid) for sid in reposted))
    return len(sids)


def delete_lists(r, uid, budget):
    """Delete the account's named lists. (Its places on others' lists went with the
    unfollows of unfollow_followers: graph.unfollow takes it off the follower's lists.)"""
    return lists.delete_lists_of_leaving_user(r, uid, budget)


def undo_likes(r, uid, budget):
    """Take back the account's likes: each status's like count drops and its author's
    notification goes (likes.undo_likes_of_leaving_user); the list goes with them."""
    return likes.undo_likes_of_leaving_user(r, uid, budget)


def close_reports(r, uid, budget):
    """Close the open reports about the account: there is nothing left to judge. The
    reports and the audit log stay (they are the moderators' records)."""
    moderation.close_reports_about(r, uid, "account deleted", "account deletion")
    return 0


def leave_conversations(r, uid, budget):
    """The account leaves its direct conversations (direct.leave_all_of_leaving_user):
    the others keep them, and its messages in them, shown as from a deleted account.
    A message is the others' record of what was said to them, as a reply kept in their
    thread would be; the export gave the leaver their copy."""
    return direct.leave_all_of_leaving_user(r, uid, budget)


def forget_in_search(r, uid, budget):
    """Take the account off the search index (begin_deletion did, in the round trip
    that flagged it; this mends a deletion begun before, or cut short): search.forget_person."""
    return search.forget_person(r, uid)


def revoke_app_tokens(r, uid, budget):
    """Every app's access token of the account, and their list (oauth.revoke_user_tokens;
    the hidden account's tokens were refused already: api/auth.py). One unit of work."""
    oauth.revoke_user_tokens(r, uid)
    return 0


def free_email(r, uid, budget):
    """Let another account take the account's address (emails.release); its
    credentials hash, with the address, goes in the next step."""
    emails.release(r, uid)
    return 0


def delete_user_keys(r, uid, budget):
    """The last step: the account's own keys, the notes naming it, and last of all its
    user hash (with it the flag that says the deletion is under way)."""
    sessions.end_all(r, uid)
    statuses.forget_posting_keys(r, uid)
    pipe = r.pipeline(transaction=False)
    # The unfollow notes are in their users' shards, one key per shard.
    for key in keys.all_unfollowed_notes(uid):
        pipe.delete(key)
    pipe.zrem(keys.MOST_FOLLOWED, uid)  # who to follow (suggestions.py)
    eviction.queue_forget(pipe, uid)
    pipe.execute()
    # The rest share the user's slot: one command; the hash goes last.
    r.delete(
        keys.home(uid),
        keys.profile(uid),
        keys.followers(uid),
        keys.following(uid),
        keys.credentials(uid),
        keys.user_sessions(uid),
        keys.reports_about(uid),
        keys.profile_replies(uid),
        keys.notifications(uid),
        keys.notifications_state(uid),
        keys.markers(uid),
        keys.follow_requests(uid),
        keys.blocks(uid),
        keys.blocked_by(uid),
        keys.mutes(uid),
        keys.mute_ends(uid),
        keys.hides(uid),
        keys.suggestions(uid),
        keys.user_likes(uid),
        keys.likes_changed(uid),
        keys.bookmarks(uid),
        keys.pinned(uid),
        keys.followed_tags(uid),
        *direct.forget_keys(uid),
    )
    r.delete(keys.user(uid))
    users.forget_author(uid)
    return 0


def forget_pictures(r, uid, budget):
    """The account's avatar and header are listed for the app to delete their files
    (profiles.forget_pictures; media/files.py deletes them). First: one unit of work,
    so that it is done in the request, which deletes the files right after."""
    return profiles.forget_pictures(r, uid, budget)


# In order; see the module's docstring. delete_user_keys stays last.
DELETION_STEPS = [
    forget_pictures,
    unfollow_followers,
    unfollow_following,
    end_blocks_and_mutes,
    undo_reposts,
    delete_statuses,
    delete_lists,
    close_reports,
    undo_likes,
    leave_conversations,
    communities.forget_user,  # groups: every membership
    forget_in_search,
    revoke_app_tokens,
    free_email,
    affinity.forget,
    followed_tags.forget_user,  # followed hashtags
    filters.forget,  # keyword filters
    delete_user_keys,
]


# --- export -------------------------------------------------------------------------

# Entries read per round trip while exporting: memory stays bounded by this.
EXPORT_CHUNK = 500


def export_statuses(r, uid, chunk=EXPORT_CHUNK):
    """Every status of ``uid``, newest first (a generator: one page in memory at once)."""
    before = None
    while True:
        pairs, before = paging.read_ids(r, keys.profile(uid), before, chunk)
        yield from statuses.get_statuses(r, [sid for sid, _ in pairs])
        if before is None:
            return


def _export_people(r, key, chunk):
    before = None
    while True:
        pairs, before = paging.read_ids(r, key, before, chunk)
        found = users.get_users(r, [uid for uid, _ in pairs])
        for uid, since_ms in pairs:
            if uid in found:
                person = found[uid]
                yield {
                    "id": uid,
                    "login": person["login"],
                    "name": person["name"],
                    "since": since_ms / 1000,
                }
        if before is None:
            return


def export_following(r, uid, chunk=EXPORT_CHUNK):
    """Everyone ``uid`` follows, latest follow first: id, login, name, since (s)."""
    return _export_people(r, keys.following(uid), chunk)


def export_followers(r, uid, chunk=EXPORT_CHUNK):
    """Everyone who follows ``uid``, latest first: id, login, name, since (s)."""
    return _export_people(r, keys.followers(uid), chunk)


def _export_marked(r, key, chunk, when_name):
    """The statuses listed in ``key`` (a ZSET of status ids by time in ms), latest
    first: id, the author's login (None for a status deleted since) and ``when_name``
    (s). A page of ids and one pipeline of logins a round trip each."""
    before = None
    while True:
        pairs, before = paging.read_ids(r, key, before, chunk)
        if pairs:
            pipe = r.pipeline(transaction=False)
            for sid, _ in pairs:
                pipe.hget(keys.status(sid), "login")
            logins = pipe.execute()
            for (sid, at_ms), login in zip(pairs, logins, strict=True):
                yield {"id": int(sid), "login": login, when_name: at_ms / 1000}
        if before is None:
            return


def export_bookmarks(r, uid, chunk=EXPORT_CHUNK):
    """The statuses ``uid`` bookmarked, latest bookmark first: id, the author's login,
    bookmarked (s)."""
    return _export_marked(r, keys.bookmarks(uid), chunk, "bookmarked")


def export_pinned(r, uid):
    """The statuses ``uid`` pinned to their profile (at most 5), latest pin first: id,
    login (theirs), pinned (s)."""
    return _export_marked(r, keys.pinned(uid), EXPORT_CHUNK, "pinned")


def export_conversations(r, uid):
    """Every direct conversation ``uid`` is in: id, members, the messages they see."""
    return direct.export_conversations(r, uid)

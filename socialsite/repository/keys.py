"""Every Redis key socialsite uses is built here, and nowhere else.

Key names follow the book (chapter 8 of *Redis in Action*): ``user:<id>``,
``status:<id>``, ``home:<id>``, ... with one addition: every key that belongs to a user
carries that user's *shard* as a hash tag: ``user:{s42}:1066`` is user 1066's hash in
shard 42 (1066 mod 64). Redis Cluster puts keys with the same hash tag in the same
slot, which gives us two things:
- one user's hash, timelines and follow lists share a slot, so a Lua script may
  change several of them atomically (no script or MULTI ever spans two slots);
- a fan-out batch of 1000 followers falls into at most USER_SHARDS slot groups, and
  each group is delivered by one script call instead of 1000 (fanout.deliver).
"""

# Counters that hand out ids. INCR makes ids unique and increasing: status ids are
# issued in posting order, which is why timelines can be scored by id.
USER_IDS = "user:id:"
STATUS_IDS = "status:id:"

# HASH: lowercased login -> user id. HSETNX on it decides who gets a login.
LOGINS = "users:"

# PUBSUB channel carrying posted and deleted statuses to the streaming servers.
STATUS_CHANNEL = "streaming:status:"

# How many shards users are spread over (see above). More shards spread a big cluster
# more evenly; fewer make fan-out batches bigger. It is part of every user key's name:
# changing it means moving the data, so it is a constant, not a setting.
USER_SHARDS = 64


def shard(uid):
    """The hash tag of user ``uid``'s keys."""
    return f"{{s{int(uid) % USER_SHARDS}}}"


def user(uid):
    """HASH: login, name, id, followers, following, posts, signup; and while they
    apply, SUSPENDED_FIELD, LEAVING_FIELD, MODERATOR_FIELD (below). Public fields only."""
    return f"user:{shard(uid)}:{uid}"


def credentials(uid):
    """HASH: password (an Argon2 hash). Kept apart so the public hash never carries it."""
    return f"credentials:{shard(uid)}:{uid}"


def home(uid):
    """SET of integers: ids of the statuses of the user and everyone they follow.

    Status ids grow with time, so the set's numeric order is the timeline's order.
    Redis keeps an all-integer set of up to set-max-intset-entries members as a sorted
    array of 4-byte integers (an intset): ~4 bytes per entry, and SADD is a binary
    search. Capped at HOME_TIMELINE_SIZE (+ slack, trimmed in batches).
    """
    return f"home:{shard(uid)}:{uid}"


def homes_in_one_shard(uids):
    """``[home(uid) for uid in uids]`` for users of one shard, with the tag made once
    (a fan-out builds a million of these)."""
    tag = shard(uids[0])
    return [f"home:{tag}:{uid}" for uid in uids]


def profile(uid):
    """ZSET: ids of the statuses the user posted, scored by id."""
    return f"profile:{shard(uid)}:{uid}"


def followers(uid):
    """ZSET: ids of the users who follow ``uid``, scored by follow time (unique ms)."""
    return f"followers:{shard(uid)}:{uid}"


def following(uid):
    """ZSET: ids of the users ``uid`` follows, scored by follow time (unique ms)."""
    return f"following:{shard(uid)}:{uid}"


def unfollowed(uid, other_uid):
    """ZSET: users of ``uid``'s shard who stopped following ``other_uid`` lately.

    Members are user ids scored by the unfollow's time in ms; entries older than
    limits.UNFOLLOW_MEMORY_MS are dropped and the key expires after it. A fan-out
    batch reads its followers, then delivers: whoever unfollowed in between is
    listed here, in the same slot as their home timeline, so deliver.lua can skip
    them while touching one key per shard instead of every follower's list.
    """
    return f"unfollowed:{shard(uid)}:{other_uid}"


def same_shard_groups(uids):
    """``uids`` grouped by shard: each group's keys share one cluster slot."""
    groups = {}
    for uid in uids:
        groups.setdefault(uid % USER_SHARDS, []).append(uid)
    return list(groups.values())


def follow_lock(uid):
    """STRING: held while ``uid`` follows or unfollows someone (see graph.py)."""
    return f"lock:follow:{shard(uid)}:{uid}"


def status(sid):
    """HASH: message, posted, id, uid, login, and optional fields such as location."""
    return f"status:{sid}"


def deleted_statuses(uid):
    """ZSET: the ids of statuses deleted in the last limits.DELETED_NOTE_MS, scored by
    the time of deletion (ms), in user ``uid``'s slot. Every shard holds the same notes
    (all_deleted_statuses), so that home_page.lua can skip deleted ids within its own
    slot. The key expires when no status has been deleted for that long."""
    return f"deleted:{shard(uid)}"


def all_deleted_statuses():
    """The deleted_statuses key of every shard (a delete writes to each)."""
    return [f"deleted:{{s{index}}}" for index in range(USER_SHARDS)]


def unfinished_posts(uid):
    """HASH: status id -> JSON {author, upto, at} for each status of the users of
    ``uid``'s shard that is on its author's profile but whose fan-out is not yet queued
    in full. add_own_status.lua writes the entry in the same step as the profile, the
    posting request deletes it once the deferred job is queued, and the fan-out
    workers finish any left behind by a request that died (statuses.finish_unfinished)."""
    return f"unfinished:{shard(uid)}"


def all_unfinished_posts():
    """The unfinished_posts key of every shard."""
    return [f"unfinished:{{s{index}}}" for index in range(USER_SHARDS)]


def posting_key(uid, key):
    """STRING: the status id posted by the form submission ``key`` of user ``uid``
    (limits.POSTING_KEY_SECONDS): the same form sent again posts nothing new."""
    return f"posting:{shard(uid)}:{uid}:{key}"


# STRING: held (SET NX PX) by the one fan-out worker sweeping unfinished posts.
UNFINISHED_SWEEP_LOCK = "unfinished:sweep-lock"


def session(session_key):
    """STRING: one Django session's signed data, expiring with the session.

    A logged-in session's key starts with its user's id ("42.k3j...":
    sessions.key_naming_user), and its data lives in that user's slot, so that the
    session and the user are read in one round trip even on a cluster.
    """
    uid = session_user_id(session_key)
    if uid is None:
        return f"session:{session_key}"
    return f"session:{shard(uid)}:{session_key}"


def session_user_id(session_key):
    """The user id a session key starts with ("42.k3j..." -> 42), or None."""
    head, dot, _ = session_key.partition(".")
    if dot and head.isascii() and head.isdigit() and len(head) <= 19:
        return int(head)
    return None


# STREAMs of deferred work (fan-out beyond the inline followers, cleanup after a
# delete, refill after an unfollow), read by the fan-out workers' consumer group.
# The shared hash tag keeps both in one slot, so a script can move a job from one
# to the other atomically.
JOBS = "fanout:{queue}:jobs"
DEAD_JOBS = "fanout:{queue}:dead"
# HASH: stream id of a queued job -> how many of its runs raised an error so far.
JOB_FAILURES = "fanout:{queue}:failures"
JOBS_GROUP = "fanout-workers"  # the consumer group's name (not a key)


# --- moderation, suspension and leaving the site (moderation.py, leaving.py) -------------

# Fields of the user hash (keys.user) that hide or mark an account. Public: every read of
# a user hash sees them at no cost (a home page's authors, a session's user), and search
# can leave hidden accounts out by them.
SUSPENDED_FIELD = "suspended"  # time of the suspension, while suspended
LEAVING_FIELD = "leaving"  # time the account's deletion began, until the hash goes
MODERATOR_FIELD = "moderator"  # "1" for a moderator


def user_sessions(uid):
    """ZSET: the session keys of ``uid``'s logged-in sessions (sessions.key_naming_user),
    scored by when each expires (ms). Written in the same step as the session, in its
    slot (lua/save_session.lua), so that all of a user's sessions can be ended at once
    (sessions.end_all). Entries past their expiry are dropped as sessions are saved."""
    return f"sessions:{shard(uid)}:{uid}"


def posting_keys(uid):
    """ZSET: the form submission keys of ``uid``'s posting_key strings, scored by when
    each was claimed (ms), pruned past limits.POSTING_KEY_SECONDS: what deleting the
    account deletes (statuses.forget_posting_keys)."""
    return f"posting-keys:{shard(uid)}:{uid}"


def all_unfollowed_notes(other_uid):
    """The unfollowed key of every shard for ``other_uid`` (an account that leaves
    deletes them all once its followers are gone)."""
    return [f"unfollowed:{{s{index}}}:{other_uid}" for index in range(USER_SHARDS)]


# SET: the ids of the moderators (the user hash's MODERATOR_FIELD decides; this lists them).
MODERATORS = "moderators:"

# ZSET: the ids of the suspended accounts, scored by the suspension's time (ms). The
# stream servers read it (a few ids) to leave these authors' events out.
SUSPENDED = "suspended:"

# STRING: counter handing out report ids (INCR).
REPORT_IDS = "report:id:"


def report(rid):
    """HASH: id, reporter (uid), reporter_login, account (uid), login, reason, comment,
    statuses (comma-separated status ids), created (s), state (open, closed), and once
    closed: outcome, closed_by, closed_at. Expires limits.REPORT_KEEP_SECONDS after it
    is closed."""
    return f"report:{rid}"


# ZSET: the ids of the open reports, scored by id (newest first is highest first).
OPEN_REPORTS = "reports:open"


def reports_about(uid):
    """ZSET: the ids of the open reports about ``uid``, scored by id, so that
    suspending (or deleting) the account closes them all."""
    return f"reports:{shard(uid)}:{uid}"


# STREAM: the moderation audit log, one entry per action: action, by, by_id, target,
# target_id, status, report, reason. The entry id says when.
MODERATION_LOG = "moderation:log"

# ZSET: lowercased logins of deleted accounts, scored by when they are free again (s).
# Sign-up refuses a login while it is listed here with a time in the future.
RESERVED_LOGINS = "logins:reserved"

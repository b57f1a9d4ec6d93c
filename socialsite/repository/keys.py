"""Every Redis key socialsite uses is built here, and nowhere else.

Key names follow the book (chapter 8 of *Redis in Action*): ``user:<id>``,
``status:<id>``, ``home:<id>``, ... with one change: every key that belongs to one user
carries the user id as a hash tag, ``user:{42}``, ``home:{42}``. Redis Cluster puts keys
with the same hash tag in the same slot, so one user's hash, timelines and follow lists
live together and a Lua script may change several of them atomically. No script or
MULTI ever spans two users, which is what keeps us cluster-safe.
"""

# Counters that hand out ids. INCR makes ids unique and increasing: status ids are
# issued in posting order, which is why timelines can be scored by id.
USER_IDS = "user:id:"
STATUS_IDS = "status:id:"

# HASH: lowercased login -> user id. HSETNX on it decides who gets a login.
LOGINS = "users:"

# PUBSUB channel carrying posted and deleted statuses to the streaming servers.
STATUS_CHANNEL = "streaming:status:"


def user(uid):
    """HASH: login, name, id, followers, following, posts, signup. Public fields only."""
    return f"user:{{{uid}}}"


def credentials(uid):
    """HASH: password (an Argon2 hash). Kept apart so the public hash never carries it."""
    return f"credentials:{{{uid}}}"


def home(uid):
    """ZSET: status ids of the user and of everyone they follow, scored by id, capped."""
    return f"home:{{{uid}}}"


def profile(uid):
    """ZSET: ids of the statuses the user posted, scored by id."""
    return f"profile:{{{uid}}}"


def followers(uid):
    """ZSET: ids of the users who follow ``uid``, scored by follow time (unique ms)."""
    return f"followers:{{{uid}}}"


def following(uid):
    """ZSET: ids of the users ``uid`` follows, scored by follow time (unique ms)."""
    return f"following:{{{uid}}}"


def follow_lock(uid):
    """STRING: held while ``uid`` follows or unfollows someone (see graph.py)."""
    return f"lock:follow:{{{uid}}}"


def status(sid):
    """HASH: message, posted, id, uid, login, and optional fields such as location."""
    return f"status:{sid}"


def session(session_key):
    """STRING: one Django session's signed data, expiring with the session."""
    return f"session:{session_key}"


# STREAMs of deferred work (fan-out beyond the inline followers, cleanup after a
# delete, refill after an unfollow), read by the fan-out workers' consumer group.
# The shared hash tag keeps both in one slot, so a script can move a job from one
# to the other atomically.
JOBS = "fanout:{queue}:jobs"
DEAD_JOBS = "fanout:{queue}:dead"
JOBS_GROUP = "fanout-workers"  # the consumer group's name (not a key)

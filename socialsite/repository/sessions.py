"""Django sessions, one STRING per session that expires with it.

The Django side (accounts/session_store.py) encodes and signs the data; here it is
opaque text. A logged-in session is also listed among its user's sessions
(keys.user_sessions), written in the same step, so that all of them can be ended at
once (end_all: a suspension, an account's deletion).
"""

import time

from . import eviction, keys, scripts, users


def key_naming_user(uid, random_part):
    """The session key of a session of user ``uid``: their id, a dot, then the random
    part, which alone makes the key unguessable. keys.session files it in the user's
    slot; load_with_user reads both at once."""
    return f"{int(uid)}.{random_part}"


def load(r, session_key):
    """The stored session data, or None if there is none (or it expired)."""
    return r.get(keys.session(session_key))


def load_with_user(r, session_key, read_along=()):
    """(session data or None, (uid, user dict, password hash) or None), in one round
    trip: the user is the one the key names (key_naming_user), if it names one.

    What a logged-in page needs before anything else, read together: the session says
    who is logged in, the user's hash and password hash whether that still holds.
    ``read_along``: more reads of that user's keys for the same round trip (such as
    timelines.HomeIdsRead), each with ``queue(pipe, uid)`` and ``take(uid, replies)``
    and a count of ``replies``; they are made only if the key names a user, and the
    caller must use what they read only if the session turns out to be that user's.
    The user is noted seen today in the same round trip (eviction.queue_seen: once a
    day per process; a forged key naming a user keeps that user's home, no more).
    """
    uid = keys.session_user_id(session_key)
    if uid is None:
        return load(r, session_key), None

    def fill(pipe):
        # The read-along first. The home page's is a script, and Redis before 7.0
        # sends the replies queued before a script's in one write and the script's,
        # with all after it, in another, so the page may read twice for one round trip
        # (strace, the embedded 6.2 server). With the script first it is one write.
        for reader in read_along:
            reader.queue(pipe, uid)
        pipe.get(keys.session(session_key))
        users.queue_user_and_password_hash(pipe, uid)
        noted[0] = eviction.queue_seen(pipe, uid)

    noted = [0]
    replies = scripts.run_pipeline(r, fill)
    for reader in read_along:
        reader.take(uid, replies[: reader.replies])
        replies = replies[reader.replies :]
    data, user_data, password_hash = replies[:3]
    user = users.decode_user(user_data)
    return data, ((uid, user, password_hash if user else None) if data is not None else None)


def exists(r, session_key):
    return bool(r.exists(keys.session(session_key)))


def save(r, session_key, data, ttl_seconds, must_create=False):
    """Store a session's data for ``ttl_seconds``; return whether it was written.

    With ``must_create`` the write succeeds only if the key is new (SET NX), so two
    processes never hand out the same session key. Otherwise only if the key still
    exists (SET XX): a request that finishes after a logout elsewhere must not bring
    the logged-out session back to life.
    """
    uid = keys.session_user_id(session_key)
    if uid is not None:
        # A logged-in session: listed among its user's sessions in the same step.
        now_ms = int(time.time() * 1000)
        return bool(
            scripts.save_session(
                r,
                session_key=session_key,
                uid=uid,
                data=data,
                ttl_seconds=ttl_seconds,
                must_create=must_create,
                now_ms=now_ms,
            )  # fmt: skip
        )
    return bool(
        r.set(
            keys.session(session_key),
            data,
            ex=ttl_seconds,
            nx=must_create,
            xx=not must_create,
        )
    )


def delete(r, session_key):
    uid = keys.session_user_id(session_key)
    if uid is None:
        r.delete(keys.session(session_key))
        return
    pipe = r.pipeline(transaction=False)  # one slot: one node
    pipe.delete(keys.session(session_key))
    pipe.zrem(keys.user_sessions(uid), session_key)
    pipe.execute()


# Sessions ended per round trip by end_all.
_END_CHUNK = 500


def end_all(r, uid):
    """End every session of user ``uid`` now (they are logged out everywhere); return
    how many there were.

    Reads the user's list of sessions and deletes them with their entries, until the
    list is empty. A session made meanwhile would be listed too (save_session.lua),
    and is ended by the next pass; callers make sure none can be made (a suspended
    account cannot log in) before they call this.
    """
    index = keys.user_sessions(uid)
    ended = 0
    while True:
        session_keys = r.zrange(index, 0, _END_CHUNK - 1)
        if not session_keys:
            return ended
        pipe = r.pipeline(transaction=False)  # every key in the user's slot: one node
        # A raw DEL: redis-py's cluster pipelines refuse a DEL of several keys, even of
        # one slot, and route a raw command by its first key.
        pipe.execute_command("DEL", *(keys.session(key) for key in session_keys))
        pipe.zrem(index, *session_keys)
        ended += pipe.execute()[0]

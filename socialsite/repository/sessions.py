"""Django sessions, one STRING per session that expires with it.

The Django side (accounts/session_store.py) encodes and signs the data; here it is
opaque text.
"""

from . import keys


def load(r, session_key):
    """The stored session data, or None if there is none (or it expired)."""
    return r.get(keys.session(session_key))


def exists(r, session_key):
    return bool(r.exists(keys.session(session_key)))


def save(r, session_key, data, ttl_seconds, must_create=False):
    """Store a session's data for ``ttl_seconds``; return whether it was written.

    With ``must_create`` the write succeeds only if the key is new (SET NX), so two
    processes never hand out the same session key. Otherwise only if the key still
    exists (SET XX): a request that finishes after a logout elsewhere must not bring
    the logged-out session back to life.
    """
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
    r.delete(keys.session(session_key))

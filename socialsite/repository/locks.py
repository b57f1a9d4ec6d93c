"""A short lock held in Redis, as in chapter 6 of the book (acquire_lock_with_timeout).

SET NX PX acquires it with an expiry, so a holder that crashes frees it in time; the
release script deletes it only while it still holds our random token.
"""

import contextlib
import time
import uuid

from . import scripts


class LockBusy(Exception):
    """Someone else held the lock for longer than we were willing to wait."""


@contextlib.contextmanager
def hold(r, key, wait_seconds=3.0, expire_ms=10_000):
    token = uuid.uuid4().hex
    deadline = time.monotonic() + wait_seconds
    while not r.set(key, token, nx=True, px=expire_ms):
        if time.monotonic() > deadline:
            raise LockBusy(key)
        time.sleep(0.005)
    try:
        yield
    finally:
        scripts.release_lock(r, lock=key, token=token)

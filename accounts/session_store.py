"""A Django session engine (SESSION_ENGINE = "accounts.session_store") on Redis.

The five methods Django asks of a store, each one call into the repository's
sessions module, which owns the keys. Data is stored as plain JSON (encode/decode).

One addition: the key of a logged-in session starts with its user's id ("42.k3j...",
made when the session is saved with a user in it: accounts.auth.login puts the user in
before it cycles the key). load() then reads the user along with the session, in the
same round trip, and leaves it in ``loaded_user`` for accounts.auth.get_user, which
would otherwise read it next: one round trip less on every logged-in page. A view may
add reads of that user's own keys to the same round trip (read_along): the home page
reads its ids there. Every page reads the user's unread notification count there
(notifications.UnreadRead, one HMGET), and their conversations with unread messages
(direct.UnreadRead, one HMGET), for the navigation's badges, and their keyword filters
(filters.Read, one HGETALL) for the pages that show statuses.
"""

import json
import logging

from django.contrib.sessions.backends.base import (
    VALID_KEY_CHARS,
    CreateError,
    SessionBase,
    UpdateError,
)
from django.utils.crypto import get_random_string

from socialsite.connection import get_redis
from socialsite.repository import direct, filters, notifications, sessions

# The session field that holds the logged-in user's id (as django.contrib.auth's).
USER_ID_FIELD = "_auth_user_id"


class SessionStore(SessionBase):
    # (uid, user dict or None, password hash or None) read with the session, or None.
    loaded_user = None

    def __init__(self, session_key=None):
        super().__init__(session_key)
        # The unread count of the user the key names, read with the session (every
        # page shows it): accounts.auth.user_from_session hands it to the user.
        self.unread = notifications.UnreadRead()
        self.direct_unread = direct.UnreadRead()
        # Keyword filters: the user's filters, read with the session for the pages that
        # show statuses (timeline/jinja_helpers.page_filters): one HGETALL more.
        self.filters = filters.Read()

    def read_along(self, reader):
        """Have ``reader`` (e.g. timelines.HomeIdsRead) read with the session and its
        user, in the same round trip, if the session is not loaded yet and its key
        names a user. Whoever uses what it read must check that the session is that
        user's (request.user); if nothing was read, the reader is left empty."""
        if not hasattr(self, "_session_cache"):
            self._read_along = [*getattr(self, "_read_along", ()), reader]

    def load(self):
        data, self.loaded_user = sessions.load_with_user(
            get_redis(),
            self._get_or_create_session_key(),
            read_along=[
                *getattr(self, "_read_along", ()),
                self.unread,
                self.direct_unread,
                self.filters,
            ],
        )
        if data is None:
            self._session_key = None
            return {}
        return self.decode(data)

    def encode(self, session_dict):
        # Plain JSON, where Django's stores sign (HMAC) and compress, which every page
        # would pay for (docs/decisions/0011). A signature would guard the data against someone who
        # can write to Redis, who could write anything else there too; and JSON, unlike
        # pickle, cannot run code however it was tampered with.
        return json.dumps(session_dict, separators=(",", ":"))

    def decode(self, session_data):
        if not session_data.startswith("{"):
            # Written signed, by Django's own encode (before this store had its own).
            return super().decode(session_data)
        try:
            data = json.loads(session_data)
        except ValueError:
            data = None
        if not isinstance(data, dict):
            logging.getLogger("django.security.SuspiciousSession").warning("Session data corrupted")
            return {}
        return data

    def _get_new_session_key(self):
        # Uniqueness is create()'s SET NX, which draws again if the key is taken.
        random_part = get_random_string(32, VALID_KEY_CHARS)
        uid = (getattr(self, "_session_cache", None) or {}).get(USER_ID_FIELD)
        return random_part if uid is None else sessions.key_naming_user(uid, random_part)

    def exists(self, session_key):
        return sessions.exists(get_redis(), session_key)

    def create(self):
        while True:
            self._session_key = self._get_new_session_key()
            try:
                self.save(must_create=True)
            except CreateError:
                continue  # that key was taken meanwhile: draw another
            self.modified = True
            return

    def save(self, must_create=False):
        if self.session_key is None:
            return self.create()
        data = self.encode(self._get_session(no_load=must_create))
        written = sessions.save(
            get_redis(), self.session_key, data, self.get_expiry_age(), must_create=must_create
        )
        if not written:
            raise CreateError if must_create else UpdateError

    def delete(self, session_key=None):
        if session_key is None:
            if self.session_key is None:
                return
            session_key = self.session_key
        sessions.delete(get_redis(), session_key)

    @classmethod
    def clear_expired(cls):
        pass  # Redis expires each session key by itself.

"""A Django session engine (SESSION_ENGINE = "accounts.session_store") on Redis.

The five methods Django asks of a store, each one call into the repository's
sessions module, which owns the keys. Data is signed and encoded by SessionBase.
"""

from django.contrib.sessions.backends.base import CreateError, SessionBase, UpdateError

from socialsite.connection import get_redis
from socialsite.repository import sessions


class SessionStore(SessionBase):
    def load(self):
        data = sessions.load(get_redis(), self._get_or_create_session_key())
        if data is None:
            self._session_key = None
            return {}
        return self.decode(data)

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

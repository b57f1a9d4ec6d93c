"""Flash messages ("Your status is posted.") kept in the session, the newest few only."""

from django.contrib.messages.storage.session import SessionStorage

# A client that acts without ever loading a page (a script, a form posted again and
# again) would otherwise pile messages up in its session without end, and every
# request rewrites the session: a person reads a handful at most.
MAX_MESSAGES = 10


class BoundedSessionStorage(SessionStorage):
    """Django's session storage of messages, keeping the MAX_MESSAGES newest."""

    def _store(self, messages, response, *args, **kwargs):
        return super()._store(messages[-MAX_MESSAGES:], response, *args, **kwargs)

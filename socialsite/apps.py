from django.apps import AppConfig
from django.core import signals
from django.core.cache import caches, close_caches
from django.core.cache.backends.base import BaseCache
from django.db import close_old_connections, connections, reset_queries
from django.utils.module_loading import import_string

# What Django puts in DATABASES when it is empty.
NO_DATABASE = "django.db.backends.dummy"


class SocialsiteConfig(AppConfig):
    name = "socialsite"

    def ready(self):
        # Housekeeping Django does around every request, left out where it has nothing
        # to do: it costs even the cheapest request (docs/decisions/0018).
        if all(db["ENGINE"] == NO_DATABASE for db in connections.settings.values()):
            # No SQL database (all data is in Redis): only a placeholder connection.
            signals.request_started.disconnect(reset_queries)
            signals.request_started.disconnect(close_old_connections)
            signals.request_finished.disconnect(close_old_connections)
        if all(_closes_nothing(cache["BACKEND"]) for cache in caches.settings.values()):
            # No cache backend whose close() does anything (Django's default, in-memory).
            signals.request_finished.disconnect(close_caches)


def _closes_nothing(backend_path):
    return import_string(backend_path).close is BaseCache.close

from django.apps import AppConfig
from django.core import signals
from django.db import close_old_connections, connections, reset_queries

# What Django puts in DATABASES when it is empty.
NO_DATABASE = "django.db.backends.dummy"


class SocialsiteConfig(AppConfig):
    name = "socialsite"

    def ready(self):
        if all(db["ENGINE"] == NO_DATABASE for db in connections.settings.values()):
            # No SQL database (all data is in Redis): Django's per-request database
            # housekeeping would only walk its placeholder connection, about 20 us of
            # each request's CPU, also of the cheapest ones (docs/bench_web.md).
            signals.request_started.disconnect(reset_queries)
            signals.request_started.disconnect(close_old_connections)
            signals.request_finished.disconnect(close_old_connections)

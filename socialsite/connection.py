"""The process's Redis client for Django code: views, commands, the auth middleware.

One client per process, made on first use from the settings. With no REDIS_URL the
embedded redis-server is started (or joined, if another process of the site started
it already).
"""

import threading

from django.conf import settings

from socialsite import embedded_redis
from socialsite.repository import client

_lock = threading.Lock()
_client = None


def redis_url():
    """The configured REDIS_URL, or the embedded server's (started if need be)."""
    return settings.REDIS_URL or embedded_redis.ensure_running(settings.EMBEDDED_REDIS_DIR)


def get_redis():
    global _client
    if _client is None:
        with _lock:
            if _client is None:
                _client = client.connect(redis_url(), cluster=settings.REDIS_CLUSTER)
    return _client


def use_redis(redis_client):
    """Make Django code use ``redis_client`` (the tests point it at their servers)."""
    global _client
    _client = redis_client

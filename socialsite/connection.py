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
    """The process's client for pages and short commands: each wait for Redis bounded
    by REDIS_TIMEOUT_MS, one retry."""
    global _client
    if _client is None:
        with _lock:
            if _client is None:
                _client = new_redis(settings.REDIS_TIMEOUT_MS / 1000, retries=1)
    return _client


def new_redis(timeout=None, retries=None):
    """A client of its own, for a long-running command whose waits differ from a
    page's (a worker's blocking reads, bulk loads): see client.connect."""
    return client.connect(
        redis_url(), cluster=settings.REDIS_CLUSTER, timeout=timeout, retries=retries
    )


def use_redis(redis_client):
    """Make Django code use ``redis_client`` (the tests point it at their servers)."""
    global _client
    _client = redis_client

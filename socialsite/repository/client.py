"""How the repository gets a Redis client. Every other module takes one as ``r``."""

import redis
from redis.cluster import RedisCluster


def connect(url, cluster=False):
    """A client for ``url`` (redis://, rediss:// or unix://) that returns str, not bytes.

    With ``cluster=True`` the URL names any node of a Redis Cluster; the client finds
    the others. Clients are thread-safe and pool their connections: make one per
    process and share it.
    """
    if cluster:
        return RedisCluster.from_url(url, decode_responses=True)
    return redis.Redis.from_url(url, decode_responses=True)


def is_cluster(r):
    return isinstance(r, RedisCluster)


def flush_all(r):
    """Delete every key on every server (tests and demo resets only)."""
    if is_cluster(r):
        r.flushall(target_nodes=RedisCluster.PRIMARIES)
    else:
        r.flushall()

"""How the repository gets a Redis client. Every other module takes one as ``r``."""

import os
import threading
import weakref
from urllib.parse import urlsplit, urlunsplit

import hiredis
import redis
import redis.asyncio
from redis._parsers.commands import CommandPolicies, RequestPolicy, ResponsePolicy
from redis.asyncio.retry import Retry as AsyncRetry
from redis.backoff import NoBackoff
from redis.cluster import RedisCluster
from redis.commands import CoreCommands
from redis.commands.policies import BasePolicyResolver, StaticPolicyResolver
from redis.connection import AbstractConnection
from redis.exceptions import (
    ClusterDownError,
    ConnectionError,
    DataError,
    RedisClusterException,
    ResponseError,
    TimeoutError,
    TryAgainError,
)
from redis.retry import Retry

from .. import memory

# What every repository function takes as ``r``: a client of one server or of a
# Redis Cluster (connect gives either).
Redis = redis.Redis | RedisCluster

# How the streaming servers' subscriptions appear in CLIENT LIST, so an operator can
# tell them apart from the site's short-lived connections.
PUBSUB_CLIENT_NAME = "socialsite-stream"

# Errors that mean Redis is unreachable (down, restarting, loading its data, frozen, a
# cluster without a master for a slot), not that a command was wrong: callers wait and
# try again, or answer 503. BusyLoadingError is a ConnectionError.
OUTAGE_ERRORS = (
    ConnectionError,
    TimeoutError,
    ClusterDownError,
    TryAgainError,
    RedisClusterException,
)


class _RoundTrips(threading.local):
    n = 0


_round_trips = _RoundTrips()


def round_trips():
    """Redis round trips this thread has made since the process started: one per
    command, or per pipeline per server, counted where redis-py writes to a server's
    socket (what the network sees). The request log, the metrics and
    tests/test_round_trips.py read it; a difference of two readings is what happened
    between them."""
    return _round_trips.n


def _counting_round_trips(send):
    def send_packed_command(self, command, check_health=True):
        _round_trips.n += 1
        return send(self, command, check_health)

    send_packed_command.__wrapped__ = send
    return send_packed_command


# Every synchronous connection (pooled, cluster nodes', round_trip's own) sends through
# this method; the streaming server's asyncio subscriptions are not counted.
if not hasattr(AbstractConnection.send_packed_command, "__wrapped__"):
    AbstractConnection.send_packed_command = _counting_round_trips(
        AbstractConnection.send_packed_command
    )


class _ScriptPolicyResolver(BasePolicyResolver):
    """Routes EVAL and EVALSHA by their keys, read from the command itself.

    redis-py's cluster pipeline knows no policy for them and asks a server to find a
    command's keys (COMMAND GETKEYS) before sending it: one more round trip for every
    script call in a pipeline, which is most of posting and fan-out. With a keyed
    policy it calls determine_slot, which reads EVALSHA's keys from its numkeys
    argument without asking."""

    _KEYED = CommandPolicies(
        request_policy=RequestPolicy.DEFAULT_KEYED, response_policy=ResponsePolicy.DEFAULT_KEYED
    )

    def __init__(self, fallback=None):
        policies = {"core": {"eval": self._KEYED, "evalsha": self._KEYED}}
        super().__init__(policies, fallback or StaticPolicyResolver())

    def with_fallback(self, fallback):
        return _ScriptPolicyResolver(fallback)


class _RedisCluster(RedisCluster):
    """RedisCluster whose pipelines route scripts as the client does.

    redis-py (8.1) does not hand a cluster's policy_resolver to the pipelines it
    makes; without it every EVALSHA in a pipeline costs a COMMAND GETKEYS first."""

    def pipeline(self, transaction=None, shard_hint=None):
        pipe = super().pipeline(transaction, shard_hint)
        pipe._policy_resolver = self._policy_resolver
        return pipe


def connect(url, cluster=False, timeout=None, retries=None, decode=True):
    """A client for ``url`` (redis://, rediss:// or unix://) that returns str, not bytes
    (bytes with ``decode=False``: backups, whose DUMP payloads are binary).

    With ``cluster=True`` the URL names any node of a Redis Cluster; the client finds
    the others. Clients are thread-safe and pool their connections: make one per
    process and share it.

    ``timeout`` (seconds) bounds connecting and each reply, ``retries`` how often a
    command is sent again, at once, on a connection error or timeout; None keeps
    redis-py's defaults (5 s; ten retries with a growing pause), which suit batch work
    but keep a request waiting for a minute when Redis is frozen.
    """
    options = {"decode_responses": decode}
    if timeout is not None:
        options.update(socket_timeout=timeout, socket_connect_timeout=timeout)
    if retries is not None:
        options["retry"] = Retry(NoBackoff(), retries)
    if cluster:
        return _RedisCluster.from_url(url, policy_resolver=_ScriptPolicyResolver(), **options)
    return redis.Redis.from_url(url, **options)


def connect_pubsub(url):
    """An asyncio client for one SUBSCRIBE connection to the server ``url`` names.

    Always a plain client, also on a Redis Cluster: a classic PUBLISH on any node is
    broadcast to every node of the cluster, so a subscription on one node (any node,
    see pubsub_urls) sees every event. redis-py's own retries are off: the streaming
    hub owns the reconnect policy, and logs each attempt.
    """
    options = {}
    if not url.startswith("unix://"):
        # TCP keep-alives: the kernel notices a dead peer even if we never write.
        options["socket_keepalive"] = True
    return redis.asyncio.Redis.from_url(
        url,
        decode_responses=True,
        retry=AsyncRetry(NoBackoff(), 0),
        socket_connect_timeout=5,
        client_name=PUBSUB_CLIENT_NAME,
        **options,
    )


def pubsub_urls(r, url):
    """Where a subscription may go: ``[url]``, or on a cluster every node's URL.

    The node ``url`` names comes first; the others are fallbacks for when it is down
    (credentials, TLS and database of ``url`` are kept, only host and port change).
    """
    if not is_cluster(r):
        return [url]
    parts = urlsplit(url)
    userinfo = parts.netloc.rpartition("@")[0]
    urls = [url]
    for node in r.get_nodes():
        host = f"[{node.host}]" if ":" in node.host else node.host
        netloc = f"{userinfo}@{host}:{node.port}" if userinfo else f"{host}:{node.port}"
        node_url = urlunsplit(parts._replace(netloc=netloc))
        if node_url not in urls and (parts.hostname, parts.port) != (node.host, node.port):
            urls.append(node_url)
    return urls


def is_cluster(r):
    return isinstance(r, RedisCluster)


def ping_every_node(r):
    """PING the server, or every node of a cluster; raises an OUTAGE_ERRORS error if
    one does not answer."""
    if is_cluster(r):
        r.ping(target_nodes=RedisCluster.ALL_NODES)
    else:
        r.ping()


def connected_clients(r):
    """How many client connections the server (or every cluster node) holds now."""
    if is_cluster(r):
        info = r.info("clients", target_nodes=RedisCluster.ALL_NODES)
        return sum(node["connected_clients"] for node in info.values())
    return r.info("clients")["connected_clients"]


def cpu_seconds(r):
    """CPU time the server (or every cluster node) has used since it started."""
    if is_cluster(r):
        nodes = r.info("cpu", target_nodes=RedisCluster.ALL_NODES).values()
    else:
        nodes = [r.info("cpu")]
    return sum(node["used_cpu_sys"] + node["used_cpu_user"] for node in nodes)


class _Batch(CoreCommands):
    """What redis-py's command methods (``batch.get(key)``, ``batch.execute_command(
    "EVALSHA", ...)``) would send, kept to be sent together by round_trip."""

    def __init__(self):
        self.commands = []

    def execute_command(self, *args, **options):
        self.commands.append((args, options))


# Each thread's own connection to each server (by connection pool): see round_trip.
_own = threading.local()


def round_trip(r, fill):
    """The replies to the commands ``fill(batch)`` queues, sent to Redis in one round
    trip, as a pipeline without MULTI. A command the server refused has its error
    (a ResponseError) as its reply; the others are unaffected.

    On a plain Redis client the commands go on a connection of this thread's own,
    outside redis-py's pipeline and pool: every logged-in page makes one such round
    trip first, and redis-py's pipeline took as much CPU around it (taking a pooled
    connection, which polls the socket; retry, metrics and event hooks) as the round
    trip itself, about twice what it costs here (docs/decisions/0007).
    The replies are parsed exactly as redis-py parses them. A dropped connection is
    made anew and the whole batch sent once more, so, as with redis-py's retries, the
    commands must be safe to repeat. A thread's connection closes when the thread
    ends. On a cluster, redis-py's pipeline, which sends each command to the node of
    its key.
    """
    if is_cluster(r):
        pipe = r.pipeline(transaction=False)
        fill(pipe)
        return pipe.execute(raise_on_error=False)
    batch = _Batch()
    fill(batch)
    if not batch.commands:
        return []
    for attempt in (1, 2):
        try:
            return _send_and_read(r, _own_connection(r), batch.commands)
        except (ConnectionError, TimeoutError, OSError):
            _drop_own_connection(r)
            if attempt == 2:
                raise
        except BaseException:
            _drop_own_connection(r)  # it may be out of step with the server now
            raise


def _send_and_read(r, connection, commands):
    connection.send_packed_command([_pack([args for args, _ in commands])])
    replies = []
    # Every reply is read, also after an error reply, so that the connection stays in
    # step with the server for the next round trip.
    for args, options in commands:
        try:
            replies.append(r.parse_response(connection, args[0], **options))
        except ResponseError as error:
            replies.append(error)
    return replies


def _pack(commands):
    """``commands`` (tuples of arguments: str, bytes, int, float) in Redis's protocol,
    in one bytes. hiredis packs them as redis-py's packer does, which first walks every
    argument in Python for a bytearray or memoryview to copy (nothing here sends one):
    a fan-out worker spent a quarter of its CPU in that walk (docs/decisions/0065)."""
    packed = []
    for args in commands:
        if " " in args[0]:  # "MEMORY USAGE": two words, as redis-py sends it
            args = (*args[0].split(), *args[1:])
        try:
            packed.append(hiredis.pack_command(args))
        except TypeError as error:  # None, or another type Redis has no form for
            raise DataError(error) from error
    return b"".join(packed)


def _own_connection(r):
    pool = r.connection_pool
    if getattr(_own, "pid", None) != os.getpid():
        # A new thread, or a forked child, whose inherited sockets are its parent's.
        # Weak keys: a client that is dropped (tests make many) takes its entry along.
        _own.pid, _own.connections = os.getpid(), weakref.WeakKeyDictionary()
    connection = _own.connections.get(pool)
    if connection is None:
        # Made as the pool makes its own (same server, credentials, TLS, database),
        # but not counted among them.
        connection = _own.connections[pool] = pool.connection_class(**pool.connection_kwargs)
    return connection


def _drop_own_connection(r):
    connection = _own.connections.pop(r.connection_pool, None)
    if connection is not None:
        connection.disconnect()


def flush_all(r):
    """Delete every key on every server (tests, demo resets and benchmarks only).

    ASYNC: the keys are gone at once and their memory is freed in the background, so
    emptying millions of keys does not outlast the client's read timeout.
    """
    if is_cluster(r):
        r.flushall(asynchronous=True, target_nodes=RedisCluster.PRIMARIES)
    else:
        r.flushall(asynchronous=True)
    # Ids start again from 1: what this process remembers of old users and statuses is wrong.
    memory.forget_all()

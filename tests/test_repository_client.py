"""client.round_trip: commands sent together, replies parsed as redis-py parses them."""

import gc
import threading
import time

import pytest
from redis.exceptions import ResponseError

from socialsite.repository import client

# One hash tag: on a cluster every key is in one slot (one node).
KEYS = ["{t}:text", "{t}:hash", "{t}:zset"]


def queue_everything(batch):
    batch.set(KEYS[0], "hello")
    batch.hset(KEYS[1], mapping={"a": "1", "b": "2"})
    batch.zadd(KEYS[2], {"x": 1.5, "y": 2})
    batch.get(KEYS[0])
    batch.hgetall(KEYS[1])
    batch.hget(KEYS[1], "b")
    batch.zrange(KEYS[2], 0, -1, withscores=True)
    batch.exists(*KEYS)
    batch.get("{t}:missing")


def test_replies_are_those_of_redis_pys_pipeline(r):
    replies = client.round_trip(r, queue_everything)
    r.delete(*KEYS)
    pipe = r.pipeline(transaction=False)
    queue_everything(pipe)
    assert replies == pipe.execute()
    assert replies[3:] == ["hello", {"a": "1", "b": "2"}, "2", [("x", 1.5), ("y", 2.0)], 3, None]


def test_a_refused_command_gets_its_error_and_the_others_their_replies(r):
    def fill(batch):
        batch.set(KEYS[0], "text")
        batch.hget(KEYS[0], "field")  # WRONGTYPE
        batch.get(KEYS[0])

    first, error, last = client.round_trip(r, fill)
    assert first is True and last == "text"
    assert isinstance(error, ResponseError) and "WRONGTYPE" in str(error)
    # The connection is still in step with the server.
    assert client.round_trip(r, lambda batch: batch.get(KEYS[0])) == ["text"]


def test_an_empty_batch_sends_nothing(r, round_trips):
    assert client.round_trip(r, lambda batch: None) == []
    assert round_trips["n"] == 0


def own_connection_id(r):
    return client.round_trip(r, lambda batch: batch.client_id())[0]


@pytest.fixture
def single_server(r, redis_backend):
    if redis_backend.cluster:
        pytest.skip("on a cluster round_trip is redis-py's pipeline, which keeps no connection")
    return r


def test_a_dropped_connection_is_made_anew_and_the_batch_sent_again(single_server):
    r = single_server
    before = own_connection_id(r)
    r.client_kill_filter(_id=before)
    r.set("after", "kill")
    assert client.round_trip(r, lambda batch: batch.get("after")) == ["kill"]
    assert own_connection_id(r) != before


def test_each_thread_has_its_own_connection(single_server):
    r = single_server
    ids = []
    threads = [threading.Thread(target=lambda: ids.append(own_connection_id(r))) for _ in range(3)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(set(ids)) == 3 and own_connection_id(r) not in ids
    assert own_connection_id(r) == own_connection_id(r)  # kept, not made each time


def test_a_finished_threads_connection_is_closed(single_server):
    r = single_server
    own_connection_id(r)
    before = client.connected_clients(r)
    for _ in range(20):  # as a development server's thread per request
        thread = threading.Thread(target=own_connection_id, args=(r,))
        thread.start()
        thread.join()
    gc.collect()  # a connection and its parser refer to each other
    # The server counts a closed connection out once it has read the close.
    deadline = time.monotonic() + 5
    while client.connected_clients(r) > before and time.monotonic() < deadline:
        time.sleep(0.05)
    assert client.connected_clients(r) <= before


def _commands_served(r):
    """{command: calls} summed over every node (INFO commandstats)."""
    nodes = r.get_primaries() if client.is_cluster(r) else [r]
    totals = {}
    for node in nodes:
        conn = node.redis_connection if client.is_cluster(r) else node
        for name, stats in conn.info("commandstats").items():
            totals[name] = totals.get(name, 0) + stats["calls"]
    return totals


def test_scripts_in_a_pipeline_are_routed_without_asking_a_server_for_their_keys(r):
    # On a cluster, redis-py would send COMMAND GETKEYS before each EVALSHA of a
    # pipeline (client._RedisCluster): one more round trip per script call.
    from socialsite.repository import statuses, users

    uid = users.create_user(r, "alice", "Alice", "x")
    statuses.post_status(r, uid, "the scripts are loaded by now")
    before = _commands_served(r)
    statuses.post_status(r, uid, "hello")
    after = _commands_served(r)
    assert after.get("cmdstat_evalsha", 0) > before.get("cmdstat_evalsha", 0)
    assert after.get("cmdstat_command", 0) == before.get("cmdstat_command", 0)

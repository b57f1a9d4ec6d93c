"""The repository's side of streaming: publishing, subscribing, and noticing a dead
subscription (socialsite/repository/events.py, client.py), on real Redis."""

import asyncio
import json

import pytest

from socialsite import embedded_redis
from socialsite.repository import client as redis_client
from socialsite.repository import events, statuses


def node_url(redis_backend):
    """A URL a subscription may use: the server, or the cluster's first node."""
    return redis_backend.url


def admin_client(redis_backend):
    """A raw client to the node a subscription on node_url() lands on."""
    if redis_backend.cluster:
        return redis_backend.nodes[0].client()
    return redis_backend.client()


async def first_events(url, publish, count):
    """Subscribe to ``url``, call publish(), and return the next ``count`` events."""
    ar = redis_client.connect_pubsub(url)
    pubsub = await events.subscribe(ar)
    try:
        await asyncio.to_thread(publish)
        received = []
        async for text in events.listen(pubsub):
            received.append(json.loads(text))
            if len(received) == count:
                return received
    finally:
        await pubsub.aclose()
        await ar.aclose()


def test_posts_and_deletions_reach_a_subscriber_on_any_node(r, redis_backend, alice):
    def publish():
        sid = statuses.post_status(r, alice["id"], "hello", location="1,2")
        statuses.delete_status(r, alice["id"], sid)

    posted, deleted = asyncio.run(
        asyncio.wait_for(first_events(node_url(redis_backend), publish, 2), 10)
    )
    assert posted["message"] == "hello"
    assert posted["location"] == "1,2"
    assert "deleted" not in posted
    assert deleted["deleted"] is True
    assert deleted["id"] == posted["id"]
    assert deleted["message"] == "hello"  # the whole status, for the filters


def test_a_quiet_subscription_is_kept_alive_by_pings(redis_backend):
    async def listen_quietly():
        ar = redis_client.connect_pubsub(node_url(redis_backend))
        pubsub = await events.subscribe(ar)
        try:
            async for _ in events.listen(pubsub, ping_after=0.5, pong_timeout=1.0):
                pass
        finally:
            await pubsub.aclose()
            await ar.aclose()

    # Several pings are sent and answered; listening goes on until cancelled.
    with pytest.raises(TimeoutError):
        asyncio.run(asyncio.wait_for(listen_quietly(), 3.0))


def test_a_subscription_whose_server_stops_answering_fails(redis_backend):
    from redis.exceptions import ConnectionError

    async def listen_to_a_paused_server():
        ar = redis_client.connect_pubsub(node_url(redis_backend))
        pubsub = await events.subscribe(ar)
        # The server stops answering anyone for 3 s: the PING sent after 0.5 s of
        # silence stays unanswered, as on a connection that died without a FIN.
        admin_client(redis_backend).execute_command("CLIENT PAUSE", 3000, "ALL")
        try:
            async for _ in events.listen(pubsub, ping_after=0.5, pong_timeout=0.5):
                pass
        finally:
            await pubsub.aclose()
            await ar.aclose()

    try:
        with pytest.raises(ConnectionError):
            asyncio.run(asyncio.wait_for(listen_to_a_paused_server(), 10.0))
    finally:
        admin_client(redis_backend).execute_command("CLIENT UNPAUSE")


def test_subscriptions_are_counted_on_every_node(r, redis_backend):
    async def count_while_subscribed():
        ar = redis_client.connect_pubsub(node_url(redis_backend))
        pubsub = await events.subscribe(ar)
        try:
            return await asyncio.to_thread(events.subscriber_count, r)
        finally:
            await pubsub.aclose()
            await ar.aclose()

    assert asyncio.run(count_while_subscribed()) == 1
    assert events.subscriber_count(r) == 0


def test_a_subscription_may_go_to_any_node_of_a_cluster(r, redis_backend):
    urls = redis_client.pubsub_urls(r, redis_backend.url)
    assert urls[0] == redis_backend.url
    if redis_backend.cluster:
        assert sorted(urls) == sorted(node.url for node in redis_backend.nodes)
    else:
        assert urls == [redis_backend.url]


def test_a_subscription_works_over_a_unix_socket(tmp_path):
    """The development setup: the embedded Redis listens on a unix socket only."""
    url = embedded_redis.ensure_running(tmp_path / "redis")
    own = redis_client.connect(url)
    try:

        def publish():
            events.publish_posted(own, {"id": 1, "uid": 1, "login": "a", "message": "hi"})

        (event,) = asyncio.run(asyncio.wait_for(first_events(url, publish, 1), 10))
        assert event["message"] == "hi"
    finally:
        embedded_redis.stop(tmp_path / "redis")

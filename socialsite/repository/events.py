"""Broadcasting posted and deleted statuses to the streaming servers (section 8.5).

Users' unread notification counts travel on a channel of their own
(keys.NOTIFICATION_CHANNEL), published by the notification scripts themselves
(notifications.py); a stream server's one subscription takes both channels.

PUBLISH is fire-and-forget: a streaming server that is not subscribed at that moment
never sees the event. Nothing else in the site depends on these events arriving.

Publishing is synchronous (the site's views call it); receiving is asyncio (the
streaming server holds one subscription per process, see streaming/hub.py).
"""

import asyncio
import json

from redis.cluster import RedisCluster
from redis.exceptions import ConnectionError as RedisConnectionError

from . import keys
from .client import is_cluster
from .limits import RECENT_PUBLIC_STATUSES

# A subscription that has heard nothing for this long is sent a PING: on a quiet
# channel, that is the only way to notice a connection that died without a FIN (a
# crashed host, a dropped NAT entry), which would otherwise look idle forever.
PING_AFTER_SECONDS = 30.0
# No answer to that PING within this long: the connection is dead.
PONG_TIMEOUT_SECONDS = 10.0


def publish_posted(r, status, author=None):
    """Publish a new status as JSON: its hash's fields, and with ``author`` its author as
    the account was at posting time (users.event_author: login, name, counts, signup) in
    ``author``, which the streaming API sends as the Tweet's user: the event is then the
    same for every client, and a stream server makes its bytes once, without a read."""
    event = status if author is None else {**status, "author": author}
    r.publish(keys.STATUS_CHANNEL, json.dumps(event))


def queue_note_recent(pipe, sid, kept=RECENT_PUBLIC_STATUSES):
    """Queue on ``pipe`` the noting of public status ``sid`` among the newest ``kept``
    recent public statuses (keys.RECENT_PUBLIC_STATUSES), which the streaming API's
    clients catch up from: in posting's writes, before the status is published, so that
    a catch-up reading after a subscription started finds every status published before
    it. Noting it again (a retry) changes nothing.

    Written with the status rather than by a script that also publishes: PUBLISH stays
    a plain command, sent where the site's other events go, so that on a cluster they
    keep their order (a block's event before the statuses that follow it); a script
    would publish from the node of this key."""
    pipe.zadd(keys.RECENT_PUBLIC_STATUSES, {sid: sid})
    pipe.zremrangebyrank(keys.RECENT_PUBLIC_STATUSES, 0, -(int(kept) + 1))


def publish_changed(r, status, author=None):
    """Publish a status that changed (an edit, decision 0074; a poll's end, with its
    ``poll_tally``) as publish_posted does, with ``changed: true``: Mastodon's streams
    send it as ``status.update``, live pages put it in place of what they show of it;
    formats that have no such event leave it out (hub.Format.tells_changes). The whole
    status goes out, for the same filters as its post's: nobody gets it who did not get
    the post."""
    event = status if author is None else {**status, "author": author}
    r.publish(keys.STATUS_CHANNEL, json.dumps({**event, "changed": True}))


def publish_deleted(r, status):
    """Publish a deleted status with ``deleted: true``.

    The whole status goes out, not only its id, so that a streaming filter can decide
    whether the deletion concerns its client exactly as it decided for the post.
    """
    r.publish(keys.STATUS_CHANNEL, json.dumps({**status, "deleted": True}))


def publish_relations_changed(r, uids, hidden=(), left=()):
    """Tell the streaming servers that the follows, blocks, mutes or sessions of ``uids``
    changed: their live pages check their session and read whom they get statuses from
    again at once, rather than at their next periodic refresh (which still comes, every
    few minutes, should this event be lost).

    ``hidden``: (viewer, author) pairs of a new block or mute. A stream server drops
    the author from the viewer's live filter as it reads the event, before any status
    published after it: a status posted once the block or mute is made never reaches
    the viewer's open live page.

    ``left``: (member, community id) pairs of a membership that ended (left, removed,
    banned): the community leaves the member's live filters as the event is read, so
    that no status of a private community posted after it reaches them.
    """
    event = {
        "relations_changed": [int(uid) for uid in uids],
        "hidden": [[int(viewer), int(author)] for viewer, author in hidden],
    }
    if left:
        event["left"] = [[int(member), int(cid)] for member, cid in left]
    r.publish(keys.STATUS_CHANNEL, json.dumps(event))


def publish_account(r, uid, hidden):
    """Publish that account ``uid`` is hidden now (suspended) or shown again:
    ``{"account": uid, "hidden": true}``. Stream servers leave a hidden account's
    events out; they also read the list of suspended accounts now and then, since this
    event may be lost like any other."""
    r.publish(keys.STATUS_CHANNEL, json.dumps({"account": int(uid), "hidden": bool(hidden)}))


async def subscribe(ar, notifications=False):
    """SUBSCRIBE the asyncio client ``ar`` (client.connect_pubsub) to the status channel
    and, with ``notifications``, to the users' unread counts (keys.NOTIFICATION_CHANNEL,
    published by the notification scripts themselves, notifications.py): one
    connection for both.

    Returns the PubSub object to pass to ``listen``. Raises redis.ConnectionError (or
    OSError) when the server cannot be reached.
    """
    pubsub = ar.pubsub(ignore_subscribe_messages=True)
    channels = [keys.STATUS_CHANNEL]
    if notifications:
        channels.append(keys.NOTIFICATION_CHANNEL)
    await pubsub.subscribe(*channels)
    return pubsub


async def listen(pubsub, ping_after=PING_AFTER_SECONDS, pong_timeout=PONG_TIMEOUT_SECONDS):
    """Yield the JSON text of each event published on the subscribed channels, forever.

    Raises redis.ConnectionError when the connection drops, or when a PING sent after
    ``ping_after`` seconds of silence gets no answer within ``pong_timeout``.
    """
    loop = asyncio.get_running_loop()
    last_heard = loop.time()
    pinged = False
    while True:
        # A timeout rather than blocking for ever, so that silence gets noticed. The
        # raw reply rather than get_message(): that turns the PONG of a decoding
        # client into nothing (redis-py expects bytes there), and we need to see it.
        reply = await pubsub.parse_response(block=False, timeout=1.0)
        now = loop.time()
        if reply is not None:
            last_heard, pinged = now, False
            # ["message", channel, data]; otherwise a PONG or a (un)subscribe reply.
            if isinstance(reply, list) and len(reply) == 3 and reply[0] == "message":
                yield reply[2]
            continue
        silent = now - last_heard
        if pinged and silent > ping_after + pong_timeout:
            raise RedisConnectionError(f"no answer to PING for {pong_timeout:.0f} s")
        if not pinged and silent > ping_after:
            await pubsub.ping()
            pinged = True


def subscriber_count(r):
    """How many connections are subscribed to the status channel (on every node)."""
    if is_cluster(r):
        return r.pubsub_numsub(keys.STATUS_CHANNEL, target_nodes=RedisCluster.ALL_NODES)[0][1]
    return r.pubsub_numsub(keys.STATUS_CHANNEL)[0][1]

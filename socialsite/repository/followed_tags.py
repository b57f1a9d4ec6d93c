"""Followed hashtags: a user follows a tag, and the tag's public statuses reach their home
as a followed account's do.

Two keys, each in its own slot, written together and both idempotent (a retry repairs a
half-done follow): keys.tag_followers(tag) (who follows it, in the tag's slot beside
keys.tag) and keys.followed_tags(uid) (what the user follows, in their slot).

Delivery (deliver_status, called by the posting action after the status is written): a
public status (not posted while private, not a group's members-only one, not a direct
message) goes to the homes of the followers of each of its tags through fanout.deliver,
so blocks and mutes either way (keys.hiding) and the reply rule (a reply to another
reaches only those who follow them too) apply exactly as to the author's own followers;
homes are sets, so a follower of both the author and the tag gets it once. The first
FOLLOWED_TAG_DELIVERY followers of each tag by follow time get it at posting; the later
ones, up to the newest at posting time, through a "tag_deliver" job for the fan-out
workers (deliver_batch), TAG_DELIVERY_BATCH followers a run, as a big account's followers
get its statuses.
"""

import time
from typing import Any, cast

from . import entities, fanout, jobs, keys, statuses
from .client import Client

# How many of a tag's followers a status reaches at posting (the oldest follows first).
FOLLOWED_TAG_DELIVERY = 10_000
# How many followers a "tag_deliver" job reaches in one run (then the same job goes on).
TAG_DELIVERY_BATCH = 10_000


def follow(r: Client, uid: int, tag: str, now_ms: int | None = None) -> bool:
    """User ``uid`` follows hashtag ``tag`` (normalized); True if new. One round trip
    (a pipeline; on a cluster one per node)."""
    now_ms = int(time.time() * 1000) if now_ms is None else int(now_ms)
    pipe = r.pipeline(transaction=False)
    pipe.zadd(keys.tag_followers(tag), {str(uid): now_ms}, nx=True)
    pipe.zadd(keys.followed_tags(uid), {tag: now_ms}, nx=True)
    added_followers, added = pipe.execute()
    return bool(added or added_followers)


def unfollow(r: Client, uid: int, tag: str) -> bool:
    """User ``uid`` stops following ``tag``; True if they followed it. One round trip."""
    pipe = r.pipeline(transaction=False)
    pipe.zrem(keys.followed_tags(uid), tag)
    pipe.zrem(keys.tag_followers(tag), str(uid))
    removed, removed_follower = pipe.execute()
    return bool(removed or removed_follower)


def is_following(r: Client, uid: int | None, tag: str) -> bool:
    """Whether ``uid`` (None: a visitor, no) follows ``tag``: one command."""
    if uid is None:
        return False
    return r.zscore(keys.tag_followers(tag), str(uid)) is not None


def followed(
    r: Client, uid: int, before: int | None = None, count: int = 100
) -> tuple[list[tuple[str, int]], int | None]:
    """(tag, when followed in ms) of up to ``count`` tags ``uid`` follows, the latest
    follow first, below ``before``; and the cursor of the next page (None: no more)."""
    top = f"({int(before)}" if before is not None else "+inf"
    scored = cast(
        list[tuple[str, float]],
        r.zrevrangebyscore(
            keys.followed_tags(uid), top, "-inf", start=0, num=count + 1, withscores=True
        ),
    )
    pairs = [(str(tag), int(score)) for tag, score in scored[:count]]
    return pairs, pairs[-1][1] if len(scored) > count and pairs else None


def deliver_status(r: Client, sid: int, limit: int = FOLLOWED_TAG_DELIVERY) -> int:
    """Deliver status ``sid`` to the homes of its tags' followers (see the module's
    docstring); how many homes it reached now. Nothing for a status that is not public
    or has no tags. Round trips: the status's fields; the tags' first ``limit``
    followers and newest follower; the delivery (one script call per shard group); for
    a tag with more, one "tag_deliver" job queued for the workers."""
    fields = ["uid", "message", "entities", "private", keys.STATUS_MEMBERS_ONLY_FIELD,
              "in_reply_to_uid", "repost_of"]  # fmt: skip
    values = r.hmget(keys.status(sid), fields)
    status = {name: value for name, value in zip(fields, values, strict=True) if value}
    if "uid" not in status or status.get("private") or status.get("repost_of"):
        return 0
    if status.get(keys.STATUS_MEMBERS_ONLY_FIELD):
        return 0
    tags = entities.tags(statuses.status_entities(status))
    if not tags:
        return 0
    pipe = r.pipeline(transaction=False)
    for tag in tags:
        pipe.zrange(keys.tag_followers(tag), 0, limit - 1, withscores=True)
        pipe.zrange(keys.tag_followers(tag), -1, -1, withscores=True)
    read = pipe.execute()
    author = int(status["uid"])
    reply_uid = status.get("in_reply_to_uid")
    replied_to = int(reply_uid) if reply_uid and int(reply_uid) != author else None
    wanted: set[int] = set()
    later = []
    for index, tag in enumerate(tags):
        found, newest = read[2 * index], read[2 * index + 1]
        wanted.update(int(uid) for uid, _ in found)
        if len(found) >= limit and newest and newest[0][1] > found[-1][1]:
            # More followers than reached now: the workers go on from the last one.
            later.append({"kind": "tag_deliver", "sid": int(sid), "author": author,
                          "tag": tag, "after": found[-1][1], "upto": newest[0][1],
                          "replied_to": replied_to})  # fmt: skip
    if later:
        jobs.enqueue(r, *later)
    wanted.discard(author)
    if not wanted:
        return 0
    return fanout.deliver(r, author, int(sid), sorted(wanted), replied_to=replied_to)


def deliver_batch(
    r: Client, job: dict[str, Any], batch: int = TAG_DELIVERY_BATCH
) -> list[dict[str, Any]]:
    """A "tag_deliver" job: status ``sid`` to the next ``batch`` followers of ``tag``
    after the follow time ``after`` up to ``upto`` (those who followed by the posting);
    the same job, moved on, while more remain. Delivering twice changes nothing (homes
    are sets): a job run again after a crash only repeats its batch."""
    found = cast(
        list[tuple[str, float]],
        r.zrangebyscore(
            keys.tag_followers(job["tag"]),
            f"({job['after']}",
            job["upto"],
            start=0,
            num=batch,
            withscores=True,
        ),  # fmt: skip
    )
    author = int(job["author"])
    wanted = sorted({int(uid) for uid, _ in found} - {author})
    if wanted:
        fanout.deliver(r, author, int(job["sid"]), wanted, replied_to=job.get("replied_to"))
    if len(found) == batch and found[-1][1] < job["upto"]:
        return [{**job, "after": found[-1][1]}]
    return []


def forget_user(r: Client, uid: int, budget: int) -> int:
    """Deleting an account (leaving.DELETION_STEPS): up to ``budget`` of the tags ``uid``
    follows let go of (their keys.tag_followers entries, then theirs); the units done."""
    tags = [str(tag) for tag in r.zrange(keys.followed_tags(uid), 0, budget - 1)]
    for tag in tags:
        unfollow(r, uid, tag)
    return len(tags)

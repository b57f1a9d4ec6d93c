"""Fan-out: putting a new status into its author's followers' home timelines.

Posting delivers to the first ``inline_limit`` followers (the book's 1000) within the
request. The followers beyond them are handed to ``defer_remaining``: the seam where
deferred work (a worker reading jobs from a Redis Stream) takes over.

Deliveries go through deliver.lua, which checks that the follower still follows the
author in the same step as the ZADD: an unfollow that races with a fan-out never
leaves the unfollowed author's status behind. A delivery is a ZADD of the status id
scored by itself, so delivering twice changes nothing.
"""

from . import keys, scripts
from .limits import FANOUT_BATCH_SIZE, HOME_TIMELINE_SIZE


def deliver(r, author_uid, sid, follower_uids):
    """Put status ``sid`` into the home timelines of ``follower_uids``, one pipeline.

    Returns how many were delivered (followers who unfollowed meanwhile are skipped).
    """
    if not follower_uids:
        return 0

    def fill(pipe):
        for follower in follower_uids:
            scripts.DELIVER.queue(
                pipe,
                [keys.home(follower), keys.following(follower)],
                [author_uid, sid, HOME_TIMELINE_SIZE],
            )

    return sum(scripts.run_pipeline(r, fill))


def followers_after(r, uid, after_score, count):
    """Up to ``count`` (follower id, follow score) pairs with scores above ``after_score``."""
    low = "-inf" if after_score is None else f"({after_score}"
    pairs = r.zrangebyscore(keys.followers(uid), low, "+inf", start=0, num=count, withscores=True)
    return [(int(member), int(score)) for member, score in pairs]


def deliver_batches(r, author_uid, sid, after_score):
    """Deliver to every follower whose follow score is above ``after_score``, in batches.

    Follow scores are unique per list (add_edge.lua), so resuming from the last score
    of a batch neither skips nor repeats anyone. Returns the number delivered.
    """
    delivered = 0
    while True:
        batch = followers_after(r, author_uid, after_score, FANOUT_BATCH_SIZE)
        if not batch:
            return delivered
        delivered += deliver(r, author_uid, sid, [uid for uid, _ in batch])
        after_score = batch[-1][1]


def defer_remaining(r, author_uid, sid, after_score):
    """Hand the followers beyond the inline ones (scores above ``after_score``) on.

    SEAM: the fan-out worker will make this a job on a Redis Stream so that posting
    returns at once. Until it exists, the rest is delivered here, in batches.
    """
    return deliver_batches(r, author_uid, sid, after_score)


def remove_from_followers(r, author_uid, sid):
    """Take a deleted status's id out of every follower's home timeline.

    SEAM: like ``defer_remaining``, this becomes deferred work with the fan-out
    worker. Until then it runs inline. Readers skip ids whose status hash is gone, so
    nobody sees the deleted status either way; this only frees the timeline slot.
    """
    after_score = None
    while True:
        batch = followers_after(r, author_uid, after_score, FANOUT_BATCH_SIZE)
        if not batch:
            return
        pipe = r.pipeline(transaction=False)
        for follower, _ in batch:
            pipe.zrem(keys.home(follower), sid)
        pipe.execute()
        after_score = batch[-1][1]

"""Fan-out: putting statuses into followers' home timelines, and taking them out.

Posting delivers to the first ``inline_limit`` followers (the book's 1000) within the
request. The rest is deferred work on the jobs stream (jobs.py), done by
``manage.py fanout`` workers:

1. The request queues one *plan* job covering follow scores (after, upto]: above the
   last inline follower, up to the newest follower at posting time.
2. A worker turns a plan into *deliver* jobs of about FANOUT_BATCH_SIZE followers
   each: it reads the follow score found every FANOUT_BATCH_SIZE ranks and cuts
   (after, upto] at those scores. Follow scores are unique per list (add_edge.lua),
   so the ranges are disjoint and cover everyone once. A plan makes at most
   PLAN_BATCHES_PER_JOB deliver jobs and queues a plan for the rest, so each job is
   short whatever the number of followers.
3. Any worker runs any deliver job. Many workers share one fan-out.

Why this delivers exactly once to every follower at posting time:
- someone who follows later gets a score above ``upto``: no range includes them (the
  follow's backfill copies the status from the profile instead);
- deliver.lua checks, in the same step as the SADD, that the follower still follows
  the author, so an unfollow during the fan-out is respected;
- a job that runs twice (its worker died before completing it) repeats SADDs of ids
  already in the set, which change nothing.

Deleting a status queues the same kind of plan with *remove* jobs, which take the id
out of followers' home timelines (the book's "zombie" exercise). Readers skip ids
whose status hash is gone, so nobody sees a deleted status while that runs.
"""

import logging
from collections import defaultdict

from . import jobs, keys, scripts, timelines
from .limits import (
    FANOUT_BATCH_SIZE,
    HOME_TIMELINE_SIZE,
    HOME_TIMELINE_SLACK,
    PLAN_BATCHES_PER_JOB,
)

log = logging.getLogger(__name__)


# --- the work itself -------------------------------------------------------------------


def deliver(r, author_uid, sid, follower_uids):
    """Put status ``sid`` into the home timelines of ``follower_uids``; one round trip.

    Followers are grouped by shard (keys.shard): each group's keys share a cluster
    slot, so one call of deliver.lua serves the whole group. A batch of 1000
    followers costs at most USER_SHARDS script calls instead of 1000, which is most
    of the fan-out's speed. Returns how many were delivered (followers who
    unfollowed meanwhile are skipped).
    """
    groups = defaultdict(list)
    for follower in follower_uids:
        groups[keys.shard(follower)].append(follower)
    if not groups:
        return 0

    def fill(pipe):
        for followers in groups.values():
            group_keys = [key for f in followers for key in (keys.home(f), keys.following(f))]
            scripts.DELIVER.queue(
                pipe, group_keys, [author_uid, sid, HOME_TIMELINE_SIZE, HOME_TIMELINE_SLACK]
            )

    return sum(scripts.run_pipeline(r, fill))


def remove(r, sid, follower_uids):
    """Take status ``sid`` out of the home timelines of ``follower_uids``, one pipeline."""
    if not follower_uids:
        return 0
    pipe = r.pipeline(transaction=False)
    for follower in follower_uids:
        pipe.srem(keys.home(follower), sid)
    return sum(pipe.execute())


def _score_bound(score, exclusive=False):
    if score is None:
        return "-inf"
    return f"({score}" if exclusive else str(score)


def followers_in_range(r, uid, after, upto, count):
    """Up to ``count`` follower ids with follow scores in (after, upto], oldest first,
    and the score of the last one (to resume from), in one round trip.

    Scores are not read for the whole batch: parsing 1000 of them took longer than
    delivering to the batch. A MULTI makes the last score belong to the same state
    of the list as the ids.
    """
    key = keys.followers(uid)
    low = _score_bound(after, exclusive=True)
    high = _score_bound(upto) if upto is not None else "+inf"
    pipe = r.pipeline(transaction=True)
    pipe.zrangebyscore(key, low, high, start=0, num=count)
    pipe.zrangebyscore(key, low, high, start=count - 1, num=1, withscores=True)
    members, last = pipe.execute()
    last_score = int(last[0][1]) if last else None
    return [int(member) for member in members], last_score


# --- jobs --------------------------------------------------------------------------------


def plan_job(action, author_uid, sid, after, upto):
    """A job that splits followers with scores in (after, upto] into ``action`` jobs."""
    return {"kind": "plan", "action": action, "author": author_uid, "sid": sid,
            "after": after, "upto": upto}  # fmt: skip


def refill_job(uid):
    """A job that tops the home timeline of ``uid`` up again (after an unfollow)."""
    return {"kind": "refill", "uid": uid}


def plan(r, job):
    """Cut a plan job's score range at every FANOUT_BATCH_SIZE-th follower; return jobs.

    ZCOUNT gives the rank where the range starts; then one MULTI reads the score at
    each cut's rank (ZRANGE by rank is O(log n), where an offset would walk the
    list). If the list changed in between, the cuts land a few followers off, which
    only makes some batches a little bigger or smaller: ranges are defined by scores,
    so they still cover (after, upto] exactly once.
    """
    key, after, upto = keys.followers(job["author"]), job["after"], job["upto"]
    first_rank = r.zcount(key, "-inf", _score_bound(after)) if after is not None else 0
    pipe = r.pipeline(transaction=True)
    for k in range(1, PLAN_BATCHES_PER_JOB + 1):
        rank = first_rank + k * FANOUT_BATCH_SIZE - 1
        pipe.zrange(key, rank, rank, withscores=True)
    found = [int(pairs[0][1]) for pairs in pipe.execute() if pairs]
    cuts = [score for score in found if (after is None or score > after) and score < upto]
    work, start = [], after
    for cut in cuts:
        work.append({**job, "kind": job["action"], "after": start, "upto": cut})
        start = cut
    if len(found) == PLAN_BATCHES_PER_JOB and cuts and cuts[-1] == found[-1]:
        work.append({**job, "after": start})  # more than one plan's worth: plan the rest later
    else:
        work.append({**job, "kind": job["action"], "after": start, "upto": upto})
    return work


def deliver_range(r, job):
    """Deliver ``job['sid']`` to the author's followers with scores in the job's range."""
    if not r.exists(keys.status(job["sid"])):
        return []  # deleted meanwhile: delivering would only plant ids to clean up
    _each_batch(r, job, lambda batch: deliver(r, job["author"], job["sid"], batch))
    return []


def remove_range(r, job):
    """Take ``job['sid']`` out of the homes of the followers in the job's range."""
    _each_batch(r, job, lambda batch: remove(r, job["sid"], batch))
    return []


def _each_batch(r, job, act):
    """Call ``act(follower ids)`` for each batch of the job's range, oldest first.

    A range planned at about FANOUT_BATCH_SIZE followers is one batch; the loop is for
    ranges that are bigger (jobs from an older version, a replayed dead letter).
    """
    after = job["after"]
    while True:
        batch, last_score = followers_in_range(
            r, job["author"], after, job["upto"], FANOUT_BATCH_SIZE
        )
        if batch:
            act(batch)
        if last_score is None:  # fewer than a full batch: that was the last
            return
        after = last_score


def refill(r, job):
    timelines.refill_home(r, job["uid"])
    return []


HANDLERS = {"plan": plan, "deliver": deliver_range, "remove": remove_range, "refill": refill}


def run_job(r, job):
    """Do one job; return the follow-up jobs it produced."""
    return HANDLERS[job.kind](r, job.data)


def work(r, consumer, block_ms=1000, claim_idle_ms=jobs.CLAIM_IDLE_MS,
         max_attempts=jobs.MAX_ATTEMPTS):  # fmt: skip
    """One step of a worker: run the stale jobs it can claim, else one new job.

    Returns the number of jobs completed. A job that raises stays pending and is
    retried (by whoever claims it) until its last attempt, which dead-letters it.
    """
    batch = jobs.claim_stale(r, consumer, claim_idle_ms, max_attempts) or jobs.read(
        r, consumer, count=1, block_ms=block_ms
    )
    done = 0
    for job in batch:
        try:
            followups = run_job(r, job)
        except Exception as error:
            log.exception("fan-out job %s failed (attempt %s): %s", job.id, job.attempts, job.data)
            if job.attempts >= max_attempts:
                jobs.dead_letter(r, job, f"{type(error).__name__}: {error}")
            continue
        jobs.complete(r, job, followups)
        done += 1
    return done


def work_until_idle(r, consumer="inline", max_jobs=1_000_000):
    """Run jobs in this process until none is waiting (tests, demo seeding)."""
    jobs.ensure_group(r)
    done = 0
    while done < max_jobs and (step := work(r, consumer, block_ms=None)):
        done += step
    return done

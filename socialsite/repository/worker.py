"""The fan-out worker's step: take jobs from the stream, run each with its handler,
complete it with its follow-up jobs (``manage.py fanout`` loops over ``work``).

Handlers: ``plan``, ``deliver`` and ``remove`` (fanout.py) spread a status over, or
take it out of, followers' home timelines; ``refill`` (eviction.refill_home) tops a
home timeline up after an unfollow; ``approve_requests`` (privacy.approve_waiting)
approves the follow requests of an account turned public; ``leave``
(leaving.continue_deletion) goes on deleting an account. This module sits above them
all, so that none has to know the others.

Deliveries of a hidden author's statuses (suspended, or being deleted: users.is_hidden)
are skipped: pages would leave them out anyway. A status posted just before its
author's suspension thus reaches only its inline followers, also once the suspension
is undone.
"""

import logging

from . import communities, eviction, fanout, followed_tags, jobs, keys, leaving, privacy, reposts
from .client import OUTAGE_ERRORS
from .limits import DELETION_JOB_BUDGET, JOBS_PER_STEP, NOTIFICATIONS_KEPT

log = logging.getLogger(__name__)


def refill(r, job):
    # An evicted home (an unfollow made for its owner: a block) stays empty: its owner's
    # first page back rebuilds it whole.
    if not eviction.is_evicted(r, job["uid"]):
        eviction.refill_home(r, job["uid"])
    return []


def approve_requests(r, job):
    # A job queued before jobs carried the setting keeps the repository's default.
    kept = job.get("notifications_kept", NOTIFICATIONS_KEPT)
    privacy.approve_waiting(r, job["uid"], notifications_kept=kept)
    return []


def _author_hidden(r, author_uid):
    """Whether the author of a fan-out is hidden: one HMGET of the two fields."""
    fields = r.hmget(keys.user(author_uid), [keys.SUSPENDED_FIELD, keys.LEAVING_FIELD])
    return any(fields)


def plan(r, job):
    if job["action"] == "deliver" and _author_hidden(r, job["author"]):
        return []
    return fanout.plan(r, job)


def deliver(r, job):
    if _author_hidden(r, job["author"]):
        return []
    return fanout.deliver_range(r, job)


def leave(r, job):
    """Go on deleting an account; the same job again while there is more to do."""
    if leaving.continue_deletion(r, job["uid"], DELETION_JOB_BUDGET) is False:
        return [job]
    return []


def community_deliver(r, job):
    """Groups: a group's status to the next batch of its members."""
    if _author_hidden(r, job["author"]):
        return []
    return communities.deliver_batch(r, job)


def tag_deliver(r, job):
    """Followed hashtags: a status to the next batch of its tag's later followers."""
    if _author_hidden(r, job["author"]):
        return []
    return followed_tags.deliver_batch(r, job)


HANDLERS = {
    "plan": plan,
    "deliver": deliver,
    "remove": fanout.remove_range,
    "refill": refill,
    "approve_requests": approve_requests,
    "leave": leave,
    "unrepost": fanout.unrepost_range,
    "purge_reposts": reposts.purge_reposts,
    "community_deliver": community_deliver,  # groups
    "tag_deliver": tag_deliver,  # followed hashtags past FOLLOWED_TAG_DELIVERY
}


def run_job(r, job):
    """Do one job; return the follow-up jobs it produced."""
    return HANDLERS[job.kind](r, job.data)


def _run_together(batch):
    """``batch`` cut into lists of jobs to run as one: deliver jobs of one status
    together (deliver_ranges), every other job alone."""
    groups = {}
    for job in batch:
        together = (job.data["author"], job.data["sid"]) if job.kind == "deliver" else job.id
        groups.setdefault(together, []).append(job)
    return list(groups.values())


def _run(r, group):
    """Follow-up jobs for each job of ``group`` (see _run_together)."""
    if len(group) == 1:
        return [run_job(r, group[0])]
    if not _author_hidden(r, group[0].data["author"]):
        fanout.deliver_ranges(r, [job.data for job in group])
    return [[] for _ in group]


def work(r, consumer, block_ms=1000, claim_idle_ms=jobs.CLAIM_IDLE_MS,
         max_attempts=jobs.MAX_ATTEMPTS, jobs_per_step=JOBS_PER_STEP):  # fmt: skip
    """One step of a worker: run the stale jobs it can claim, else up to
    ``jobs_per_step`` new ones.

    Returns the number of jobs completed. A job that raises stays pending, its failure
    counted; it is retried (by whoever claims it) until its ``max_attempts``-th failure
    dead-letters it (jobs.fail). Jobs run together (deliver_ranges) that fail are tried
    again one by one at once, so one bad job cannot take the others down with it.

    Redis itself unreachable (client.OUTAGE_ERRORS) is not a job's failure: it is
    raised to the caller, which waits for Redis to come back; the jobs stay pending.
    """
    batch = jobs.claim_stale(r, consumer, claim_idle_ms) or jobs.read(
        r, consumer, count=jobs_per_step, block_ms=block_ms
    )
    done = 0
    for group in _run_together(batch):
        try:
            followups = _run(r, group)
        except OUTAGE_ERRORS:
            raise
        except Exception as error:
            if len(group) == 1:
                _failed(r, group[0], error, max_attempts)
                continue
            log.warning("%d fan-out jobs run together failed; running each alone", len(group))
            followups = []
            for job in group:
                try:
                    followups.append(run_job(r, job))
                except OUTAGE_ERRORS:
                    raise
                except Exception as error:
                    _failed(r, job, error, max_attempts)
                    followups.append(None)
        finished = [
            (job, its) for job, its in zip(group, followups, strict=True) if its is not None
        ]
        jobs.complete_all(r, finished)
        done += len(finished)
    return done


def _failed(r, job, error, max_attempts):
    """Log a job that raised, and count the failure (dead-lettering it at the last)."""
    failures = jobs.fail(r, job, f"{type(error).__name__}: {error}", max_attempts)
    if failures == -1:
        return  # completed meanwhile by a worker that claimed it
    outcome = "dead-lettered" if failures == 0 else f"failure {failures} of {max_attempts}"
    log.error("fan-out job %s failed (%s): %s", job.id, outcome, job.data, exc_info=error)


def work_until_idle(r, consumer="inline", max_jobs=1_000_000):
    """Run jobs in this process until none is waiting (tests, demo seeding)."""
    jobs.ensure_group(r)
    done = 0
    while done < max_jobs and (step := work(r, consumer, block_ms=None)):
        done += step
    return done

"""The fan-out worker: deferred delivery and cleanup, exactly once, surviving crashes."""

import os
import signal
import subprocess
import sys
import time
from io import StringIO

import pytest
from django.conf import settings
from django.core.management import call_command

from socialsite.repository import fanout, graph, jobs, keys, statuses, timelines, worker
from tests.support.helpers import make_user


@pytest.fixture
def small_batches(monkeypatch):
    """Batches of 10 and plans of 3 batches: many jobs and chained plans from few users."""
    monkeypatch.setattr(fanout, "FANOUT_BATCH_SIZE", 10)
    monkeypatch.setattr(fanout, "PLAN_BATCHES_PER_JOB", 3)


def add_followers(r, author_uid, count, first_uid=1000):
    """``count`` followers of ``author_uid`` written straight into the graph's keys.

    Much faster than ``graph.follow`` for thousands, and the same keys and scores
    (unique, increasing) that add_edge.lua writes.
    """
    follower_uids = list(range(first_uid, first_uid + count))
    now = int(time.time() * 1000)
    for start in range(0, count, 5000):
        pipe = r.pipeline(transaction=False)
        chunk = follower_uids[start : start + 5000]
        pipe.zadd(keys.followers(author_uid), {str(f): now + f for f in chunk})
        for follower in chunk:
            pipe.zadd(keys.following(follower), {str(author_uid): now + follower})
        pipe.execute()
    return follower_uids


def receivers(r, sid, follower_uids):
    """Followers whose home timeline holds ``sid``."""
    pipe = r.pipeline(transaction=False)
    for follower in follower_uids:
        pipe.sismember(keys.home(follower), sid)
    return {f for f, held in zip(follower_uids, pipe.execute(), strict=True) if held}


def all_homes(r, uids):
    return {uid: timelines.home_ids(r, uid) for uid in uids}


def test_a_large_fan_out_reaches_every_follower_through_plans_and_batches(r, alice, small_batches):
    followers = add_followers(r, alice["id"], 95)
    sid = statuses.post_status(r, alice["id"], "to everyone", inline_limit=7)
    assert len(receivers(r, sid, followers)) == 7
    done = worker.work_until_idle(r)
    # 88 deferred followers: plans of 3 batches of 10 chain three times, 9 deliver jobs.
    assert done >= 12
    assert receivers(r, sid, followers) == set(followers)
    assert jobs.status(r)["waiting"] == jobs.status(r)["in_flight"] == 0


def test_each_job_run_twice_leaves_identical_state(r, alice, small_batches):
    followers = add_followers(r, alice["id"], 45)
    sid = statuses.post_status(r, alice["id"], "twice", inline_limit=5)
    jobs.ensure_group(r)
    queue = jobs.read(r, "tester", count=100, block_ms=None)
    ran = []
    while queue:
        job = queue.pop(0)
        ran.append(job.data)
        followups = worker.run_job(r, job)
        jobs.complete(r, job, followups)
        queue += jobs.read(r, "tester", count=100, block_ms=None)
    once = all_homes(r, followers)
    for data in ran:  # as if every worker died before completing, and all were retried
        worker.HANDLERS[data["kind"]](r, data)
    assert all_homes(r, followers) == once
    assert receivers(r, sid, followers) == set(followers)


def test_follows_and_unfollows_during_a_fan_out_are_respected(r, alice, small_batches):
    fans = [make_user(r, f"fan{i}") for i in range(30)]
    for fan in fans:
        graph.follow(r, fan["id"], alice["id"])
    sid = statuses.post_status(r, alice["id"], "mid-flight", inline_limit=4)
    # While the deferred part waits: five leave, two new people follow.
    leavers = fans[10:15]
    for fan in leavers:
        graph.unfollow(r, fan["id"], alice["id"])
    newcomers = [make_user(r, f"new{i}") for i in range(2)]
    for person in newcomers:
        graph.follow(r, person["id"], alice["id"])
    worker.work_until_idle(r)
    for fan in fans:
        expected = [] if fan in leavers else [sid]
        assert timelines.home_ids(r, fan["id"]) == expected, fan["login"]
    for person in newcomers:  # via the follow's backfill, once
        assert timelines.home_ids(r, person["id"]) == [sid]


def users_in_one_shard(r, count):
    """``count`` new users whose keys share one shard (so one deliver.lua call serves them)."""
    found = []
    while len(found) < count:
        user = make_user(r, f"u{len(found)}_{int(time.time() * 1e6) % 10**9}")
        if not found or user["id"] % keys.USER_SHARDS == found[0]["id"] % keys.USER_SHARDS:
            found.append(user)
    return found


def test_a_batch_read_before_an_unfollow_skips_whoever_left(r, alice):
    stays, leaves = users_in_one_shard(r, 2)
    for fan in (stays, leaves):
        graph.follow(r, fan["id"], alice["id"])
    sid = statuses.post_status(r, alice["id"], "mid-batch", inline_limit=0)
    batch, _ = fanout.followers_in_range(r, alice["id"], None, None, 10)
    assert set(batch) == {stays["id"], leaves["id"]}
    # The worker read the batch; someone unfollows before it delivers.
    graph.unfollow(r, leaves["id"], alice["id"])
    assert fanout.deliver(r, alice["id"], sid, batch) == 1
    assert timelines.home_ids(r, stays["id"]) == [sid]
    assert timelines.home_ids(r, leaves["id"]) == []


def test_following_again_ends_the_skipping(r, alice, bob):
    graph.follow(r, bob["id"], alice["id"])
    graph.unfollow(r, bob["id"], alice["id"])
    assert r.exists(keys.unfollowed(bob["id"], alice["id"]))
    graph.follow(r, bob["id"], alice["id"])
    assert not r.zrange(keys.unfollowed(bob["id"], alice["id"]), 0, -1)
    sid = statuses.post_status(r, alice["id"], "welcome back", inline_limit=0)
    assert fanout.deliver(r, alice["id"], sid, [bob["id"]]) == 1
    assert timelines.home_ids(r, bob["id"]) == [sid]


def test_unfollows_are_remembered_for_a_bounded_time(r, alice, bob, carol, monkeypatch):
    from socialsite.repository.limits import UNFOLLOW_MEMORY_MS

    bob_shard_mates = users_in_one_shard(r, 2)
    now = int(time.time() * 1000)
    old, recent = bob_shard_mates
    for fan in bob_shard_mates:
        graph.follow(r, fan["id"], alice["id"])
    monkeypatch.setattr(graph, "_now_ms", lambda: now - UNFOLLOW_MEMORY_MS - 1)
    graph.unfollow(r, old["id"], alice["id"])
    monkeypatch.setattr(graph, "_now_ms", lambda: now)
    graph.unfollow(r, recent["id"], alice["id"])
    key = keys.unfollowed(recent["id"], alice["id"])
    assert r.zrange(key, 0, -1) == [str(recent["id"])]  # the older one was let go
    assert 0 < r.pttl(key) <= UNFOLLOW_MEMORY_MS


def test_follows_in_one_millisecond_are_each_reached_once(r, alice, small_batches, monkeypatch):
    monkeypatch.setattr(graph, "_now_ms", lambda: 1_700_000_000_000)
    fans = [make_user(r, f"fan{i}") for i in range(25)]
    for fan in fans:
        graph.follow(r, fan["id"], alice["id"])
    sid = statuses.post_status(r, alice["id"], "same instant", inline_limit=3)
    worker.work_until_idle(r)
    assert [timelines.home_ids(r, fan["id"]) for fan in fans] == [[sid]] * len(fans)


def test_a_failing_job_is_retried_then_dead_lettered_then_replayed(r, alice, monkeypatch):
    followers = add_followers(r, alice["id"], 12)
    sid = statuses.post_status(r, alice["id"], "unlucky", inline_limit=2)
    real_deliver = worker.HANDLERS["deliver"]

    def broken(r, job):
        raise ConnectionError("the network is down")

    monkeypatch.setitem(worker.HANDLERS, "deliver", broken)
    jobs.ensure_group(r)
    for _ in range(10):  # claim_idle_ms=0: retry at once instead of after 30 s
        worker.work(r, "w1", block_ms=None, claim_idle_ms=0, max_attempts=3)
    state = jobs.status(r)
    assert (state["dead"], state["in_flight"], state["waiting"]) == (1, 0, 0)
    (letter,) = jobs.dead_letters(r)
    assert letter["job"]["kind"] == "deliver"
    assert letter["attempts"] == "3"
    assert "the network is down" in letter["reason"]
    assert len(receivers(r, sid, followers)) == 2

    monkeypatch.setitem(worker.HANDLERS, "deliver", real_deliver)
    assert jobs.replay_dead(r) == 1
    worker.work_until_idle(r)
    assert receivers(r, sid, followers) == set(followers)
    assert jobs.status(r)["dead"] == 0


def test_a_plan_cuts_its_range_into_batches(r, alice, small_batches):
    add_followers(r, alice["id"], 25)
    scores = [
        int(score) for _, score in r.zrange(keys.followers(alice["id"]), 0, -1, withscores=True)
    ]
    made = fanout.plan(r, fanout.plan_job("deliver", alice["id"], 7, scores[2], scores[-1]))
    assert [job["kind"] for job in made] == ["deliver"] * 3
    sizes = [
        len(fanout.followers_in_range(r, alice["id"], job["after"], job["upto"], 100)[0])
        for job in made
    ]
    assert sizes == [10, 10, 2]  # the 22 followers after the third, each once
    assert made[0]["after"] == scores[2] and made[-1]["upto"] == scores[-1]
    # Fewer followers than a batch: one job, no cut to look for.
    (only,) = fanout.plan(r, fanout.plan_job("deliver", alice["id"], 7, scores[20], scores[-1]))
    assert (only["kind"], only["after"], only["upto"]) == ("deliver", scores[20], scores[-1])


def test_a_range_of_exactly_one_batch_is_read_once(r, alice):
    followers = add_followers(r, alice["id"], 11)
    scores = [
        int(score) for _, score in r.zrange(keys.followers(alice["id"]), 0, -1, withscores=True)
    ]
    # Exactly 10 in (None, 10th score]: all of them, and nothing to resume.
    batch, resume_after = fanout.followers_in_range(r, alice["id"], None, scores[9], 10)
    assert (batch, resume_after) == (followers[:10], None)
    # 11 in the range: the first 10, and where to go on from.
    batch, resume_after = fanout.followers_in_range(r, alice["id"], None, None, 10)
    assert (batch, resume_after) == (followers[:10], scores[9])
    assert fanout.followers_in_range(r, alice["id"], resume_after, None, 10) == (
        [followers[10]],
        None,
    )


def test_with_no_inline_part_every_follower_is_reached_by_the_workers(r, alice, small_batches):
    followers = add_followers(r, alice["id"], 25)
    sid = statuses.post_status(r, alice["id"], "all deferred", inline_limit=0)
    assert receivers(r, sid, followers) == set()
    worker.work_until_idle(r)
    assert receivers(r, sid, followers) == set(followers)


def test_jobs_of_one_fan_out_run_together_and_one_bad_job_holds_back_no_other(
    r, alice, small_batches, monkeypatch
):
    followers = add_followers(r, alice["id"], 30)  # 3 deliver jobs of 10
    sid = statuses.post_status(r, alice["id"], "together", inline_limit=0)
    poisoned = followers[15]  # in the second job
    real_deliver = fanout.deliver
    calls = []

    def deliver(r, author_uid, sid, follower_uids, replied_to=None):
        calls.append(len(follower_uids))
        if poisoned in follower_uids:
            raise ConnectionError("this one always fails")
        return real_deliver(r, author_uid, sid, follower_uids, replied_to)

    monkeypatch.setattr(fanout, "deliver", deliver)
    jobs.ensure_group(r)
    worker.work(r, "w1", block_ms=None)  # the plan job
    assert worker.work(r, "w1", block_ms=None) == 2  # the 3 jobs: tried together, then alone
    assert calls == [30, 10, 10, 10]
    assert receivers(r, sid, followers) == set(followers[:10] + followers[20:])
    state = jobs.status(r)
    assert (state["in_flight"], state["waiting"], state["dead"]) == (1, 0, 0)


def test_delete_cleans_every_followers_home_as_deferred_work(r, alice, small_batches):
    followers = add_followers(r, alice["id"], 40)
    sid = statuses.post_status(r, alice["id"], "oops", inline_limit=40)
    assert receivers(r, sid, followers) == set(followers)
    statuses.delete_status(r, alice["id"], sid)
    worker.work_until_idle(r)
    assert receivers(r, sid, followers) == set()


def test_a_fan_out_of_a_status_deleted_meanwhile_delivers_nothing(r, alice, small_batches):
    followers = add_followers(r, alice["id"], 30)
    sid = statuses.post_status(r, alice["id"], "gone quickly", inline_limit=5)
    statuses.delete_status(r, alice["id"], sid)
    worker.work_until_idle(r)
    assert receivers(r, sid, followers) == set()


def test_unfollow_refills_home_with_older_statuses_of_those_still_followed(r, alice, bob, carol):
    # carol posted 1..1500, bob 1501..2000 (ids written straight into the profiles).
    r.zadd(keys.profile(carol["id"]), {str(i): i for i in range(1, 1501)})
    r.zadd(keys.profile(bob["id"]), {str(i): i for i in range(1501, 2001)})
    graph.follow(r, alice["id"], carol["id"])
    graph.follow(r, alice["id"], bob["id"])
    assert timelines.home_ids(r, alice["id"]) == list(range(2000, 1000, -1))
    graph.unfollow(r, alice["id"], bob["id"])
    assert timelines.home_ids(r, alice["id"]) == list(range(1500, 1000, -1))
    worker.work_until_idle(r)
    assert timelines.home_ids(r, alice["id"]) == list(range(1500, 500, -1))


def test_status_command_reports_the_queue(r, alice, small_batches):
    add_followers(r, alice["id"], 30)
    statuses.post_status(r, alice["id"], "queued", inline_limit=5)
    out = StringIO()
    call_command("fanout", "--status", stdout=out)
    text = out.getvalue()
    assert "waiting jobs:    1" in text
    assert "in flight:       0" in text
    assert "dead letters:    0" in text
    assert "oldest waiting:  " in text and "oldest waiting:  -" not in text


def test_status_command_lists_the_workers_seen_alive_and_those_holding_jobs(r, alice):
    add_followers(r, alice["id"], 30)
    statuses.post_status(r, alice["id"], "queued", inline_limit=5)
    jobs.ensure_group(r)
    jobs.read(r, "killed", count=1, block_ms=None)  # holds the job; never noted alive
    jobs.note_alive(r, "quiet", now=time.time() - 3)  # alive; no job ever reached it
    out = StringIO()
    call_command("fanout", "--status", stdout=out)
    text = out.getvalue()
    assert "worker quiet: 0 in flight, last seen alive 3." in text
    assert "worker killed: 1 in flight, not seen alive lately" in text


# --- real worker processes ----------------------------------------------------------------


def start_worker(redis_backend, *args, env=None):
    """``manage.py fanout *args`` in a process of its own, on the tests' Redis; ``env``
    adds to its environment."""
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "socialsite.settings",
        "REDIS_URL": redis_backend.url,
        "REDIS_CLUSTER": "true" if redis_backend.cluster else "false",
        **(env or {}),
    }
    return subprocess.Popen(
        [sys.executable, str(settings.BASE_DIR / "manage.py"), "fanout", *args],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )


def wait_for(condition, timeout=60):
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError("timed out waiting")
        time.sleep(0.01)


def test_a_worker_killed_mid_job_loses_and_doubles_nothing(r, alice, redis_backend):
    followers = add_followers(r, alice["id"], 60_000)
    sid = statuses.post_status(r, alice["id"], "survive a crash")
    # A job takes milliseconds, so the kill can land between two jobs: try again
    # (with a fresh worker) until one dies holding a job.
    for attempt in range(30):
        doomed = start_worker(redis_backend, "--name", f"doomed{attempt}")
        try:
            wait_for(lambda: jobs.status(r)["in_flight"] >= 1 or jobs.status(r)["waiting"] == 0)
        finally:
            doomed.send_signal(signal.SIGKILL)
            doomed.wait()
        if jobs.status(r)["in_flight"] >= 1:
            break
    assert jobs.status(r)["in_flight"] >= 1  # killed holding a job
    survivor = start_worker(
        redis_backend, "--name", "survivor", "--claim-idle-ms", "200", "--exit-when-idle"
    )
    output, _ = survivor.communicate(timeout=120)
    assert survivor.returncode == 0, output
    assert receivers(r, sid, followers) == set(followers)
    homes = all_homes(r, followers[:: len(followers) // 50])
    assert all(len(home) == 1 for home in homes.values())
    state = jobs.status(r)
    assert state | {"consumers": [], "workers": {}} == {
        "waiting": 0, "in_flight": 0, "dead": 0, "oldest_waiting_seconds": None,
        "oldest_in_flight_seconds": None, "reclaimed": 0, "most_deliveries": 0,
        "failing": 0, "consumers": [], "workers": {},
    }  # fmt: skip
    # The killed worker was last seen when it died; the survivor, stopped, is forgotten.
    assert f"doomed{attempt}" in state["workers"] and "survivor" not in state["workers"]


def test_sigterm_lets_the_worker_finish_its_job_then_stop(r, alice, redis_backend):
    followers = add_followers(r, alice["id"], 30_000)
    statuses.post_status(r, alice["id"], "graceful")
    worker = start_worker(redis_backend, "--name", "graceful")
    wait_for(lambda: jobs.status(r)["in_flight"] >= 1)
    worker.send_signal(signal.SIGTERM)
    output, _ = worker.communicate(timeout=60)
    assert worker.returncode == 0, output
    assert "stopped after" in output
    state = jobs.status(r)
    assert state["in_flight"] == 0  # the job in hand was completed, not abandoned
    assert state["waiting"] > 0  # and it stopped without taking more
    assert followers

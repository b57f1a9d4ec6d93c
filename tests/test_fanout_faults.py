"""The fan-out under faults: claims are not failures, completed jobs are never
dead-lettered, stopped workers leave the group, and a worker outlives Redis outages."""

import random
import signal
import threading
import time
from io import StringIO
from pathlib import Path

import pytest
from django.core.management import call_command

from socialsite.repository import (
    client,
    fanout,
    jobs,
    keys,
    locks,
    scripts,
    statuses,
    timelines,
    users,
    worker,
)
from socialsite_dev.redis_servers import RedisServer
from tests.test_fanout_worker import add_followers, receivers, start_worker, wait_for


def hand_out(r, consumer):
    """Read the next job for ``consumer`` as a worker would, and run nothing."""
    (job,) = jobs.read(r, consumer, count=1, block_ms=None)
    return job


def test_a_job_claimed_from_dead_workers_again_and_again_is_never_dead_lettered(r, alice):
    followers = add_followers(r, alice["id"], 5)
    sid = statuses.post_status(r, alice["id"], "claimed often", inline_limit=1)
    jobs.ensure_group(r)
    hand_out(r, "dead0")
    for attempt in range(1, 12):  # far more claims than FANOUT_MAX_ATTEMPTS (5)
        (job,) = jobs.claim_stale(r, f"dead{attempt}", min_idle_ms=0)
        assert job.deliveries == attempt + 1
    state = jobs.status(r)
    assert (state["in_flight"], state["reclaimed"], state["most_deliveries"]) == (1, 1, 12)
    out = StringIO()
    call_command("fanout", "--status", stdout=out)
    assert "1 in flight were handed out again (at most 12 times)" in out.getvalue()

    assert worker.work(r, "survivor", block_ms=None, claim_idle_ms=0, max_attempts=5) == 1
    worker.work_until_idle(r)
    assert receivers(r, sid, followers) == set(followers)
    assert jobs.status(r)["dead"] == 0


def test_only_failed_runs_count_and_the_last_error_is_recorded(r, alice):
    add_followers(r, alice["id"], 5)
    statuses.post_status(r, alice["id"], "fails twice", inline_limit=1)
    jobs.ensure_group(r)
    job = hand_out(r, "w1")
    assert jobs.fail(r, job, "ValueError: first", max_attempts=3) == 1
    (job,) = jobs.claim_stale(r, "w2", min_idle_ms=0)  # a claim adds no failure
    assert jobs.fail(r, job, "ValueError: second", max_attempts=3) == 2
    assert jobs.status(r)["failing"] == 1
    (job,) = jobs.claim_stale(r, "w3", min_idle_ms=0)
    assert jobs.fail(r, job, "ValueError: third", max_attempts=3) == 0
    (letter,) = jobs.dead_letters(r)
    assert (letter["attempts"], letter["deliveries"]) == ("3", "3")
    assert letter["reason"] == "ValueError: third"
    state = jobs.status(r)
    assert (state["in_flight"], state["failing"], state["dead"]) == (0, 0, 1)


def test_a_job_completed_by_another_worker_is_not_dead_lettered_by_a_late_failure(r, alice):
    add_followers(r, alice["id"], 5)
    statuses.post_status(r, alice["id"], "completed elsewhere", inline_limit=1)
    jobs.ensure_group(r)
    slow = hand_out(r, "slow")  # still running it when another worker claims it
    (claimed,) = jobs.claim_stale(r, "fast", min_idle_ms=0)
    jobs.complete(r, claimed, worker.run_job(r, claimed))
    assert jobs.fail(r, slow, "TimeoutError: too slow", max_attempts=1) == -1
    state = jobs.status(r)
    assert (state["dead"], state["failing"]) == (0, 0)


def test_a_completed_job_forgets_its_failures(r, alice):
    add_followers(r, alice["id"], 5)
    statuses.post_status(r, alice["id"], "fails once", inline_limit=1)
    jobs.ensure_group(r)
    job = hand_out(r, "w1")
    jobs.fail(r, job, "ValueError: once", max_attempts=5)
    assert r.hlen(keys.JOB_FAILURES) == 1
    jobs.complete(r, job, worker.run_job(r, job))
    assert r.hlen(keys.JOB_FAILURES) == 0


def test_consumers_idle_with_nothing_pending_are_removed_from_the_group(r, alice):
    add_followers(r, alice["id"], 5)
    statuses.post_status(r, alice["id"], "one job", inline_limit=1)
    statuses.post_status(r, alice["id"], "another", inline_limit=1)
    statuses.post_status(r, alice["id"], "a third", inline_limit=1)
    jobs.ensure_group(r)
    hand_out(r, "holding")  # died holding a job: kept until someone claims it
    done = hand_out(r, "idle")  # completed its job, then stopped
    jobs.complete(r, done)
    quiet = hand_out(r, "quiet")  # completed its job, alive: no job since
    jobs.complete(r, quiet)
    time.sleep(0.01)
    # Its consumer's idle grows all the same before Redis 7.2. The heartbeat's clock is
    # given, so a slow machine between the note and the prune cannot make it look dead.
    seen_at = time.time()
    jobs.note_alive(r, "quiet", now=seen_at)
    assert jobs.prune_consumers(r, idle_ms=5, now=seen_at) == ["idle"]
    assert [c["name"] for c in jobs.status(r)["consumers"]] == ["holding", "quiet"]
    assert jobs.prune_consumers(r, idle_ms=60_000) == []


def test_redis_errors_are_outages_not_job_failures(r, alice, monkeypatch):
    add_followers(r, alice["id"], 5)
    statuses.post_status(r, alice["id"], "outage", inline_limit=1)
    jobs.ensure_group(r)

    def unreachable(r, job):
        raise client.OUTAGE_ERRORS[0]("Connection refused")

    monkeypatch.setitem(worker.HANDLERS, "plan", unreachable)
    with pytest.raises(client.OUTAGE_ERRORS):
        worker.work(r, "w1", block_ms=None)
    state = jobs.status(r)
    assert (state["in_flight"], state["failing"], state["dead"]) == (1, 0, 0)


def test_a_worker_waits_out_a_redis_restart_and_delivers_afterwards(r, tmp_path, alice):
    """A worker of its own on a Redis of its own, killed (SIGKILL) and started again on
    the same port: the same worker process delivers a post made afterwards."""
    server = RedisServer(tmp_path / "redis").start()
    other = client.connect(server.url)
    backend = type("Backend", (), {"url": server.url, "cluster": False})
    proc = start_worker(backend, "--name", "steadfast")
    try:
        wait_for(lambda: other.exists(keys.JOBS))  # the worker made its group: it is up
        server.stop()
        time.sleep(1.5)  # the worker meets the outage: refused connections
        assert proc.poll() is None
        server.start()
        other = client.connect(server.url)
        users_made = [other.incr(keys.USER_IDS) for _ in range(2)]
        poster, fan = users_made
        other.hset(keys.user(poster), mapping={"id": poster, "login": "poster", "name": "P",
                   "followers": 0, "following": 0, "posts": 0, "signup": 0})  # fmt: skip
        add_followers(other, poster, 3, first_uid=fan + 100)
        sid = statuses.post_status(other, poster, "after the restart", inline_limit=1)
        wait_for(lambda: len(receivers(other, sid, range(fan + 100, fan + 103))) == 3, 30)
        assert proc.poll() is None
    finally:
        proc.send_signal(signal.SIGTERM)
        output, _ = proc.communicate(timeout=30)
        server.stop()
    assert "Redis is unreachable" in output and "reachable again" in output
    assert output.count("Redis is unreachable") == 1  # logged once for the outage


# --- a post is whole or absent ---------------------------------------------------------


def unfinished(r):
    pipe = r.pipeline(transaction=False)
    for key in keys.all_unfinished_posts():
        pipe.hgetall(key)
    return {int(sid) for notes in pipe.execute() for sid in notes}


def test_a_post_leaves_no_unfinished_note_behind(r, alice):
    add_followers(r, alice["id"], 5)
    statuses.post_status(r, alice["id"], "whole", inline_limit=2)
    statuses.post_status(r, alice["id"], "all inline", inline_limit=10)
    assert unfinished(r) == set()


def test_a_post_whose_request_died_mid_fan_out_is_finished_by_the_workers(r, alice, monkeypatch):
    followers = add_followers(r, alice["id"], 30)

    def die(*args):
        raise SystemExit("the web worker was killed")

    monkeypatch.setattr(fanout, "deliver", die)
    with pytest.raises(SystemExit):
        statuses.post_status(r, alice["id"], "half delivered", inline_limit=10)
    monkeypatch.undo()
    (sid,) = unfinished(r)
    assert receivers(r, sid, followers) == set()
    assert statuses.finish_unfinished(r, grace_ms=60_000) == 0  # too recent: still posting
    assert statuses.finish_unfinished(r, grace_ms=0) == 1
    worker.work_until_idle(r)
    assert receivers(r, sid, followers) == set(followers)
    assert all(timelines.home_ids(r, f).count(sid) == 1 for f in followers)
    assert unfinished(r) == set() and jobs.status(r)["dead"] == 0


def test_a_post_that_died_before_its_status_was_written_is_taken_back(r, alice):
    add_followers(r, alice["id"], 3)
    sid = r.incr(keys.STATUS_IDS)
    # The first write of a post, and nothing after it.
    scripts.add_own_status(r, uid=alice["id"], sid=sid, now_ms=0, conversation=False)
    assert users.get_user(r, alice["id"])["posts"] == 1
    assert statuses.finish_unfinished(r, grace_ms=0) == 1
    assert timelines.profile_ids(r, alice["id"]) == []
    assert users.get_user(r, alice["id"])["posts"] == 0
    assert unfinished(r) == set() and jobs.backlog(r) == 0


def test_one_worker_sweeps_at_a_time(r, alice):
    with locks.hold(r, keys.UNFINISHED_SWEEP_LOCK):
        assert statuses.finish_unfinished(r, grace_ms=0) == 0


def test_the_same_form_sent_twice_posts_once(r, alice):
    followers = add_followers(r, alice["id"], 3)
    first = statuses.post_status(r, alice["id"], "once", posting_key="k1")
    again = statuses.post_status(r, alice["id"], "once", posting_key="k1")
    assert again == first
    assert timelines.profile_ids(r, alice["id"]) == [first]
    assert users.get_user(r, alice["id"])["posts"] == 1
    other = statuses.post_status(r, alice["id"], "once", posting_key="k2")
    assert other != first
    assert receivers(r, other, followers) == set(followers)


def test_a_form_sent_again_after_its_first_request_died_posts_it_under_its_first_id(
    r, alice, monkeypatch
):
    followers = add_followers(r, alice["id"], 3)

    def die(*args, **kwargs):
        raise SystemExit("killed before the status was written")

    monkeypatch.setattr(scripts, "run_pipeline", die)
    with pytest.raises(SystemExit):
        statuses.post_status(r, alice["id"], "retry me", posting_key="k1")
    monkeypatch.undo()
    claimed = int(r.get(keys.posting_key(alice["id"], "k1")))
    sid = statuses.post_status(r, alice["id"], "retry me", posting_key="k1")
    assert sid == claimed
    assert statuses.get_status(r, sid)["message"] == "retry me"
    assert receivers(r, sid, followers) == set(followers)
    assert users.get_user(r, alice["id"])["posts"] == 1


# --- real worker processes killed again and again ----------------------------------------

SLOW_REDIS = Path(__file__).parent / "support" / "slow_redis"


def test_a_fan_out_survives_its_workers_killed_mid_job_again_and_again(r, alice, redis_backend):
    followers = add_followers(r, alice["id"], 20_000)
    sid = statuses.post_status(r, alice["id"], "through fifteen crashes", inline_limit=100)
    slow = {"PYTHONPATH": str(SLOW_REDIS), "SOCIALSITE_TEST_REDIS_DELAY_MS": "150"}
    rng = random.Random(15)
    kills_mid_job = 0
    for attempt in range(60):
        if kills_mid_job >= 15 or jobs.backlog(r) == 0:
            break
        name = f"doomed{attempt}"
        doomed = start_worker(
            redis_backend, "--name", name, "--claim-idle-ms", "300", "--jobs-per-step", "1",
            env=slow,
        )  # fmt: skip
        try:
            wait_for(lambda name=name: holds_a_job(r, name) or jobs.backlog(r) == 0, 30)
            time.sleep(rng.uniform(0, 0.3))  # somewhere inside the job
            mid_job = holds_a_job(r, name)
        finally:
            doomed.send_signal(signal.SIGKILL)
            doomed.wait()
        kills_mid_job += mid_job
    assert kills_mid_job >= 15
    survivor = start_worker(
        redis_backend, "--name", "survivor", "--claim-idle-ms", "300", "--exit-when-idle"
    )
    output, _ = survivor.communicate(timeout=180)
    assert survivor.returncode == 0, output
    assert receivers(r, sid, followers) == set(followers)
    sample = followers[:: len(followers) // 200]
    assert all(timelines.home_ids(r, f) == [sid] for f in sample)  # once, nothing else
    state = jobs.status(r)
    assert (state["dead"], state["in_flight"], state["waiting"], state["failing"]) == (0, 0, 0, 0)


def holds_a_job(r, consumer):
    """Whether worker ``consumer`` has a job in flight."""
    return any(c["name"] == consumer and c["pending"] for c in jobs.status(r)["consumers"])


def test_redis_killed_during_a_burst_of_posts_loses_no_delivery_of_a_stored_status(tmp_path):
    """Four clients post as fast as they can (each author has 1,500 followers: 1,000
    inline, the rest deferred) while Redis is SIGKILLed; it starts again from its
    append-only file, the workers sweep and run, and then every status Redis kept is
    in the home timeline of every follower of its author."""
    server = RedisServer(tmp_path / "redis", append_only=True).start()
    setup = client.connect(server.url)
    authors = []
    for index in range(4):
        uid = setup.incr(keys.USER_IDS)
        setup.hset(keys.user(uid), mapping={"id": uid, "login": f"a{index}", "name": "A",
                   "followers": 0, "following": 0, "posts": 0, "signup": 0})  # fmt: skip
        authors.append((uid, add_followers(setup, uid, 1500, first_uid=10_000 * (index + 1))))
    setup.config_set("appendfsync", "everysec")
    stop, posted = threading.Event(), []

    def poster(uid):
        r = client.connect(server.url, timeout=0.5, retries=0)
        while not stop.is_set():
            try:
                posted.append(statuses.post_status(r, uid, "burst"))
            except client.OUTAGE_ERRORS:
                time.sleep(0.01)

    threads = [threading.Thread(target=poster, args=(uid,)) for uid, _ in authors]
    for thread in threads:
        thread.start()
    try:
        wait_for(lambda: len(posted) >= 40, 30)
        server.stop()  # SIGKILL, in the middle of posts
        time.sleep(0.3)
        stop.set()
        for thread in threads:
            thread.join()
    finally:
        stop.set()
    server.start()  # from the append-only file
    r = client.connect(server.url)
    statuses.finish_unfinished(r, grace_ms=0)
    worker.work_until_idle(r)
    kept = 0
    for uid, followers in authors:
        for sid in timelines.profile_ids(r, uid):
            if r.exists(keys.status(sid)):
                kept += 1
                assert receivers(r, sid, followers) == set(followers), sid
    assert kept >= 20
    assert unfinished(r) == set() and jobs.status(r)["dead"] == 0
    server.stop()


def test_a_repost_fan_out_survives_its_workers_killed_mid_job(r, alice, bob, redis_backend):
    """A repost's deferred fan-out, its workers SIGKILLed inside jobs, then finished by
    another: every follower of the reposter has the status exactly once, those who
    also follow its author (and got the original first) through that one entry."""
    from socialsite.repository import reposts

    followers = add_followers(r, bob["id"], 6_000)
    also_alice = followers[::3]
    pipe = r.pipeline(transaction=False)
    for follower in also_alice:
        pipe.zadd(keys.followers(alice["id"]), {str(follower): follower})
        pipe.zadd(keys.following(follower), {str(alice["id"]): follower})
    pipe.execute()
    sid = statuses.post_status(r, alice["id"], "the original", inline_limit=10_000)
    reposts.repost(r, bob["id"], sid, inline_limit=100)
    rid = int(r.zscore(keys.reposted(bob["id"]), sid))
    slow = {"PYTHONPATH": str(SLOW_REDIS), "SOCIALSITE_TEST_REDIS_DELAY_MS": "150"}
    rng = random.Random(18)
    kills_mid_job = 0
    for attempt in range(30):
        if kills_mid_job >= 4 or jobs.backlog(r) == 0:
            break
        name = f"doomed{attempt}"
        doomed = start_worker(
            redis_backend, "--name", name, "--claim-idle-ms", "300", "--jobs-per-step", "1",
            env=slow,
        )  # fmt: skip
        try:
            wait_for(lambda name=name: holds_a_job(r, name) or jobs.backlog(r) == 0, 30)
            time.sleep(rng.uniform(0, 0.3))
            mid_job = holds_a_job(r, name)
        finally:
            doomed.send_signal(signal.SIGKILL)
            doomed.wait()
        kills_mid_job += mid_job
    assert kills_mid_job >= 1
    survivor = start_worker(
        redis_backend, "--name", "survivor", "--claim-idle-ms", "300", "--exit-when-idle"
    )
    output, _ = survivor.communicate(timeout=180)
    assert survivor.returncode == 0, output
    sample = followers[::37]
    for follower in sample:
        expected = [sid] if follower in set(also_alice) else [rid]
        assert timelines.home_ids(r, follower) == expected
    reached = receivers(r, rid, followers) | receivers(r, sid, followers)
    assert reached == set(followers)
    assert not receivers(r, rid, also_alice)

"""Throttle counters (repository/throttles.py, lua/throttle.lua) on real Redis: counts,
windows moved on by a controlled clock (no sleeping), refunds, retries, concurrency,
and the use counted along with a session read."""

import threading

import pytest
from redis.cluster import key_slot

from socialsite.repository import client, keys, scripts, sessions, throttles
from tests.support.helpers import make_user

T0 = 1_700_000_000.0  # the controlled clock's start, in seconds since the epoch


@pytest.fixture
def clock(monkeypatch):
    """throttles' clock, set to T0; ``clock.now`` moves it."""

    class Clock:
        now = T0

    monkeypatch.setattr(throttles, "clock", lambda: Clock.now)
    return Clock


COUNTER = keys.address_throttle("login", "203.0.113.7")


def test_it_allows_the_limit_then_refuses(r, clock):
    verdicts = [throttles.hit(r, COUNTER, 3, 300) for _ in range(5)]
    assert [v.allowed for v in verdicts] == [True, True, True, False, False]
    assert [v.count for v in verdicts] == [1, 2, 3, 3, 3]
    assert [v.remaining for v in verdicts] == [2, 1, 0, 0, 0]
    assert {v.limit for v in verdicts} == {3}
    assert throttles.uses(r, COUNTER, 300) == 3  # refused uses are not counted


def test_the_window_starts_at_the_first_use_and_rolls_over(r, clock):
    clock.now = T0 + 17.5  # not on any round number: windows are the counter's own
    first = throttles.hit(r, COUNTER, 2, 60)
    assert first.start_ms == int((T0 + 17.5) * 1000)
    assert first.reset_at == T0 + 17.5 + 60
    clock.now += 30
    assert throttles.hit(r, COUNTER, 2, 60).allowed
    clock.now += 29.999
    refused = throttles.hit(r, COUNTER, 2, 60)
    assert not refused.allowed
    assert refused.retry_after() == 1  # 1 ms left, rounded up to a second
    clock.now = T0 + 17.5 + 60  # the window's end: a new one
    again = throttles.hit(r, COUNTER, 2, 60)
    assert again.allowed and again.count == 1
    assert again.start_ms == int((T0 + 77.5) * 1000)


def test_retry_after_counts_down_to_the_windows_end(r, clock):
    throttles.hit(r, COUNTER, 1, 300)
    clock.now += 100.2
    refused = throttles.hit(r, COUNTER, 1, 300)
    assert not refused.allowed
    assert refused.retry_after() == 200  # 199.8 s, rounded up


def test_a_counter_expires_with_its_window(r, clock):
    throttles.hit(r, COUNTER, 5, 300)
    ttl = r.pttl(COUNTER)
    assert 0 < ttl <= 300_000
    assert throttles.uses(r, COUNTER, 300) == 1
    clock.now += 300
    assert throttles.uses(r, COUNTER, 300) == 0


def test_counters_of_other_subjects_and_throttles_are_apart(r, clock):
    for _ in range(2):
        throttles.hit(r, COUNTER, 2, 300)
    other_address = keys.address_throttle("login", "203.0.113.8")
    other_throttle = keys.address_throttle("signup", "203.0.113.7")
    assert not throttles.hit(r, COUNTER, 2, 300).allowed
    assert throttles.hit(r, other_address, 2, 300).allowed
    assert throttles.hit(r, other_throttle, 2, 300).allowed


def test_a_refund_gives_one_use_back_once_in_its_window(r, clock):
    first = throttles.hit(r, COUNTER, 2, 300)
    throttles.hit(r, COUNTER, 2, 300)
    assert throttles.refund(r, first)
    assert not throttles.refund(r, first)  # the same use again: nothing
    assert throttles.uses(r, COUNTER, 300) == 1
    assert throttles.hit(r, COUNTER, 2, 300).allowed
    assert not throttles.hit(r, COUNTER, 2, 300).allowed


def test_a_refund_after_the_window_changes_nothing(r, clock):
    old = throttles.hit(r, COUNTER, 2, 300)
    clock.now += 300
    throttles.hit(r, COUNTER, 2, 300)  # the new window's first use
    assert not throttles.refund(r, old)
    assert throttles.uses(r, COUNTER, 300) == 1


def test_a_refused_use_has_nothing_to_refund(r, clock):
    throttles.hit(r, COUNTER, 1, 300)
    refused = throttles.hit(r, COUNTER, 1, 300)
    assert not throttles.refund(r, refused)
    assert throttles.uses(r, COUNTER, 300) == 1


def test_the_same_use_sent_again_counts_once(r, clock):
    # A use sent again after a dropped connection carries the same token.
    call = {"counter": COUNTER, "now_ms": int(T0 * 1000), "limit": 5, "window_ms": 300_000}
    assert scripts.throttle(r, **call, token="use-1") == [1, 1, int(T0 * 1000)]
    assert scripts.throttle(r, **call, token="use-1") == [1, 1, int(T0 * 1000)]
    assert scripts.throttle(r, **call, token="use-2")[1] == 2


def test_a_login_counter_ignores_case():
    assert throttles.login_counter("login_failures", "Alice") == throttles.login_counter(
        "login_failures", "ALICE"
    )


def test_an_account_counter_lives_in_its_users_slot():
    for uid in (1, 42, 1066):
        counter = throttles.account_counter(uid, "statuses")
        assert key_slot(counter.encode()) == key_slot(keys.user(uid).encode())
        assert key_slot(counter.encode()) == key_slot(keys.session(f"{uid}.abc").encode())


def test_threads_hitting_one_counter_get_exactly_the_limit(redis_backend, clock):
    limit, threads, hits_each = 37, 12, 10
    accepted = []
    lock = threading.Lock()
    start = threading.Barrier(threads)

    def worker():
        own = client.connect(redis_backend.url, cluster=redis_backend.cluster)
        start.wait()
        mine = sum(throttles.hit(own, COUNTER, limit, 300).allowed for _ in range(hits_each))
        with lock:
            accepted.append(mine)
        own.close()

    workers = [threading.Thread(target=worker) for _ in range(threads)]
    for thread in workers:
        thread.start()
    for thread in workers:
        thread.join()
    assert sum(accepted) == limit
    own = client.connect(redis_backend.url, cluster=redis_backend.cluster)
    assert throttles.uses(own, COUNTER, 300) == limit


def _save_session(r, uid):
    session_key = sessions.key_naming_user(uid, "k" * 32)
    sessions.save(r, session_key, "{}", 3600, must_create=True)
    return session_key


def test_a_use_is_counted_in_the_session_read(r, clock, round_trips, redis_backend):
    alice = make_user(r, "alice")
    session_key = _save_session(r, alice["id"])
    sessions.load_with_user(r, session_key)  # scripts loaded
    round_trips["n"] = 0
    reader = throttles.AccountHitRead("statuses", 2, 300, session_key)
    data, loaded = sessions.load_with_user(r, session_key, read_along=[reader])
    assert data == "{}" and loaded[0] == alice["id"]
    if not redis_backend.cluster:
        assert round_trips["n"] == 1
    verdict = reader.verdict_for(alice["id"])
    assert verdict.allowed and verdict.count == 1
    assert reader.verdict_for(alice["id"] + 1) is None
    counter = throttles.account_counter(alice["id"], "statuses")
    assert throttles.uses(r, counter, 300) == 1


def test_a_session_that_does_not_exist_counts_nothing(r, clock):
    alice = make_user(r, "alice")
    made_up = sessions.key_naming_user(alice["id"], "x" * 32)  # never saved
    reader = throttles.AccountHitRead("statuses", 2, 300, made_up)
    data, _ = sessions.load_with_user(r, made_up, read_along=[reader])
    assert data is None
    assert reader.verdict_for(alice["id"]) is None
    assert not r.exists(throttles.account_counter(alice["id"], "statuses"))

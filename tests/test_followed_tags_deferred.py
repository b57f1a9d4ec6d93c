"""Followed hashtags past the first FOLLOWED_TAG_DELIVERY followers: the later ones
reached by "tag_deliver" jobs of the fan-out workers, a batch a run, up to the newest
follower at posting time; a hidden author's jobs do nothing."""

from socialsite.repository import followed_tags, jobs, keys, statuses, timelines, worker
from tests.support.helpers import make_user


def home_ids(r, uid):
    return [item["id"] for item in timelines.home_page(r, uid).items]


def drain(r):
    jobs.ensure_group(r)
    while worker.work(r, "w1", block_ms=None):
        pass


def test_later_followers_get_it_from_the_workers(r, alice, monkeypatch):
    real = followed_tags.deliver_batch
    monkeypatch.setattr(followed_tags, "deliver_batch", lambda r, job: real(r, job, batch=2))
    people = [make_user(r, f"fan{n}") for n in range(7)]
    for n, person in enumerate(people):
        followed_tags.follow(r, person["id"], "big", now_ms=1000 + n)
    sid = statuses.post_status(r, alice["id"], "news #big")
    assert followed_tags.deliver_status(r, sid, limit=2) == 2
    assert [sid in home_ids(r, p["id"]) for p in people] == [True, True] + [False] * 5
    # One job queued, for the five later followers: batches of 2, each going on.
    assert r.xlen(keys.JOBS) >= 1
    latecomer = make_user(r, "late")
    followed_tags.follow(r, latecomer["id"], "big", now_ms=10**13)  # after the posting
    drain(r)
    assert all(sid in home_ids(r, p["id"]) for p in people)
    assert sid not in home_ids(r, latecomer["id"])  # followed after the posting


def test_a_job_stops_at_the_newest_follower_at_posting(r, alice):
    people = [make_user(r, f"fan{n}") for n in range(3)]
    for n, person in enumerate(people):
        followed_tags.follow(r, person["id"], "big", now_ms=1000 + n)
    sid = statuses.post_status(r, alice["id"], "news #big")
    job = {"kind": "tag_deliver", "sid": sid, "author": alice["id"], "tag": "big",
           "after": 1000.0, "upto": 1001.0, "replied_to": None}  # fmt: skip
    assert followed_tags.deliver_batch(r, job, batch=5) == []
    assert [sid in home_ids(r, p["id"]) for p in people] == [False, True, False]

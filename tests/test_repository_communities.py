"""The repository of groups ("communities"): delivery of a group's status to
its members' homes, inline and by the fan-out workers, a big group pulled, and the
deletion of an account leaving its groups."""

import time

import pytest

from socialsite.repository import communities, jobs, keys, leaving, statuses, worker


@pytest.fixture
def small_batches(monkeypatch):
    monkeypatch.setattr(communities, "FANOUT_BATCH_SIZE", 10)


def add_members(r, cid, count, first_uid=1000, same_ms=False):
    """``count`` members written straight into the community's and their own keys."""
    uids = list(range(first_uid, first_uid + count))
    now = int(time.time() * 1000)
    pipe = r.pipeline(transaction=False)
    for uid in uids:
        joined = now if same_ms else now - 100_000 + uid
        pipe.zadd(keys.community_members(cid), {uid: joined})
        pipe.zadd(keys.memberships(uid), {cid: joined})
    pipe.execute()
    return uids


def homes_holding(r, sid, uids):
    pipe = r.pipeline(transaction=False)
    for uid in uids:
        pipe.sismember(keys.home(uid), sid)
    return {uid for uid, held in zip(uids, pipe.execute(), strict=True) if held}


def post_in(r, cid, author, text, **delivery):
    sid = statuses.post_status(r, author, text, community=cid)
    communities.add_status(r, cid, sid, author, **delivery)
    return sid


@pytest.mark.parametrize("same_ms", [False, True])
def test_members_past_the_inline_ones_get_it_from_the_workers(r, alice, small_batches, same_ms):
    cid = communities.create(r, alice["id"], "big", "Big", "", "public")
    members = add_members(r, cid, 95, same_ms=same_ms)
    communities.set_in_home(r, cid, members[50], False)
    sid = post_in(r, cid, alice["id"], "to all of you", inline_limit=7)
    assert len(homes_holding(r, sid, members)) <= 7
    worker.work_until_idle(r)
    assert homes_holding(r, sid, members) == set(members) - {members[50]}
    assert jobs.status(r)["waiting"] == jobs.status(r)["in_flight"] == 0


def test_a_group_of_pull_members_or_more_is_delivered_to_nobody(r, alice):
    cid = communities.create(r, alice["id"], "huge", "Huge", "", "public")
    members = add_members(r, cid, 20)
    sid = post_in(r, cid, alice["id"], "read me on the page", pull_members=10)
    worker.work_until_idle(r)
    assert homes_holding(r, sid, members) == set()
    page = communities.timeline_page(r, cid, viewer_id=members[0], member=True)
    assert [status["id"] for status in page.items] == [sid]


def test_leaving_the_site_leaves_every_group(r, alice, bob):
    cid = communities.create(r, alice["id"], "cats", "Cats", "", "public")
    communities.join(r, cid, bob["id"])
    leaving.delete_account(r, bob["id"])
    worker.work_until_idle(r)
    assert communities.member_ids(r, bob["id"]) == set()
    assert r.zscore(keys.community_members(cid), bob["id"]) is None


def test_joining_is_checked_in_one_step(r, alice, bob, carol):
    cid = communities.create(r, alice["id"], "secret", "Secret", "", "private")
    assert communities.join(r, cid, bob["id"]) is communities.JoinResult.REQUESTED
    assert communities.join(r, cid, bob["id"]) is communities.JoinResult.REQUESTED
    assert communities.join(r, cid, bob["id"], approve=True) is communities.JoinResult.JOINED
    assert (
        communities.join(r, cid, carol["id"], approve=True) is communities.JoinResult.NOT_REQUESTED
    )
    communities.leave(r, cid, bob["id"], ban=True)
    assert communities.join(r, cid, bob["id"]) is communities.JoinResult.BANNED
    communities.set_suspended(r, cid, True)
    assert communities.join(r, cid, carol["id"]) is communities.JoinResult.MISSING
    assert communities.create(r, carol["id"], "SECRET", "x", "", "public") is None

"""Pulled groups ("communities", fanout.py): a group of FANOUT_PULL_FOLLOWERS members
or more is delivered to nobody; its statuses are merged into the home pages of the
members who keep it in their home, when read, by the rules a delivery applies (blocks,
mutes, the reply rule, members only), on every page, deep ones and ones read upward
included, and into the Top timeline's candidates. A rebuilt home takes back the
statuses of the groups its owner keeps in their home."""

import time

import pytest

from socialsite.repository import (
    blocks,
    communities,
    eviction,
    fanout,
    graph,
    keys,
    lists,
    ranking,
    scripts,
    statuses,
    timelines,
    worker,
)
from tests.support.helpers import make_user

# A threshold small enough for real joins.
PULL = 3


def post_in(r, cid, author, text, reply_to=None, pull_members=PULL):
    sid = statuses.post_status(r, author, text, community=cid, in_reply_to=reply_to)
    replied_to = None
    if reply_to is not None:
        parent_uid = int(r.hget(keys.status(reply_to), "uid"))
        replied_to = parent_uid if parent_uid != author else None
    communities.add_status(r, cid, sid, author, replied_to=replied_to, pull_members=pull_members)
    return sid


def home_ids(r, uid, **options):
    return [status["id"] for status in timelines.home_page(r, uid, **options).items]


def whole_home(r, uid, count=4):
    """Every id of ``uid``'s home pages, paging with cursors."""
    seen, before = [], None
    while True:
        page = timelines.home_page(r, uid, before=before, count=count)
        seen += [status["id"] for status in page.items]
        if page.next_cursor is None:
            return seen
        before = page.next_cursor


@pytest.fixture
def group(r):
    """A public group of four members (owner ann), big enough to be pulled."""
    ann, ben, cat, dan = (make_user(r, login)["id"] for login in ("ann", "ben", "cat", "dan"))
    cid = communities.create(r, ann, "big", "Big", "", "public")
    for uid in (ben, cat, dan):
        communities.join(r, cid, uid)
    return cid, ann, ben, cat, dan


def test_a_pulled_groups_statuses_are_merged_into_its_members_homes(r, group):
    cid, ann, ben, cat, dan = group
    outsider = make_user(r, "eve")["id"]
    sid = post_in(r, cid, ann, "to everyone")
    worker.work_until_idle(r)
    # Delivered to nobody: merged when read.
    assert not any(r.sismember(keys.home(uid), sid) for uid in (ben, cat, dan))
    assert r.sismember(keys.pulled_communities(ben), cid)
    for uid in (ann, ben, cat, dan):
        assert home_ids(r, uid) == [sid]
    assert home_ids(r, outsider) == []


def test_a_member_who_keeps_the_group_out_of_home_or_leaves_gets_none(r, group):
    cid, ann, ben, cat, _ = group
    sid = post_in(r, cid, ann, "to everyone")
    communities.set_in_home(r, cid, ben, False)
    assert home_ids(r, ben) == []
    communities.set_in_home(r, cid, ben, True)
    assert home_ids(r, ben) == [sid]
    communities.leave(r, cid, cat)
    assert home_ids(r, cat) == []
    # A new member gets the group's statuses in their home from now, as a follower of
    # a pulled account gets its earlier ones.
    fay = make_user(r, "fay")["id"]
    communities.join(r, cid, fay)
    assert home_ids(r, fay) == [sid]


def test_members_who_kept_it_out_before_it_was_pulled_keep_it_out(r, group):
    cid, ann, ben, *_ = group
    r.sadd(keys.community_quiet(cid), ben)  # noted on the community's side alone
    post_in(r, cid, ann, "pulled")
    assert home_ids(r, ben) == []


def test_a_private_groups_statuses_leave_the_home_of_a_member_removed(r):
    ann, ben, cat = (make_user(r, login)["id"] for login in ("ann", "ben", "cat"))
    cid = communities.create(r, ann, "club", "Club", "", "private")
    for uid in (ben, cat):
        communities.invite(r, cid, uid)
        communities.join(r, cid, uid)
    sid = statuses.post_status(r, ann, "members only", community=cid, members_only=True)
    communities.add_status(r, cid, sid, ann, pull_members=PULL)
    assert home_ids(r, ben) == [sid]
    communities.leave(r, cid, ben, ban=True)
    assert home_ids(r, ben) == []
    assert home_ids(r, cat) == [sid]


def test_blocks_mutes_and_the_reply_rule_apply(r, group):
    cid, ann, ben, cat, dan = group
    first = post_in(r, cid, ann, "first")
    by_cat = post_in(r, cid, cat, "cat here")
    reply_to_cat = post_in(r, cid, dan, "@cat hello", reply_to=by_cat)
    # ben follows nobody: dan's reply to cat is not in his home (the reply rule).
    assert home_ids(r, ben) == [by_cat, first]
    graph.follow(r, ben, cat)
    assert home_ids(r, ben)[:1] == [reply_to_cat]
    # Blocked and muted authors' group statuses are left out.
    blocks.block(r, ben, cat)
    assert home_ids(r, ben) == [first]
    blocks.mute(r, ann, dan)
    assert reply_to_cat not in home_ids(r, ann)


def test_a_removed_or_deleted_status_leaves_the_merge(r, group):
    cid, ann, ben, *_ = group
    kept = post_in(r, cid, ann, "kept")
    removed = post_in(r, cid, ben, "removed by an admin")
    deleted = post_in(r, cid, ben, "deleted by its author")
    assert home_ids(r, ann) == [deleted, removed, kept]
    communities.remove_status(r, cid, removed)
    statuses.delete_status(r, ben, deleted)
    assert home_ids(r, ann) == [kept]
    assert r.zcard(keys.community_pulled(cid)) == 1
    assert r.zcard(keys.pulled_copy(ann, -cid)) == 1
    cid, ann, ben, cat, _ = group
    assert home_ids(r, cat) == [kept]
    communities.delete(r, cid, "big")
    assert home_ids(r, cat) == []
    assert not r.exists(keys.community_pulled(cid))
    assert not r.exists(keys.pulled_copy(ann, -cid))


@pytest.mark.parametrize("copy_size", [120, 5])
def test_every_page_holds_each_status_once_deep_pages_too(r, group, monkeypatch, copy_size):
    """Paging merges delivered statuses (a followed account's) with the group's pulled
    ones, from the copies in the reader's slot, or the group's own list for pages deeper
    than the copies reach (copy_size 5)."""
    monkeypatch.setattr(scripts, "PULLED_COPY_SIZE", copy_size)
    monkeypatch.setattr(fanout, "PULLED_COPY_SIZE", copy_size)
    cid, ann, ben, cat, dan = group
    friend = make_user(r, "friend")["id"]
    graph.follow(r, ben, friend)
    posted = []
    for n in range(17):
        if n % 3 == 0:
            posted.append(statuses.post_status(r, friend, f"delivered {n}"))
        else:
            posted.append(post_in(r, cid, (ann, cat, dan)[n % 3], f"pulled {n}"))
    assert whole_home(r, ben) == posted[::-1]
    assert whole_home(r, ben, count=30) == posted[::-1]


def test_a_page_read_upward_merges_the_group(r, group):
    cid, ann, ben, *_ = group
    posted = [post_in(r, cid, ann, f"pulled {n}") for n in range(6)]
    page = timelines.home_page(r, ben, count=2, above=posted[1])
    assert [status["id"] for status in page.items] == [posted[3], posted[2]]
    newer = timelines.home_page(r, ben, count=30, since=posted[3])
    assert [status["id"] for status in newer.items] == posted[:3:-1]


def test_the_top_timeline_ranks_a_pulled_groups_statuses(r, group):
    cid, ann, ben, *_ = group
    sid = post_in(r, cid, ann, "rank me")
    ranked, _ = ranking.rank(r, ben, ranking.Weights(), candidates=100, window=48 * 3600.0)
    assert sid in [item.status["id"] for item in ranked]


def test_a_list_page_does_not_merge_groups(r, group):
    cid, ann, ben, *_ = group
    friend = make_user(r, "friend")["id"]
    graph.follow(r, ben, friend)
    _, lid = lists.create_list(r, ben, "Friends")
    lists.add_member(r, ben, lid, friend)
    mine = statuses.post_status(r, friend, "listed")
    post_in(r, cid, ann, "not in lists")
    _, page = lists.list_page(r, ben, lid)
    assert [status["id"] for status in page.items] == [mine]


def test_a_rebuilt_home_takes_back_the_statuses_of_its_groups(r):
    """An evicted home rebuilt by its first page gets back the statuses of the pushed
    groups its owner keeps in their home (the reply rule and blocks applied), not of
    those they keep out; a pulled group's are merged as ever."""
    ann, ben, cat, dan = (make_user(r, login)["id"] for login in ("ann", "ben", "cat", "dan"))
    kept = communities.create(r, ann, "kept", "Kept", "", "public")
    quiet = communities.create(r, ann, "quiet", "Quiet", "", "public")
    huge = communities.create(r, ann, "huge", "Huge", "", "public")
    for cid in (kept, quiet, huge):
        for uid in (ben, cat, dan):
            communities.join(r, cid, uid)
    communities.set_in_home(r, quiet, ben, False)
    by_ann = post_in(r, kept, ann, "kept one", pull_members=0)
    by_cat = post_in(r, kept, cat, "cat's", pull_members=0)
    reply = post_in(r, kept, dan, "@cat a reply", reply_to=by_cat, pull_members=0)
    by_dan = post_in(r, kept, dan, "dan's", pull_members=0)
    post_in(r, quiet, ann, "kept out", pull_members=0)
    pulled = post_in(r, huge, ann, "pulled one")
    blocks.block(r, ben, dan)
    worker.work_until_idle(r)
    before = home_ids(r, ben)
    assert before == [pulled, by_cat, by_ann]
    eviction.note_seen(r, ben, now=time.time() - 40 * 86400)
    assert eviction.evict(r, ben, time.time() - 30 * 86400)
    assert eviction.is_evicted(r, ben)
    assert home_ids(r, ben) == before
    assert not eviction.is_evicted(r, ben)
    assert {reply, by_dan}.isdisjoint(r.smembers(keys.home(ben)))

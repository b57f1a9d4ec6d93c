"""Full-text search of statuses in the repository: the index's words, what goes in,
the query's operators, paging, and what reading leaves out (single server and cluster)."""

from socialsite.repository import (
    blocks,
    bookmarks,
    keys,
    leaving,
    likes,
    moderation,
    privacy,
    status_index,
    status_search,
    statuses,
)
from tests.support.helpers import make_user, post


def indexable(r, *people):
    for person in people:
        status_search.set_indexable(r, person["id"], True)


def find(r, viewer, text, **options):
    query = status_search.parse_status_query(text)
    return status_search.search_statuses(r, viewer["id"], query, **options)


def ids(page):
    return [status["id"] for status in page.items]


def test_words_are_folded_without_stop_words_and_short_ones():
    assert status_index.words("The Café, and THE tea! a b 42 https://x.example/Tea") == [
        "cafe",
        "tea",
        "42",
        "example",
    ]


def test_the_query_parses_phrases_and_operators():
    query = status_search.parse_status_query('"green tea" from:@Alice has:media cup')
    assert query.words == ("green", "tea", "cup")
    assert query.phrases == (("green", "tea"),)
    assert query.author == "alice"
    assert query.media
    assert query.operators


def test_all_words_must_match_newest_first(r, alice, bob, carol):
    indexable(r, alice, bob)
    first = post(r, alice, "Green tea in the morning")
    second = post(r, bob, "Black tea, no milk")
    third = post(r, alice, "Green tea again")
    post(r, bob, "Coffee only")
    assert ids(find(r, carol, "tea")) == [third, second, first]
    assert ids(find(r, carol, "green TEA")) == [third, first]
    assert ids(find(r, carol, "tea coffee")) == []


def test_a_phrase_must_appear_in_order(r, alice, carol):
    indexable(r, alice)
    in_order = post(r, alice, "I like green tea")
    post(r, alice, "tea that is green")
    assert ids(find(r, carol, '"green tea"')) == [in_order]


def test_from_and_has_media(r, alice, bob, carol):
    indexable(r, alice, bob)
    plain = post(r, alice, "tea time")
    pictured = post(r, alice, "tea time", media='[{"name": "x"}]')
    other = post(r, bob, "tea time")
    assert ids(find(r, carol, "tea from:alice")) == [pictured, plain]
    assert ids(find(r, carol, "tea from:bob")) == [other]
    assert ids(find(r, carol, "tea has:media")) == [pictured]
    assert ids(find(r, carol, "from:nobody tea")) == []


def test_pages_by_cursor(r, alice, carol):
    indexable(r, alice)
    posted = [post(r, alice, f"tea number {n}") for n in range(7)]
    seen = []
    before = None
    for _ in range(5):
        page = find(r, carol, "tea", before=before, count=3)
        seen += ids(page)
        before = page.next_cursor
        if before is None:
            break
    assert seen == posted[::-1]


def test_only_indexable_public_statuses_reach_others(r, alice, bob, carol):
    post(r, bob, "oolong from a quiet account")  # bob never allowed it
    indexable(r, alice)
    public = post(r, alice, "oolong for all")
    privacy.set_private(r, alice["id"], True)
    private = post(r, alice, "oolong for followers")
    assert ids(find(r, carol, "oolong")) == []  # alice is private now: nothing
    privacy.set_private(r, alice["id"], False)
    assert ids(find(r, carol, "oolong")) == [public]  # never the private one
    assert ids(find(r, alice, "oolong")) == [private, public]  # her own, both
    status_search.set_indexable(r, alice["id"], False)
    assert ids(find(r, carol, "oolong")) == []
    assert not r.exists(keys.status_words_of(public, "oolong"))
    status_search.set_indexable(r, alice["id"], True)
    assert ids(find(r, carol, "oolong")) == [public]


def test_the_readers_own_liked_bookmarked_and_mentioning_statuses(r, alice, bob, carol):
    mine = post(r, carol, "sencha notes")  # carol never allowed it: still hers
    liked = post(r, bob, "sencha for bob")
    likes.like(r, carol["id"], liked)
    kept = post(r, bob, "sencha kept for later")
    bookmarks.bookmark(r, carol["id"], kept)
    mentioning = post(r, alice, "@carol sencha?")
    post(r, alice, "sencha nobody sees")
    assert ids(find(r, carol, "sencha")) == [mentioning, kept, liked, mine]
    assert ids(find(r, bob, "sencha")) == [kept, liked]


def test_a_private_groups_status_is_never_in_the_shared_index(r, alice, bob, carol):
    from socialsite.actions import Actor
    from socialsite.actions import statuses as status_actions
    from socialsite.repository import communities

    indexable(r, alice)
    cid = communities.create(r, alice["id"], "tearoom", "Tea room", "", "private")
    communities.invite(r, cid, bob["id"])
    communities.join(r, cid, bob["id"])
    inside = status_actions.post(
        Actor(uid=alice["id"], login="alice"), status_actions.NewStatus("oolong inside"),
        group="tearoom",
    )  # fmt: skip
    assert not r.sismember(keys.status_words_of(inside, "oolong"), inside)
    assert ids(find(r, carol, "oolong")) == []  # not a member
    assert ids(find(r, alice, "oolong")) == [inside]  # her own


def test_deletion_suspension_block_and_mute_apply(r, alice, bob, carol):
    indexable(r, alice, bob)
    gone = post(r, alice, "matcha one")
    kept = post(r, bob, "matcha two")
    statuses.delete_status(r, alice["id"], gone)
    assert ids(find(r, carol, "matcha")) == [kept]
    assert not r.sismember(keys.status_words_of(gone, "matcha"), gone)
    moderation.suspend(r, bob["id"])
    assert ids(find(r, carol, "matcha")) == []
    moderation.unsuspend(r, bob["id"])
    assert ids(find(r, carol, "matcha")) == [kept]
    blocks.block(r, bob["id"], carol["id"])
    assert ids(find(r, carol, "matcha")) == []
    blocks.unblock(r, bob["id"], carol["id"])
    blocks.mute(r, carol["id"], bob["id"])
    assert ids(find(r, carol, "matcha")) == []
    blocks.unmute(r, carol["id"], bob["id"])
    assert ids(find(r, carol, "matcha")) == [kept]


def test_a_deleted_account_leaves_the_index(r, alice, carol):
    indexable(r, alice)
    sid = post(r, alice, "rooibos forever")
    leaving.delete_account(r, alice["id"], inline_budget=10_000)
    assert ids(find(r, carol, "rooibos")) == []
    assert not r.exists(keys.status_words_of(sid, "rooibos"))


def test_many_statuses_over_every_shard(r, alice, carol):
    indexable(r, alice)
    posted = [post(r, alice, f"chai {'spiced' if n % 3 == 0 else 'plain'}") for n in range(40)]
    spiced = [sid for n, sid in enumerate(posted) if n % 3 == 0]
    page = find(r, carol, "chai spiced", count=5)
    assert ids(page) == spiced[::-1][:5]
    rest = find(r, carol, "chai spiced", before=page.next_cursor, count=50)
    assert ids(page) + ids(rest) == spiced[::-1]


def test_rebuild_mends_the_index(r, alice, bob, carol):
    indexable(r, alice)
    kept = post(r, alice, "genmaicha toasted")
    key = keys.status_words_of(kept, "genmaicha")
    r.delete(key)
    r.sadd(key, 999_999)  # a status that is gone
    progress = []
    report = status_search.rebuild(r, batch=2, progress=progress.append)
    assert report.statuses_indexed >= 1
    assert report.entries_removed >= 1
    assert sum(progress) >= report.statuses_seen
    assert ids(find(r, carol, "genmaicha")) == [kept]
    assert r.smembers(key) == {str(kept)}
    # Small keys are pruned together (the default batch).
    other = keys.status_words_of(kept, "toasted")
    r.sadd(other, 999_998)
    r.sadd(keys.status_words(0, 0, "nothing"), 999_997)
    assert status_search.rebuild(r).entries_removed == 2
    assert r.smembers(other) == {str(kept)}


def test_posting_writes_the_index_in_its_own_round_trips(r, alice, round_trips, redis_backend):
    """The index's writes ride posting's second round trip (on a cluster, that
    pipeline reaches the index shard's node too, in parallel)."""
    without = make_user(r, "quiet")
    indexable(r, alice)
    post(r, alice, "warm up")  # scripts loaded
    post(r, without, "warm up")
    round_trips["n"] = 0
    post(r, alice, "hojicha tonight")
    indexed = round_trips["n"]
    round_trips["n"] = 0
    post(r, without, "hojicha tonight")
    extra = 1 if redis_backend.cluster else 0
    assert round_trips["n"] <= indexed <= round_trips["n"] + extra


def test_the_rebuild_command_shows_its_progress(r, alice, carol):
    from io import StringIO

    from django.core.management import call_command

    indexable(r, alice)
    sid = post(r, alice, "kukicha")
    r.delete(keys.status_words_of(sid, "kukicha"))
    out = StringIO()
    call_command("search_index", "rebuild", "--only", "statuses", "--batch", "1", stdout=out)
    text = out.getvalue()
    assert "statuses  [" in text and "Statuses read: 1; indexed: 1" in text
    assert ids(find(r, carol, "kukicha")) == [sid]
    out = StringIO()
    call_command("search_index", "rebuild", stdout=out)
    assert "Users read" in out.getvalue() and "Status index" in out.getvalue()


def test_blocks_of_ids_are_read_newest_first_and_paged_across(r, alice, carol, monkeypatch):
    """Statuses far apart in id fall in different blocks of the index; a read covers
    a few blocks, and a page goes on below them."""
    monkeypatch.setattr(status_search, "STATUS_SEARCH_BLOCKS_READ", 2)
    indexable(r, alice)
    block = 1 << keys.STATUS_SEARCH_BLOCK_BITS
    posted = []
    for start in (0, 3 * block, 7 * block + 5, 20 * block, 21 * block):
        if start:
            r.set(keys.STATUS_IDS, start)
        posted += [post(r, alice, f"pu-erh {n}") for n in range(3)]
    assert len({keys.status_search_block(sid) for sid in posted}) == 5
    seen = []
    before = None
    for _ in range(20):
        page = find(r, carol, "pu-erh", before=before, count=4)
        seen += ids(page)
        before = page.next_cursor
        if before is None:
            break
    assert seen == posted[::-1]
    # Posted far past what this process read last: found on the first page at once.
    r.set(keys.STATUS_IDS, 40 * block)
    newest = post(r, alice, "pu-erh again")
    assert ids(find(r, carol, "pu-erh", count=2))[0] == newest


def test_indexable_is_the_one_rule_of_what_goes_in():
    allowed = {"private": None, keys.INDEXABLE_FIELD: "1"}
    status = {"id": 1, "uid": 1, "message": "x"}
    assert status_index.indexable(status, allowed)
    assert not status_index.indexable({**status, "private": "1"}, allowed)
    assert not status_index.indexable({**status, "repost_of": "7"}, allowed)
    assert not status_index.indexable(status, {**allowed, "private": "1"})
    assert not status_index.indexable(status, {**allowed, keys.INDEXABLE_FIELD: ""})
    assert not status_index.indexable(status, {**allowed, keys.SUSPENDED_FIELD: "1"})
    assert not status_index.indexable(status, {**allowed, keys.LEAVING_FIELD: "1"})

"""Search and autocomplete in the repository: the index, its updates, ranking, rebuild."""

import pytest

from socialsite.repository import (
    blocks,
    graph,
    keys,
    leaving,
    moderation,
    privacy,
    search,
    statuses,
    users,
)
from tests.support.helpers import make_user, post


def find(r, text, viewer=None, **options):
    return search.search(r, search.parse_query(text), viewer, **options)


def logins(results):
    return [person["login"] for person in results.people]


def test_fold_removes_accents_width_and_case():
    assert search.fold("ＡＬＩＣＥ") == "alice"  # full-width, NFKC
    assert search.fold("Éléonore") == "eleonore"
    assert search.fold("Straße") == "strasse"
    assert search.fold("ﬁne") == "fine"  # the ligature, NFKC
    assert search.person_terms("Alice_B", "Zoë  de la Cruz-Núñez") == [
        "alice_b",
        "zoe",
        "de",
        "la",
        "cruz",
        "nunez",
    ]


def test_people_are_found_by_login_and_by_any_word_of_their_name(r):
    make_user(r, "zed", "Éléonore Núñez")
    make_user(r, "alice", "Alice Liddell")
    assert logins(find(r, "ze")) == ["zed"]
    assert logins(find(r, "nun")) == ["zed"]  # the second word, accents folded away
    assert logins(find(r, "ÉLÉO")) == ["zed"]  # the query is folded too
    assert logins(find(r, "ｌｉｄ")) == ["alice"]  # full-width query
    assert logins(find(r, "@lidd")) == ["alice"]
    assert logins(find(r, "alice lid")) == ["alice"]  # every word must match
    assert logins(find(r, "alice nun")) == []
    assert logins(find(r, "x")) == []
    assert find(r, "#ali").people == []  # "#": tags only


def test_people_rank_by_followers_then_login(r):
    people = {login: make_user(r, login) for login in ("amy", "abe", "ann", "al")}
    fans = [make_user(r, f"fan{i}") for i in range(3)]
    for fan in fans:
        graph.follow(r, fan["id"], people["ann"]["id"])
    graph.follow(r, fans[0]["id"], people["amy"]["id"])
    assert logins(find(r, "a")) == ["ann", "amy", "abe", "al"]


def test_pages_of_people_and_the_candidate_cap(r):
    for i in range(25):
        make_user(r, f"pat{i:02d}")
    first = find(r, "pat", count=20)
    second = find(r, "pat", offset=20, count=20)
    assert len(first.people) == 20 and first.more_people
    assert len(second.people) == 5 and not second.more_people
    assert set(logins(first)).isdisjoint(logins(second))
    assert not first.capped
    # Fewer candidates than matches: the first ones alphabetically are ranked, and
    # the results say they were cut.
    capped = find(r, "pat", count=20, candidates=10)
    assert capped.capped and logins(capped) == [f"pat{i:02d}" for i in range(10)]


def test_suspended_and_deleted_people_never_appear(r, alice):
    mallory = make_user(r, "mallory", "Alice Mallory")
    assert logins(find(r, "ali")) == ["alice", "mallory"]
    moderation.suspend(r, mallory["id"])
    assert logins(find(r, "ali")) == ["alice"]
    assert r.zrangebylex(keys.people_index("m"), "-", "+") == []  # off the index
    moderation.unsuspend(r, mallory["id"])
    assert logins(find(r, "mal")) == ["mallory"]
    leaving.delete_account(r, mallory["id"])
    assert logins(find(r, "ali")) == ["alice"]
    assert r.zrangebylex(keys.people_index("m"), "-", "+") == []


def test_a_hidden_user_left_in_the_index_is_dropped_at_read(r, alice):
    # A flag set behind the index's back (as by a step cut short).
    r.hset(keys.user(alice["id"]), keys.SUSPENDED_FIELD, "1")
    assert logins(find(r, "ali")) == []
    r.hdel(keys.user(alice["id"]), keys.SUSPENDED_FIELD)
    r.hset(keys.user(alice["id"]), keys.LEAVING_FIELD, "1")
    assert logins(find(r, "ali")) == []
    r.delete(keys.user(alice["id"]))
    assert logins(find(r, "ali")) == []


def test_blocks_either_way_leave_people_out_for_that_viewer_only(r, alice, bob, carol):
    alan = make_user(r, "alan")
    blocks.block(r, bob["id"], alice["id"])  # bob blocks alice
    blocks.block(r, alan["id"], bob["id"])  # alan blocks bob
    assert logins(find(r, "al", viewer=bob["id"])) == []
    assert logins(find(r, "al", viewer=carol["id"])) == ["alan", "alice"]
    assert logins(find(r, "al")) == ["alan", "alice"]
    blocks.unblock(r, bob["id"], alice["id"])
    assert logins(find(r, "al", viewer=bob["id"])) == ["alice"]


def test_a_viewer_sees_whom_they_follow_and_have_asked_to(r, alice, bob, carol):
    privacy.set_private(r, carol["id"], True)
    graph.follow(r, bob["id"], alice["id"])
    graph.follow(r, bob["id"], carol["id"])  # a request: carol is private
    found = {p["login"]: p for p in find(r, "a", viewer=bob["id"]).people}
    assert found["alice"]["is_following"] and not found["alice"]["requested"]
    found = {p["login"]: p for p in find(r, "car", viewer=bob["id"]).people}
    assert found["carol"]["private"] and found["carol"]["requested"]
    assert not found["carol"]["is_following"]


def test_a_name_change_moves_the_person_in_the_index(r, alice):
    assert users.change_name(r, alice["id"], "Wonder Land")
    assert users.get_user(r, alice["id"])["name"] == "Wonder Land"
    assert logins(find(r, "lidd")) == []
    assert logins(find(r, "wond")) == ["alice"]
    assert logins(find(r, "ali")) == ["alice"]  # the login stays
    members = r.zrangebylex(keys.people_index("l"), "-", "+")
    assert not any(m.startswith("liddell") for m in members)


def test_a_stale_entry_is_dropped_at_read_and_by_rebuild(r, alice):
    # The name changed behind the index's back: its old words still point at alice.
    r.hset(keys.user(alice["id"]), "name", "Someone Else")
    assert logins(find(r, "lidd")) == []
    report = search.rebuild(r, batch=2)
    assert report.entries_removed == 1
    assert logins(find(r, "som")) == ["alice"]


def test_rebuild_makes_the_index_from_the_users_and_can_run_again(r, alice, bob, carol):
    moderation.suspend(r, carol["id"])
    r.zadd(keys.people_index("g"), {"ghost\x00999": 0})  # a user who is no more
    for key in list(r.scan_iter(match=keys.ALL_PEOPLE_INDEX_PATTERN)):
        if key != keys.people_index("g"):
            r.delete(key)
    assert logins(find(r, "ali")) == []
    report = search.rebuild(r, batch=2)
    assert (report.users_seen, report.people_indexed, report.hidden_skipped) == (3, 2, 1)
    assert report.entries_removed == 1
    assert logins(find(r, "ali")) == ["alice"]
    assert logins(find(r, "bui")) == ["bob"]
    assert logins(find(r, "car")) == []
    before = sorted(
        (key, tuple(r.zrange(key, 0, -1)))
        for key in r.scan_iter(match=keys.ALL_PEOPLE_INDEX_PATTERN)
    )
    again = search.rebuild(r)
    assert again.entries_removed == 0
    after = sorted(
        (key, tuple(r.zrange(key, 0, -1)))
        for key in r.scan_iter(match=keys.ALL_PEOPLE_INDEX_PATTERN)
    )
    assert before == after


def test_tags_are_found_by_prefix_most_recently_used_first(r, alice):
    post(r, alice, "#redis first")
    post(r, alice, "#reddit then")
    post(r, alice, "#Réseau #other")
    found = find(r, "#re")
    assert [tag for tag, _ in found.tags] == ["réseau", "reddit", "redis"]
    post(r, alice, "#REDIS again")
    assert [tag for tag, _ in find(r, "re").tags] == ["redis", "réseau", "reddit"]
    assert find(r, "@re").tags == []  # "@": people only
    assert [tag for tag, _ in find(r, "＃ＲＥＤ").tags] == ["redis", "reddit"]
    assert [tag for tag, _ in find(r, "#res").tags] == ["réseau"]


def test_tags_page_by_twenty(r, alice):
    for i in range(25):
        post(r, alice, f"#tag{i:02d}")
    first, second = find(r, "#tag"), find(r, "#tag", offset=20)
    assert len(first.tags) == 20 and first.more_tags
    assert len(second.tags) == 5 and not second.more_tags
    assert first.tags[0][0] == "tag24"


def test_a_tag_use_posted_twice_keeps_its_latest_use(r, alice):
    sid = statuses.post_status(r, alice["id"], "#again", posting_key="k" * 22)
    newer = post(r, alice, "#again")
    statuses.post_status(r, alice["id"], "#again", posting_key="k" * 22)  # resubmitted
    assert find(r, "#again").tags == [("again", newer)]
    assert sid < newer


@pytest.mark.parametrize(
    ("text", "message"),
    [("", "at least one"), ("   ", "at least one"), ("@", "at least one"), ("x" * 101, "100")],
)
def test_queries_that_cannot_be_searched_say_why(text, message):
    with pytest.raises(search.QueryError, match=message):
        search.parse_query(text)


def test_a_query_of_100_characters_is_searched(r):
    assert search.parse_query("a" * 100).words == ("a" * 64,)


def test_completions_of_people_and_tags(r, alice, bob):
    post(r, bob, "#redis and #reddit")
    assert search.complete(r, "@al", bob["id"]) == [
        {"value": "@alice", "login": "alice", "name": "Alice Liddell"}
    ]
    assert [c["value"] for c in search.complete(r, "#red", alice["id"])] == ["#reddit", "#redis"]
    for i in range(10):
        make_user(r, f"bo{i}")
    assert len(search.complete(r, "@bo", alice["id"])) == 8


def test_rebuild_makes_the_tag_index_from_the_tag_timelines(r, alice):
    post(r, alice, "#redis")
    newest = post(r, alice, "#redis #rust")
    r.delete(keys.TAG_NAMES, keys.TAG_USES)
    r.zadd(keys.TAG_NAMES, {"gone\x00gone": 0})  # a tag whose timeline is no more
    report = search.rebuild(r)
    assert (report.tags_indexed, report.tags_removed) == (2, 1)
    assert find(r, "#r").tags == [("redis", newest), ("rust", newest)]
    assert find(r, "#go").tags == []


def test_the_rebuild_command_says_what_it_did(r, alice, bob):
    from io import StringIO

    from django.core.management import call_command

    moderation.suspend(r, bob["id"])
    out = StringIO()
    call_command("search_index", "rebuild", "--batch", "1", stdout=out)
    text = out.getvalue()
    assert "Users read: 2; indexed: 1; left out (suspended or leaving): 1." in text
    assert logins(find(r, "ali")) == ["alice"]


@pytest.fixture
def small_tiers(monkeypatch):
    """Tiers of 0, 2 and 4 followers, so that a few follows move people between them."""
    monkeypatch.setattr(search, "SEARCH_TIERS", (0, 2, 4))


def tier_members(r, first, tier):
    return r.zrange(keys.people_index(first, tier), 0, -1)


def test_follows_move_people_up_and_down_the_tiers(r, small_tiers):
    star = make_user(r, "star", "Star Gazer")
    fans = [make_user(r, f"fan{i}") for i in range(4)]
    graph.follow(r, fans[0]["id"], star["id"])
    assert tier_members(r, "s", 2) == []
    graph.follow(r, fans[1]["id"], star["id"])
    assert tier_members(r, "s", 2) == [f"star\x00{star['id']}"]
    assert tier_members(r, "g", 2) == [f"gazer\x00{star['id']}"]
    for fan in fans[2:]:
        graph.follow(r, fan["id"], star["id"])
    graph.follow(r, fans[3]["id"], star["id"])  # again: nothing changes
    assert tier_members(r, "s", 4) == [f"star\x00{star['id']}"]
    graph.unfollow(r, fans[3]["id"], star["id"])
    assert tier_members(r, "s", 4) == [] and tier_members(r, "s", 2) != []
    for fan in fans[:3]:
        graph.unfollow(r, fan["id"], star["id"])
    assert tier_members(r, "s", 2) == [] and tier_members(r, "s", 0) != []


def test_tiers_rank_the_most_followed_first_whatever_the_cap(r, small_tiers):
    # 30 people match "sam"; the most followed sorts last alphabetically.
    for i in range(29):
        make_user(r, f"sam{i:02d}")
    star = make_user(r, "samzz")
    fans = [make_user(r, f"fan{i}") for i in range(4)]
    for fan in fans:
        graph.follow(r, fan["id"], star["id"])
    found = find(r, "sam", candidates=10)
    assert found.capped and found.exact_from == 2
    assert logins(found)[0] == "samzz"
    assert logins(found)[1:] == [f"sam{i:02d}" for i in range(10)]


def test_suspension_and_rename_keep_the_tiers(r, small_tiers, alice):
    fans = [make_user(r, f"fan{i}") for i in range(2)]
    for fan in fans:
        graph.follow(r, fan["id"], alice["id"])
    moderation.suspend(r, alice["id"])
    assert tier_members(r, "a", 2) == []
    moderation.unsuspend(r, alice["id"])
    assert tier_members(r, "a", 2) == [f"alice\x00{alice['id']}"]
    users.change_name(r, alice["id"], "Wonder")
    assert tier_members(r, "w", 2) == [f"wonder\x00{alice['id']}"]
    assert tier_members(r, "l", 2) == []
    r.hset(keys.user(alice["id"]), "followers", 0)  # behind the index's back
    assert search.rebuild(r).entries_removed == 2  # both tier-2 entries
    assert tier_members(r, "a", 2) == []


def test_bulk_loading_fills_the_index_and_its_tiers(r, small_tiers):
    from socialsite.repository import bulk

    uids = bulk.create_users(r, [("ann", "Ann Lee"), ("ben", "Ben Ho"), ("cy", "Cy")], "x")
    bulk.add_follows(r, [(uids[1], uids[0], 1), (uids[2], uids[0], 2)])
    assert logins(find(r, "lee")) == ["ann"]
    assert tier_members(r, "l", 2) == [f"lee\x00{uids[0]}"]
    post(r, users.get_user(r, uids[0]), "#bulk")
    assert find(r, "#bu").tags[0][0] == "bulk"


def test_a_sign_up_that_loses_its_login_leaves_nothing_in_the_index(r, alice):
    assert users.create_user(r, "ALICE", "Other Person", "x") is None
    assert logins(find(r, "oth")) == []
    assert r.zrange(keys.people_index("o"), 0, -1) == []
    assert r.zrange(keys.people_index("a"), 0, -1) == [f"alice\x00{alice['id']}"]


def test_a_page_comes_from_the_top_tier_alone_unless_some_of_it_drop_out(
    r, small_tiers, round_trips, redis_backend
):
    fans = [make_user(r, f"fan{i}") for i in range(2)]
    popular = [make_user(r, f"pop{i:02d}") for i in range(22)]
    quiet = [make_user(r, f"popz{i}") for i in range(10)]
    for person in popular:
        for fan in fans:
            graph.follow(r, fan["id"], person["id"])
    graph.follow(r, fans[0]["id"], quiet[0]["id"])  # one follower: tier 0 only
    viewer = make_user(r, "viewer")
    round_trips["n"] = 0
    found = find(r, "pop", viewer=viewer["id"], count=20)
    if not redis_backend.cluster:
        assert round_trips["n"] == 3  # ranges, the tier's 22 hashes, follows
    assert logins(found) == [f"pop{i:02d}" for i in range(20)] and found.more_people
    # Five of the top tier drop out for this viewer: the others are read too.
    for person in popular[:5]:
        blocks.block(r, viewer["id"], person["id"])
    round_trips["n"] = 0
    found = find(r, "pop", viewer=viewer["id"], count=20)
    if not redis_backend.cluster:
        assert round_trips["n"] == 5  # two more: the other candidates' ids, their hashes
    expected = [f"pop{i:02d}" for i in range(5, 22)] + ["popz0", "popz1", "popz2"]
    assert logins(found) == expected and found.more_people


def test_a_follow_writes_the_tier_only_near_its_threshold(r, small_tiers, alice):
    # (login, name, followers, suspended, leaving) as read in the follow's round trip.
    def reply(followers):
        return ["alice", "Alice Liddell", str(followers), None, None]

    search.followers_changed(r, alice["id"], reply(2 + 7), gained=True)  # a race: 7 more
    assert tier_members(r, "a", 2) == [f"alice\x00{alice['id']}"]
    r.delete(keys.people_index("a", 2), keys.people_index("l", 2))
    search.followers_changed(r, alice["id"], reply(2 + 8), gained=True)  # far past: no write
    assert tier_members(r, "a", 2) == []

"""Who to follow (repository: suggestions): ranking, exclusions, the most-followed
active accounts, the bounds on the work, and the cache."""

import time

import pytest

from socialsite.repository import blocks, graph, keys, moderation, privacy, suggestions
from socialsite.repository.limits import (
    ACTIVE_DAYS,
    SUGGESTION_FOLLOWS_SAMPLED,
    SUGGESTIONS_CACHE_SECONDS,
)
from tests.support.helpers import make_user, post


@pytest.fixture
def people(r):
    return {login: make_user(r, login) for login in ("dave", "erin", "frank", "gina", "hank")}


def follow(r, who, *others):
    for other in others:
        graph.follow(r, who["id"], other["id"])


def logins(found):
    return [suggestion.login for suggestion in found]


def test_people_followed_by_more_of_ones_follows_come_first(r, alice, bob, carol, people):
    follow(r, alice, bob, carol)
    follow(r, bob, people["erin"], people["frank"], alice)
    follow(r, carol, people["erin"])
    found = suggestions.make(r, alice["id"])
    assert logins(found) == ["erin", "frank"]  # erin by two, frank by one; never alice
    assert [s.followed_by for s in found] == [2, 1]
    assert found[0].name == "Erin" and found[0].followers == 2


def test_equal_counts_rank_by_followers(r, alice, bob, people):
    follow(r, alice, bob)
    follow(r, bob, people["erin"], people["frank"])
    follow(r, people["gina"], people["frank"])
    assert logins(suggestions.make(r, alice["id"])) == ["frank", "erin"]


def test_never_those_followed_requested_blocked_either_way_muted_or_suspended(
    r, alice, bob, people
):
    follow(r, alice, bob)
    follow(r, bob, *people.values())
    follow(r, alice, people["dave"])  # followed
    privacy.set_private(r, people["erin"]["id"], True)
    assert graph.follow(r, alice["id"], people["erin"]["id"]) is graph.FollowResult.REQUESTED
    blocks.block(r, alice["id"], people["frank"]["id"])  # blocked by alice
    blocks.block(r, people["gina"]["id"], alice["id"])  # blocks alice
    moderation.suspend(r, people["hank"]["id"], reason="spam")
    assert suggestions.make(r, alice["id"]) == []
    blocks.unblock(r, alice["id"], people["frank"]["id"])
    blocks.mute(r, alice["id"], people["frank"]["id"])
    assert suggestions.make(r, alice["id"]) == []
    blocks.unmute(r, alice["id"], people["frank"]["id"])
    assert logins(suggestions.make(r, alice["id"])) == ["frank"]


def test_a_private_account_not_yet_asked_is_suggested_as_private(r, alice, bob, people):
    follow(r, alice, bob)
    follow(r, bob, people["erin"])
    privacy.set_private(r, people["erin"]["id"], True)
    assert [(s.login, s.private) for s in suggestions.make(r, alice["id"])] == [("erin", True)]


def test_a_newcomer_gets_the_most_followed_accounts_that_posted_lately(r, alice, bob, people):
    follow(r, people["dave"], bob, people["erin"])
    follow(r, people["frank"], bob, people["erin"], people["gina"])
    follow(r, people["hank"], bob)
    for author in (bob, people["gina"]):
        post(r, author, "hello")
    # erin is followed by two but never posted: not active.
    found = suggestions.make(r, alice["id"])
    assert logins(found) == ["bob", "gina"]
    assert [s.followed_by for s in found] == [0, 0]
    # Posted more than ACTIVE_DAYS ago: not active either.
    long_ago = (time.time() - ACTIVE_DAYS * 24 * 3600 - 60) * 1000
    r.hset(keys.user(people["gina"]["id"]), keys.LAST_POSTED_FIELD, int(long_ago))
    assert logins(suggestions.make(r, alice["id"])) == ["bob"]


def test_friends_of_friends_come_before_the_most_followed(r, alice, bob, carol, people):
    follow(r, alice, bob)
    follow(r, bob, people["erin"])
    for fan in (people["dave"], people["frank"], people["gina"]):
        follow(r, fan, carol)
    post(r, carol, "popular")
    assert logins(suggestions.make(r, alice["id"])) == ["erin", "carol"]


def test_the_most_followed_list_holds_the_count_each_follow_and_unfollow_leaves(
    r, alice, bob, carol
):
    follow(r, alice, carol)
    follow(r, bob, carol)
    follow(r, bob, carol)  # again: nothing changes
    assert r.zscore(keys.MOST_FOLLOWED, carol["id"]) == 2
    graph.unfollow(r, alice["id"], carol["id"])
    assert r.zscore(keys.MOST_FOLLOWED, carol["id"]) == 1
    graph.unfollow(r, alice["id"], bob["id"])  # not following: no entry for bob made
    assert r.zscore(keys.MOST_FOLLOWED, bob["id"]) is None


def test_only_the_most_recent_follows_are_read(r, alice, bob):
    # alice follows SUGGESTION_FOLLOWS_SAMPLED + 1 people; only the first of them (the
    # oldest follow) follows bob: bob is not found through them.
    followed = [make_user(r, f"f{n}") for n in range(SUGGESTION_FOLLOWS_SAMPLED + 1)]
    graph.follow(r, followed[0]["id"], bob["id"])
    for other in followed:
        graph.follow(r, alice["id"], other["id"])
    r.delete(keys.MOST_FOLLOWED)  # bob would come back as most-followed
    assert "bob" not in logins(suggestions.make(r, alice["id"]))
    graph.follow(r, followed[-1]["id"], bob["id"])  # a recent follow of alice's follows bob
    assert "bob" in logins(suggestions.make(r, alice["id"]))


def test_the_cache_drops_at_once_whoever_is_followed_blocked_or_asked(r, alice, bob, people):
    follow(r, alice, bob)
    follow(r, bob, *people.values())
    privacy.set_private(r, people["hank"]["id"], True)
    assert logins(suggestions.for_user(r, alice["id"])) == ["dave", "erin", "frank", "gina", "hank"]
    assert 0 < r.ttl(keys.suggestions(alice["id"])) <= SUGGESTIONS_CACHE_SECONDS
    follow(r, alice, people["dave"])
    blocks.block(r, alice["id"], people["erin"]["id"])
    blocks.block(r, people["frank"]["id"], alice["id"])
    graph.follow(r, alice["id"], people["hank"]["id"])  # a request
    assert logins(suggestions.for_user(r, alice["id"])) == ["gina"]


def test_the_cache_is_used_until_it_expires(r, alice, bob, people):
    follow(r, alice, bob)
    follow(r, bob, people["erin"])
    assert logins(suggestions.for_user(r, alice["id"])) == ["erin"]
    follow(r, bob, people["frank"])
    assert logins(suggestions.for_user(r, alice["id"])) == ["erin"]  # cached
    r.delete(keys.suggestions(alice["id"]))  # as when it expires
    assert logins(suggestions.for_user(r, alice["id"])) == ["erin", "frank"]


def test_nobody_to_suggest(r, alice):
    assert suggestions.for_user(r, alice["id"]) == []
    assert suggestions.for_user(r, alice["id"]) == []  # the empty list is cached too


def test_a_deleted_account_leaves_the_most_followed_list_and_its_cache(r, alice, bob, carol):
    from socialsite.repository import leaving

    follow(r, alice, carol)
    follow(r, carol, bob)
    suggestions.for_user(r, carol["id"])
    leaving.delete_account(r, carol["id"])
    assert r.zscore(keys.MOST_FOLLOWED, carol["id"]) is None
    assert not r.exists(keys.suggestions(carol["id"]))


def test_the_demo_network_has_suggestions_and_trends(r):
    from io import StringIO

    from django.core.management import call_command

    from socialsite.repository import trends, users

    call_command("seed_demo", users=20, follows=60, statuses=400, stdout=StringIO())
    assert r.zcard(keys.MOST_FOLLOWED) > 0
    uid = users.get_user_id(r, "user1")
    assert r.hget(keys.user(uid), keys.LAST_POSTED_FIELD) is not None
    assert suggestions.make(r, uid)
    # Statuses over the last 30 days, 15% of them tagged: the days' tags are counted.
    days = {trends.day_of(time.time() - n * 86400) for n in range(31)}
    assert any(r.smembers(keys.trend_tags(day)) for day in days)


def test_a_suggestion_carries_its_small_avatar_through_the_cache(r, alice, bob, people):
    from socialsite.repository import profiles

    profiles.update_profile(r, people["erin"]["id"], {keys.AVATAR_SMALL_FIELD: "avatars/e.jpg"})
    follow(r, alice, bob)
    follow(r, bob, people["erin"], people["frank"])
    first = {s.login: s.avatar_small for s in suggestions.for_user(r, alice["id"])}
    again = {s.login: s.avatar_small for s in suggestions.for_user(r, alice["id"])}  # cached
    assert first == again == {"erin": "avatars/e.jpg", "frank": ""}


def test_a_list_cached_without_avatars_still_reads():
    entry = ["7", "erin", "Erin", 3, 0, 1]  # six entries: a list cached without avatars
    assert suggestions._decode(entry).avatar_small == ""

"""A page costs a small fixed number of Redis round trips, whatever it shows.

Round trips are counted where redis-py writes to the socket (one write per command,
or per pipeline per server), so this measures what the network sees.
"""

import re

import pytest

from socialsite import memory
from socialsite.repository import (
    blocks,
    eviction,
    fanout,
    graph,
    keys,
    likes,
    lists,
    profiles,
    scripts,
    statuses,
    trends,
)
from socialsite.repository.limits import SUGGESTIONS_ON_HOME_BELOW
from tests.support.helpers import PASSWORD, make_user

# Single server: one pipeline holds the session, its user and password hash (the
# session's key names the user, session_store) and the page's ids with deleted statuses
# left out (home_page.lua, read along with the session: timelines.HomeIdsRead).
# Statuses this process has shown lately come from its memory (statuses.get_statuses),
# and so do authors shown in the last minute (users.get_authors): after cost()'s warm-up
# request, all of them. docs/architecture.md quotes this number.
HOME_PAGE_ROUND_TRIPS = 1
# The first time this process shows the statuses: their hashes, one pipeline more.
HOME_PAGE_FIRST_SHOWN_ROUND_TRIPS = 2
# Profile: the same plus login -> id, the profile's user hash and "am I following?".
PROFILE_PAGE_ROUND_TRIPS = 6
# A thread page: the session's, then the status with its page of direct replies' ids,
# then one per level of replies (three), the ancestors riding along with the first (the
# authors shown in the last minute come from memory); whether the reader may see the
# other authors' statuses (visibility.shown_statuses); the author read fresh and the
# reader's relationship to them (private, blocked), together. docs/architecture.md quotes this.
THREAD_PAGE_ROUND_TRIPS = 7
# The notifications page: the session's (which reads the notifications too), then the
# statuses they are about (an EXISTS each for those this process has read), with
# whether the user may see their authors' statuses (visibility.Seen). Marking
# them seen, when there is something new, is one more.
NOTIFICATIONS_PAGE_ROUND_TRIPS = 2


def cost(client, url, round_trips):
    client.get(url)  # warm up: connections made, scripts loaded
    round_trips["n"] = 0
    response = client.get(url)
    assert response.status_code == 200
    return round_trips["n"]


def allowed(redis_backend, single_server_count, pipelines):
    """On a cluster each pipeline may touch every node once."""
    if not redis_backend.cluster:
        return single_server_count
    return single_server_count + pipelines * (len(redis_backend.nodes) - 1)


@pytest.fixture
def reader(r, client):
    user = make_user(r, "reader")
    client.post("/accounts/login/", {"username": "reader", "password": PASSWORD})
    return user


def test_home_page_costs_the_same_for_one_status_and_for_thirty(
    r, client, reader, round_trips, redis_backend
):
    authors = [make_user(r, f"author{i}") for i in range(30)]
    for author in authors:
        graph.follow(r, reader["id"], author["id"])
    statuses.post_status(r, authors[0]["id"], "the only one")
    with_one = cost(client, "/", round_trips)
    for author in authors[1:]:
        statuses.post_status(r, author["id"], f"from {author['login']}")
    with_thirty = cost(client, "/", round_trips)
    page = client.get("/").content.decode()
    assert page.count('class="status"') == 30
    memory.forget_all()
    round_trips["n"] = 0
    client.get("/")
    if not redis_backend.cluster:
        assert round_trips["n"] == HOME_PAGE_FIRST_SHOWN_ROUND_TRIPS + 1  # + the authors
    if not redis_backend.cluster:
        assert with_one == with_thirty == HOME_PAGE_ROUND_TRIPS
    assert with_thirty <= allowed(redis_backend, HOME_PAGE_ROUND_TRIPS, pipelines=2)


def test_the_first_page_of_the_day_notes_its_reader_seen_in_the_same_round_trips(
    r, client, reader, round_trips, redis_backend
):
    # Enough follows for no who-to-follow box: the page's own cost.
    author, *others = [make_user(r, f"a{n}") for n in range(SUGGESTIONS_ON_HOME_BELOW)]
    for followed in (author, *others):
        graph.follow(r, reader["id"], followed["id"])
    statuses.post_status(r, author["id"], "hello")
    client.get("/")  # warm up
    eviction.forget_noted()  # a new day, or another process
    r.zrem(keys.seen(reader["id"]), reader["id"])
    round_trips["n"] = 0
    assert client.get("/").status_code == 200
    count = round_trips["n"]
    assert r.zscore(keys.seen(reader["id"]), reader["id"]) == eviction.seen_day()
    if not redis_backend.cluster:
        assert count == HOME_PAGE_ROUND_TRIPS
    assert count <= allowed(redis_backend, HOME_PAGE_ROUND_TRIPS, pipelines=2)


def test_an_evicted_home_is_rebuilt_by_its_first_page_and_costs_nothing_after(
    r, client, reader, round_trips, redis_backend
):
    # Enough follows for no who-to-follow box: the page's own cost.
    author, *others = [make_user(r, f"a{n}") for n in range(SUGGESTIONS_ON_HOME_BELOW)]
    for followed in (author, *others):
        graph.follow(r, reader["id"], followed["id"])
    sid = statuses.post_status(r, author["id"], "while away")
    eviction.forget_noted()
    client.get("/")
    eviction.note_seen(r, reader["id"], 0)
    assert eviction.sweep(r, 30 * 86400) == 1
    assert r.smembers(keys.home(reader["id"])) == {eviction.EVICTED_MEMBER}
    page = client.get("/").content.decode()
    assert f'id="status-{sid}"' in page or "while away" in page
    assert not eviction.is_evicted(r, reader["id"])
    again = cost(client, "/", round_trips)
    if not redis_backend.cluster:
        assert again == HOME_PAGE_ROUND_TRIPS
    assert again <= allowed(redis_backend, HOME_PAGE_ROUND_TRIPS, pipelines=2)


def test_a_home_page_with_images_costs_what_it_did(r, client, reader, round_trips, redis_backend):
    # A status's images are a field of its hash (keys.STATUS_MEDIA_FIELD), read with it.
    authors = [make_user(r, f"author{i}") for i in range(30)]
    for author in authors:
        graph.follow(r, reader["id"], author["id"])
    media = '[{"o":"attachments/o.jpg","p":"attachments/p.jpg","w":800,"h":600,"pw":640,"ph":480,"a":"alt","c":"#808080"}]'  # noqa: E501
    for n, author in enumerate(authors):
        fields = {keys.STATUS_MEDIA_FIELD: media, keys.STATUS_SPOILER_FIELD: "cw"} if n % 3 else {}
        statuses.post_status(r, author["id"], f"from {author['login']}", **fields)
    count = cost(client, "/", round_trips)
    page = client.get("/").content.decode()
    # Each shown once, and once more blurred in the warning's summary (the same file).
    assert page.count('src="/media/attachments/p.jpg"') == 40
    assert page.count('<a class="media-link"') == 20
    memory.forget_all()
    round_trips["n"] = 0
    client.get("/")
    if not redis_backend.cluster:
        assert count == HOME_PAGE_ROUND_TRIPS
        assert round_trips["n"] == HOME_PAGE_FIRST_SHOWN_ROUND_TRIPS + 1  # + the authors
    assert count <= allowed(redis_backend, HOME_PAGE_ROUND_TRIPS, pipelines=2)


def test_profile_page_costs_a_fixed_number(r, client, reader, round_trips, redis_backend):
    author = make_user(r, "author")
    for i in range(30):
        statuses.post_status(r, author["id"], f"status {i}")
    count = cost(client, "/@author/", round_trips)
    if not redis_backend.cluster:
        assert count == PROFILE_PAGE_ROUND_TRIPS
    assert count <= allowed(redis_backend, PROFILE_PAGE_ROUND_TRIPS, pipelines=2)


def test_a_profile_with_pictures_and_its_followers_cost_what_they_did(
    r, client, reader, round_trips, redis_backend
):
    # The profile's fields and pictures' names are fields of the user hash, read with it.
    author = make_user(r, "author")
    fans = [make_user(r, f"fan{i}") for i in range(30)]
    for fan in fans:
        graph.follow(r, fan["id"], author["id"])
    plain = cost(client, "/@author/", round_trips)
    plain_list = cost(client, "/@author/followers/", round_trips)
    for fan in fans:
        profiles.update_profile(r, fan["id"], {keys.AVATAR_SMALL_FIELD: "avatars/f.jpg"})
    profiles.update_profile(
        r,
        author["id"],
        {keys.AVATAR_FIELD: "avatars/a.jpg", keys.HEADER_FIELD: "headers/h.jpg",
         keys.BIO_FIELD: "hi @fan1", keys.BIO_ENTITIES_FIELD: profiles.parse_bio(r, "hi @fan1"),
         keys.WEBSITE_FIELD: "https://a.example/"},
    )  # fmt: skip
    assert cost(client, "/@author/", round_trips) == plain
    assert cost(client, "/@author/followers/", round_trips) == plain_list
    page = client.get("/@author/followers/").content.decode()
    assert page.count('src="/media/avatars/f.jpg"') == 30


# Tag page: the session with its user, the tag's ids (one ZREVRANGEBYSCORE) and an
# EXISTS of each status this process has shown (one pipeline): the statuses come from
# memory once confirmed, and authors from memory; whether the reader may see each
# author's statuses, read fresh, rides along with the EXISTS (visibility.Seen).
TAG_PAGE_ROUND_TRIPS = 3


def test_tag_page_costs_a_fixed_number(r, client, reader, round_trips, redis_backend):
    authors = [make_user(r, f"author{i}") for i in range(30)]
    statuses.post_status(r, authors[0]["id"], "the only #one")
    with_one = cost(client, "/tags/one/", round_trips)
    for author in authors:
        statuses.post_status(r, author["id"], f"#thirty from @{author['login']} https://a.io")
    with_thirty = cost(client, "/tags/thirty/", round_trips)
    assert client.get("/tags/thirty/").content.decode().count('class="status"') == 30
    if not redis_backend.cluster:
        assert with_one == with_thirty == TAG_PAGE_ROUND_TRIPS
    assert with_thirty <= allowed(redis_backend, TAG_PAGE_ROUND_TRIPS, pipelines=2)


def test_home_page_of_someone_who_blocks_and_mutes_costs_the_same(
    r, client, reader, round_trips, redis_backend
):
    # The authors hidden from the reader come with the page's ids (home_page.lua).
    authors = [make_user(r, f"author{i}") for i in range(4)]
    for author in authors:
        graph.follow(r, reader["id"], author["id"])
        statuses.post_status(r, author["id"], f"from {author['login']}")
    blocks.mute(r, reader["id"], authors[0]["id"])
    blocks.block(r, reader["id"], authors[1]["id"])
    blocks.block(r, authors[2]["id"], reader["id"])
    # Following 20 more: no who-to-follow (its round trip is counted apart, below).
    for n in range(SUGGESTIONS_ON_HOME_BELOW):
        graph.follow(r, reader["id"], make_user(r, f"quiet{n}")["id"])
    count = cost(client, "/", round_trips)
    assert client.get("/").content.decode().count('class="status"') == 1
    if not redis_backend.cluster:
        assert count == HOME_PAGE_ROUND_TRIPS
    assert count <= allowed(redis_backend, HOME_PAGE_ROUND_TRIPS, pipelines=2)


def test_a_thread_page_costs_a_fixed_number_whatever_the_threads_size(
    r, client, reader, round_trips, redis_backend
):
    author = make_user(r, "author")

    def reply(parent, text):
        return statuses.post_status(r, author["id"], text, in_reply_to=parent)

    small = reply(statuses.post_status(r, author["id"], "small"), "one reply")
    sid = statuses.post_status(r, author["id"], "big")
    for n in range(45):  # more ancestors than the page shows
        sid = reply(sid, f"ancestor {n}")
    for n in range(30):
        child = reply(sid, f"child {n}")
        for m in range(3):
            reply(reply(child, f"grandchild {m}"), "great-grandchild")
    big = cost(client, f"/@author/{sid}/", round_trips)
    little = cost(client, f"/@author/{small}/", round_trips)
    if not redis_backend.cluster:
        assert big == THREAD_PAGE_ROUND_TRIPS
    assert little <= big <= allowed(redis_backend, THREAD_PAGE_ROUND_TRIPS, pipelines=5)


def test_the_notifications_page_costs_the_same_for_one_entry_and_for_thirty(
    r, client, reader, round_trips, redis_backend
):
    def mention_from(login):
        author = make_user(r, login)
        statuses.post_status(r, author["id"], "hi @reader", mentioned_uids=[reader["id"]])

    client.get("/")  # the login's message shown and gone: the session is saved no more
    mention_from("first")
    round_trips["n"] = 0
    client.get("/notifications/")
    if not redis_backend.cluster:
        # The first view reads the mention's author, and marks the mention seen.
        assert round_trips["n"] == NOTIFICATIONS_PAGE_ROUND_TRIPS + 2
    with_one = cost(client, "/notifications/", round_trips)
    for n in range(40):
        mention_from(f"author{n}")
    client.get("/notifications/")
    with_thirty = cost(client, "/notifications/", round_trips)
    if not redis_backend.cluster:
        assert with_one == with_thirty == NOTIFICATIONS_PAGE_ROUND_TRIPS
    assert with_thirty <= allowed(redis_backend, NOTIFICATIONS_PAGE_ROUND_TRIPS, pipelines=2)


# Who to follow (suggestions.py) on the home page of someone following fewer than 20:
# one script call more while their list is cached (it drops whoever they followed or
# blocked since); /explore/people/ is the session's round trip and the same call. Making
# the list (once per five minutes per user): the cache miss, three pipelines, the SET.
HOME_SUGGESTIONS_ROUND_TRIPS = 1
SUGGESTIONS_MADE_ROUND_TRIPS = 5
EXPLORE_PEOPLE_PAGE_ROUND_TRIPS = 2
# /explore/: the session's, then the trends, their uses and the hidden tags (one slot).
EXPLORE_PAGE_ROUND_TRIPS = 2


def follow_some(r, reader, count):
    """``reader`` follows ``count`` new users, each following two more (suggestions)."""
    for n in range(count):
        other = make_user(r, f"followed{n}")
        graph.follow(r, reader["id"], other["id"])
        for m in range(2):
            graph.follow(r, other["id"], make_user(r, f"theirs{n}x{m}")["id"])


def test_the_home_page_of_someone_following_20_costs_what_it_did(
    r, client, reader, round_trips, redis_backend
):
    follow_some(r, reader, SUGGESTIONS_ON_HOME_BELOW)
    count = cost(client, "/", round_trips)
    assert 'class="suggestions"' not in client.get("/").content.decode()
    if not redis_backend.cluster:
        assert count == HOME_PAGE_ROUND_TRIPS
    assert count <= allowed(redis_backend, HOME_PAGE_ROUND_TRIPS, pipelines=2)


# Reposts: a home page shows its entries through reposts with what home_page.lua returns
# along with the ids (the original's id, the first reposter, how many others; which
# of them the reader reposted): the same one round trip. A profile with reposts reads
# their originals, with which of them the reader reposted, in one pipeline more.
PROFILE_PAGE_WITH_REPOSTS_ROUND_TRIPS = PROFILE_PAGE_ROUND_TRIPS + 1


def test_a_home_page_of_reposts_costs_the_same(r, client, reader, round_trips, redis_backend):
    from socialsite.repository import reposts

    follow_some(r, reader, SUGGESTIONS_ON_HOME_BELOW)  # no suggestions on the page
    authors = [make_user(r, f"author{i}") for i in range(10)]
    reposters = [make_user(r, f"reposter{i}") for i in range(3)]
    for reposter in reposters:
        graph.follow(r, reader["id"], reposter["id"])
    for author in authors:
        sid = statuses.post_status(r, author["id"], f"from {author['login']}")
        for reposter in reposters:
            reposts.repost(r, reposter["id"], sid)
        reposts.repost(r, reader["id"], sid)
    count = cost(client, "/", round_trips)
    page = client.get("/").content.decode()
    assert page.count('class="status"') == 10 and page.count("and 2 others reposted") == 10
    assert page.count('unrepost/" aria-pressed="true"') == 10
    if not redis_backend.cluster:
        assert count == HOME_PAGE_ROUND_TRIPS
    assert count <= allowed(redis_backend, HOME_PAGE_ROUND_TRIPS, pipelines=2)


def test_the_home_page_of_someone_following_19_costs_one_more(
    r, client, reader, round_trips, redis_backend
):
    follow_some(r, reader, SUGGESTIONS_ON_HOME_BELOW - 1)
    count = cost(client, "/", round_trips)  # the warm-up made the list
    assert 'class="suggestions"' in client.get("/").content.decode()
    if not redis_backend.cluster:
        assert count == HOME_PAGE_ROUND_TRIPS + HOME_SUGGESTIONS_ROUND_TRIPS
    assert count <= allowed(
        redis_backend, HOME_PAGE_ROUND_TRIPS + HOME_SUGGESTIONS_ROUND_TRIPS, pipelines=2
    )


def test_explore_people_costs_a_fixed_number(r, client, reader, round_trips, redis_backend):
    follow_some(r, reader, 30)
    client.get("/explore/people/")  # warm up
    r.delete(keys.suggestions(reader["id"]))
    round_trips["n"] = 0
    client.get("/explore/people/")
    made = round_trips["n"]
    cached = cost(client, "/explore/people/", round_trips)
    assert client.get("/explore/people/").content.decode().count('class="suggestion"') == 10
    if not redis_backend.cluster:
        assert cached == EXPLORE_PEOPLE_PAGE_ROUND_TRIPS
        assert made == EXPLORE_PEOPLE_PAGE_ROUND_TRIPS - 1 + SUGGESTIONS_MADE_ROUND_TRIPS
    assert made <= allowed(
        redis_backend, EXPLORE_PEOPLE_PAGE_ROUND_TRIPS - 1 + SUGGESTIONS_MADE_ROUND_TRIPS, 5
    )


def test_explore_costs_a_fixed_number(r, client, reader, round_trips, redis_backend):
    for n in range(6):
        for tag in ("one", "two", "three"):
            statuses.post_status(r, make_user(r, f"{tag}{n}")["id"], f"#{tag}")
    trends.recompute(r)
    count = cost(client, "/explore/", round_trips)
    assert client.get("/explore/").content.decode().count('class="trend"') == 3
    if not redis_backend.cluster:
        assert count == EXPLORE_PAGE_ROUND_TRIPS
    assert count <= allowed(redis_backend, EXPLORE_PAGE_ROUND_TRIPS, pipelines=2)


# A list's page: the session's, then one pipeline in the owner's slot (the list's name,
# its newest members and the page's ids with deleted statuses left out: home_page.lua on
# the list's timeline). Statuses, authors and members shown lately come from memory, as
# on the home page. The lists page: the session's and the owner's lists (one HGETALL).
LIST_PAGE_ROUND_TRIPS = 2
LISTS_PAGE_ROUND_TRIPS = 2


def test_a_list_page_costs_the_same_for_one_status_and_for_thirty(
    r, client, reader, round_trips, redis_backend
):
    _, lid = lists.create_list(r, reader["id"], "Thirty")
    authors = [make_user(r, f"author{i}") for i in range(30)]
    for author in authors:
        graph.follow(r, reader["id"], author["id"])
        lists.add_member(r, reader["id"], lid, author["id"])
    statuses.post_status(r, authors[0]["id"], "the only one")
    with_one = cost(client, f"/lists/{lid}/", round_trips)
    for author in authors[1:]:
        statuses.post_status(r, author["id"], f"from {author['login']}")
    with_thirty = cost(client, f"/lists/{lid}/", round_trips)
    assert client.get(f"/lists/{lid}/").content.decode().count('class="status"') == 30
    lists_page = cost(client, "/lists/", round_trips)
    if not redis_backend.cluster:
        assert with_one == with_thirty == LIST_PAGE_ROUND_TRIPS
        assert lists_page == LISTS_PAGE_ROUND_TRIPS
    assert with_thirty <= allowed(redis_backend, LIST_PAGE_ROUND_TRIPS, pipelines=2)
    assert lists_page <= allowed(redis_backend, LISTS_PAGE_ROUND_TRIPS, pipelines=1)


# Who likes a status: the session's; the status with its counts; its author read fresh
# with the reader's relationship to them (likes.status_for_viewer); the page of likers'
# ids; their user hashes (graph's lists do the same).
STATUS_LIKES_PAGE_ROUND_TRIPS = 5
# What a user likes: the session's; login -> id and the user hash (as a profile); the
# reader's relationship to them; the page of liked ids; the statuses with their counts
# and which of them the reader likes (one pipeline); whether the reader may see the
# other authors' statuses (visibility.shown_statuses). Authors come from memory.
USER_LIKES_PAGE_ROUND_TRIPS = 7


def test_likes_cost_no_round_trip_on_pages_that_show_them(
    r, client, reader, round_trips, redis_backend
):
    # The reader's likes ride with the page's ids (home_page.lua) or its statuses.
    authors = [make_user(r, f"author{i}") for i in range(30)]
    for author in authors:
        graph.follow(r, reader["id"], author["id"])
        sid = statuses.post_status(r, author["id"], f"from {author['login']}")
        likes.like(r, authors[0]["id"], sid)
    for sid in statuses.get_statuses(r, range(1, 31))[::2]:
        likes.like(r, reader["id"], sid["id"])
    r.delete(keys.likes_changed(reader["id"]))  # not lately: counts trusted
    home = cost(client, "/", round_trips)
    page = client.get("/").content.decode()
    assert page.count('unlike/" aria-pressed="true"') == 15
    assert page.count('like/" aria-pressed="false"') == 15
    assert page.count('class="count like-count"') == 30
    profile = cost(client, "/@author1/", round_trips)
    thread = cost(client, "/@author1/2/", round_trips)
    if not redis_backend.cluster:
        assert home == HOME_PAGE_ROUND_TRIPS
        assert profile == PROFILE_PAGE_ROUND_TRIPS
        assert thread <= THREAD_PAGE_ROUND_TRIPS
    assert home <= allowed(redis_backend, HOME_PAGE_ROUND_TRIPS, pipelines=2)
    assert profile <= allowed(redis_backend, PROFILE_PAGE_ROUND_TRIPS, pipelines=2)


def test_a_likers_home_page_reads_its_counts_once_after_a_like(
    r, client, reader, round_trips, redis_backend
):
    follow_some(r, reader, SUGGESTIONS_ON_HOME_BELOW)  # no suggestions on the page
    author = make_user(r, "author")
    graph.follow(r, reader["id"], author["id"])
    sid = statuses.post_status(r, author["id"], "like me")
    cost(client, "/", round_trips)
    likes.like(r, reader["id"], sid)  # as another web process would: this one trusts
    statuses._known.put(sid, (*statuses._known.get(sid)[:3], 10**12))
    round_trips["n"] = 0
    page = client.get("/").content.decode()
    assert '>1<span class="visually-hidden"> like</span>' in page
    assert 'unlike/" aria-pressed="true"' in page
    if not redis_backend.cluster:
        assert round_trips["n"] == HOME_PAGE_ROUND_TRIPS + 1  # the counts, read fresh


def test_the_likes_pages_cost_a_fixed_number(r, client, reader, round_trips, redis_backend):
    author = make_user(r, "author")
    sids = [statuses.post_status(r, author["id"], f"status {i}") for i in range(30)]
    likers = [make_user(r, f"liker{i}") for i in range(30)]
    for liker in likers:
        likes.like(r, liker["id"], sids[0])
    for sid in sids:
        likes.like(r, likers[0]["id"], sid)
    who = cost(client, f"/@author/{sids[0]}/likes/", round_trips)
    what = cost(client, "/@liker0/likes/", round_trips)
    assert client.get("/@liker0/likes/").content.decode().count('class="status"') == 30
    if not redis_backend.cluster:
        assert who == STATUS_LIKES_PAGE_ROUND_TRIPS
        assert what == USER_LIKES_PAGE_ROUND_TRIPS
    assert who <= allowed(redis_backend, STATUS_LIKES_PAGE_ROUND_TRIPS, pipelines=3)
    assert what <= allowed(redis_backend, USER_LIKES_PAGE_ROUND_TRIPS, pipelines=3)


# Search (timeline/search.py): the session's round trip (its user, and the throttle's
# count), the index's ranges (people and tags together), the candidates' hashes with
# the reader's blocks either way, and whom on the page the reader follows (and has
# asked to follow): whatever the number of matches. docs/features.md quotes these. (Two more
# when people of the tiers read first are left out: tests/test_repository_search.py.)
# A logged-in reader's search finds statuses too (status_search.search_statuses): the
# index's shards with the reader's own sets, and the statuses read (their own here:
# none matches), 2 more.
SEARCH_PAGE_ROUND_TRIPS = 6
# Autocomplete: the same without the follows.
COMPLETE_ROUND_TRIPS = 3


def test_search_and_autocomplete_cost_a_fixed_number(r, client, reader, round_trips, redis_backend):
    make_user(r, "ada")
    statuses.post_status(r, reader["id"], "#adagio")
    one = cost(client, "/search/?q=ad", round_trips)
    one_completed = cost(client, "/search/complete.json?q=@ad", round_trips)
    for i in range(40):
        make_user(r, f"adam{i}", f"Adam Smith {i}")
        statuses.post_status(r, reader["id"], f"#adagio{i}")
    many = cost(client, "/search/?q=ad", round_trips)
    many_completed = cost(client, "/search/complete.json?q=@ad", round_trips)
    assert client.get("/search/?q=ad").content.decode().count('class="login"') == 20
    if not redis_backend.cluster:
        assert one == many == SEARCH_PAGE_ROUND_TRIPS
        assert one_completed == many_completed == COMPLETE_ROUND_TRIPS
    assert many <= allowed(redis_backend, SEARCH_PAGE_ROUND_TRIPS, pipelines=5)
    assert many_completed <= allowed(redis_backend, COMPLETE_ROUND_TRIPS, pipelines=2)


def test_a_profile_page_with_reposts_costs_a_fixed_number(
    r, client, reader, round_trips, redis_backend
):
    from socialsite.repository import reposts

    author, reposter = make_user(r, "author"), make_user(r, "reposter")
    for i in range(15):
        statuses.post_status(r, reposter["id"], f"own {i}")
        sid = statuses.post_status(r, author["id"], f"status {i}")
        reposts.repost(r, reposter["id"], sid)
        reposts.repost(r, reader["id"], sid)
    count = cost(client, "/@reposter/", round_trips)
    page = client.get("/@reposter/").content.decode()
    assert page.count('class="status"') == 30 and page.count('unrepost/" aria-pressed="true"') == 15
    if not redis_backend.cluster:
        assert count == PROFILE_PAGE_WITH_REPOSTS_ROUND_TRIPS
    assert count <= allowed(redis_backend, PROFILE_PAGE_WITH_REPOSTS_ROUND_TRIPS, pipelines=3)


# A home or list page of someone following pulled accounts (fanout.py, decision 0054):
# their newest statuses are copied into every shard, and home_page.lua merges them in
# the round trip that reads the page's ids. A page deeper than the copies reach reads
# the accounts' own lists (one pipeline), then asks in the reader's slot about the
# replies among them and which the reader likes and reposted.
PULLED_MERGE_ROUND_TRIPS = 0
PULLED_DEEP_MERGE_ROUND_TRIPS = 2


@pytest.mark.parametrize("pulled_count", [1, 5])
def test_a_home_page_merging_pulled_accounts_costs_the_same_for_one_and_for_five(
    r, client, reader, round_trips, redis_backend, pulled_count
):
    fans = [make_user(r, f"fan{i}")["id"] for i in range(2)]
    for i in range(SUGGESTIONS_ON_HOME_BELOW):  # no suggestions on the home page
        graph.follow(r, reader["id"], make_user(r, f"quiet{i}")["id"])
    _, lid = lists.create_list(r, reader["id"], "Stars")
    for i in range(pulled_count):
        star = make_user(r, f"star{i}")["id"]
        for follower in (reader["id"], *fans):
            graph.follow(r, follower, star)
        lists.add_member(r, reader["id"], lid, star)
        for n in range(7):  # the first registers the account, the rest are pulled
            statuses.post_status(r, star, f"pulled {n}", pull_followers=3)
        assert r.hget(keys.user(star), keys.FANOUT_PATH_FIELD) == "pulled"
    home = cost(client, "/", round_trips)
    list_page = cost(client, f"/lists/{lid}/", round_trips)
    assert client.get("/").content.decode().count('class="status"') == min(30, 7 * pulled_count)
    if not redis_backend.cluster:
        assert home == HOME_PAGE_ROUND_TRIPS + PULLED_MERGE_ROUND_TRIPS
        assert list_page == LIST_PAGE_ROUND_TRIPS + PULLED_MERGE_ROUND_TRIPS
    assert home <= allowed(redis_backend, HOME_PAGE_ROUND_TRIPS, pipelines=2)


def test_a_home_page_deeper_than_the_pulled_copies_costs_two_more(
    r, client, reader, round_trips, redis_backend, monkeypatch
):
    monkeypatch.setattr(scripts, "PULLED_COPY_SIZE", 5)
    monkeypatch.setattr(fanout, "PULLED_COPY_SIZE", 5)
    fans = [make_user(r, f"fan{i}")["id"] for i in range(2)]
    for i in range(SUGGESTIONS_ON_HOME_BELOW):
        graph.follow(r, reader["id"], make_user(r, f"quiet{i}")["id"])
    for i in range(3):
        star = make_user(r, f"star{i}")["id"]
        for follower in (reader["id"], *fans):
            graph.follow(r, follower, star)
        for n in range(12):
            statuses.post_status(r, star, f"pulled {n}", pull_followers=3)
    first = client.get("/").content.decode()
    cursor = re.search(r"\?before=(\d+)", first).group(1)
    deep = cost(client, f"/?before={cursor}", round_trips)
    if not redis_backend.cluster:
        assert deep == HOME_PAGE_ROUND_TRIPS + PULLED_DEEP_MERGE_ROUND_TRIPS
    assert deep <= allowed(redis_backend, HOME_PAGE_ROUND_TRIPS + 2, pipelines=4)


# A home page of a member of pulled groups (communities.py, fanout.py): merged as a pulled
# account is, from the copies in the reader's slot, in the round trip that reads the
# page's ids; a reader in no pulled group reads one empty SET more in that same script.
# A page holding a private group's statuses: nothing more either, the reader's
# memberships being read with the page's ids (timelines.HomeIdsRead).
PULLED_GROUP_MERGE_ROUND_TRIPS = 0


@pytest.mark.parametrize("group_count, kind", [(1, "public"), (5, "public"), (1, "private")])
def test_a_home_page_merging_pulled_groups_costs_nothing_more(
    r, client, reader, round_trips, redis_backend, group_count, kind
):
    from socialsite.repository import communities

    for i in range(SUGGESTIONS_ON_HOME_BELOW):  # no suggestions on the home page
        graph.follow(r, reader["id"], make_user(r, f"quiet{i}")["id"])
    members = [make_user(r, f"member{i}")["id"] for i in range(2)]
    for i in range(group_count):
        owner = make_user(r, f"owner{i}")["id"]
        cid = communities.create(r, owner, f"big{i}", f"Big {i}", "", kind)
        for uid in (reader["id"], *members):
            communities.invite(r, cid, uid)
            communities.join(r, cid, uid)
        for n in range(7):
            sid = statuses.post_status(
                r, owner, f"pulled {n}", community=cid, community_slug=f"big{i}",
                community_name=f"Big {i}", members_only=kind == "private",
            )  # fmt: skip
            communities.add_status(r, cid, sid, owner, pull_members=3)
    home = cost(client, "/", round_trips)
    assert client.get("/").content.decode().count('class="status"') == min(30, 7 * group_count)
    expected = HOME_PAGE_ROUND_TRIPS + PULLED_GROUP_MERGE_ROUND_TRIPS
    if not redis_backend.cluster:
        assert home == expected
    assert home <= allowed(redis_backend, expected, pipelines=3)


# Direct messages (direct.py). The inbox: the session's, which reads the page's ids and the
# reader's side of each conversation too (direct.InboxIdsRead); the members and newest
# message of each row come from the process's memory once shown, and a row with a new
# message reads them in one more pipeline. A conversation's page: the session's, then the
# conversation with the reader's side, one pipeline; marking it read when something is
# unread is one more.
INBOX_PAGE_ROUND_TRIPS = 1
INBOX_NEW_MESSAGE_ROUND_TRIPS = 1
CONVERSATION_PAGE_ROUND_TRIPS = 2


def test_the_inbox_costs_the_same_for_one_conversation_and_for_twenty(
    r, client, reader, round_trips, redis_backend
):
    from socialsite.repository import direct, users

    def conversation_from(login):
        other = make_user(r, login)
        graph.follow(r, reader["id"], other["id"])
        sent = direct.start(r, other["id"], [users.get_user(r, reader["id"])], "hi", "k" * 22)
        return sent.cid, other

    cid, friend = conversation_from("friend0")
    with_one = cost(client, "/messages/", round_trips)
    for n in range(1, 20):
        conversation_from(f"friend{n}")
    client.get("/messages/")
    with_twenty = cost(client, "/messages/", round_trips)
    if not redis_backend.cluster:
        assert with_one == with_twenty == INBOX_PAGE_ROUND_TRIPS
    assert with_twenty <= allowed(redis_backend, INBOX_PAGE_ROUND_TRIPS, pipelines=1)
    direct.reply(r, cid, friend["id"], "news", "n" * 22)
    round_trips["n"] = 0
    assert client.get("/messages/").status_code == 200
    expected = INBOX_PAGE_ROUND_TRIPS + INBOX_NEW_MESSAGE_ROUND_TRIPS
    if not redis_backend.cluster:
        assert round_trips["n"] == expected
    assert round_trips["n"] <= allowed(redis_backend, expected, pipelines=2)
    for n in range(30):
        direct.reply(r, cid, reader["id"], f"message {n}", f"{n:022d}")
    page = cost(client, f"/messages/{cid}/", round_trips)
    if not redis_backend.cluster:
        assert page == CONVERSATION_PAGE_ROUND_TRIPS
    assert page <= allowed(redis_backend, CONVERSATION_PAGE_ROUND_TRIPS, pipelines=2)


# A visitor's home page (the landing page, timelines.public_page): no session to read;
# the recent public statuses' ids (one ZREVRANGEBYSCORE); an EXISTS of each status this
# process has shown (one pipeline: the statuses come from memory once confirmed);
# whether their authors may be shown, read fresh (visibility.shown_statuses: one
# pipeline); the trending tags (one pipeline in the {trends} slot).
LANDING_PAGE_ROUND_TRIPS = 4


def test_a_visitors_landing_page_costs_the_same_for_one_status_and_for_thirty(
    r, client, round_trips, redis_backend
):
    authors = [make_user(r, f"author{i}") for i in range(30)]
    statuses.post_status(r, authors[0]["id"], "the only #one")
    for n in range(6):
        statuses.post_status(r, authors[n]["id"], "a #trend")
    trends.recompute(r)
    with_few = cost(client, "/", round_trips)
    for author in authors:
        statuses.post_status(r, author["id"], f"from @{author['login']}")
    with_thirty = cost(client, "/", round_trips)
    page = client.get("/").content.decode()
    assert page.count('class="status"') == 30
    assert page.count('class="trend"') == 1  # #trend (#one: one person)
    if not redis_backend.cluster:
        assert with_few == with_thirty == LANDING_PAGE_ROUND_TRIPS
    assert with_thirty <= allowed(redis_backend, LANDING_PAGE_ROUND_TRIPS, pipelines=4)


# --- groups ----------------------------------------------------------------
# A group's page: the session's, which reads the slug's entry and, for the id this
# process remembers for it, the group with its member count, where the reader stands in
# it and the page's ids (communities.GroupPageRead); the statuses (an EXISTS each for
# those this process has shown) with whether the reader may see their authors
# (visibility.Seen). The reader's membership, read with the group, decides its
# members-only statuses: nothing more for them. A visitor: the same two. The first
# page of a slug this process has no id for: one more.
GROUP_PAGE_ROUND_TRIPS = 2
# /groups/: the session's, which reads the ids of the reader's groups and of the
# directory's along (communities.GroupsRead); the groups of both, one pipeline.
GROUPS_PAGE_ROUND_TRIPS = 2


@pytest.mark.parametrize("kind", ["public", "private"])
def test_a_group_page_costs_the_same_for_one_status_and_for_thirty(
    r, client, reader, round_trips, redis_backend, kind
):
    from socialsite.actions import Actor
    from socialsite.actions import statuses as statuses_actions
    from socialsite.repository import communities

    cid = communities.create(r, reader["id"], "thirty", "Thirty", "", kind)
    authors = [make_user(r, f"author{i}") for i in range(30)]
    for author in authors:
        communities.invite(r, cid, author["id"])
        communities.join(r, cid, author["id"])

    def in_group(author, text):
        actor = Actor(uid=author["id"], login=author["login"])
        statuses_actions.post(actor, statuses_actions.NewStatus(text=text), group="thirty")

    in_group(authors[0], "the only one")
    with_one = cost(client, "/g/thirty/", round_trips)
    for author in authors[1:]:
        in_group(author, f"from {author['login']}")
    with_thirty = cost(client, "/g/thirty/", round_trips)
    assert client.get("/g/thirty/").content.decode().count('class="status"') == 30
    groups_page = cost(client, "/groups/", round_trips)
    if kind == "public":
        from django.test import Client

        visitor = cost(Client(), "/g/thirty/", round_trips)
        searching = cost(client, "/groups/?q=thir", round_trips)
        visitor_groups = cost(Client(), "/groups/", round_trips)
        if not redis_backend.cluster:
            assert searching == visitor_groups == GROUPS_PAGE_ROUND_TRIPS
        assert "Thirty" in client.get("/groups/?q=thir").content.decode()
        communities._slug_ids.clear()  # as a process that never showed the group
        round_trips["n"] = 0
        assert client.get("/g/thirty/").status_code == 200
        unknown = round_trips["n"]
        if not redis_backend.cluster:
            assert visitor == GROUP_PAGE_ROUND_TRIPS
            assert unknown == GROUP_PAGE_ROUND_TRIPS + 1
        assert visitor <= allowed(redis_backend, GROUP_PAGE_ROUND_TRIPS, pipelines=2)
    if not redis_backend.cluster:
        assert with_one == with_thirty == GROUP_PAGE_ROUND_TRIPS
        assert groups_page == GROUPS_PAGE_ROUND_TRIPS
    assert with_thirty <= allowed(redis_backend, GROUP_PAGE_ROUND_TRIPS, pipelines=3)
    # The reader's home, with the group's statuses delivered: what it cost before (and
    # who to follow, cached, as the reader follows nobody), a private group's too (the
    # reader's memberships read with the page's ids: timelines.HomeIdsRead).
    home = HOME_PAGE_ROUND_TRIPS + 1
    home_cost = cost(client, "/", round_trips)
    if not redis_backend.cluster:
        assert home_cost == home
    assert home_cost <= allowed(redis_backend, home, 2)


# Statuses found by search (/search/?q=...&type=statuses): the session's round trip,
# the index's shards with the reader's own sets, the statuses (with the reader's likes
# of them), their authors' setting, and the visibility check: whatever the number found.
STATUS_SEARCH_PAGE_ROUND_TRIPS = 5


def test_a_status_search_costs_a_fixed_number(r, client, reader, round_trips, redis_backend):
    from socialsite.repository import status_search

    authors = [make_user(r, f"writer{i}") for i in range(5)]
    for author in authors:
        status_search.set_indexable(r, author["id"], True)
    statuses.post_status(r, authors[0]["id"], "green tea")
    one = cost(client, "/search/?q=tea&type=statuses", round_trips)
    for i in range(30):
        statuses.post_status(r, authors[i % 5]["id"], f"green tea number {i}")
    many = cost(client, "/search/?q=tea&type=statuses", round_trips)
    assert client.get("/search/?q=tea&type=statuses").content.decode().count("<article") == 20
    if not redis_backend.cluster:
        assert one <= many == STATUS_SEARCH_PAGE_ROUND_TRIPS
    assert many <= allowed(redis_backend, STATUS_SEARCH_PAGE_ROUND_TRIPS, pipelines=4)

"""A page costs a small fixed number of Redis round trips, whatever it shows.

Round trips are counted where redis-py writes to the socket (one write per command,
or per pipeline per server), so this measures what the network sees.
"""

import pytest

from socialsite import memory
from socialsite.repository import blocks, graph, statuses
from tests.support.helpers import PASSWORD, make_user

# Single server: one pipeline holds the session, its user and password hash (the
# session's key names the user, session_store) and the page's ids with deleted statuses
# left out (home_page.lua, read along with the session: timelines.HomeIdsRead).
# Statuses this process has shown lately come from its memory (statuses.get_statuses),
# and so do authors shown in the last minute (users.get_authors): after cost()'s warm-up
# request, all of them. The README quotes this number.
HOME_PAGE_ROUND_TRIPS = 1
# The first time this process shows the statuses: their hashes, one pipeline more.
HOME_PAGE_FIRST_SHOWN_ROUND_TRIPS = 2
# Profile: the same plus login -> id, the profile's user hash and "am I following?".
PROFILE_PAGE_ROUND_TRIPS = 6
# A thread page: the session's, then the status with its page of direct replies' ids,
# then one per level of replies (three), the ancestors riding along with the first (the
# authors shown in the last minute come from memory); whether the reader may see the
# other authors' statuses (visibility.visible_statuses); the author read fresh and the
# reader's relationship to them (private, blocked), together. The README quotes this.
THREAD_PAGE_ROUND_TRIPS = 7
# The notifications page: the session's (which reads the notifications too), then the
# statuses they are about (an EXISTS each for those this process has read). Marking
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


def test_profile_page_costs_a_fixed_number(r, client, reader, round_trips, redis_backend):
    author = make_user(r, "author")
    for i in range(30):
        statuses.post_status(r, author["id"], f"status {i}")
    count = cost(client, "/@author/", round_trips)
    if not redis_backend.cluster:
        assert count == PROFILE_PAGE_ROUND_TRIPS
    assert count <= allowed(redis_backend, PROFILE_PAGE_ROUND_TRIPS, pipelines=2)


# Tag page: the session with its user, the tag's ids (one ZREVRANGEBYSCORE) and an
# EXISTS of each status this process has shown (one pipeline): the statuses come from
# memory once confirmed, and authors from memory.
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


# Reposts: a home page shows its entries through reposts with what home_page.lua returns
# along with the ids (the original's id, the first reposter, how many others; which
# of them the reader reposted): the same one round trip. A profile with reposts reads
# their originals, with which of them the reader reposted, in one pipeline more.
PROFILE_PAGE_WITH_REPOSTS_ROUND_TRIPS = PROFILE_PAGE_ROUND_TRIPS + 1


def test_a_home_page_of_reposts_costs_the_same(r, client, reader, round_trips, redis_backend):
    from socialsite.repository import reposts

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
    assert page.count("Undo repost") == 10
    if not redis_backend.cluster:
        assert count == HOME_PAGE_ROUND_TRIPS
    assert count <= allowed(redis_backend, HOME_PAGE_ROUND_TRIPS, pipelines=2)


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
    assert page.count('class="status"') == 30 and page.count("Undo repost") == 15
    if not redis_backend.cluster:
        assert count == PROFILE_PAGE_WITH_REPOSTS_ROUND_TRIPS
    assert count <= allowed(redis_backend, PROFILE_PAGE_WITH_REPOSTS_ROUND_TRIPS, pipelines=3)

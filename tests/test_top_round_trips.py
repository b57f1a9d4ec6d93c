"""The Top timeline's pages cost a fixed number of Redis round trips, whatever their
number of candidates (docs/architecture.md, "Round trips")."""

import re

import pytest

from socialsite.repository import graph, likes, statuses
from tests.support.helpers import PASSWORD, make_user

# A first page: the session's, which reads the home's candidates (home_page.lua), the
# follows and affinities along (ranking.TopRead); the likers of the candidates with likes
# (one pipeline); the snapshot written (when there is more than a page). Statuses and
# authors come from this process's memory after the warm-up.
TOP_FIRST_PAGE_ROUND_TRIPS = 3
# A first page whose candidates have no likes: no likers to read.
TOP_FIRST_PAGE_NO_LIKES_ROUND_TRIPS = 2
# A later page: the session's, which reads the snapshot with the hidden authors along;
# the statuses (confirmed, with their counts and which the reader likes and reposted).
TOP_LATER_PAGE_ROUND_TRIPS = 2


@pytest.fixture
def reader(r, client):
    user = make_user(r, "reader")
    client.post("/accounts/login/", {"username": "reader", "password": PASSWORD})
    return user


def cost(client, url, round_trips):
    client.get(url)  # warm up: connections made, scripts loaded, statuses remembered
    round_trips["n"] = 0
    response = client.get(url)
    assert response.status_code == 200
    return round_trips["n"], response.content.decode()


def test_top_pages_cost_the_same_for_few_and_many_candidates(
    r, client, reader, round_trips, redis_backend, settings
):
    authors = [make_user(r, f"author{i}") for i in range(20)]
    for author in authors:
        graph.follow(r, reader["id"], author["id"])
    costs = []
    for n in (2, 4):
        for author in authors:
            for i in range(n):
                sid = statuses.post_status(r, author["id"], f"{author['login']} {i}")
                likes.like(r, authors[0]["id"], sid)
        first, body = cost(client, "/top/", round_trips)
        cursor = re.search(r'rel="next" href="\?before=(\d+)"', body).group(1)
        later, _ = cost(client, f"/top/?before={cursor}", round_trips)
        costs.append((first, later))
    if not redis_backend.cluster:
        assert costs == [(TOP_FIRST_PAGE_ROUND_TRIPS, TOP_LATER_PAGE_ROUND_TRIPS)] * 2
    else:  # each pipeline may touch every node once
        nodes = len(redis_backend.nodes)
        for first, later in costs:
            assert first <= TOP_FIRST_PAGE_ROUND_TRIPS + 3 * (nodes - 1)
            assert later <= TOP_LATER_PAGE_ROUND_TRIPS + 2 * (nodes - 1)


def test_a_top_first_page_without_likes_reads_no_likers(
    r, client, reader, round_trips, redis_backend
):
    authors = [make_user(r, f"author{i}") for i in range(20)]
    for author in authors:
        graph.follow(r, reader["id"], author["id"])
        for i in range(2):
            statuses.post_status(r, author["id"], f"{author['login']} {i}")
    first, body = cost(client, "/top/", round_trips)
    assert body.count('class="status"') == 30
    if not redis_backend.cluster:
        assert first == TOP_FIRST_PAGE_NO_LIKES_ROUND_TRIPS
    else:
        assert first <= TOP_FIRST_PAGE_NO_LIKES_ROUND_TRIPS + 2 * (len(redis_backend.nodes) - 1)


def test_a_home_that_opens_with_top_costs_one_more_than_top(
    r, client, reader, round_trips, redis_backend
):
    """``/`` learns the reader's tab from the session's round trip, too late to read
    Top's candidates along: they, the follows and the likers are read after it."""
    from socialsite.actions import Actor
    from socialsite.actions import settings as settings_actions
    from socialsite.repository import ranking

    authors = [make_user(r, f"author{i}") for i in range(20)]
    for author in authors:
        graph.follow(r, reader["id"], author["id"])
        for i in range(2):
            sid = statuses.post_status(r, author["id"], f"{author['login']} {i}")
            likes.like(r, authors[0]["id"], sid)
    actor = Actor(uid=reader["id"], login=reader["login"])
    settings_actions.set_top(actor, ranking.Weights(), "top")
    home, body = cost(client, "/", round_trips)
    assert 'rel="next"' in body
    if not redis_backend.cluster:
        assert home == TOP_FIRST_PAGE_ROUND_TRIPS + 1
    else:
        assert home <= TOP_FIRST_PAGE_ROUND_TRIPS + 1 + 4 * (len(redis_backend.nodes) - 1)

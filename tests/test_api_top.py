"""GET /api/v1/timelines/top: the Top timeline through the client API, ranked and paged
as the page /top/ (ranking.py), with the caller's weights."""

import re

from socialsite.repository import blocks, graph, likes, profiles, ranking
from tests.support.helpers import bearer, post


def ids(response):
    return [int(status["id"]) for status in response.json()]


def test_top_ranks_pages_and_leaves_out_the_muted(r, client, alice, bob, carol, token):
    graph.follow(r, bob["id"], alice["id"])
    graph.follow(r, bob["id"], carol["id"])
    headers = bearer(token(bob))
    posted = [post(r, alice, f"alice {i}") for i in range(4)]
    liked = posted[0]
    likes.like(r, carol["id"], liked)
    muted = post(r, carol, "carol, muted soon")
    first = client.get("/api/v1/timelines/top?limit=2", **headers)
    assert first.status_code == 200
    assert ids(first)[0] == liked
    link = first["Link"]
    assert 'rel="next"' in link and 'rel="prev"' not in link and "limit=2" in link
    seen = ids(first)
    url = re.search(r"<([^>]+)>; rel=\"next\"", link).group(1)
    while url:
        page = client.get(url, **headers)
        seen += ids(page)
        found = re.search(r"<([^>]+)>; rel=\"next\"", page.get("Link", ""))
        url = found.group(1) if found else None
    assert sorted(seen) == sorted([*posted, muted])
    blocks.mute(r, bob["id"], carol["id"])
    assert muted not in ids(client.get("/api/v1/timelines/top?limit=40", **headers))


def test_top_uses_the_callers_weights_and_needs_a_token(r, client, alice, bob, token):
    graph.follow(r, bob["id"], alice["id"])
    original = post(r, alice, "a status")
    reply = post(r, alice, "a reply", in_reply_to=original)
    headers = bearer(token(bob))
    assert set(ids(client.get("/api/v1/timelines/top", **headers))) == {original, reply}
    profiles.set_top(r, bob["id"], ranking.Weights(hide_replies=True).pack(), "latest")
    assert ids(client.get("/api/v1/timelines/top", **headers)) == [original]
    assert client.get("/api/v1/timelines/top").status_code == 401
    assert client.get("/api/v1/timelines/top?max_id=x", **headers).status_code == 422

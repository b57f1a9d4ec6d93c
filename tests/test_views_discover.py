"""The pages of trending tags and who to follow: /explore/, /explore/people/ and the
home page's suggestions (shown under 20 follows, not at 20)."""

import re

import pytest

from socialsite.repository import graph, keys, trends
from socialsite.repository.limits import SUGGESTIONS_ON_HOME_BELOW
from tests.support.helpers import csrf_token, log_in, make_user, post


def html_of(response):
    assert response.status_code == 200, response.status_code
    return response.content.decode()


def suggested(html):
    """The logins in the page's who-to-follow section, in order."""
    section = re.search(r'<section class="suggestions".*?</section>', html, re.S)
    return re.findall(r'<span class="login">@([^<]+)</span>', section.group(0)) if section else []


@pytest.fixture
def network(r, alice, bob, carol):
    """alice follows bob; bob follows carol and dave: alice gets carol and dave."""
    dave = make_user(r, "dave")
    graph.follow(r, alice["id"], bob["id"])
    graph.follow(r, bob["id"], carol["id"])
    graph.follow(r, bob["id"], dave["id"])
    return dave


def trending_tag(r, tag, users):
    for n in range(users):
        post(r, make_user(r, f"{tag}{n}"), f"all about #{tag}")
    trends.recompute(r)


def test_explore_lists_the_trends_with_their_uses_and_tag_links(r, client):
    trending_tag(r, "launch", 6)
    html = html_of(client.get("/explore/"))  # public
    link = '<a class="trend-link" href="/tags/launch/"><span class="trend-tag">#launch</span>'
    assert link in html
    assert "6 people today" in html
    assert 'href="/explore/"' in html  # the navigation's link


def test_explore_says_when_nothing_trends(client):
    assert "Nothing is trending right now." in html_of(client.get("/explore/"))


def test_explore_escapes_the_tags(r, client, alice):
    r.zadd(keys.TRENDS, {'<i a="b">x': 5.0})  # not a tag posting could make
    html = html_of(client.get("/explore/"))
    assert "<i a" not in html and "#&lt;i a=&#34;b&#34;&gt;x" in html


def test_a_hidden_tag_is_not_on_explore(r, client):
    trending_tag(r, "launch", 6)
    trends.hide(r, "launch")
    assert "#launch" not in html_of(client.get("/explore/"))


def test_explore_people_suggests_with_follow_buttons_that_come_back(r, client, network):
    log_in(client, "alice")
    html = html_of(client.get("/explore/people/"))
    assert suggested(html) == ["carol", "dave"]
    assert "Followed by 1 person you follow" in html
    assert 'action="/@carol/follow/"' in html and 'name="next" value="/explore/people/"' in html
    response = client.post(
        "/@carol/follow/",
        {
            "csrfmiddlewaretoken": csrf_token(client.get("/explore/people/")),
            "next": "/explore/people/",
        },  # fmt: skip
    )
    assert response.status_code == 302 and response["Location"] == "/explore/people/"
    assert suggested(html_of(client.get("/explore/people/"))) == ["dave"]


def test_explore_people_asks_a_visitor_to_log_in(client):
    response = client.get("/explore/people/")
    assert response.status_code == 302 and response["Location"].startswith("/accounts/login/")


def test_explore_people_with_nobody_to_suggest(client, alice):
    log_in(client, "alice")
    assert "No suggestions yet" in html_of(client.get("/explore/people/"))


def test_the_home_page_suggests_to_someone_following_fewer_than_20(r, client, network):
    log_in(client, "alice")
    html = html_of(client.get("/"))
    assert suggested(html) == ["carol", "dave"]
    assert 'name="next" value="/"' in html
    assert 'href="/explore/people/"' in html
    # Not on older pages.
    assert suggested(html_of(client.get("/?before=999999"))) == []


def test_the_home_page_suggests_nothing_to_someone_following_20(r, client, network, alice):
    followed = [make_user(r, f"followed{n}") for n in range(SUGGESTIONS_ON_HOME_BELOW - 1)]
    for other in followed:  # and bob: 20
        graph.follow(r, alice["id"], other["id"])
    log_in(client, "alice")
    html = html_of(client.get("/"))
    assert 'class="suggestions"' not in html
    graph.unfollow(r, alice["id"], followed[0]["id"])
    assert suggested(html_of(client.get("/"))) == ["carol", "dave"]  # 19 again

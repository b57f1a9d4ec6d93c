"""The search page (/search/) and autocomplete (/search/complete.json): results, the
follow buttons, every refusal, the throttles and the navigation's box."""

import re

import pytest
from django.test import Client

from socialsite.repository import blocks, graph, moderation
from tests.support.helpers import csrf_token, log_in, make_user, post

ADDRESS = "203.0.113.7"


def results_of(response, section):
    """The text of the <li>s of ``section`` ("people" or "tags") on a search page."""
    html = response.content.decode()
    match = re.search(rf'<section class="search-{section}">(.*?)</section>', html, re.S)
    assert match, f"no {section} section"
    return [
        re.sub(r"<[^>]+>|\s+", " ", li).strip()
        for li in re.findall(r"<li.*?</li>", match.group(1), re.S)
    ]


def logins_on(response):
    return re.findall(r'<span class="login">@(\w+)</span>', response.content.decode())


@pytest.fixture
def limits(settings):
    def set_limits(**changes):
        settings.THROTTLES = {**settings.THROTTLES, **changes}

    return set_limits


def test_every_page_has_the_search_box(client, alice):
    for url in ("/", "/@alice/", "/accounts/login/"):
        html = client.get(url).content.decode()
        assert 'action="/search/"' in html and 'name="q"' in html, url
    log_in(client, "alice")
    assert 'action="/search/"' in client.get("/").content.decode()


def test_a_visitor_finds_people_and_tags(r, client, alice, bob):
    post(r, bob, "#alpine and #alps")
    response = client.get("/search/", {"q": "al"})
    assert response.status_code == 200
    assert logins_on(response) == ["alice"]
    assert results_of(response, "tags") == ["#alpine", "#alps"]  # one use each: by name
    assert "Follow" not in "".join(results_of(response, "people"))  # no buttons for visitors


def test_at_searches_people_only_and_hash_tags_only(r, client, alice, bob):
    post(r, bob, "#alpine")
    at = client.get("/search/", {"q": "@al"})
    assert logins_on(at) == ["alice"] and 'class="search-tags"' not in at.content.decode()
    hashed = client.get("/search/", {"q": "#al"})
    assert 'class="search-people"' not in hashed.content.decode()
    assert results_of(hashed, "tags") == ["#alpine"]


def test_people_rank_by_followers_and_page_by_twenty(r, client):
    people = [make_user(r, f"pat{i:02d}") for i in range(25)]
    fan = make_user(r, "fan")
    graph.follow(r, fan["id"], people[24]["id"])
    first = client.get("/search/", {"q": "pat"})
    assert logins_on(first)[0] == "pat24" and len(logins_on(first)) == 20
    assert 'rel="next" href="?q=pat&amp;page=2"' in first.content.decode()
    second = client.get("/search/", {"q": "pat", "page": "2"})
    assert logins_on(second) == [f"pat{i:02d}" for i in range(19, 24)]  # pat24 went first
    assert 'rel="next"' not in second.content.decode()
    assert 'rel="prev"' in second.content.decode()


def test_a_logged_in_user_follows_from_the_results_and_comes_back(r, client, alice, bob):
    log_in(client, "bob")
    response = client.get("/search/", {"q": "ali"})
    html = response.content.decode()
    assert 'action="/@alice/follow/"' in html
    assert 'name="next" value="/search/?q=ali&amp;page=1"' in html
    followed = client.post(
        "/@alice/follow/",
        {"next": "/search/?q=ali&page=1", "csrfmiddlewaretoken": csrf_token(response)},
    )
    assert followed.status_code == 302 and followed["Location"] == "/search/?q=ali&page=1"
    assert 'action="/@alice/unfollow/"' in client.get("/search/", {"q": "ali"}).content.decode()


def test_blocked_and_suspended_people_are_left_out(r, client, alice, bob, carol):
    alan = make_user(r, "alan")
    albert = make_user(r, "albert")
    blocks.block(r, alice["id"], bob["id"])  # alice blocks bob
    blocks.block(r, bob["id"], alan["id"])  # bob blocks alan
    moderation.suspend(r, albert["id"])
    log_in(client, "bob")
    assert logins_on(client.get("/search/", {"q": "al"})) == []
    other = log_in(Client(), "carol")
    assert logins_on(other.get("/search/", {"q": "al"})) == ["alan", "alice"]


@pytest.mark.parametrize(
    ("q", "message"),
    [
        ("", "Type at least one letter or digit"),
        ("   ", "Type at least one letter or digit"),
        ("!!", "Type at least one letter or digit"),
        ("a" * 101, "at most 100 characters; this one has 101"),
    ],
)
def test_a_query_that_cannot_be_searched_says_why_and_keeps_what_was_typed(client, q, message):
    response = client.get("/search/", {"q": q})
    assert response.status_code == 200
    html = response.content.decode()
    assert message in html
    assert f'name="q" value="{q}"' in html


def test_the_search_page_without_a_query_shows_the_form(client):
    response = client.get("/search/")
    assert response.status_code == 200
    assert "Type at least" not in response.content.decode()


def test_a_mangled_page_number_gives_the_first_page(r, client, alice):
    for page in ("x", "-1", "0", "99999", "²"):
        response = client.get("/search/", {"q": "ali", "page": page})
        assert response.status_code == 200
    assert logins_on(client.get("/search/", {"q": "ali", "page": "x"})) == ["alice"]


def test_names_are_escaped(r, client):
    make_user(r, "xss", "<script>alert(1)</script>")
    html = client.get("/search/", {"q": "xss"}).content.decode()
    assert "<script>alert" not in html and "&lt;script&gt;alert(1)" in html


def test_search_is_throttled_for_visitors_by_address_and_users_by_account(client, alice, limits):
    limits(search=(2, 300))
    for _ in range(2):
        assert client.get("/search/", {"q": "a"}, REMOTE_ADDR=ADDRESS).status_code == 200
    refused = client.get("/search/", {"q": "a"}, REMOTE_ADDR=ADDRESS)
    assert refused.status_code == 429 and "Too many searches" in refused.content.decode()
    log_in(client, "alice")
    assert client.get("/search/", {"q": "a"}, REMOTE_ADDR=ADDRESS).status_code == 200


def test_complete_json_offers_people_and_tags(r, client, alice, bob):
    post(r, alice, "#redis #reddit")
    log_in(client, "bob")
    people = client.get("/search/complete.json", {"q": "@al"})
    assert people.status_code == 200 and people["Content-Type"] == "application/json"
    assert people.json() == {
        "query": "@al",
        "results": [
            {"value": "@alice", "login": "alice", "name": "Alice Liddell", "url": "/@alice/"}
        ],
    }
    tags = client.get("/search/complete.json", {"q": "#red"}).json()["results"]
    assert [(t["value"], t["url"]) for t in tags] == [
        ("#reddit", "/tags/reddit/"),
        ("#redis", "/tags/redis/"),
    ]
    for i in range(10):
        make_user(r, f"al{i}")
    assert len(client.get("/search/complete.json", {"q": "@al"}).json()["results"]) == 8


def test_complete_json_mixed_offers_people_then_tags_for_a_bare_word(r, client, alice, bob):
    post(r, bob, "#alpine #alps #altitude #also #always")
    for n in range(8):
        make_user(r, f"al{n}")
    log_in(client, "bob")
    bare = client.get("/search/complete.json", {"q": "al"}).json()["results"]
    assert all("login" in result for result in bare)  # the status form's: people only
    mixed = client.get("/search/complete.json", {"q": "al", "mixed": "1"}).json()["results"]
    assert len(mixed) == 8
    assert [("login" in result, "tag" in result) for result in mixed] == [(True, False)] * 5 + [
        (False, True)
    ] * 3  # people first, then tags: 3 of the 8
    few = client.get("/search/complete.json", {"q": "alp", "mixed": "1"}).json()["results"]
    assert [result["value"] for result in few] == ["#alpine", "#alps"]  # no one is "alp..."
    named = client.get("/search/complete.json", {"q": "lidd", "mixed": "1"}).json()["results"]
    assert [result["value"] for result in named] == ["@alice"]  # by name, not followed


def test_complete_json_leaves_out_people_in_a_block_with_the_user(r, client, alice, bob):
    blocks.block(r, alice["id"], bob["id"])
    log_in(client, "bob")
    assert client.get("/search/complete.json", {"q": "@al"}).json()["results"] == []


def test_complete_json_refuses_visitors_and_bad_queries(client, alice):
    visitor = client.get("/search/complete.json", {"q": "@al"})
    assert visitor.status_code == 401 and "Log in" in visitor.json()["error"]
    log_in(client, "alice")
    for q in ("", "@", "x" * 101):
        response = client.get("/search/complete.json", {"q": q})
        assert response.status_code == 400 and response.json()["error"], q
    assert client.post("/search/complete.json", {"q": "@al"}).status_code == 405


def test_complete_json_is_throttled_with_a_json_answer(client, alice, limits):
    limits(autocomplete=(2, 300))
    log_in(client, "alice")
    for _ in range(2):
        assert client.get("/search/complete.json", {"q": "@al"}).status_code == 200
    refused = client.get("/search/complete.json", {"q": "@al"})
    assert refused.status_code == 429
    assert "Too many autocomplete requests" in refused.json()["error"]
    assert refused["Retry-After"]


def test_the_status_forms_ask_for_completions(r, client, alice):
    log_in(client, "alice")
    home = client.get("/").content.decode()
    assert 'data-complete="/search/complete.json"' in home
    assert "js/complete.js" in home
    sid = post(r, alice, "a thread")
    thread = client.get(f"/@alice/{sid}/").content.decode()
    assert 'data-complete="/search/complete.json"' in thread


def test_a_prefix_with_more_matches_than_candidates_says_how_it_ranks(r, client, monkeypatch):
    from socialsite.repository import search
    from timeline import search as search_views

    monkeypatch.setattr(search, "SEARCH_TIERS", (0, 2))
    monkeypatch.setattr(search_views, "SEARCH_CANDIDATES", 5)
    for i in range(8):
        make_user(r, f"kim{i}")
    star = make_user(r, "kimzz")
    for fan in (make_user(r, "fan1"), make_user(r, "fan2")):
        graph.follow(r, fan["id"], star["id"])
    response = client.get("/search/", {"q": "kim"})
    assert response.status_code == 200
    assert logins_on(response)[0] == "kimzz"
    assert "everyone with 2 followers or more is ranked here" in response.content.decode()
    monkeypatch.setattr(search, "SEARCH_TIERS", (0,))
    response = client.get("/search/", {"q": "kim"})
    assert "Many match. Type more letters" in response.content.decode()

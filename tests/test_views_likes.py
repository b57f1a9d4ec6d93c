"""Views of likes: Like and Unlike on every page of statuses, the actions and their
refusals, who likes a status, what a user likes, the notification, the throttle."""

import re

import pytest
from django.test import Client

from socialsite.repository import blocks, graph, likes, moderation, privacy
from tests.support.helpers import answer_of, csrf_token, log_in, make_user, post


def html_of(response):
    return response.content.decode()


def like_button(html, sid):
    """ "Like" or "Unlike": what the Like button of status ``sid`` does (pressed, it
    unlikes), or None."""
    match = re.search(
        rf'class="icon-button like" formaction="/statuses/{sid}/(like|unlike)/" '
        r'aria-pressed="(true|false)"',
        html,
    )
    if not match:
        return None
    assert (match.group(1) == "unlike") == (match.group(2) == "true")
    return match.group(1).title()


def count_text(html, sid):
    """(the "Liked by" link of status ``sid``'s menu, "N likes": its Like button's count
    as read aloud), or None."""
    article = re.search(rf'<article class="status" id="status-{sid}".*?</article>', html, re.S)
    found = re.search(
        r'<span class="count like-count">(\d+)<span class="visually-hidden"> (likes?)</span>',
        article.group(0),
    )
    link = re.search(r'<a class="menu-item" href="([^"]+/likes/)">', article.group(0))
    return (link.group(1), f"{found.group(1)} {found.group(2)}") if found and link else None


@pytest.fixture
def bob_client(bob):
    return log_in(Client(), "bob")


def test_like_from_the_home_page_then_unlike(r, alice, bob, bob_client):
    graph.follow(r, bob["id"], alice["id"])
    sid = post(r, alice, "like this")
    assert like_button(html_of(bob_client.get("/")), sid) == "Like"
    response = bob_client.post(f"/statuses/{sid}/like/", {"next": "/?before=999"})
    assert response.status_code == 302 and response["Location"] == "/?before=999"
    page = html_of(bob_client.get("/"))
    assert "You like this status." in page
    assert like_button(page, sid) == "Unlike"
    assert count_text(page, sid) == (f"/@alice/{sid}/likes/", "1 like")
    # Twice changes nothing.
    bob_client.post(f"/statuses/{sid}/like/", {"next": "/"})
    page = html_of(bob_client.get("/"))
    assert "You already like this status." in page and count_text(page, sid)[1] == "1 like"
    bob_client.post(f"/statuses/{sid}/unlike/", {"next": "/"})
    page = html_of(bob_client.get("/"))
    assert "You no longer like this status." in page
    assert like_button(page, sid) == "Like" and count_text(page, sid) is None
    bob_client.post(f"/statuses/{sid}/unlike/", {"next": "/"})
    assert "You did not like this status." in html_of(bob_client.get("/"))


def test_an_unsafe_next_goes_home(r, alice, bob_client):
    sid = post(r, alice, "x")
    response = bob_client.post(f"/statuses/{sid}/like/", {"next": "https://evil.example/"})
    assert response["Location"] == "/"


def test_like_buttons_and_counts_on_profile_status_tag_and_likes_pages(
    r, alice, bob, carol, bob_client
):
    sid = post(r, alice, "everywhere #tagged")
    other = post(r, alice, "not liked")
    likes.like(r, bob["id"], sid)
    likes.like(r, carol["id"], sid)
    for url in ("/@alice/", f"/@alice/{sid}/", "/tags/tagged/", "/@bob/likes/"):
        page = html_of(bob_client.get(url))
        assert like_button(page, sid) == "Unlike", url
        assert count_text(page, sid) == (f"/@alice/{sid}/likes/", "2 likes"), url
    assert like_button(html_of(bob_client.get("/@alice/")), other) == "Like"
    # The Like form leads back to the page it is on.
    page = html_of(bob_client.get("/@alice/?before=99999"))
    assert '<input type="hidden" name="next" value="/@alice/?before=99999">' in page
    # A visitor sees the counts, and no form.
    page = html_of(Client().get("/@alice/"))
    assert like_button(page, sid) is None and count_text(page, sid)[1] == "2 likes"


def test_who_likes_a_status_newest_first_and_paged(r, alice, settings):
    settings.TIMELINE_PAGE_SIZE = 2
    sid = post(r, alice, "liked")
    for n in range(3):
        likes.like(r, make_user(r, f"liker{n}")["id"], sid)
    page = html_of(Client().get(f"/@alice/{sid}/likes/"))
    assert re.findall(r'href="/@(liker\d)/"', page) == ["liker2", "liker1"]
    cursor = re.search(r'href="\?before=(\d+)"', page).group(1)
    page = html_of(Client().get(f"/@alice/{sid}/likes/?before={cursor}"))
    assert re.findall(r'href="/@(liker\d)/"', page) == ["liker0"]
    assert "Older" not in page
    # The wrong author in the URL, or no such status.
    assert Client().get(f"/@bob/{sid}/likes/").status_code == 404
    assert Client().get("/@alice/999999/likes/").status_code == 404
    assert Client().get(f"/@alice/{sid}/likes/?before=x").status_code == 400


def test_what_a_user_likes_newest_first_and_paged(r, alice, bob, settings):
    settings.TIMELINE_PAGE_SIZE = 2
    sids = [post(r, alice, f"status {n}") for n in range(3)]
    for sid in sids:
        likes.like(r, bob["id"], sid)
    page = html_of(Client().get("/@bob/likes/"))
    assert re.findall(r'data-status-id="(\d+)"', page) == [str(sids[2]), str(sids[1])]
    cursor = re.search(r'href="\?before=(\d+)"', page).group(1)
    page = html_of(Client().get(f"/@bob/likes/?before={cursor}"))
    assert re.findall(r'data-status-id="(\d+)"', page) == [str(sids[0])]
    assert Client().get("/@nobody/likes/").status_code == 404


def test_refusals_are_readable_4xx(r, alice, bob, carol, bob_client):
    sid = post(r, alice, "mine")
    for action in ("like", "unlike"):
        # Not logged in: to the login page; GET: not allowed.
        response = Client().post(f"/statuses/{sid}/{action}/")
        assert response.status_code == 302 and "/accounts/login/" in response["Location"]
        assert bob_client.get(f"/statuses/{sid}/{action}/").status_code == 405
        # No such status.
        response = bob_client.post(f"/statuses/999999/{action}/")
        assert response.status_code == 404 and "no such status" in html_of(response)
    # A status bob may not see is answered as one that is not there, word for word.
    missing = {
        action: answer_of(bob_client.post(f"/statuses/999999/{action}/"))
        for action in ("like", "unlike")
    }
    missing_likes = answer_of(bob_client.get("/@alice/999999/likes/"))
    blocks.block(r, alice["id"], bob["id"])
    for action in ("like", "unlike"):
        assert answer_of(bob_client.post(f"/statuses/{sid}/{action}/")) == missing[action]
    assert answer_of(bob_client.get(f"/@alice/{sid}/likes/")) == missing_likes
    blocks.unblock(r, alice["id"], bob["id"])
    blocks.block(r, bob["id"], alice["id"])
    response = bob_client.post(f"/statuses/{sid}/like/")
    assert response.status_code == 403 and "you block its author" in html_of(response)
    assert bob_client.get(f"/@alice/{sid}/likes/").status_code == 200  # he sees it
    blocks.unblock(r, bob["id"], alice["id"])
    privacy.set_private(r, alice["id"], True)
    for action in ("like", "unlike"):
        assert answer_of(bob_client.post(f"/statuses/{sid}/{action}/")) == missing[action]
    assert answer_of(bob_client.get(f"/@alice/{sid}/likes/")) == missing_likes
    assert bob_client.get("/@alice/likes/").status_code == 403
    privacy.set_private(r, alice["id"], False)
    moderation.suspend(r, alice["id"], reason="spam")
    assert bob_client.post(f"/statuses/{sid}/like/").status_code == 404
    assert bob_client.get(f"/@alice/{sid}/likes/").status_code == 404
    assert likes.like_count(r, sid) == 0


def test_likes_need_the_csrf_token(r, alice, bob):
    sid = post(r, alice, "x")
    client = log_in(Client(enforce_csrf_checks=True), "bob")
    assert client.post(f"/statuses/{sid}/like/").status_code == 403
    token = csrf_token(client.get("/"))
    response = client.post(f"/statuses/{sid}/like/", {"csrfmiddlewaretoken": token})
    assert response.status_code == 302 and likes.like_count(r, sid) == 1


def test_the_author_is_notified_grouped_and_unliking_takes_it_back(r, alice, bob, carol):
    sid = post(r, alice, "notify me")
    dave = make_user(r, "dave")
    for user in (bob, carol, dave):
        likes.like(r, user["id"], sid)
    alice_client = log_in(Client(), "alice")
    page = html_of(alice_client.get("/notifications/"))
    assert re.search(r"Dave</bdi></a> and 2 others\s+liked your status", page, re.S)
    assert page.count('class="notification like') == 1
    likes.unlike(r, carol["id"], sid)
    likes.unlike(r, dave["id"], sid)
    page = html_of(alice_client.get("/notifications/"))
    assert re.search(r"Bob Builder</bdi></a>\s+liked your status", page, re.S)
    assert "others" not in page
    html = html_of(alice_client.get("/notifications/?type=like"))
    assert 'class="notification like' in html


def test_the_likes_throttle(r, alice, bob_client, settings):
    settings.THROTTLES = {**settings.THROTTLES, "likes": (2, 300)}
    sid = post(r, alice, "x")
    assert bob_client.post(f"/statuses/{sid}/like/").status_code == 302
    assert bob_client.post(f"/statuses/{sid}/unlike/").status_code == 302
    response = bob_client.post(f"/statuses/{sid}/like/")
    assert response.status_code == 429 and "Retry-After" in response
    assert likes.like_count(r, sid) == 0

"""Views of the timeline app: home, posting, deleting, profiles, follow lists, follows.

Every test runs the real views against real Redis (see conftest.py).
"""

import re

import pytest
from django.test import Client

from socialsite.repository import (
    blocks,
    graph,
    keys,
    likes,
    privacy,
    reposts,
    statuses,
    timelines,
    users,
    worker,
)
from tests.support.helpers import answer_of, csrf_token, log_in, make_user, post

LANDING_TEXT = "Short posts from the people you follow"
# The message of a 400, escaped as templates escape it (Jinja2 writes ' as &#39;).
MALFORMED_CURSOR = "The page link is malformed: &#39;before&#39; must be a number."
OLDER_LINK = re.compile(r'<a rel="next" href="\?before=(\d+)">Older</a>')


def html_of(response):
    return response.content.decode()


def status_ids(response):
    """The ids of the statuses shown on a page, top to bottom."""
    return [int(sid) for sid in re.findall(r'data-status-id="(\d+)"', html_of(response))]


def older_cursor(response):
    """The ``before`` of the page's "Older" link, or None if it has none."""
    match = OLDER_LINK.search(html_of(response))
    return match.group(1) if match else None


def counts(response):
    """(posts, followers, following) as the profile page shows them."""
    html = html_of(response)
    return tuple(
        int(re.search(rf'class="count-{name}">(\d+)<', html).group(1))
        for name in ("posts", "followers", "following")
    )


def user_counts(r, user):
    fresh = users.get_user(r, user["id"])
    return fresh["posts"], fresh["followers"], fresh["following"]


def page_through(client, path):
    """Every status id on ``path`` and its older pages, and the number of pages."""
    seen, pages, url = [], 0, path
    while url:
        response = client.get(url)
        assert response.status_code == 200
        seen += status_ids(response)
        pages += 1
        cursor = older_cursor(response)
        url = f"{path}?before={cursor}" if cursor else None
    return seen, pages


@pytest.fixture
def alice_client(client, alice):
    return log_in(client, "alice")


# --- home -------------------------------------------------------------------------------


def test_home_shows_the_landing_page_to_anonymous_visitors(client):
    response = client.get("/")
    assert response.status_code == 200
    html = html_of(response)
    assert LANDING_TEXT in html
    assert 'href="/accounts/login/"' in html
    assert 'href="/accounts/signup/"' in html
    assert 'name="message"' not in html


def test_a_session_key_naming_someone_shows_them_nothing_without_their_session(r, alice):
    # The home page reads the ids of the user a session key names together with the
    # session; a made-up key that names alice must not show her timeline (a private
    # account's status in it: a visitor's landing page shows public statuses only).
    privacy.set_private(r, alice["id"], True)
    post(r, alice, "only for alice's eyes")
    for key in (f"{alice['id']}.{'a' * 32}", f"{alice['id']}.x"):
        visitor = Client()
        visitor.cookies["sessionid"] = key
        html = html_of(visitor.get("/"))
        assert LANDING_TEXT in html and "only for alice" not in html


def test_ids_read_along_are_used_only_for_the_page_they_were_read_for(r, alice, bob):
    graph.follow(r, alice["id"], bob["id"])
    sids = [post(r, bob, f"bob {i}") for i in range(3)]
    read = timelines.HomeIdsRead(before=None, count=2)
    pipe = r.pipeline(transaction=False)
    read.queue(pipe, alice["id"])
    read.take(alice["id"], pipe.execute())
    assert read.ids == sids[::-1]
    assert read.ids_for(alice["id"], None, 2) == sids[::-1]
    assert read.ids_for(bob["id"], None, 2) is None  # another user's
    assert read.ids_for(alice["id"], sids[2], 2) is None  # another page
    assert read.ids_for(alice["id"], None, 30) is None
    page = timelines.home_page(r, alice["id"], count=2, ids_read=read)
    assert [s["id"] for s in page.items] == sids[:0:-1] and page.next_cursor == sids[1]


def test_home_reads_its_ids_itself_when_the_session_was_loaded_before(r, alice, alice_client):
    from accounts.session_store import SessionStore

    post(r, alice, "still shown")
    session = SessionStore(alice_client.cookies["sessionid"].value)
    assert session.get("_auth_user_id") == alice["id"]  # loaded
    read = timelines.HomeIdsRead()
    session.read_along(read)  # too late: nothing is read along
    session.get("_auth_user_id")
    assert read.ids is None
    assert "still shown" in html_of(alice_client.get("/"))


def test_home_shows_the_compose_form_when_logged_in(alice_client):
    html = html_of(alice_client.get("/"))
    assert LANDING_TEXT not in html
    assert '<form method="post" action="/statuses/"' in html
    assert 'name="message"' in html


def test_home_shows_own_and_followed_statuses_newest_first(r, alice_client, alice, bob, carol):
    graph.follow(r, alice["id"], bob["id"])
    first = post(r, alice, "alice one")
    second = post(r, bob, "bob one")
    hidden = post(r, carol, "carol is not followed")
    third = post(r, alice, "alice two")

    response = alice_client.get("/")
    assert status_ids(response) == [third, second, first]
    assert hidden not in status_ids(response)
    assert "carol is not followed" not in html_of(response)
    assert "bob one" in html_of(response)


def test_pages_of_ascii_text_are_all_ascii(r, alice_client, alice, bob):
    # The templates write "·" and the location pin as entities (base.html says why);
    # a character beyond ASCII in a template would make every page slower to encode.
    graph.follow(r, alice["id"], bob["id"])
    post(r, bob, "from Paris", location="48.8566,2.3522")
    post(r, alice, "mine, with a delete form")
    for path in ("/", "/@bob/", f"/@bob/{post(r, bob, 'one status')}/", "/@alice/followers/"):
        response = alice_client.get(path)
        assert response.status_code == 200
        assert response.content.isascii(), path
    home = html_of(alice_client.get("/"))
    assert '<p class="location">&#x1F4CD; 48.8566,2.3522</p>' in home
    assert '<a class="when"' in home


def test_home_says_when_it_is_empty(alice_client):
    assert "Nothing here yet." in html_of(alice_client.get("/"))


def test_home_shows_30_statuses_a_page_with_an_older_link(r, alice_client, alice):
    sids = [post(r, alice, f"status {i}") for i in range(31)]
    response = alice_client.get("/")
    assert status_ids(response) == sids[::-1][:30]
    assert older_cursor(response) == str(sids[1])


def test_home_has_no_older_link_on_the_last_page(r, alice_client, alice):
    sids = [post(r, alice, f"status {i}") for i in range(31)]
    response = alice_client.get(f"/?before={sids[1]}")
    assert status_ids(response) == [sids[0]]
    assert older_cursor(response) is None


def test_home_has_no_older_link_with_exactly_30_statuses(r, alice_client, alice):
    for i in range(30):
        post(r, alice, f"status {i}")
    response = alice_client.get("/")
    assert len(status_ids(response)) == 30
    assert older_cursor(response) is None


def test_home_pages_without_repeats_or_gaps(r, alice_client, alice, bob):
    graph.follow(r, alice["id"], bob["id"])
    sids = [post(r, alice if i % 2 else bob, f"status {i}") for i in range(75)]
    seen, pages = page_through(alice_client, "/")
    assert seen == sids[::-1]
    assert pages == 3


def test_home_pages_stay_exact_when_statuses_arrive_between_loads(r, alice_client, alice, bob):
    graph.follow(r, alice["id"], bob["id"])
    sids = [post(r, bob, f"old {i}") for i in range(65)]

    first = alice_client.get("/")
    assert status_ids(first) == sids[::-1][:30]
    newer = [post(r, bob, f"new {i}") for i in range(7)]

    second = alice_client.get(f"/?before={older_cursor(first)}")
    assert status_ids(second) == sids[::-1][30:60]
    post(r, alice, "newer still")

    third = alice_client.get(f"/?before={older_cursor(second)}")
    assert status_ids(third) == sids[::-1][60:]
    assert older_cursor(third) is None
    assert not set(newer) & set(status_ids(second) + status_ids(third))


@pytest.mark.parametrize(
    "before", ["abc", "-1", "1" * 30, "1.5", "", "%C2%B2", "%D9%A3", "0x10", "1e3", "+5"]
)
def test_home_answers_400_to_a_malformed_cursor(alice_client, before):
    response = alice_client.get(f"/?before={before}")
    assert response.status_code == 400
    html = html_of(response)
    assert "Bad request" in html
    assert MALFORMED_CURSOR in html


def test_home_never_shows_a_deleted_status(r, alice_client, alice, bob):
    graph.follow(r, alice["id"], bob["id"])
    kept = post(r, bob, "kept")
    gone = post(r, bob, "deleted by bob")
    statuses.delete_status(r, bob["id"], gone)
    response = alice_client.get("/")
    assert status_ids(response) == [kept]
    assert "deleted by bob" not in html_of(response)


def test_home_skips_a_status_whose_hash_is_gone(r, alice_client, alice, bob):
    graph.follow(r, alice["id"], bob["id"])
    kept = post(r, bob, "kept")
    zombie = post(r, bob, "zombie")
    r.delete(keys.status(zombie))  # the id stays in home timelines
    assert zombie in timelines.home_ids(r, alice["id"])
    response = alice_client.get("/")
    assert response.status_code == 200
    assert status_ids(response) == [kept]


# --- posting ----------------------------------------------------------------------------


def test_it_posts_a_status(r, alice_client, alice):
    response = alice_client.post("/statuses/", {"message": "Hello, world"})
    assert response.status_code == 302
    assert response["Location"] == "/"
    [sid] = timelines.profile_ids(r, alice["id"])
    assert statuses.get_status(r, sid)["message"] == "Hello, world"
    assert users.get_user(r, alice["id"])["posts"] == 1


def test_a_posted_status_shows_on_home_with_a_message(r, alice_client, alice):
    alice_client.post("/statuses/", {"message": "Hello, world"})
    response = alice_client.get("/")
    html = html_of(response)
    assert "Your status is posted." in html
    assert "Hello, world" in html
    assert status_ids(response) == timelines.profile_ids(r, alice["id"])


def test_a_posted_status_reaches_followers(r, alice_client, alice, bob):
    graph.follow(r, bob["id"], alice["id"])
    alice_client.post("/statuses/", {"message": "for my followers"})
    [sid] = timelines.profile_ids(r, alice["id"])
    assert timelines.home_ids(r, bob["id"]) == [sid]
    bob_client = log_in(Client(), "bob")
    assert "for my followers" in html_of(bob_client.get("/"))


@pytest.mark.parametrize("message", ["", "   ", "\n\t \r\n"])
def test_it_refuses_an_empty_message(r, alice_client, alice, message):
    response = alice_client.post("/statuses/", {"message": message})
    assert response.status_code == 302
    assert response["Location"] == "/"
    html = html_of(alice_client.get("/"))
    assert "Your status was not posted." in html
    assert "Write something, or add an image, before posting." in html
    assert timelines.profile_ids(r, alice["id"]) == []
    assert users.get_user(r, alice["id"])["posts"] == 0


def test_it_refuses_a_missing_message(r, alice_client, alice):
    response = alice_client.post("/statuses/", {})
    assert response.status_code == 302
    assert "Write something, or add an image, before posting." in html_of(alice_client.get("/"))
    assert timelines.profile_ids(r, alice["id"]) == []


def test_it_refuses_281_characters_and_shows_the_text_again(r, alice_client, alice):
    message = "x" * 271 + " too long!"
    assert len(message) == 281
    response = alice_client.post("/statuses/", {"message": message})
    assert response.status_code == 302
    html = html_of(alice_client.get("/"))
    assert "A status is at most 280 characters; this one has 281." in html
    assert f">\n{message}</textarea>" in html
    assert timelines.profile_ids(r, alice["id"]) == []


def test_it_shows_a_refused_draft_only_once(r, alice_client):
    alice_client.post("/statuses/", {"message": "y" * 281})
    assert "y" * 281 in html_of(alice_client.get("/"))
    assert "y" * 281 not in html_of(alice_client.get("/"))


def test_it_accepts_exactly_280_characters(r, alice_client, alice):
    message = "z" * 280
    alice_client.post("/statuses/", {"message": message})
    [sid] = timelines.profile_ids(r, alice["id"])
    assert statuses.get_status(r, sid)["message"] == message


def test_it_counts_characters_not_bytes(r, alice_client, alice):
    message = "🙂" * 280
    alice_client.post("/statuses/", {"message": message})
    [sid] = timelines.profile_ids(r, alice["id"])
    assert statuses.get_status(r, sid)["message"] == message


def test_it_follows_the_status_max_length_setting(r, settings, alice_client, alice):
    settings.STATUS_MAX_LENGTH = 10
    alice_client.post("/statuses/", {"message": "eleven char"})
    assert "A status is at most 10 characters; this one has 11." in html_of(alice_client.get("/"))
    assert timelines.profile_ids(r, alice["id"]) == []

    alice_client.post("/statuses/", {"message": "ten chars!"})
    assert len(timelines.profile_ids(r, alice["id"])) == 1


def test_it_stores_a_location(r, alice_client, alice):
    alice_client.post("/statuses/", {"message": "in Paris", "location": "48.8566,2.3522"})
    [sid] = timelines.profile_ids(r, alice["id"])
    assert statuses.get_status(r, sid)["location"] == "48.8566,2.3522"
    assert "48.8566,2.3522" in html_of(alice_client.get("/"))


def test_it_normalizes_a_location(r, alice_client, alice):
    alice_client.post("/statuses/", {"message": "edge", "location": " -90 , 180.0 "})
    [sid] = timelines.profile_ids(r, alice["id"])
    assert statuses.get_status(r, sid)["location"] == "-90,180"


def test_it_stores_no_location_when_none_is_given(r, alice_client, alice):
    alice_client.post("/statuses/", {"message": "nowhere", "location": ""})
    [sid] = timelines.profile_ids(r, alice["id"])
    assert "location" not in statuses.get_status(r, sid)


@pytest.mark.parametrize(
    "location", ["abc", "91,0", "0,181", "1,2,3", "-90.5,0", "0,-181", "nan,nan", "inf,0", ","]
)
def test_it_refuses_a_bad_location(r, alice_client, alice, location):
    response = alice_client.post("/statuses/", {"message": "where?", "location": location})
    assert response.status_code == 302
    html = html_of(alice_client.get("/"))
    assert "Your status was not posted." in html
    assert ("latitude,longitude" in html and "for example 48.8566,2.3522" in html) or (
        "Latitude must be between -90 and 90" in html
    )
    assert timelines.profile_ids(r, alice["id"]) == []


def test_it_explains_an_out_of_range_location(r, alice_client):
    alice_client.post("/statuses/", {"message": "where?", "location": "91,0"})
    assert "Latitude must be between -90 and 90, longitude between -180 and 180." in html_of(
        alice_client.get("/")
    )


def test_it_keeps_a_bad_location_in_the_form(r, alice_client):
    alice_client.post("/statuses/", {"message": "where?", "location": "somewhere"})
    html = html_of(alice_client.get("/"))
    assert 'value="somewhere"' in html
    assert "where?</textarea>" in html


def test_it_escapes_html_in_messages(r, alice_client, alice):
    alice_client.post("/statuses/", {"message": "<script>alert('x')</script> & <b>hi</b>"})
    html = html_of(alice_client.get("/"))
    assert "&lt;script&gt;alert(&#x27;x&#x27;)&lt;/script&gt; &amp; &lt;b&gt;hi&lt;/b&gt;" in html
    assert "<script>alert" not in html
    assert "<b>hi</b>" not in html


def test_it_escapes_html_in_a_refused_draft(r, alice_client):
    alice_client.post("/statuses/", {"message": "<script>alert(1)</script>" + "x" * 280})
    html = html_of(alice_client.get("/"))
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html
    assert "<script>alert" not in html


def test_it_escapes_html_in_a_location(r, alice_client, alice):
    alice_client.post("/statuses/", {"message": "x", "location": "<i>1</i>,2"})
    html = html_of(alice_client.get("/"))
    assert "&lt;i&gt;1&lt;/i&gt;,2" in html
    assert "<i>1</i>" not in html


def test_anonymous_posting_redirects_to_login_and_posts_nothing(r, client, alice):
    response = client.post("/statuses/", {"message": "who am I?"})
    assert response.status_code == 302
    assert response["Location"] == "/accounts/login/?next=%2F"
    assert r.get(keys.STATUS_IDS) is None
    assert users.get_user(r, alice["id"])["posts"] == 0


def test_post_status_rejects_get(alice_client):
    assert alice_client.get("/statuses/").status_code == 405


def test_post_status_rejects_get_from_anonymous_visitors_too(client):
    response = client.get("/statuses/")
    assert response.status_code == 405
    assert response["Allow"] == "POST"


# --- deleting ---------------------------------------------------------------------------


def test_it_deletes_own_status_everywhere(r, alice_client, alice, bob, carol):
    graph.follow(r, bob["id"], alice["id"])
    graph.follow(r, carol["id"], alice["id"])
    kept = post(r, alice, "kept")
    gone = post(r, alice, "to be deleted")

    response = alice_client.post(f"/statuses/{gone}/delete/")
    assert response.status_code == 302

    assert statuses.get_status(r, gone) is None
    assert timelines.profile_ids(r, alice["id"]) == [kept]
    assert timelines.home_ids(r, alice["id"]) == [kept]
    # Followers' timelines are cleaned by the fan-out worker (deferred work).
    worker.work_until_idle(r)
    assert timelines.home_ids(r, bob["id"]) == [kept]
    assert timelines.home_ids(r, carol["id"]) == [kept]


def test_a_deleted_status_leaves_every_page(r, alice_client, alice, bob):
    graph.follow(r, bob["id"], alice["id"])
    gone = post(r, alice, "to be deleted")
    alice_client.post(f"/statuses/{gone}/delete/")

    bob_client = log_in(Client(), "bob")
    for client, path in [(alice_client, "/"), (alice_client, "/@alice/"), (bob_client, "/")]:
        html = html_of(client.get(path))
        assert "to be deleted" not in html
    assert alice_client.get(f"/@alice/{gone}/").status_code == 404


def test_deleting_uncounts_the_status(r, alice_client, alice):
    post(r, alice, "one")
    gone = post(r, alice, "two")
    alice_client.post(f"/statuses/{gone}/delete/")
    assert users.get_user(r, alice["id"])["posts"] == 1
    assert counts(alice_client.get("/@alice/"))[0] == 1


def test_deleting_says_so_and_returns_to_the_profile(r, alice_client, alice):
    gone = post(r, alice, "bye")
    response = alice_client.post(f"/statuses/{gone}/delete/")
    assert response["Location"] == "/@alice/"
    assert "Your status is deleted." in html_of(alice_client.get("/@alice/"))


def test_deleting_returns_to_a_local_next(r, alice_client, alice):
    gone = post(r, alice, "bye")
    response = alice_client.post(f"/statuses/{gone}/delete/", {"next": "/?before=99"})
    assert response["Location"] == "/?before=99"


def test_deleting_ignores_a_foreign_next(r, alice_client, alice):
    gone = post(r, alice, "bye")
    response = alice_client.post(f"/statuses/{gone}/delete/", {"next": "https://evil.example/"})
    assert response["Location"] == "/@alice/"


def test_it_checks_the_owner_before_deleting(r, alice_client, alice, bob):
    graph.follow(r, alice["id"], bob["id"])
    sid = post(r, bob, "bob's own")
    response = alice_client.post(f"/statuses/{sid}/delete/")
    # As Mastodon: one deletes among one's own statuses; another's is not there.
    assert response.status_code == 404
    assert "There is no such status." in html_of(response)
    assert statuses.get_status(r, sid)["message"] == "bob's own"
    assert timelines.profile_ids(r, bob["id"]) == [sid]
    assert timelines.home_ids(r, alice["id"]) == [sid]
    assert users.get_user(r, bob["id"])["posts"] == 1


def test_deleting_an_unknown_status_answers_404(r, alice_client, alice):
    post(r, alice, "still here")
    response = alice_client.post("/statuses/999999/delete/")
    assert response.status_code == 404
    assert "There is no such status." in html_of(response)
    assert users.get_user(r, alice["id"])["posts"] == 1


def test_deleting_twice_answers_404(r, alice_client, alice):
    sid = post(r, alice, "once")
    alice_client.post(f"/statuses/{sid}/delete/")
    assert alice_client.post(f"/statuses/{sid}/delete/").status_code == 404
    assert users.get_user(r, alice["id"])["posts"] == 0


def test_delete_rejects_get(r, alice_client, alice):
    sid = post(r, alice, "safe from GET")
    assert alice_client.get(f"/statuses/{sid}/delete/").status_code == 405
    assert statuses.get_status(r, sid) is not None


def test_anonymous_delete_redirects_to_login_and_deletes_nothing(r, client, alice):
    sid = post(r, alice, "mine")
    response = client.post(f"/statuses/{sid}/delete/")
    assert response.status_code == 302
    assert response["Location"].startswith("/accounts/login/")
    assert statuses.get_status(r, sid) is not None


def test_the_delete_button_shows_only_on_own_statuses(r, alice_client, alice, bob):
    graph.follow(r, alice["id"], bob["id"])
    mine = post(r, alice, "mine")
    theirs = post(r, bob, "theirs")
    html = html_of(alice_client.get("/"))
    assert f'action="/statuses/{mine}/delete/"' in html
    assert f'action="/statuses/{theirs}/delete/"' not in html


# --- profile ----------------------------------------------------------------------------


def test_profile_shows_name_login_and_exact_counts(r, client, alice, bob, carol):
    post(r, alice, "one")
    post(r, alice, "two")
    graph.follow(r, bob["id"], alice["id"])
    graph.follow(r, carol["id"], alice["id"])
    graph.follow(r, alice["id"], carol["id"])

    response = client.get("/@alice/")
    assert response.status_code == 200
    html = html_of(response)
    assert "Alice Liddell" in html
    assert "@alice" in html
    assert counts(response) == (2, 2, 1)
    assert counts(client.get("/@carol/")) == (0, 1, 1)


def test_profile_shows_only_the_users_statuses_newest_first(r, client, alice, bob):
    graph.follow(r, alice["id"], bob["id"])
    first = post(r, alice, "first")
    post(r, bob, "not alice's")
    second = post(r, alice, "second")
    response = client.get("/@alice/")
    assert status_ids(response) == [second, first]
    assert "not alice&#x27;s" not in html_of(response)


def test_profile_says_when_nothing_is_posted(client, alice):
    assert "@alice has not posted anything yet." in html_of(client.get("/@alice/"))


def test_profile_shows_a_follow_button_to_others(alice_client, bob):
    html = html_of(alice_client.get("/@bob/"))
    assert 'action="/@bob/follow/"' in html
    assert 'action="/@bob/unfollow/"' not in html


def test_profile_shows_an_unfollow_button_when_following(r, alice_client, alice, bob):
    graph.follow(r, alice["id"], bob["id"])
    html = html_of(alice_client.get("/@bob/"))
    assert 'action="/@bob/unfollow/"' in html
    assert 'action="/@bob/follow/"' not in html


def test_profile_shows_no_button_on_own_profile(alice_client):
    html = html_of(alice_client.get("/@alice/"))
    assert "/follow/" not in html
    assert "/unfollow/" not in html


def test_profile_shows_no_button_to_anonymous_visitors(client, bob):
    html = html_of(client.get("/@bob/"))
    assert "/follow/" not in html
    assert "/unfollow/" not in html


def test_profile_of_an_unknown_user_answers_404(client):
    response = client.get("/@nobody/")
    assert response.status_code == 404
    html = html_of(response)
    assert "Not found" in html
    assert "There is no user @nobody." in html


def test_profile_404_escapes_the_login(client):
    response = client.get("/@<script>x</script>/")
    assert response.status_code == 404
    assert "<script>x" not in html_of(response)


def test_an_unknown_address_answers_404_with_readable_text(client):
    response = client.get("/no/such/page/")
    assert response.status_code == 404
    html = html_of(response)
    assert "There is nothing here." in html
    assert "Resolver404" not in html


@pytest.mark.parametrize("login", ["ALICE", "Alice", "aLiCe"])
def test_profile_works_with_the_login_in_any_case(r, client, alice, login):
    sid = post(r, alice, "hello")
    response = client.get(f"/@{login}/")
    assert response.status_code == 200
    assert "Alice Liddell" in html_of(response)
    assert status_ids(response) == [sid]


def test_profile_pages_like_home(r, client, alice):
    sids = [post(r, alice, f"status {i}") for i in range(65)]
    first = client.get("/@alice/")
    assert len(status_ids(first)) == 30
    post(r, alice, "arrived while paging")
    seen, pages = page_through(client, "/@alice/")
    assert pages == 3
    assert seen[1:] == sids[::-1]


def test_profile_answers_400_to_a_malformed_cursor(client, alice):
    response = client.get("/@alice/?before=abc")
    assert response.status_code == 400
    assert MALFORMED_CURSOR in html_of(response)


# --- followers and following lists ------------------------------------------------------


def test_followers_lists_names(r, client, alice, bob, carol):
    graph.follow(r, bob["id"], alice["id"])
    graph.follow(r, carol["id"], alice["id"])
    response = client.get("/@alice/followers/")
    assert response.status_code == 200
    html = html_of(response)
    assert "Followers of" in html
    assert "Bob Builder" in html and "@bob" in html
    assert "Carol Danvers" in html
    assert html.index("Carol Danvers") < html.index("Bob Builder")  # newest follow first


def test_following_lists_names(r, client, alice, bob, carol):
    graph.follow(r, alice["id"], carol["id"])
    response = client.get("/@alice/following/")
    html = html_of(response)
    assert "Following of" in html
    assert "Carol Danvers" in html
    assert "Bob Builder" not in html


def test_an_empty_list_says_so(client, alice):
    assert "Nobody yet." in html_of(client.get("/@alice/followers/"))
    assert "Nobody yet." in html_of(client.get("/@alice/following/"))


def listed_logins(response):
    return re.findall(r'<span class="login">@(\w+)</span></span></a></li>', html_of(response))


def test_followers_are_paged_30_at_a_time(r, client, alice):
    fans = [make_user(r, f"fan{i:02d}") for i in range(33)]
    for fan in fans:
        graph.follow(r, fan["id"], alice["id"])
    newest_first = [fan["login"] for fan in reversed(fans)]

    first = client.get("/@alice/followers/")
    assert listed_logins(first) == newest_first[:30]
    cursor = older_cursor(first)
    assert cursor is not None

    second = client.get(f"/@alice/followers/?before={cursor}")
    assert listed_logins(second) == newest_first[30:]
    assert older_cursor(second) is None


def test_following_is_paged_30_at_a_time(r, client, alice):
    idols = [make_user(r, f"idol{i:02d}") for i in range(31)]
    for idol in idols:
        graph.follow(r, alice["id"], idol["id"])
    newest_first = [idol["login"] for idol in reversed(idols)]

    first = client.get("/@alice/following/")
    assert listed_logins(first) == newest_first[:30]
    second = client.get(f"/@alice/following/?before={older_cursor(first)}")
    assert listed_logins(second) == newest_first[30:]
    assert older_cursor(second) is None


def test_lists_of_an_unknown_user_answer_404(client):
    assert client.get("/@nobody/followers/").status_code == 404
    assert client.get("/@nobody/following/").status_code == 404


def test_lists_answer_400_to_a_malformed_cursor(client, alice):
    assert client.get("/@alice/followers/?before=-1").status_code == 400
    assert client.get("/@alice/following/?before=x").status_code == 400


# --- follow and unfollow ----------------------------------------------------------------


def test_it_follows(r, alice_client, alice, bob):
    response = alice_client.post("/@bob/follow/")
    assert response.status_code == 302
    assert response["Location"] == "/@bob/"
    assert graph.is_following(r, alice["id"], bob["id"])
    assert user_counts(r, alice)[2] == 1
    assert user_counts(r, bob)[1] == 1
    assert "You now follow @bob." in html_of(alice_client.get("/@bob/"))


def test_following_brings_their_statuses_home_at_once(r, alice_client, alice, bob):
    sids = [post(r, bob, f"bob {i}") for i in range(5)]
    mine = post(r, alice, "mine")
    alice_client.post("/@bob/follow/")
    assert timelines.home_ids(r, alice["id"]) == [mine, *sids[::-1]]
    response = alice_client.get("/")
    assert status_ids(response) == [mine, *sids[::-1]]


def test_following_brings_later_statuses_home(r, alice_client, alice, bob):
    alice_client.post("/@bob/follow/")
    sid = post(r, bob, "after the follow")
    assert status_ids(alice_client.get("/")) == [sid]


def test_it_unfollows_and_their_statuses_leave_home(r, alice_client, alice, bob):
    graph.follow(r, alice["id"], bob["id"])
    post(r, bob, "bob speaks")
    mine = post(r, alice, "mine")

    response = alice_client.post("/@bob/unfollow/")
    assert response.status_code == 302
    assert not graph.is_following(r, alice["id"], bob["id"])
    assert timelines.home_ids(r, alice["id"]) == [mine]
    html = html_of(alice_client.get("/"))
    assert "You no longer follow @bob." in html
    assert "bob speaks" not in html
    assert user_counts(r, alice)[2] == 0
    assert user_counts(r, bob)[1] == 0


def test_it_refuses_to_follow_self(r, alice_client, alice):
    response = alice_client.post("/@alice/follow/")
    assert response.status_code == 302
    assert "You cannot follow or unfollow yourself." in html_of(alice_client.get("/@alice/"))
    assert user_counts(r, alice) == (0, 0, 0)


def test_it_refuses_to_unfollow_self(r, alice_client, alice):
    alice_client.post("/@alice/unfollow/")
    assert "You cannot follow or unfollow yourself." in html_of(alice_client.get("/@alice/"))
    assert user_counts(r, alice) == (0, 0, 0)


def test_following_twice_changes_nothing(r, alice_client, alice, bob):
    alice_client.post("/@bob/follow/")
    alice_client.get("/")  # shows and clears the first message
    response = alice_client.post("/@bob/follow/")
    assert response.status_code == 302
    assert "You already follow @bob." in html_of(alice_client.get("/@bob/"))
    assert user_counts(r, alice)[2] == 1
    assert user_counts(r, bob)[1] == 1


def test_unfollowing_someone_not_followed_changes_nothing(r, alice_client, alice, bob, carol):
    graph.follow(r, carol["id"], bob["id"])
    response = alice_client.post("/@bob/unfollow/")
    assert response.status_code == 302
    assert "You were not following @bob." in html_of(alice_client.get("/@bob/"))
    assert user_counts(r, alice)[2] == 0
    assert user_counts(r, bob)[1] == 1


def test_following_an_unknown_user_answers_404(r, alice_client, alice):
    response = alice_client.post("/@nobody/follow/")
    assert response.status_code == 404
    assert "There is no user @nobody." in html_of(response)
    assert alice_client.post("/@nobody/unfollow/").status_code == 404
    assert user_counts(r, alice) == (0, 0, 0)


def test_anonymous_follow_redirects_to_login_and_changes_nothing(r, client, bob):
    response = client.post("/@bob/follow/")
    assert response.status_code == 302
    assert response["Location"] == "/accounts/login/?next=%2F"
    assert user_counts(r, bob) == (0, 0, 0)


def test_anonymous_unfollow_redirects_to_login_and_changes_nothing(r, client, alice, bob):
    graph.follow(r, alice["id"], bob["id"])
    response = client.post("/@bob/unfollow/")
    assert response.status_code == 302
    assert response["Location"].startswith("/accounts/login/")
    assert graph.is_following(r, alice["id"], bob["id"])


@pytest.mark.parametrize("action", ["follow", "unfollow"])
def test_follow_actions_reject_get(r, alice_client, alice, bob, action):
    assert alice_client.get(f"/@bob/{action}/").status_code == 405
    assert user_counts(r, alice)[2] == 0


def test_follow_works_with_the_login_in_any_case(r, alice_client, alice, bob):
    response = alice_client.post("/@BOB/follow/")
    assert response["Location"] == "/@bob/"
    assert graph.is_following(r, alice["id"], bob["id"])


def test_follow_returns_to_a_local_next(r, alice_client, bob):
    response = alice_client.post("/@bob/follow/", {"next": "/@bob/followers/"})
    assert response["Location"] == "/@bob/followers/"


def test_follow_ignores_a_foreign_next(r, alice_client, bob):
    response = alice_client.post("/@bob/follow/", {"next": "//evil.example/"})
    assert response["Location"] == "/@bob/"


# --- status page ------------------------------------------------------------------------


def test_status_page_shows_the_status(r, client, alice):
    sid = post(r, alice, "a single status", location="48.8566,2.3522")
    response = client.get(f"/@alice/{sid}/")
    assert response.status_code == 200
    html = html_of(response)
    assert "a single status" in html
    assert "Alice Liddell" in html
    assert "48.8566,2.3522" in html
    assert status_ids(response) == [sid]


def test_status_page_works_with_the_login_in_any_case(r, client, alice):
    sid = post(r, alice, "case")
    assert client.get(f"/@ALICE/{sid}/").status_code == 200


def test_status_page_checks_the_login(r, client, alice, bob):
    sid = post(r, alice, "alice's")
    response = client.get(f"/@bob/{sid}/")
    assert response.status_code == 404
    assert "There is no such status." in html_of(response)


def test_status_page_of_an_unknown_id_answers_404(client, alice):
    response = client.get("/@alice/424242/")
    assert response.status_code == 404
    assert "There is no such status." in html_of(response)


def test_a_status_the_reader_may_not_see_answers_as_a_missing_one(
    r, client, alice, bob, carol, settings
):
    """Every page and action taking a status id answers a status the reader may not see
    (a private account's they do not follow, one whose author blocks them) exactly as
    one that is not there: the same code, the same words, the same place sent back to.
    Mastodon answers 404 to all."""
    settings.THROTTLES = {name: (1000, 3600) for name in settings.THROTTLES}
    r.set(keys.STATUS_IDS, 70_000)  # ids no page shows by chance, to be told apart
    protected = post(r, alice, "followers only")
    privacy.set_private(r, alice["id"], True)
    across_a_block = post(r, carol, "not for bob")
    blocks.block(r, carol["id"], bob["id"])
    log_in(client, "bob")
    client.get("/")  # the welcome message, shown once
    token = {"csrfmiddlewaretoken": csrf_token(client.get("/"))}

    def said(response, sid):
        """The answer, and for a redirect where it leads and what it says there."""
        if response.status_code == 302:
            shown = client.get(response["Location"]).content.decode()
            flashed = re.findall(r'<li class="message[^"]*">([^<]*)</li>', shown)
            answer = (302, response["Location"], flashed)
        else:
            answer = answer_of(response)
        return re.sub(rf"\b{sid}\b", "ID", repr(answer))

    def answers(sid, login):
        gets = [f"/@{login}/{sid}/", f"/@{login}/{sid}/likes/", f"/@{login}/{sid}/reposts/",
                f"/@{login}/report/?status={sid}"]  # fmt: skip
        posts = [
            (f"/statuses/{sid}/{action}/", {"next": "/"})
            for action in ("like", "unlike", "repost", "unrepost", "delete")
        ] + [
            ("/statuses/", {"message": "a reply", "in_reply_to": sid, "next": "/"}),
            (f"/@{login}/report/", {"reason": "spam", "status": sid}),
        ]
        found = [said(client.get(url), sid) for url in gets]
        found += [said(client.post(url, {**data, **token}), sid) for url, data in posts]
        return found

    for sid, login in ((protected, "alice"), (across_a_block, "carol")):
        assert answers(sid, login) == answers(999_999, login)
    assert likes.like_count(r, protected) == reposts.repost_count(r, protected) == 0
    assert statuses.get_status(r, across_a_block) is not None


def test_status_page_deletion_returns_to_the_profile(r, alice_client, alice):
    sid = post(r, alice, "delete me from here")
    html = html_of(alice_client.get(f"/@alice/{sid}/"))
    assert '<input type="hidden" name="next" value="/@alice/">' in html


# --- nothing answers 500 ----------------------------------------------------------------


GARBAGE_GETS = [
    "/@" + "a" * 5000 + "/",
    "/@" + "a" * 5000 + "/followers/",
    "/@" + "a" * 5000 + "/1/",
    "/@日本/",
    "/@日本/followers/",
    "/@日本/following/",
    "/@日本/1/",
    "/@%F0%9F%99%82/",
    "/@a%00b/",
    "/@%ff%fe/",
    "/@alice/" + "9" * 40 + "/",
    "/@alice/?before=" + "9" * 20,
    "/@alice/?before=" + "9" * 1000,
    "/?before=" + "9" * 20,
    "/?before=" + "9" * 10000,
    "/?before=%C2%B2",
    "/?before=%00",
    "/?before=1&before=x",
    "/@alice/followers/?before=" + "9" * 20,
    "/@alice/following/?before=%C2%B2",
]


@pytest.mark.parametrize("path", GARBAGE_GETS)
def test_garbage_gets_never_answer_500(alice_client, path):
    assert alice_client.get(path).status_code < 500


@pytest.mark.parametrize("path", GARBAGE_GETS)
def test_garbage_gets_never_answer_500_to_anonymous_visitors(client, alice, path):
    assert client.get(path).status_code < 500


@pytest.mark.parametrize(
    "path",
    [
        "/@" + "a" * 5000 + "/follow/",
        "/@日本/follow/",
        "/@日本/unfollow/",
        "/@a%00b/follow/",
        "/statuses/" + "9" * 40 + "/delete/",
    ],
)
def test_garbage_posts_never_answer_500(r, alice_client, alice, path):
    assert alice_client.post(path).status_code == 404
    assert user_counts(r, alice) == (0, 0, 0)


@pytest.mark.parametrize(
    "data",
    [
        {"message": "a\x00b"},
        {"message": "x" * 100_000},
        {"message": "ok", "location": "\x00"},
        {"message": "ok", "location": "1" * 100},
        {"message": ["one", "two"]},
    ],
)
def test_garbage_statuses_never_answer_500(r, alice_client, alice, data):
    response = alice_client.post("/statuses/", data)
    assert response.status_code == 302
    assert alice_client.get("/").status_code == 200


# --- readable errors and kept input ------------------------------------------------------


def test_a_405_answer_says_what_happened_in_its_body(alice_client):
    response = alice_client.get("/statuses/")
    assert response.status_code == 405
    assert response["Allow"] == "POST"
    assert "Method not allowed" in html_of(response)


def test_a_location_keeps_six_decimals(alice_client, r, alice):
    alice_client.post("/statuses/", {"message": "at SF", "location": "37.774929,-122.419416"})
    (sid,) = timelines.profile_ids(r, alice["id"])
    assert statuses.get_status(r, sid)["location"] == "37.774929,-122.419416"


def test_a_tiny_coordinate_is_stored_as_a_plain_number(alice_client, r, alice):
    alice_client.post("/statuses/", {"message": "near null island", "location": "0.0000001,-0"})
    (sid,) = timelines.profile_ids(r, alice["id"])
    assert statuses.get_status(r, sid)["location"] == "0,0"


def test_a_malformed_page_link_keeps_the_draft(alice_client, r, alice):
    alice_client.post("/statuses/", {"message": "x" * 281})
    assert alice_client.get("/?before=abc").status_code == 400
    assert "x" * 281 in html_of(alice_client.get("/"))


POSTING_KEY_INPUT = re.compile(r'name="posting_key" value="([A-Za-z0-9_-]{22})"')


def test_the_same_form_sent_twice_posts_once(r, client, alice):
    log_in(client, "alice")
    key = POSTING_KEY_INPUT.search(html_of(client.get("/"))).group(1)
    for _ in range(2):  # a retry after an error, or a double click
        response = client.post("/statuses/", {"message": "only once", "posting_key": key})
        assert response.status_code == 302
    assert len(timelines.profile_ids(r, alice["id"])) == 1
    # Each showing of the form has a key of its own: a new form posts anew.
    other = POSTING_KEY_INPUT.search(html_of(client.get("/"))).group(1)
    assert other != key
    client.post("/statuses/", {"message": "only once", "posting_key": other})
    assert len(timelines.profile_ids(r, alice["id"])) == 2


def test_a_form_without_a_valid_posting_key_still_posts(r, client, alice):
    log_in(client, "alice")
    for key in ("", "short", "x" * 200, "<b>bold</b>-and-22-chars"):
        response = client.post("/statuses/", {"message": f"key {key!r}", "posting_key": key})
        assert response.status_code == 302
    assert len(timelines.profile_ids(r, alice["id"])) == 4


def test_counts_read_as_english(client, r, alice, bob, carol):
    graph.follow(r, alice["id"], bob["id"])
    sid = post(r, bob, "one of each")
    statuses.post_status(r, alice["id"], "a reply", in_reply_to=sid)
    for liker in (alice, carol):
        likes.like(r, liker["id"], sid)
    reposts.repost(r, carol["id"], sid)
    log_in(client, "alice")
    profile = html_of(client.get("/@bob/"))
    assert re.search(r"1</strong> post</span>", profile)
    assert re.search(r"1</strong> follower</a>", profile)
    thread = html_of(client.get(f"/@bob/{sid}/"))
    assert '>1<span class="visually-hidden"> reply</span>' in thread
    assert '>2<span class="visually-hidden"> likes</span>' in thread
    assert '>1<span class="visually-hidden"> repost</span>' in thread
    graph.follow(r, carol["id"], alice["id"])
    graph.follow(r, bob["id"], alice["id"])
    assert re.search(r"2</strong> followers</a>", html_of(client.get("/@alice/")))


def test_the_post_form_offers_a_location_only_when_asked(client, r, alice):
    log_in(client, "alice")
    home = html_of(client.get("/"))
    # Behind a disclosure that opens without script, closed until asked for.
    disclosure = re.search(r'<details class="location-field">\s*<summary>.*?Add a location'
                           r'</span></summary>(.*?)</details>', home, re.DOTALL)  # fmt: skip
    assert disclosure and 'name="location"' in disclosure.group(1)
    assert home.count('name="location"') == 1
    # A location that was wrong comes back with the disclosure open, and its error.
    response = client.post("/statuses/", {"message": "here", "location": "north"}, follow=True)
    html = html_of(response)
    assert '<details class="location-field" open>' in html
    assert "latitude,longitude" in html and 'value="north"' in html

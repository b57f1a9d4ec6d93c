"""The repost pages and actions: POST /statuses/<id>/repost/ and /unrepost/, the
"reposted" header and Repost buttons on pages, and /@<login>/<id>/reposts/."""

import re

from socialsite.repository import blocks, graph, keys, privacy, reposts, statuses
from tests.support.helpers import answer_of, csrf_token, log_in, post


def repost_form(client, sid, next_url="/", action="repost"):
    page = client.get(next_url)
    return client.post(
        f"/statuses/{sid}/{action}/", {"csrfmiddlewaretoken": csrf_token(page), "next": next_url}
    )


def test_reposting_from_the_home_page_shows_the_header_and_undo(client, r, alice, bob, carol):
    graph.follow(r, bob["id"], alice["id"])
    graph.follow(r, carol["id"], bob["id"])
    sid = post(r, alice, "share me")
    log_in(client, "bob")
    home = client.get("/").content.decode()
    assert f'action="/statuses/{sid}/repost/"' in home
    response = repost_form(client, sid)
    assert response.status_code == 302 and response["Location"] == "/"
    page = client.get("/").content.decode()
    assert "You reposted the status." in page
    assert f'action="/statuses/{sid}/unrepost/" aria-pressed="true"' in page
    assert int(r.hget(keys.status_counts(sid), "reposts")) == 1
    # Twice changes nothing.
    repost_form(client, sid)
    assert "You had reposted it already." in client.get("/").content.decode()
    assert int(r.hget(keys.status_counts(sid), "reposts")) == 1
    # Carol sees it with bob's header; bob's profile shows it at the top.
    client.post("/accounts/logout/")
    log_in(client, "carol")
    page = client.get("/").content.decode()
    assert re.search(r"&#x21BB;|\u21bb", page) and "Bob Builder</bdi></a> reposted" in page
    profile = client.get("/@bob/").content.decode()
    assert "share me" in profile and "reposted" in profile
    # Undo from the profile.
    client.post("/accounts/logout/")
    log_in(client, "bob")
    response = repost_form(client, sid, "/@bob/", "unrepost")
    assert response["Location"] == "/@bob/"
    assert "Your repost is undone." in client.get("/@bob/").content.decode()
    assert int(r.hget(keys.status_counts(sid), "reposts")) == 0


def test_the_status_page_marks_a_status_the_viewer_reposted(client, r, alice, bob):
    sid = post(r, alice, "on its page")
    reposts.repost(r, bob["id"], sid)
    log_in(client, "bob")
    page = client.get(f"/@alice/{sid}/").content.decode()
    assert f'action="/statuses/{sid}/unrepost/"' in page
    # A repost's own id leads to its original's page.
    rid = int(r.zscore(keys.reposted(bob["id"]), sid))
    response = client.get(f"/@bob/{rid}/")
    assert response.status_code == 302 and response["Location"] == f"/@alice/{sid}/"


def test_refusals_are_readable_pages(client, r, alice, bob, carol):
    sid = post(r, alice, "guarded")
    log_in(client, "bob")
    token = csrf_token(client.get("/"))
    assert (
        client.post("/statuses/999999/repost/", {"csrfmiddlewaretoken": token}).status_code == 404
    )
    missing = answer_of(client.post("/statuses/999999/repost/", {"csrfmiddlewaretoken": token}))
    # A status bob may not see is answered as one that is not there, word for word.
    privacy.set_private(r, alice["id"], True)
    response = client.post(f"/statuses/{sid}/repost/", {"csrfmiddlewaretoken": token})
    assert answer_of(response) == missing
    # Seen (bob follows her), and still not public: refused with the reason.
    graph.follow(r, bob["id"], alice["id"])
    privacy.approve(r, alice["id"], bob["id"])
    response = client.post(f"/statuses/{sid}/repost/", {"csrfmiddlewaretoken": token})
    assert response.status_code == 403 and b"not public" in response.content
    graph.unfollow(r, bob["id"], alice["id"])
    privacy.set_private(r, alice["id"], False)
    blocks.block(r, bob["id"], alice["id"])
    response = client.post(f"/statuses/{sid}/repost/", {"csrfmiddlewaretoken": token})
    assert response.status_code == 403 and b"you block its author" in response.content
    blocks.unblock(r, bob["id"], alice["id"])
    blocks.block(r, alice["id"], bob["id"])
    response = client.post(f"/statuses/{sid}/repost/", {"csrfmiddlewaretoken": token})
    assert answer_of(response) == missing
    statuses.delete_status(r, alice["id"], sid)
    response = client.post(f"/statuses/{sid}/repost/", {"csrfmiddlewaretoken": token})
    assert response.status_code == 404
    assert r.hget(keys.status_counts(sid), "reposts") is None


def test_reposting_needs_a_login_and_a_post_with_csrf(client, r, alice):
    sid = post(r, alice, "anonymous")
    response = client.post(f"/statuses/{sid}/repost/")
    assert response.status_code == 302 and "/accounts/login/" in response["Location"]
    assert client.get(f"/statuses/{sid}/repost/").status_code == 405
    from django.test import Client

    strict = Client(enforce_csrf_checks=True)
    log_in(strict, "alice")
    assert strict.post(f"/statuses/{sid}/repost/").status_code == 403
    assert r.hget(keys.status_counts(sid), "reposts") is None


def test_the_next_parameter_must_be_local(client, r, alice, bob):
    sid = post(r, alice, "nowhere else")
    log_in(client, "bob")
    token = csrf_token(client.get("/"))
    response = client.post(
        f"/statuses/{sid}/repost/",
        {"csrfmiddlewaretoken": token, "next": "https://evil.example/"},
    )
    assert response["Location"] == "/"


def test_who_reposted_is_listed_newest_first(client, r, alice, bob, carol):
    sid = post(r, alice, "listed")
    reposts.repost(r, bob["id"], sid)
    reposts.repost(r, carol["id"], sid)
    page = client.get(f"/@alice/{sid}/reposts/").content.decode()
    assert page.index("@carol") < page.index("@bob")
    assert client.get(f"/@bob/{sid}/reposts/").status_code == 404
    assert client.get("/@alice/999999/reposts/").status_code == 404
    assert client.get(f"/@alice/{sid}/reposts/?before=x").status_code == 400
    privacy.set_private(r, alice["id"], True)
    assert answer_of(client.get(f"/@alice/{sid}/reposts/")) == answer_of(
        client.get("/@alice/999999/reposts/")
    )


def test_the_reposts_throttle_refuses_with_a_429(client, r, alice, bob, settings):
    settings.THROTTLES = {**settings.THROTTLES, "reposts": (1, 3600)}
    first, second = post(r, alice, "one"), post(r, alice, "two")
    log_in(client, "bob")
    token = csrf_token(client.get("/"))
    assert (
        client.post(f"/statuses/{first}/repost/", {"csrfmiddlewaretoken": token}).status_code == 302
    )
    response = client.post(f"/statuses/{second}/repost/", {"csrfmiddlewaretoken": token})
    assert response.status_code == 429
    assert r.hget(keys.status_counts(second), "reposts") is None


def test_the_author_hears_of_the_repost(client, r, alice, bob):
    sid = post(r, alice, "notify me")
    reposts.repost(r, bob["id"], sid)
    log_in(client, "alice")
    page = client.get("/notifications/").content.decode()
    assert "reposted your status" in page
    assert client.get("/notifications/?type=repost").status_code == 200

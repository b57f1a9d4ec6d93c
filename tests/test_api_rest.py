"""The client API's REST endpoints (docs/api.md "## REST"): driven by Mastodon.py, a
client nobody here wrote, against a live server, and by direct HTTP for each error
code, scope and refusal. The rules of the pages hold through the same code: a status
the pages refuse, the API refuses ("Record not found")."""

import io
import json
import re

import pytest
from django.test.client import BOUNDARY, MULTIPART_CONTENT, encode_multipart
from mastodon import Mastodon
from mastodon.errors import MastodonNotFoundError

from api import entities
from socialsite.repository import (
    blocks,
    eviction,
    graph,
    keys,
    likes,
    lists,
    moderation,
    privacy,
    profiles,
    reposts,
    statuses,
    timelines,
    users,
)
from tests.support.helpers import bearer
from tests.test_media_images import png


def post(r, user, message, **kwargs):
    return statuses.post_status(r, user["id"], message, **kwargs)


# --- Mastodon.py, against a live server --------------------------------------------------


@pytest.fixture
def mastodon(live_server, settings, token):
    """mastodon(user): a Mastodon.py client of ``user`` on the live server."""
    settings.SITE_URL = live_server.url

    def client(user):
        return Mastodon(access_token=token(user), api_base_url=live_server.url)

    return client


def test_mastodon_py_posts_replies_favourites_and_reblogs(r, mastodon, alice, bob):
    graph.follow(r, bob["id"], alice["id"])
    a, b = mastodon(alice), mastodon(bob)
    assert b.instance()["version"].startswith("4.3.0 (compatible; socialsite ")
    posted = a.status_post("Hello #world, @bob", spoiler_text="cw")
    assert posted["account"]["username"] == "alice"
    assert posted["visibility"] == "public" and posted["spoiler_text"] == "cw"
    assert posted["tags"][0]["name"] == "world" and posted["mentions"][0]["acct"] == "bob"
    assert 'class="hashtag"' in posted["content"] and "/tags/world/" in posted["content"]
    reply = b.status_reply(posted, "Hi back")
    assert reply["in_reply_to_id"] == posted["id"]
    assert b.status_favourite(posted)["favourited"] is True
    reblog = b.status_reblog(posted)
    assert reblog["reblog"]["id"] == posted["id"] and reblog["reblog"]["reblogged"] is True
    seen = a.status(posted["id"])
    assert (seen["favourites_count"], seen["reblogs_count"], seen["replies_count"]) == (1, 1, 1)
    assert [acc["username"] for acc in a.status_favourited_by(posted)] == ["bob"]
    assert [acc["username"] for acc in a.status_reblogged_by(posted)] == ["bob"]
    assert [s["id"] for s in a.status_context(posted)["descendants"]] == [reply["id"]]
    assert [s["id"] for s in a.status_context(reply)["ancestors"]] == [posted["id"]]
    assert b.status_unfavourite(posted)["favourited"] is False
    assert b.status_unreblog(posted)["reblogged"] is False
    b.status_delete(reply)
    with pytest.raises(MastodonNotFoundError):
        a.status(reply["id"])


def test_mastodon_py_reads_timelines_page_by_page(r, mastodon, alice, bob):
    graph.follow(r, bob["id"], alice["id"])
    posted = [post(r, alice, f"Number {n} #many") for n in range(45)]
    _, lid = lists.create_list(r, bob["id"], "Friends")
    lists.add_member(r, bob["id"], lid, alice["id"])
    client = mastodon(bob)
    for read in (
        lambda: client.timeline_home(limit=20),
        lambda: client.timeline_hashtag("many", limit=20),
        lambda: client.timeline_list(lid, limit=20),
        lambda: client.timeline_public(limit=20),
    ):
        page, seen = read(), []
        while page:
            seen += [int(status["id"]) for status in page]
            page = client.fetch_next(page)
        assert seen == posted[::-1]
    newest = client.timeline_home(limit=5)
    assert [int(s["id"]) for s in newest] == posted[:-6:-1]
    newer = post(r, alice, "The newest")
    assert [int(s["id"]) for s in client.fetch_previous(newest)] == [newer]


# --- direct HTTP ---------------------------------------------------------------------------


def test_instance_says_the_limits_and_streaming_url(client, settings):
    settings.STREAM_PUBLIC_URL = "https://stream.example"
    body = client.get("/api/v2/instance").json()
    assert body["configuration"]["statuses"]["max_characters"] == settings.STATUS_MAX_LENGTH
    assert body["configuration"]["statuses"]["max_media_attachments"] == 4
    assert body["configuration"]["urls"]["streaming"] == "wss://stream.example"
    v1 = client.get("/api/v1/instance").json()
    assert v1["urls"]["streaming_api"] == "wss://stream.example"
    assert v1["version"] == body["version"]


def test_accounts_say_private_bio_and_a_default_avatar(r, client, alice, token):
    privacy.set_private(r, alice["id"], True)
    profiles.update_profile(r, alice["id"], {"bio": "Down the <rabbit> hole #wonder"})
    body = client.get("/api/v1/accounts/verify_credentials", **bearer(token(alice))).json()
    assert body["locked"] is True
    assert body["note"].startswith("<p>Down the &lt;rabbit&gt; hole")
    assert body["avatar"].endswith("/static/api/avatar-missing.png")
    assert body["header"].endswith("/static/api/header-missing.png")


def test_a_post_needs_a_write_scope(client, alice, token):
    response = client.post("/api/v1/statuses", {"status": "x"}, **bearer(token(alice, ["read"])))
    assert response.status_code == 403
    assert response.json() == {"error": "This action is outside the authorized scopes"}
    assert client.post("/api/v1/statuses", {"status": "x"}).status_code == 401


def test_a_visibility_not_the_accounts_is_422(r, client, alice, token):
    headers = bearer(token(alice))
    refused = client.post("/api/v1/statuses", {"status": "x", "visibility": "private"}, **headers)
    assert refused.status_code == 422 and "public" in refused.json()["error"]
    privacy.set_private(r, alice["id"], True)
    ok = client.post("/api/v1/statuses", {"status": "x", "visibility": "private"}, **headers)
    assert ok.status_code == 200 and ok.json()["visibility"] == "private"


def test_invalid_statuses_are_422_with_the_forms_message(client, alice, token, settings):
    headers = bearer(token(alice))
    too_long = client.post("/api/v1/statuses", {"status": "x" * 281}, **headers)
    assert too_long.status_code == 422 and "at most 280 characters" in too_long.json()["error"]
    empty = client.post("/api/v1/statuses", {"status": ""}, **headers)
    assert empty.status_code == 422
    missing = client.post(
        "/api/v1/statuses", {"status": "x", "in_reply_to_id": "999999"}, **headers
    )
    assert missing.status_code == 404 and missing.json() == {"error": "Record not found"}
    bad_json = client.post("/api/v1/statuses", "{", content_type="application/json", **headers)
    assert bad_json.status_code == 422


def test_a_json_body_posts_too(client, alice, token):
    response = client.post(
        "/api/v1/statuses", {"status": "In JSON", "sensitive": True, "spoiler_text": "cw"},
        content_type="application/json", **bearer(token(alice)),
    )  # fmt: skip
    assert response.status_code == 200
    assert response.json()["sensitive"] is True and response.json()["spoiler_text"] == "cw"


def test_the_same_idempotency_key_posts_once(r, client, alice, token):
    headers = {**bearer(token(alice)), "HTTP_IDEMPOTENCY_KEY": "abc-123"}
    first = client.post("/api/v1/statuses", {"status": "Once"}, **headers).json()
    again = client.post("/api/v1/statuses", {"status": "Once"}, **headers).json()
    assert first["id"] == again["id"]
    other = client.post(
        "/api/v1/statuses", {"status": "Once"}, **{**headers, "HTTP_IDEMPOTENCY_KEY": "x"}
    ).json()
    assert other["id"] != first["id"]


def test_statuses_throttle_counts_api_posts(client, alice, token, settings):
    settings.THROTTLES = {**settings.THROTTLES, "statuses": (2, 3600)}
    headers = bearer(token(alice))
    codes = [client.post("/api/v1/statuses", {"status": f"n{n}"}, **headers).status_code
             for n in range(3)]  # fmt: skip
    assert codes == [200, 200, 429]


def test_hidden_statuses_are_404_as_the_pages_refuse_them(r, client, alice, bob, carol, token):
    sid = post(r, alice, "Mine")
    headers = bearer(token(bob))
    assert client.get(f"/api/v1/statuses/{sid}", **headers).status_code == 200
    privacy.set_private(r, alice["id"], True)
    assert client.get(f"/api/v1/statuses/{sid}", **headers).json() == {"error": "Record not found"}
    assert client.get(f"/api/v1/statuses/{sid}/context", **headers).status_code == 404
    assert client.post(f"/api/v1/statuses/{sid}/favourite", **headers).status_code == 404
    privacy.set_private(r, alice["id"], False)
    blocks.block(r, alice["id"], bob["id"])
    assert client.get(f"/api/v1/statuses/{sid}", **headers).status_code == 404
    reply = client.post(
        "/api/v1/statuses", {"status": "hey", "in_reply_to_id": str(sid)}, **headers
    )
    assert reply.status_code in (404, 422)
    carol_headers = bearer(token(carol))
    moderation.suspend(r, alice["id"])
    assert client.get(f"/api/v1/statuses/{sid}", **carol_headers).status_code == 404
    assert client.get("/api/v1/statuses/nonsense", **carol_headers).status_code == 404


def test_only_the_author_deletes_a_status(r, client, alice, bob, token):
    sid = post(r, alice, "Mine to delete")
    response = client.delete(f"/api/v1/statuses/{sid}", **bearer(token(bob)))
    # As Mastodon: one deletes among one's own statuses; another's is not there.
    missing = client.delete("/api/v1/statuses/999999", **bearer(token(bob)))
    assert (response.status_code, response.json()) == (404, missing.json())
    deleted = client.delete(f"/api/v1/statuses/{sid}", **bearer(token(alice)))
    assert deleted.status_code == 200 and deleted.json()["text"] == "Mine to delete"
    assert client.get(f"/api/v1/statuses/{sid}", **bearer(token(alice))).status_code == 404


def test_a_private_accounts_status_cannot_be_reblogged(r, client, alice, bob, token):
    privacy.set_private(r, alice["id"], True)
    graph.follow(r, bob["id"], alice["id"])
    privacy.approve(r, alice["id"], bob["id"])
    sid = post(r, alice, "Followers only")
    response = client.post(f"/api/v1/statuses/{sid}/reblog", **bearer(token(bob)))
    # Seen by an approved follower, and not public: Mastodon's 403 (StatusPolicy#reblog?).
    assert response.status_code == 403
    # Mastodon's words first, then the pages' own reason (one action says it).
    error = response.json()["error"]
    assert error.startswith("This action is not allowed: ") and "is not public" in error


def test_a_status_the_caller_may_not_see_answers_as_a_missing_one(
    r, client, alice, bob, carol, token, settings
):
    """Every endpoint taking a status id answers a status the caller may not see (a
    private account's they do not follow, one whose author blocks them) exactly as one
    that is not there, code and body: Mastodon's 404 "Record not found"."""
    settings.THROTTLES = {name: (1000, 3600) for name in settings.THROTTLES}
    r.set(keys.STATUS_IDS, 70_000)  # ids no page shows by chance, to be told apart
    protected = post(r, alice, "followers only")
    privacy.set_private(r, alice["id"], True)
    across_a_block = post(r, carol, "not for bob")
    blocks.block(r, carol["id"], bob["id"])
    headers = bearer(token(bob))

    def answers(sid, account):
        calls = [
            ("get", "/api/v1/statuses/{}", None),
            ("get", "/api/v1/statuses/{}/context", None),
            ("get", "/api/v1/statuses/{}/favourited_by", None),
            ("get", "/api/v1/statuses/{}/reblogged_by", None),
            ("post", "/api/v1/statuses/{}/favourite", None),
            ("post", "/api/v1/statuses/{}/unfavourite", None),
            ("post", "/api/v1/statuses/{}/reblog", None),
            ("post", "/api/v1/statuses/{}/unreblog", None),
            ("delete", "/api/v1/statuses/{}", None),
            ("post", "/api/v1/statuses", {"status": "a reply", "in_reply_to_id": sid}),
            ("post", "/api/v1/reports", {"account_id": account["id"], "status_ids[]": [sid]}),
        ]
        found = []
        for method, url, data in calls:
            response = getattr(client, method)(url.format(sid), data or {}, **headers)
            said = re.sub(rb"\b%d\b" % sid, b"ID", response.content)
            found.append((method, url, response.status_code, said))
        return found

    for sid, author in ((protected, alice), (across_a_block, carol)):
        assert answers(sid, author) == answers(999_999, author)
    assert moderation.open_reports_page(r).items == []
    assert likes.like_count(r, protected) == reposts.repost_count(r, protected) == 0
    assert statuses.get_status(r, across_a_block) is not None


def test_paging_parameters_are_checked_and_link_keeps_the_others(r, client, alice, token):
    headers = bearer(token(alice))
    assert client.get("/api/v1/timelines/home?max_id=x", **headers).status_code == 422
    ids = [post(r, alice, f"n{n}") for n in range(5)]
    response = client.get("/api/v1/timelines/home?limit=2", **headers)
    assert [int(s["id"]) for s in response.json()] == ids[:-3:-1]
    link = response["Link"]
    assert f"max_id={ids[-2]}" in link and 'rel="next"' in link and "limit=2" in link
    assert f"min_id={ids[-1]}" in link and 'rel="prev"' in link
    newer = client.get(f"/api/v1/timelines/home?since_id={ids[2]}", **headers).json()
    assert [int(s["id"]) for s in newer] == ids[:2:-1]
    capped = client.get("/api/v1/timelines/home?limit=400", **headers)
    assert len(capped.json()) == 5


def test_a_list_timeline_is_only_its_owners(r, client, alice, bob, token):
    _, lid = lists.create_list(r, alice["id"], "Mine")
    assert client.get(f"/api/v1/timelines/list/{lid}", **bearer(token(alice))).status_code == 200
    assert client.get(f"/api/v1/timelines/list/{lid}", **bearer(token(bob))).status_code == 404


def test_public_and_tag_timelines_leave_out_whom_the_viewer_mutes(r, client, alice, bob, token):
    post(r, alice, "Loud #topic")
    headers = bearer(token(bob))
    assert len(client.get("/api/v1/timelines/public").json()) == 1
    assert len(client.get("/api/v1/timelines/tag/topic", **headers).json()) == 1
    blocks.mute(r, bob["id"], alice["id"])
    assert client.get("/api/v1/timelines/public", **headers).json() == []
    assert client.get("/api/v1/timelines/tag/topic", **headers).json() == []


# --- accounts ------------------------------------------------------------------------------


def test_mastodon_py_follows_looks_up_and_pages_accounts(r, mastodon, alice, bob, carol):
    privacy.set_private(r, carol["id"], True)
    b = mastodon(bob)
    assert b.account_lookup("alice")["id"] == str(alice["id"])
    assert b.account_follow(alice["id"])["following"] is True
    requested = b.account_follow(carol["id"])
    assert requested["requested"] is True and requested["following"] is False
    rels = b.account_relationships([alice["id"], carol["id"]])
    assert [(rel["following"], rel["requested"]) for rel in rels] == [(True, False), (False, True)]
    assert [acc["username"] for acc in b.account_following(bob["id"])] == ["alice"]
    assert [acc["username"] for acc in b.account_followers(alice["id"])] == ["bob"]
    mine = [post(r, alice, f"n{n}") for n in range(5)]
    reply = post(r, alice, "@bob a reply", in_reply_to=mine[0])
    page = b.account_statuses(alice["id"], limit=2, exclude_replies=True)
    seen = []
    while page:
        seen += [int(s["id"]) for s in page]
        page = b.fetch_next(page)
    assert seen == mine[::-1] and reply not in seen
    assert b.account_statuses(alice["id"], pinned=True) == []
    assert b.account_statuses(carol["id"]) == []
    assert b.account_unfollow(alice["id"])["following"] is False
    assert [acc["username"] for acc in b.account_search("ali")] == ["alice"]
    me = mastodon(alice).account_update_credentials(display_name="Alice L.", note="Hi #tea")
    assert me["display_name"] == "Alice L." and me["source"]["note"] == "Hi #tea"
    assert "/tags/tea/" in me["note"]


def test_accounts_of_suspended_or_blocking_users_are_404(r, client, alice, bob, token):
    headers = bearer(token(bob))
    assert client.get(f"/api/v1/accounts/{alice['id']}", **headers).status_code == 200
    blocks.block(r, alice["id"], bob["id"])
    assert client.get(f"/api/v1/accounts/{alice['id']}/statuses", **headers).status_code == 404
    follow = client.post(f"/api/v1/accounts/{alice['id']}/follow", **headers)
    assert follow.status_code == 403
    moderation.suspend(r, alice["id"])
    for path in ("", "/statuses", "/followers", "/following"):
        assert client.get(f"/api/v1/accounts/{alice['id']}{path}", **headers).status_code == 404
    assert client.get("/api/v1/accounts/lookup?acct=alice", **headers).status_code == 404


def test_update_credentials_is_checked_by_the_profile_form(client, alice, token):
    response = client.patch(
        "/api/v1/accounts/update_credentials", {"note": "x" * 501},
        content_type="application/json", **bearer(token(alice)),
    )  # fmt: skip
    assert response.status_code == 422 and "500" in response.json()["error"]
    refused = client.patch(
        "/api/v1/accounts/update_credentials", {"note": "x"},
        content_type="application/json", **bearer(token(alice, ["read"])),
    )  # fmt: skip
    assert refused.status_code == 403


def patch_multipart(client, fields, user_token):
    return client.patch(
        "/api/v1/accounts/update_credentials", encode_multipart(BOUNDARY, fields),
        content_type=MULTIPART_CONTENT, **bearer(user_token),
    )  # fmt: skip


def test_update_credentials_takes_an_avatar_and_a_header(
    r, client, alice, token, media_root, settings
):
    avatar, header = io.BytesIO(png((500, 300))), io.BytesIO(png((1800, 900)))
    avatar.name, header.name = "me.png", "wide.png"
    response = patch_multipart(
        client, {"avatar": avatar, "header": header, "note": "Hello"}, token(alice)
    )
    assert response.status_code == 200, response.content
    account = response.json()
    assert account["note"] and "Hello" in account["note"]
    assert "/media/" in account["avatar"] and "avatar-missing" not in account["avatar"]
    assert "/media/" in account["header"] and "header-missing" not in account["header"]
    stored = users.get_user(r, alice["id"])
    assert stored[keys.AVATAR_FIELD] and stored[keys.HEADER_FIELD]
    # A file that is no picture: 422 saying why, nothing changed.
    text = io.BytesIO(b"<html>not a picture</html>")
    text.name = "x.png"
    refused = patch_multipart(client, {"avatar": text}, token(alice))
    assert refused.status_code == 422 and refused.json()["error"]
    assert users.get_user(r, alice["id"])[keys.AVATAR_FIELD] == stored[keys.AVATAR_FIELD]
    # Each picture counts toward THROTTLE_MEDIA, as on the profile page: three so far.
    settings.THROTTLES = {**settings.THROTTLES, "media": (4, 600)}
    again = io.BytesIO(png())
    again.name = "again.png"
    assert patch_multipart(client, {"avatar": again}, token(alice)).status_code == 200
    again.seek(0)
    assert patch_multipart(client, {"avatar": again}, token(alice)).status_code == 429


# --- notifications and search --------------------------------------------------------------


def test_mastodon_py_reads_and_dismisses_notifications(r, mastodon, alice, bob, carol):
    privacy.set_private(r, alice["id"], True)
    graph.follow(r, carol["id"], alice["id"])  # a follow request
    privacy.approve(r, alice["id"], carol["id"])
    graph.follow(r, bob["id"], alice["id"])
    mine = post(r, alice, "Mine")
    for n in range(3):
        post(r, carol, f"@alice number {n}")
    post(r, carol, "a reply", in_reply_to=mine)
    likes.like(r, carol["id"], mine)
    a = mastodon(alice)
    types = [n["type"] for n in a.notifications()]
    assert types[:5] == ["favourite", "mention", "mention", "mention", "mention"]
    assert "follow_request" in types
    mentions, page = [], a.notifications(types=["mention"], limit=2)
    while page:
        mentions += page
        page = a.fetch_next(page)
    assert len(mentions) == 4 and {n["type"] for n in mentions} == {"mention"}
    assert mentions[0]["status"]["content"] == "<p>a reply</p>"
    without = a.notifications(exclude_types=["mention", "favourite"])
    assert {n["type"] for n in without} <= {"follow", "follow_request"}
    one = a.notifications(id=mentions[0]["id"])
    assert one["id"] == mentions[0]["id"]
    a.notifications_dismiss(mentions[0]["id"])
    with pytest.raises(MastodonNotFoundError):
        a.notifications(id=mentions[0]["id"])
    a.notifications_clear()
    assert a.notifications() == []


def test_notifications_leave_out_muted_actors_and_unseen_statuses(r, client, alice, bob, token):
    post(r, bob, "@alice hello")
    headers = bearer(token(alice))
    assert len(client.get("/api/v1/notifications", **headers).json()) == 1
    blocks.mute(r, alice["id"], bob["id"])
    assert client.get("/api/v1/notifications", **headers).json() == []
    assert client.get("/api/v1/notifications", **bearer(token(alice, ["read:statuses"]))
                      ).status_code == 403  # fmt: skip
    assert client.get("/api/v1/notifications/12x", **headers).status_code == 404


def test_mastodon_py_searches_accounts_and_hashtags(r, mastodon, alice, bob):
    post(r, alice, "About #teatime")
    found = mastodon(bob).search_v2("tea")
    assert [tag["name"] for tag in found["hashtags"]] == ["teatime"]
    assert found["statuses"] == []
    people = mastodon(bob).search_v2("ali", result_type="accounts")
    assert [acc["username"] for acc in people["accounts"]] == ["alice"]
    assert people["hashtags"] == []
    blocks.block(r, alice["id"], bob["id"])
    assert mastodon(bob).search_v2("ali")["accounts"] == []


def test_a_search_of_another_type_is_422(client):
    assert client.get("/api/v2/search?q=x&type=toots").status_code == 422
    assert client.get("/api/v2/search?q=").status_code == 422


def test_a_timeline_as_json_text_is_the_entities_json(r, alice, bob):
    """The timeline's JSON made of remembered pieces (entities.shown_statuses_json) says
    what the Status entities say."""
    graph.follow(r, bob["id"], alice["id"])
    sid = post(r, alice, "Hi @bob #tag https://example.com", **{"spoiler": "cw"})
    post(r, alice, "@bob a reply", in_reply_to=sid)
    page = timelines.home_page(r, bob["id"])
    base = "https://social.example"
    made = [entities.shown_status(base, item, frozenset({sid})) for item in page.items]
    twice = [json.loads(entities.shown_statuses_json(base, page.items, frozenset({sid})))
             for _ in range(2)]  # fmt: skip
    assert twice[0] == made and twice[1] == made
    assert made[1]["favourited"] is True and made[0]["in_reply_to_id"] == str(sid)


@pytest.mark.parametrize(
    "path",
    [
        "/api/v1/timelines/home?limit=40",
        "/api/v1/timelines/tag/many?limit=40",
        "/api/v1/timelines/list/{lid}?limit=40",
        "/api/v1/timelines/public?limit=40",
        "/api/v1/accounts/{alice}/statuses?limit=40",
        "/api/v1/notifications?limit=30",
    ],
)
def test_each_list_costs_round_trips_not_per_status(r, client, alice, bob, token, round_trips,
                                                    redis_backend, path):  # fmt: skip
    graph.follow(r, bob["id"], alice["id"])
    _, lid = lists.create_list(r, bob["id"], "Friends")
    lists.add_member(r, bob["id"], lid, alice["id"])
    headers = bearer(token(bob))
    url = path.format(lid=lid, alice=alice["id"])
    costs = []
    for count in (3, 30):
        for n in range(count):
            post(r, alice, f"Status {n} #many @bob")
        client.get(url, **headers)  # scripts loaded, authors remembered
        before = round_trips["n"]
        shown = client.get(url, **headers).json()
        assert len(shown) >= count
        costs.append(round_trips["n"] - before)
    assert costs[0] == costs[1], costs
    if not redis_backend.cluster:  # a cluster's pipelines cost one round trip per node
        assert costs[1] <= 6  # the token, then the list (the public one: its catch-up read, 4)


# Every REST endpoint with a token: (method, path, the granular scope it needs).
ENDPOINT_SCOPES = [
    ("get", "/api/v1/accounts/verify_credentials", "read:accounts"),
    ("patch", "/api/v1/accounts/update_credentials", "write:accounts"),
    ("get", "/api/v1/accounts/lookup?acct=bob", "read:accounts"),
    ("get", "/api/v1/accounts/relationships?id[]={bob}", "read:follows"),
    ("get", "/api/v1/accounts/search?q=bob", "read:accounts"),
    ("get", "/api/v1/accounts/{bob}", "read:accounts"),
    ("get", "/api/v1/accounts/{bob}/statuses", "read:statuses"),
    ("get", "/api/v1/accounts/{bob}/followers", "read:accounts"),
    ("get", "/api/v1/accounts/{bob}/following", "read:accounts"),
    ("post", "/api/v1/accounts/{bob}/follow", "write:follows"),
    ("post", "/api/v1/accounts/{bob}/unfollow", "write:follows"),
    ("post", "/api/v1/statuses", "write:statuses"),
    ("get", "/api/v1/statuses/{sid}", "read:statuses"),
    ("delete", "/api/v1/statuses/{sid}", "write:statuses"),
    ("get", "/api/v1/statuses/{sid}/context", "read:statuses"),
    ("post", "/api/v1/statuses/{sid}/favourite", "write:favourites"),
    ("post", "/api/v1/statuses/{sid}/unfavourite", "write:favourites"),
    ("post", "/api/v1/statuses/{sid}/reblog", "write:statuses"),
    ("post", "/api/v1/statuses/{sid}/unreblog", "write:statuses"),
    ("get", "/api/v1/statuses/{sid}/favourited_by", "read:statuses"),
    ("get", "/api/v1/statuses/{sid}/reblogged_by", "read:statuses"),
    ("get", "/api/v1/timelines/home", "read:statuses"),
    ("get", "/api/v1/timelines/public", "read:statuses"),
    ("get", "/api/v1/timelines/tag/x", "read:statuses"),
    ("get", "/api/v1/timelines/list/{lid}", "read:lists"),
    ("get", "/api/v1/notifications", "read:notifications"),
    ("get", "/api/v1/notifications/1", "read:notifications"),
    ("post", "/api/v1/notifications/1/dismiss", "write:notifications"),
    ("post", "/api/v1/notifications/clear", "write:notifications"),
    ("get", "/api/v2/search?q=bob", "read:search"),
]


@pytest.mark.parametrize(("method", "path", "scope"), ENDPOINT_SCOPES)
def test_every_endpoint_asks_its_own_scope(r, client, alice, bob, token, method, path, scope):
    _, lid = lists.create_list(r, alice["id"], "Mine")
    sid = post(r, alice, "Mine")
    url = path.format(bob=bob["id"], sid=sid, lid=lid)
    other = "read:blocks" if scope.startswith("write") else "write:blocks"
    refused = getattr(client, method)(url, **bearer(token(alice, [other])))
    assert refused.status_code == 403, refused.content
    allowed = getattr(client, method)(url, **bearer(token(alice, [scope])))
    assert allowed.status_code != 403, allowed.content
    assert allowed.status_code < 500


def test_a_repost_is_a_reblog_wrapping_its_original(r, client, alice, bob, carol, token):
    graph.follow(r, bob["id"], carol["id"])
    original = post(r, alice, "Worth sharing")
    _, orig = reposts.repost(r, carol["id"], original)
    rid = reposts.repost_id(r, carol["id"], original)
    headers = bearer(token(bob))
    for path in ("/api/v1/timelines/home", f"/api/v1/accounts/{carol['id']}/statuses"):
        (shown,) = client.get(path, **headers).json()
        assert shown["id"] == str(rid) and shown["account"]["username"] == "carol"
        assert shown["reblog"]["id"] == str(original) and shown["content"] == ""
        assert shown["reblog"]["account"]["username"] == "alice"
        assert shown["reblogs_count"] == 1
    one = client.get(f"/api/v1/statuses/{rid}", **headers).json()
    assert one["reblog"]["id"] == str(original)


@pytest.mark.parametrize(
    "path",
    [
        "/api/v1/timelines/home", "/api/v1/timelines/public", "/api/v1/timelines/tag/x",
        "/api/v1/timelines/list/{lid}", "/api/v1/accounts/{alice}/statuses",
        "/api/v1/accounts/{alice}/followers", "/api/v1/accounts/{alice}/following",
        "/api/v1/statuses/{sid}/favourited_by", "/api/v1/statuses/{sid}/reblogged_by",
        "/api/v1/notifications", "/api/v1/accounts/search?q=a", "/api/v2/search?q=a",
    ],
)  # fmt: skip
def test_a_malformed_paging_parameter_is_422_on_every_list(r, client, alice, token, path):
    _, lid = lists.create_list(r, alice["id"], "Mine")
    sid = post(r, alice, "Mine")
    url = path.format(lid=lid, alice=alice["id"], sid=sid)
    joiner = "&" if "?" in url else "?"
    for bad in ("max_id=x", "limit=-1", "since_id=1e5"):
        response = client.get(f"{url}{joiner}{bad}", **bearer(token(alice)))
        assert response.status_code == 422, (bad, response.content)
        assert "must be a number" in response.json()["error"]


def test_an_evicted_home_is_rebuilt_by_the_apis_first_home_timeline(r, client, alice, bob, token):
    graph.follow(r, alice["id"], bob["id"])
    ids = [post(r, bob, f"n{n}") for n in range(3)]
    headers = bearer(token(alice))
    eviction.forget_noted()
    r.zadd(keys.seen(alice["id"]), {alice["id"]: 0})
    assert eviction.sweep(r, 30 * 86400) == 1
    response = client.get("/api/v1/timelines/home", **headers)
    assert [int(s["id"]) for s in response.json()] == ids[::-1]
    assert not eviction.is_evicted(r, alice["id"])
    # The token's read noted alice seen today: the next sweep keeps her home.
    assert r.zscore(keys.seen(alice["id"]), alice["id"]) == eviction.seen_day()
    assert eviction.sweep(r, 30 * 86400) == 0

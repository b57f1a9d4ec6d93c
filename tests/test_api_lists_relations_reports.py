"""The client API's markers, lists, blocks, mutes, follow requests, reports and
favourites (docs/api.md): Mastodon.py against a live server for each group, direct HTTP
for each error code and scope; every action through the pages' own repository
functions."""

import pytest
from mastodon import Mastodon

from socialsite.repository import (
    blocks,
    graph,
    likes,
    lists,
    markers,
    moderation,
    notifications,
    privacy,
    statuses,
)
from tests.support.helpers import bearer, log_in
from tests.test_round_trips import HOME_PAGE_FIRST_SHOWN_ROUND_TRIPS, HOME_PAGE_ROUND_TRIPS, allowed
from timeline import views

MARKERS = "/api/v1/markers"


@pytest.fixture
def mastodon(live_server, settings, token):
    settings.SITE_URL = live_server.url

    def client(user):
        return Mastodon(access_token=token(user), api_base_url=live_server.url)

    return client


def post(r, user, message):
    return statuses.post_status(r, user["id"], message)


# --- markers ---------------------------------------------------------------------------


def test_the_home_marker_is_kept_and_raised_only_when_it_moves(r, alice):
    assert markers.get_markers(r, alice["id"]) == {}
    first = markers.set_home(r, alice["id"], 10, now_ms=1000)
    assert first == markers.Marker(10, 1, 1000)
    assert markers.set_home(r, alice["id"], 10, now_ms=2000) == first  # a retry: no change
    assert markers.set_home(r, alice["id"], 12, now_ms=3000) == markers.Marker(12, 2, 3000)
    assert markers.get_markers(r, alice["id"]) == {"home": markers.Marker(12, 2, 3000)}


def test_the_notifications_marker_is_their_read_mark(r, alice, bob):
    graph.follow(r, bob["id"], alice["id"])
    (event,) = notifications.events(r, alice["id"])
    assert notifications.unread(r, alice["id"]).count == 1
    notifications.mark_read(r, alice["id"], event.score)
    found = markers.get_markers(r, alice["id"])["notifications"]
    assert found.last_read_id == event.score and found.updated_ms > 0
    assert notifications.unread(r, alice["id"]).count == 0


def test_markers_over_http(r, client, alice, token):
    mine = token(alice)
    assert client.get(MARKERS, {"timeline[]": ["home"]}, **bearer(mine)).json() == {}
    answer = client.post(MARKERS, {"home[last_read_id]": "42"}, **bearer(mine))
    assert answer.status_code == 200
    assert answer.json()["home"]["last_read_id"] == "42"
    assert answer.json()["home"]["version"] == 1
    got = client.get(MARKERS, {"timeline[]": ["home", "notifications"]}, **bearer(mine)).json()
    assert list(got) == ["home"] and got["home"]["last_read_id"] == "42"
    json_body = client.post(
        MARKERS, {"home": {"last_read_id": "43"}}, content_type="application/json", **bearer(mine)
    )
    assert json_body.json()["home"]["last_read_id"] == "43"


@pytest.mark.parametrize(
    ("data", "status"),
    [({}, 422), ({"home[last_read_id]": "x"}, 422), ({"notifications[last_read_id]": "-1"}, 422)],
)
def test_a_bad_marker_is_422(client, alice, token, data, status):
    assert client.post(MARKERS, data, **bearer(token(alice))).status_code == status


def test_markers_need_a_token_and_their_scopes(client, alice, token):
    assert client.get(MARKERS).status_code == 401
    read_only = token(alice, ["read"])
    assert client.get(MARKERS, **bearer(read_only)).status_code == 200
    refused = client.post(MARKERS, {"home[last_read_id]": "1"}, **bearer(read_only))
    assert refused.status_code == 403
    write_only = token(alice, ["write"])
    assert client.get(MARKERS, **bearer(write_only)).status_code == 403


def test_markers_are_throttled(client, alice, token, settings):
    settings.THROTTLES = {**settings.THROTTLES, "api": (2, 300)}
    mine = token(alice)
    codes = [client.get(MARKERS, **bearer(mine)).status_code for _ in range(3)]
    assert codes == [200, 200, 429]


def test_the_home_page_shows_the_divider_and_sets_the_marker(r, client, alice, bob):
    graph.follow(r, alice["id"], bob["id"])
    older = post(r, bob, "read before")
    log_in(client, "alice")
    first = client.get("/")
    assert b'id="read-marker"' not in first.content  # no marker yet: nothing to divide
    assert markers.get_markers(r, alice["id"])["home"].last_read_id == older
    newer = post(r, bob, "came since")
    page = client.get("/").content.decode()
    assert 'id="read-marker"' in page
    assert page.index("came since") < page.index('id="read-marker"') < page.index("read before")
    assert markers.get_markers(r, alice["id"])["home"].last_read_id == newer
    assert 'id="read-marker"' not in client.get("/").content.decode()  # read now


def test_the_notifications_page_shows_the_divider(r, client, alice, bob, carol):
    graph.follow(r, bob["id"], alice["id"])
    log_in(client, "alice")
    client.get("/notifications/")  # read up to bob's follow
    post(r, carol, "@alice hello")  # another kind: an entry of its own
    page = client.get("/notifications/").content.decode()
    assert page.index("@carol") < page.index('id="read-marker"') < page.index("@bob")


def test_mastodon_py_markers(r, mastodon, alice, bob):
    graph.follow(r, bob["id"], alice["id"])
    (event,) = notifications.events(r, alice["id"])
    client = mastodon(alice)
    set_ = client.markers_set(["home", "notifications"], ["7", str(event.score)])
    assert set_["home"]["last_read_id"] == "7"
    got = client.markers_get(["home", "notifications"])
    assert got["notifications"]["last_read_id"] == str(event.score)
    assert notifications.unread(r, alice["id"]).count == 0


# --- lists -----------------------------------------------------------------------------

LISTS = "/api/v1/lists"


def test_lists_over_http(r, client, alice, bob, carol, token):
    graph.follow(r, alice["id"], bob["id"])
    mine = token(alice)
    made = client.post(LISTS, {"title": "Friends"}, **bearer(mine))
    assert made.status_code == 200 and made.json()["title"] == "Friends"
    lid = made.json()["id"]
    again = client.post(LISTS, {"title": "Friends"}, **bearer(mine))
    assert again.json()["id"] == lid  # a retry makes one list
    assert [one["title"] for one in client.get(LISTS, **bearer(mine)).json()] == ["Friends"]
    renamed = client.put(f"{LISTS}/{lid}", "title=Pals", **bearer(mine),
                         content_type="application/x-www-form-urlencoded")  # fmt: skip
    assert renamed.json()["title"] == "Pals"
    assert client.get(f"{LISTS}/{lid}", **bearer(mine)).json()["title"] == "Pals"
    added = client.post(f"{LISTS}/{lid}/accounts", {"account_ids[]": [bob["id"]]}, **bearer(mine))
    assert added.status_code == 200 and added.json() == {}
    assert lists.member_ids(r, alice["id"], int(lid)) == {bob["id"]}
    members = client.get(f"{LISTS}/{lid}/accounts", **bearer(mine)).json()
    assert [m["username"] for m in members] == ["bob"]
    not_followed = client.post(
        f"{LISTS}/{lid}/accounts", {"account_ids[]": [carol["id"]]}, **bearer(mine)
    )
    assert not_followed.status_code == 422 and "follow @carol first" in not_followed.json()["error"]
    removed = client.delete(f"{LISTS}/{lid}/accounts?account_ids[]={bob['id']}", **bearer(mine))
    assert removed.status_code == 200 and lists.member_ids(r, alice["id"], int(lid)) == set()
    assert client.delete(f"{LISTS}/{lid}", **bearer(mine)).status_code == 200
    assert client.get(f"{LISTS}/{lid}", **bearer(mine)).status_code == 404


def test_another_users_list_is_404(r, client, alice, bob, token):
    _, lid = lists.create_list(r, bob["id"], "Bob's")
    mine = token(alice)
    for response in (
        client.get(f"{LISTS}/{lid}", **bearer(mine)),
        client.delete(f"{LISTS}/{lid}", **bearer(mine)),
        client.get(f"{LISTS}/{lid}/accounts", **bearer(mine)),
        client.post(f"{LISTS}/{lid}/accounts", {"account_ids[]": [bob["id"]]}, **bearer(mine)),
        client.get(f"{LISTS}/nonsense", **bearer(mine)),
    ):
        assert response.status_code == 404
        assert response.json() == {"error": "Record not found"}


@pytest.mark.parametrize("title", ["", " ", "x" * 200])
def test_a_bad_list_title_is_422(client, alice, token, title):
    answer = client.post(LISTS, {"title": title}, **bearer(token(alice)))
    assert answer.status_code == 422 and answer.json()["error"].startswith("Validation failed")


def test_the_list_limit_holds(r, client, alice, token, monkeypatch):
    monkeypatch.setattr(lists.create_list, "__defaults__", (1,))  # LISTS_PER_USER: 1
    mine = token(alice)
    assert client.post(LISTS, {"title": "One"}, **bearer(mine)).status_code == 200
    full = client.post(LISTS, {"title": "Two"}, **bearer(mine))
    assert full.status_code == 422 and "delete one" in full.json()["error"]


def test_lists_need_their_scopes(client, alice, token):
    read_only = token(alice, ["read:lists"])
    assert client.get(LISTS, **bearer(read_only)).status_code == 200
    assert client.post(LISTS, {"title": "x"}, **bearer(read_only)).status_code == 403
    write_only = token(alice, ["write:lists"])
    assert client.post(LISTS, {"title": "x"}, **bearer(write_only)).status_code == 200
    assert client.get(LISTS, **bearer(write_only)).status_code == 403
    assert client.get(LISTS, **bearer(token(alice, ["read:statuses"]))).status_code == 403
    assert client.get(LISTS).status_code == 401


def test_mastodon_py_lists(r, mastodon, alice, bob):
    graph.follow(r, alice["id"], bob["id"])
    client = mastodon(alice)
    made = client.list_create("Close")
    client.list_accounts_add(made, [bob["id"]])
    assert [a["username"] for a in client.list_accounts(made)] == ["bob"]
    assert client.list_update(made, "Closer")["title"] == "Closer"
    assert [one["title"] for one in client.lists()] == ["Closer"]
    client.list_accounts_delete(made, [bob["id"]])
    assert client.list_accounts(made) == []
    client.list_delete(made)
    assert client.lists() == []


# --- blocks, mutes, follow requests -----------------------------------------------------

ACCOUNTS = "/api/v1/accounts"


def test_block_and_unblock_over_http(r, client, alice, bob, token):
    graph.follow(r, bob["id"], alice["id"])
    mine = token(alice)
    blocked = client.post(f"{ACCOUNTS}/{bob['id']}/block", **bearer(mine))
    assert blocked.status_code == 200 and blocked.json()["blocking"] is True
    assert blocked.json()["followed_by"] is False  # the pages' rule: no follow either way
    assert blocks.is_blocking(r, alice["id"], bob["id"])
    again = client.post(f"{ACCOUNTS}/{bob['id']}/block", **bearer(mine))
    assert again.json()["blocking"] is True  # a retry: the same answer
    listed = client.get("/api/v1/blocks", **bearer(mine)).json()
    assert [a["username"] for a in listed] == ["bob"]
    unblocked = client.post(f"{ACCOUNTS}/{bob['id']}/unblock", **bearer(mine))
    assert unblocked.json()["blocking"] is False
    assert client.get("/api/v1/blocks", **bearer(mine)).json() == []


def test_blocks_are_paged_with_link(r, client, alice, bob, carol, token):
    blocks.block(r, alice["id"], bob["id"])
    blocks.block(r, alice["id"], carol["id"])
    mine = token(alice)
    first = client.get("/api/v1/blocks", {"limit": 1}, **bearer(mine))
    assert [a["username"] for a in first.json()] == ["carol"]
    next_url = first["Link"].split(">;")[0].lstrip("<")
    assert 'rel="next"' in first["Link"] and "max_id=" in next_url
    second = client.get(next_url.split("testserver")[-1], **bearer(mine))
    assert [a["username"] for a in second.json()] == ["bob"]


def test_mute_with_a_duration_and_unmute(r, client, alice, bob, token):
    mine = token(alice)
    muted = client.post(f"{ACCOUNTS}/{bob['id']}/mute", {"duration": "3600"}, **bearer(mine))
    assert muted.status_code == 200 and muted.json()["muting"] is True
    (listed,) = client.get("/api/v1/mutes", **bearer(mine)).json()
    assert listed["username"] == "bob" and listed["mute_expires_at"].endswith("Z")
    forever = client.post(f"{ACCOUNTS}/{bob['id']}/mute", **bearer(mine))
    assert forever.status_code == 200
    assert client.get("/api/v1/mutes", **bearer(mine)).json()[0]["mute_expires_at"] is None
    unmuted = client.post(f"{ACCOUNTS}/{bob['id']}/unmute", **bearer(mine))
    assert unmuted.json()["muting"] is False
    assert client.get("/api/v1/mutes", **bearer(mine)).json() == []


@pytest.mark.parametrize("duration", ["-5", "soon", "999999999999"])
def test_a_bad_mute_duration_is_422(client, alice, bob, token, duration):
    answer = client.post(
        f"{ACCOUNTS}/{bob['id']}/mute", {"duration": duration}, **bearer(token(alice))
    )
    assert answer.status_code == 422 and "duration" in answer.json()["error"]


def test_blocking_or_muting_oneself_is_422(client, alice, token):
    mine = token(alice)
    for action in ("block", "unblock", "mute", "unmute"):
        answer = client.post(f"{ACCOUNTS}/{alice['id']}/{action}", **bearer(mine))
        assert answer.status_code == 422, action


def test_a_missing_or_suspended_account_is_404(r, client, alice, carol, token):
    moderation.suspend(r, carol["id"])
    mine = token(alice)
    for target in (carol["id"], 999, "nonsense"):
        answer = client.post(f"{ACCOUNTS}/{target}/block", **bearer(mine))
        assert answer.status_code == 404, target
        assert client.post(f"/api/v1/follow_requests/{target}/authorize",
                           **bearer(mine)).status_code == 404  # fmt: skip


def test_relations_need_their_scopes(client, alice, bob, token):
    reader = token(alice, ["read"])
    assert client.post(f"{ACCOUNTS}/{bob['id']}/block", **bearer(reader)).status_code == 403
    assert client.post(f"{ACCOUNTS}/{bob['id']}/mute", **bearer(reader)).status_code == 403
    follow_scope = token(alice, ["follow"])  # Mastodon's old scope covers all of these
    assert client.post(f"{ACCOUNTS}/{bob['id']}/mute", **bearer(follow_scope)).status_code == 200
    assert client.get("/api/v1/blocks", **bearer(follow_scope)).status_code == 200
    statuses_only = token(alice, ["read:statuses"])
    for url in ("/api/v1/blocks", "/api/v1/mutes", "/api/v1/follow_requests"):
        assert client.get(url, **bearer(statuses_only)).status_code == 403
        assert client.get(url).status_code == 401


def test_relations_are_throttled(client, alice, bob, token, settings):
    settings.THROTTLES = {**settings.THROTTLES, "api": (1, 300)}
    mine = token(alice)
    codes = [client.post(f"{ACCOUNTS}/{bob['id']}/mute", **bearer(mine)).status_code
             for _ in range(2)]  # fmt: skip
    assert codes == [200, 429]


def test_follow_requests_authorized_and_rejected(r, client, alice, bob, carol, token):
    privacy.set_private(r, alice["id"], True)
    graph.follow(r, bob["id"], alice["id"])
    graph.follow(r, carol["id"], alice["id"])
    mine = token(alice)
    waiting = client.get("/api/v1/follow_requests", **bearer(mine)).json()
    assert [a["username"] for a in waiting] == ["carol", "bob"]
    assert waiting[0]["locked"] is False
    ok = client.post(f"/api/v1/follow_requests/{bob['id']}/authorize", **bearer(mine))
    assert ok.status_code == 200 and ok.json()["followed_by"] is True
    assert graph.is_following(r, bob["id"], alice["id"])
    retry = client.post(f"/api/v1/follow_requests/{bob['id']}/authorize", **bearer(mine))
    assert retry.status_code == 200
    no = client.post(f"/api/v1/follow_requests/{carol['id']}/reject", **bearer(mine))
    assert no.status_code == 200 and no.json()["followed_by"] is False
    assert not graph.is_following(r, carol["id"], alice["id"])
    assert client.get("/api/v1/follow_requests", **bearer(mine)).json() == []
    none = client.post(f"/api/v1/follow_requests/{carol['id']}/authorize", **bearer(mine))
    assert none.status_code == 404


def test_mastodon_py_blocks_mutes_and_follow_requests(r, mastodon, alice, bob, carol):
    client = mastodon(alice)
    assert client.account_block(bob["id"])["blocking"] is True
    assert [a["username"] for a in client.blocks()] == ["bob"]
    assert client.account_unblock(bob["id"])["blocking"] is False
    assert client.account_mute(bob["id"], duration=600)["muting"] is True
    assert [a["username"] for a in client.mutes()] == ["bob"]
    assert client.account_unmute(bob["id"])["muting"] is False
    privacy.set_private(r, alice["id"], True)
    graph.follow(r, carol["id"], alice["id"])
    graph.follow(r, bob["id"], alice["id"])
    assert [a["username"] for a in client.follow_requests()] == ["bob", "carol"]
    assert client.follow_request_authorize(carol["id"])["followed_by"] is True
    client.follow_request_reject(bob["id"])
    assert client.follow_requests() == []


# --- reports ---------------------------------------------------------------------------

REPORTS = "/api/v1/reports"


def test_a_report_goes_into_the_moderation_queue(r, client, alice, bob, token):
    sid = post(r, bob, "buy now")
    answer = client.post(
        REPORTS,
        {"account_id": bob["id"], "status_ids[]": [sid], "comment": "ads", "category": "spam"},
        **bearer(token(alice)),
    )
    assert answer.status_code == 200
    body = answer.json()
    assert body["category"] == "spam" and body["status_ids"] == [str(sid)]
    assert body["target_account"]["username"] == "bob"
    (queued,) = moderation.open_reports_page(r).items
    assert queued["reason"] == "spam" and queued["comment"] == "ads"
    assert queued["status_ids"] == [sid] and queued["login"] == "bob"


def test_a_report_in_json_with_mastodons_category(r, client, alice, bob, token):
    answer = client.post(
        REPORTS, {"account_id": str(bob["id"]), "category": "violation"},
        content_type="application/json", **bearer(token(alice)),
    )  # fmt: skip
    assert answer.status_code == 200 and answer.json()["category"] == "violation"


def test_bad_reports_are_refused(r, client, alice, bob, carol, token):
    mine = token(alice)
    carols = post(r, carol, "not bob's")
    cases = [
        ({"account_id": bob["id"], "status_ids[]": [carols]}, 422),  # someone else's
        ({"account_id": bob["id"], "category": "nonsense"}, 422),
        ({"account_id": bob["id"], "comment": "x" * 5000}, 422),
        ({"account_id": alice["id"]}, 422),  # oneself
        ({"account_id": 999}, 404),
        ({}, 404),
    ]
    for data, status in cases:
        answer = client.post(REPORTS, data, **bearer(mine))
        assert answer.status_code == status, data
        assert "error" in answer.json()


def test_reports_need_their_scope_and_are_throttled(client, alice, bob, token, settings):
    data = {"account_id": bob["id"]}
    assert client.post(REPORTS, data).status_code == 401
    assert client.post(REPORTS, data, **bearer(token(alice, ["read"]))).status_code == 403
    settings.THROTTLES = {**settings.THROTTLES, "reports": (1, 3600)}
    mine = token(alice, ["write:reports"])
    codes = [client.post(REPORTS, data, **bearer(mine)).status_code for _ in range(2)]
    assert codes == [200, 429]


def test_mastodon_py_reports(r, mastodon, alice, bob):
    sid = post(r, bob, "spam spam")
    made = mastodon(alice).report(bob["id"], status_ids=[sid], comment="spam", category="spam")
    assert made["target_account"]["id"] == str(bob["id"])
    assert [one["id"] for one in moderation.open_reports_page(r).items] == [int(made["id"])]


# --- favourites --------------------------------------------------------------------------


def test_favourites_latest_like_first_paged_by_link(r, client, alice, bob, token):
    first, second = post(r, bob, "one"), post(r, bob, "two")
    likes.like(r, alice["id"], second, now_ms=1000)
    likes.like(r, alice["id"], first, now_ms=2000)
    mine = token(alice)
    page = client.get("/api/v1/favourites", {"limit": 1}, **bearer(mine))
    assert [s["id"] for s in page.json()] == [str(first)]
    assert page.json()[0]["favourited"] is True
    next_url = page["Link"].split(">;")[0].lstrip("<").split("testserver")[-1]
    assert [s["id"] for s in client.get(next_url, **bearer(mine)).json()] == [str(second)]


def test_favourites_follow_the_visibility_rules(r, client, alice, bob, token):
    sid = post(r, bob, "liked, then blocked")
    likes.like(r, alice["id"], sid)
    blocks.block(r, bob["id"], alice["id"])
    assert client.get("/api/v1/favourites", **bearer(token(alice))).json() == []


def test_favourites_need_their_scope(client, alice, token):
    assert client.get("/api/v1/favourites").status_code == 401
    other_scope = bearer(token(alice, ["read:lists"]))
    assert client.get("/api/v1/favourites", **other_scope).status_code == 403
    assert client.get("/api/v1/favourites", {"max_id": "x"},
                      **bearer(token(alice))).status_code == 422  # fmt: skip


def test_mastodon_py_favourites(r, mastodon, alice, bob):
    sid = post(r, bob, "nice")
    client = mastodon(alice)
    client.status_favourite(sid)
    assert [s["id"] for s in client.favourites()] == [str(sid)]


def test_the_home_marker_costs_a_round_trip_only_when_there_is_something_new(
    r, client, alice, bob, round_trips, redis_backend, monkeypatch
):

    monkeypatch.setattr(views, "SUGGESTIONS_ON_HOME_BELOW", 0)  # no who-to-follow read
    graph.follow(r, alice["id"], bob["id"])
    post(r, bob, "one")
    log_in(client, "alice")
    client.get("/")  # warm up: connections, scripts, the status read, the marker set
    round_trips["n"] = 0
    assert client.get("/").status_code == 200
    reload = round_trips["n"]
    newer = post(r, bob, "two")
    round_trips["n"] = 0
    client.get("/")
    with_new = round_trips["n"]
    assert markers.get_markers(r, alice["id"])["home"].last_read_id == newer
    if not redis_backend.cluster:
        assert reload == HOME_PAGE_ROUND_TRIPS  # the marker rides with the session
        assert with_new == HOME_PAGE_FIRST_SHOWN_ROUND_TRIPS + 1  # + the marker's write
    assert reload <= allowed(redis_backend, HOME_PAGE_ROUND_TRIPS, pipelines=2)

"""The client API, part 2 (docs/api.md "## Part 2"): markers, lists, blocks, mutes,
follow requests, reports, favourites. Mastodon.py against a live server for each
group, direct HTTP for each error code and scope; every action through the pages' own
repository functions."""

import pytest
from mastodon import Mastodon

from socialsite.repository import markers, notifications, oauth, statuses
from tests.support.helpers import log_in

READ_WRITE = ["read", "write", "follow"]
MARKERS = "/api/v1/markers"


@pytest.fixture
def app(r):
    return oauth.create_app(r, "Test app", ["urn:ietf:wg:oauth:2.0:oob"], READ_WRITE)


@pytest.fixture
def token(r, app):
    def issue(user, scopes=READ_WRITE):
        return oauth.issue_token(r, app[0], scopes, uid=user["id"])

    return issue


def bearer(value):
    return {"HTTP_AUTHORIZATION": f"Bearer {value}"}


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
    from socialsite.repository import graph

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
    from socialsite.repository import graph

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
    from socialsite.repository import graph

    graph.follow(r, bob["id"], alice["id"])
    log_in(client, "alice")
    client.get("/notifications/")  # read up to bob's follow
    post(r, carol, "@alice hello")  # another kind: an entry of its own
    page = client.get("/notifications/").content.decode()
    assert page.index("@carol") < page.index('id="read-marker"') < page.index("@bob")


def test_mastodon_py_markers(r, mastodon, alice, bob):
    from socialsite.repository import graph

    graph.follow(r, bob["id"], alice["id"])
    (event,) = notifications.events(r, alice["id"])
    client = mastodon(alice)
    client.version_check_mode = "none"
    set_ = client.markers_set(["home", "notifications"], ["7", str(event.score)])
    assert set_["home"]["last_read_id"] == "7"
    got = client.markers_get(["home", "notifications"])
    assert got["notifications"]["last_read_id"] == str(event.score)
    assert notifications.unread(r, alice["id"]).count == 0

"""megalodon (npm, 10.x), a fediverse client library nobody here wrote, run by Node
against a live server and the stream server (tests/megalodon/client.mjs): its
``detector()`` tells what the server is from NodeInfo, then it reads the user, the
notifications one by one and grouped (Mastodon 4.3's /api/v2/notifications: megalodon
10 has no method for them, so its own HTTP client asks), and sees a status it posts
come down the user stream over the WebSocket.

Installed as masto.js is (tests/support/node_clients.py): ``npm ci`` from the lock
file into var/megalodon/; skipped with the reason without Node, npm or the packages."""

import json
import subprocess

import pytest

from socialsite.repository import graph, likes, oauth, statuses
from tests.support import node_clients
from tests.support.helpers import make_user

WORK = node_clients.ROOT / "var" / "megalodon"


@pytest.fixture(scope="module")
def megalodon():
    """Node, with client.mjs and megalodon installed in WORK (tests/support/node_clients.py)."""
    return node_clients.installed("megalodon", "megalodon", ["client.mjs"])


@pytest.fixture(scope="module")
def stream_server_options(live_server):
    return {"env": {"SITE_URL": live_server.url}}


@pytest.fixture
def site(live_server, stream_server, settings):
    settings.SITE_URL = live_server.url
    settings.STREAM_PORT = stream_server.port
    settings.STREAM_PUBLIC_URL = ""
    return live_server.url


def test_megalodon_detects_the_server_reads_grouped_notifications_and_streams(
    r, megalodon, site, alice, bob, carol
):
    client_id, _ = oauth.create_app(
        r, "megalodon", ["urn:ietf:wg:oauth:2.0:oob"], ["read", "write"]
    )
    token = oauth.issue_token(r, client_id, ["read", "write"], uid=alice["id"])
    mine = statuses.post_status(r, alice["id"], "Like me")
    dave = make_user(r, "dave")
    for person in (bob, carol, dave):
        likes.like(r, person["id"], mine)
    graph.follow(r, bob["id"], alice["id"])
    statuses.post_status(r, carol["id"], "@alice hello")
    done = subprocess.run(
        [megalodon, "client.mjs", site, token],
        cwd=WORK, capture_output=True, text=True, timeout=180, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    said = json.loads(done.stdout.strip().splitlines()[-1])
    assert said["sns"] == "mastodon"
    assert said["account"] == "alice" and not said["createdAt"].startswith("1970")
    assert sorted(said["notifications"]) == sorted(
        [["favourite", "bob"], ["favourite", "carol"], ["favourite", "dave"],
         ["follow", "bob"], ["mention", "carol"]]
    )  # fmt: skip
    groups = {kind: (count, key) for kind, count, key in said["groups"]}
    assert set(groups) == {"favourite", "follow", "mention"}
    assert groups["favourite"][0] == 3 and groups["favourite"][1].startswith(f"favourite-{mine}-")
    assert groups["mention"][1].startswith("ungrouped-")
    assert said["groupedAccounts"] == ["bob", "carol", "dave"]
    assert said["unread"] == 3
    assert said["streamed"]["account"] == "alice"
    assert statuses.get_status(r, int(said["streamed"]["id"]))["message"].startswith(
        "from megalodon"
    )

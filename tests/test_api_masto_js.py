"""A second client nobody here wrote, in another language: masto.js (npm ``masto``), run
by Node against a live server and the stream server. It logs in with a token, reads
home, subscribes to the user stream over the WebSocket, uploads an image
(POST /api/v2/media, then GET /api/v1/media/:id as masto.js polls it), posts a status
with it and sees that status come down the stream (tests/masto_js/client.mjs).

Its packages are pinned by tests/masto_js/package-lock.json and installed with
``npm ci`` into var/masto_js/ (tests/support/node_clients.py); without Node, npm or the
packages the test is skipped with the reason.
"""

import json
import subprocess

import pytest

from media import attachments
from socialsite.repository import graph, keys, likes, oauth, statuses
from tests.support import node_clients
from tests.test_media_images import png

WORK = node_clients.ROOT / "var" / "masto_js"


@pytest.fixture(scope="module")
def masto_js():
    """Node, with client.mjs and paging.mjs and masto.js installed in WORK
    (tests/support/node_clients.py)."""
    return node_clients.installed("masto_js", "masto.js", ["client.mjs", "paging.mjs"])


@pytest.fixture(scope="module")
def stream_server_options(live_server):
    """The stream server makes its entities' links on the live server's origin, as the
    site does (SITE_URL)."""
    return {"env": {"SITE_URL": live_server.url}}


@pytest.fixture
def site(live_server, stream_server, settings):
    settings.SITE_URL = live_server.url
    settings.STREAM_PORT = stream_server.port
    settings.STREAM_PUBLIC_URL = ""
    return live_server.url


def test_masto_js_reads_home_posts_an_image_and_streams(
    r, masto_js, site, alice, media_root, tmp_path
):
    client_id, _ = oauth.create_app(r, "masto.js", ["urn:ietf:wg:oauth:2.0:oob"], ["read", "write"])
    token = oauth.issue_token(r, client_id, ["read", "write"], uid=alice["id"])
    earlier = statuses.post_status(r, alice["id"], "Before masto.js came")
    image = tmp_path / "blue.png"
    image.write_bytes(png((300, 200)))
    done = subprocess.run(
        [masto_js, "client.mjs", site, token, str(image)],
        cwd=WORK,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    said = json.loads(done.stdout.strip().splitlines()[-1])
    assert said["account"] == "alice"
    assert said["home"] == [str(earlier)]
    media = said["media"]
    assert media["type"] == "image" and media["blurhash"] and media["width"] == 300
    assert media["description"] == "A blue rectangle"
    assert media["url"].startswith(f"{site}/media/attachments/")
    assert said["status"]["media"] == [media["id"]]
    assert said["streamed"] == {"id": said["status"]["id"], "media": [media["url"]]}
    assert said["homeAfter"][0] == said["status"]["id"]
    stored = statuses.get_status(r, int(said["status"]["id"]))
    assert [item["id"] for item in attachments.media_of(stored)] == [media["id"]]
    assert stored[keys.STATUS_MEDIA_FIELD]


def test_masto_js_paginators_read_upward_from_min_id_and_skip_nothing(
    r, masto_js, live_server, settings, alice, bob
):
    settings.SITE_URL = live_server.url
    client_id, _ = oauth.create_app(r, "masto.js", ["urn:ietf:wg:oauth:2.0:oob"], ["read"])
    token = oauth.issue_token(r, client_id, ["read"], uid=bob["id"])
    graph.follow(r, bob["id"], alice["id"])
    seen = statuses.post_status(r, alice["id"], "Read already")
    arrived = [statuses.post_status(r, alice["id"], f"While away {n}") for n in range(11)]
    own = [statuses.post_status(r, bob["id"], f"Bob's {n}") for n in range(6)]
    for sid in own:
        likes.like(r, alice["id"], sid)
    done = subprocess.run(
        [masto_js, "paging.mjs", live_server.url, token, str(seen)],
        cwd=WORK, capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    said = json.loads(done.stdout.strip().splitlines()[-1])
    assert said["home"] == said["public"] == [str(sid) for sid in arrived + own]
    noticed = [int(nid) for nid in said["notifications"]]  # alice's likes, one by one
    assert len(noticed) == len(own) and noticed == sorted(set(noticed))

"""GET /api/v1/statuses/:id/source and /history: what an app reads before
editing, and a status's versions (a status never edited has one); Mastodon.py reads them."""

from mastodon import Mastodon

from socialsite.repository import privacy, reposts
from tests.support.helpers import bearer, post


def test_source_is_the_owners_text_as_written(r, client, alice, bob, token):
    sid = post(r, alice, "Hello #world @bob", spoiler="careful", sensitive="1")
    answer = client.get(f"/api/v1/statuses/{sid}/source", **bearer(token(alice)))
    assert answer.status_code == 200
    assert answer.json() == {"id": str(sid), "text": "Hello #world @bob", "spoiler_text": "careful"}
    assert client.get(f"/api/v1/statuses/{sid}/source", **bearer(token(bob))).status_code == 404
    assert client.get(f"/api/v1/statuses/{sid}/source").status_code == 401


def test_history_of_a_status_never_edited_is_itself(r, client, alice, bob, token):
    sid = post(r, alice, "Only version #one")
    [version] = client.get(f"/api/v1/statuses/{sid}/history").json()
    status = client.get(f"/api/v1/statuses/{sid}").json()
    for name in ("content", "spoiler_text", "sensitive", "created_at", "media_attachments"):
        assert version[name] == status[name]
    assert version["account"]["id"] == str(alice["id"])
    reposts.repost(r, bob["id"], sid)
    rid = reposts.repost_id(r, bob["id"], sid)
    assert client.get(f"/api/v1/statuses/{rid}/history").status_code == 404
    privacy.set_private(r, alice["id"], True)
    assert client.get(f"/api/v1/statuses/{sid}/history").status_code == 404  # as the status


def test_mastodon_py_reads_source_and_history(r, live_server, settings, alice, token):
    settings.SITE_URL = live_server.url
    sid = post(r, alice, "From Mastodon.py")
    api = Mastodon(access_token=token(alice), api_base_url=live_server.url)
    assert api.status_source(sid)["text"] == "From Mastodon.py"
    assert len(api.status_history(sid)) == 1

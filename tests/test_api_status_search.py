"""GET /api/v2/search's statuses and the ``indexable`` setting of update_credentials and
verify_credentials: driven by Mastodon.py against a live server, and by direct HTTP."""

import pytest
from mastodon import Mastodon

from socialsite.repository import blocks, status_search, statuses
from tests.support.helpers import bearer


def post(r, user, message, **kwargs):
    return statuses.post_status(r, user["id"], message, **kwargs)


@pytest.fixture
def mastodon(live_server, settings, token):
    settings.SITE_URL = live_server.url

    def client(user):
        return Mastodon(access_token=token(user), api_base_url=live_server.url)

    return client


def test_mastodon_py_turns_indexable_on_and_finds_statuses(r, mastodon, alice, bob):
    a, b = mastodon(alice), mastodon(bob)
    assert a.account_verify_credentials()["indexable"] is False  # off by default
    first = post(r, alice, "Green tea in the morning")
    second = post(r, alice, "More green tea, with a picture", media='[{"name": "x"}]')
    assert b.search_v2("green tea")["statuses"] == []  # alice has not allowed it
    assert a.account_update_credentials(indexable=True)["indexable"] is True
    assert a.account_verify_credentials()["indexable"] is True
    found = b.search_v2("green tea", result_type="statuses")
    assert [s["id"] for s in found["statuses"]] == [str(second), str(first)]
    assert found["accounts"] == [] and found["hashtags"] == []
    assert [s["id"] for s in b.search_v2("tea has:media")["statuses"]] == [str(second)]
    assert [s["id"] for s in b.search_v2('"tea in the morning"')["statuses"]] == [str(first)]
    assert [s["id"] for s in b.search_v2("tea", account_id=alice["id"])["statuses"]] == [
        str(second),
        str(first),
    ]
    older = b.search_v2("tea", result_type="statuses", max_id=second)
    assert [s["id"] for s in older["statuses"]] == [str(first)]
    blocks.block(r, alice["id"], bob["id"])
    assert b.search_v2("tea")["statuses"] == []
    assert a.account_update_credentials(indexable=False)["indexable"] is False


def test_statuses_are_for_a_token_with_a_user_and_not_for_tags(r, client, alice, bob, token):
    status_search.set_indexable(r, alice["id"], True)
    post(r, alice, "oolong #oolong")
    assert client.get("/api/v2/search?q=oolong").json()["statuses"] == []  # no token
    headers = bearer(token(bob))
    assert len(client.get("/api/v2/search?q=oolong", **headers).json()["statuses"]) == 1
    assert client.get("/api/v2/search?q=%23oolong", **headers).json()["statuses"] == []
    tags_only = client.get("/api/v2/search?q=oolong&type=hashtags", **headers).json()
    assert tags_only["statuses"] == [] and tags_only["hashtags"]
    assert client.get("/api/v2/search?q=has:gifs", **headers).status_code == 422

"""Pinned statuses: the repository, the actions, the profile page (pinned first,
marked; Pin and Unpin in one's own status's menu) and the client API (pin, unpin,
GET /api/v1/accounts/:id/statuses?pinned=true), Mastodon.py driving it."""

import re

import pytest
from django.test import Client
from mastodon import Mastodon

from socialsite.actions import statuses as statuses_actions
from socialsite.actions.core import Actor, Invalid, NotFound
from socialsite.repository import blocks, communities, pins, privacy, reposts, statuses
from tests.support.helpers import PASSWORD, bearer, log_in, make_user, post

Result = pins.PinResult


def actor(user):
    return Actor(uid=user["id"], login=user["login"])


# --- the repository and the actions ----------------------------------------------------------


def test_pin_own_public_statuses_at_most_five(r, alice, bob):
    sids = [post(r, alice, f"s{n}") for n in range(6)]
    for n, sid in enumerate(sids[:5]):
        assert pins.pin(r, alice["id"], sid, now_ms=1000 + n) is Result.PINNED
    assert pins.pin(r, alice["id"], sids[0]) is Result.ALREADY_PINNED
    assert pins.pin(r, alice["id"], sids[5]) is Result.FULL
    assert pins.pinned_ids(r, alice["id"]) == sids[4::-1]
    # A deleted status frees its place.
    statuses.delete_status(r, alice["id"], sids[0])
    assert pins.pin(r, alice["id"], sids[5]) is Result.PINNED
    assert pins.unpin(r, alice["id"], sids[5]) is Result.UNPINNED
    assert pins.unpin(r, alice["id"], sids[5]) is Result.NOT_PINNED
    # Another's: not own; unknown: not found.
    assert pins.pin(r, bob["id"], sids[1]) is Result.NOT_OWN
    assert pins.pin(r, bob["id"], 10**9) is Result.NOT_FOUND


def test_only_public_statuses_and_no_reposts(r, alice, bob):
    theirs = post(r, bob, "bob's")
    reposts.repost(r, alice["id"], theirs)
    rid = reposts.repost_id(r, alice["id"], theirs)
    assert pins.pin(r, alice["id"], rid) is Result.NOT_OWN
    privacy.set_private(r, alice["id"], True)
    private = post(r, alice, "followers only")
    assert pins.pin(r, alice["id"], private) is Result.NOT_PUBLIC
    privacy.set_private(r, alice["id"], False)
    communities.create(r, alice["id"], "inner", "Inner", "", "private")
    members = statuses_actions.post(
        actor(alice), statuses_actions.NewStatus(text="members"), group="inner"
    )
    assert pins.pin(r, alice["id"], members) is Result.NOT_PUBLIC


def test_actions_refuse_in_words(r, alice, bob):
    sid = post(r, alice, "pin me")
    assert statuses_actions.pin(actor(alice), sid) is Result.PINNED
    with pytest.raises(Invalid, match="your own"):
        statuses_actions.pin(actor(bob), sid)
    with pytest.raises(NotFound):
        statuses_actions.pin(actor(bob), 10**9)
    for n in range(4):
        statuses_actions.pin(actor(alice), post(r, alice, f"more {n}"))
    with pytest.raises(Invalid, match="unpin one first"):
        statuses_actions.pin(actor(alice), post(r, alice, "sixth"))
    assert statuses_actions.unpin(actor(alice), sid) is Result.UNPINNED


# --- the profile page -------------------------------------------------------------------------


def pinned_section(html):
    found = re.search(r'<section class="timeline pinned".*?</section>', html, re.S)
    return found.group(0) if found else None


def test_pinned_first_on_the_profile_marked_with_unpin_for_the_owner(r, alice, bob):
    old = post(r, alice, "the old one to pin")
    newer = post(r, alice, "newer")
    client = log_in(Client(), "alice")
    page = client.get("/@alice/").content.decode()
    assert pinned_section(page) is None
    assert f'formaction="/statuses/{old}/pin/"' in page  # Pin to profile, in own menu
    response = client.post(f"/statuses/{old}/pin/", {"next": "/@alice/"})
    assert response.status_code == 302 and response["Location"] == "/@alice/"
    page = client.get("/@alice/").content.decode()
    assert "Pinned to your profile." in page
    section = pinned_section(page)
    assert "Pinned" in section and f'id="status-{old}"' in section
    assert f'formaction="/statuses/{old}/unpin/"' in section
    # Once on the page: above the others, not again among them.
    assert page.count(f'id="status-{old}"') == 1
    assert page.index(f'id="status-{old}"') < page.index(f'id="status-{newer}"')
    # Others see it pinned, without the owner's menu items.
    other = Client().get("/@alice/").content.decode()
    assert f'id="status-{old}"' in pinned_section(other) and "/pin/" not in other
    # The second page shows it at its place, not pinned.
    client.post(f"/statuses/{old}/unpin/", {"next": "/@alice/"})
    page = client.get("/@alice/").content.decode()
    assert "Unpinned." in page and pinned_section(page) is None


def test_pinning_refusals_are_messages_and_blocks_hide_pins(r, alice, bob):
    sid = post(r, alice, "alice's")
    bob_client = log_in(Client(), "bob")
    bob_client.post(f"/statuses/{sid}/pin/", {"next": "/"})
    assert "only your own" in bob_client.get("/").content.decode()
    pins.pin(r, alice["id"], sid)
    blocks.block(r, alice["id"], bob["id"])
    page = bob_client.get("/@alice/").content.decode()
    assert f'id="status-{sid}"' not in page


def test_a_private_accounts_pins_only_to_followers(r, alice, carol):
    sid = post(r, alice, "pinned while public")
    pins.pin(r, alice["id"], sid)
    privacy.set_private(r, alice["id"], True)
    assert f'id="status-{sid}"' not in log_in(Client(), "carol").get("/@alice/").content.decode()


PROFILE_PAGE_ROUND_TRIPS = 6  # tests/test_round_trips.py: pins ride along


def test_a_profile_with_pins_costs_what_it_did(r, client, round_trips, redis_backend):
    from tests.test_round_trips import allowed, cost

    author = make_user(r, "author")
    make_user(r, "reader")
    client.post("/accounts/login/", {"username": "reader", "password": PASSWORD})
    sids = [post(r, author, f"status {n}") for n in range(40)]
    without = cost(client, "/@author/", round_trips)
    for sid in (sids[0], sids[1], sids[39]):
        pins.pin(r, author["id"], sid)
    with_pins = cost(client, "/@author/", round_trips)
    assert pinned_section(client.get("/@author/").content.decode()).count('class="status"') == 3
    if not redis_backend.cluster:
        assert without == with_pins == PROFILE_PAGE_ROUND_TRIPS
    assert with_pins <= allowed(redis_backend, PROFILE_PAGE_ROUND_TRIPS, pipelines=2)


# --- the client API -------------------------------------------------------------------------


def test_api_pin_unpin_and_the_pinned_list(r, client, alice, bob, token):
    sid = post(r, alice, "api pin")
    other = post(r, alice, "not pinned")
    headers = bearer(token(alice))
    answer = client.post(f"/api/v1/statuses/{sid}/pin", **headers)
    assert answer.status_code == 200 and answer.json()["pinned"] is True
    assert client.get(f"/api/v1/statuses/{sid}", **headers).json()["pinned"] is True
    listed = client.get(f"/api/v1/accounts/{alice['id']}/statuses?pinned=true", **headers)
    assert [(s["id"], s["pinned"]) for s in listed.json()] == [(str(sid), True)]
    # Others read the list too, "pinned" said to the author only (as Mastodon).
    seen = client.get(f"/api/v1/accounts/{alice['id']}/statuses?pinned=true").json()
    assert [s["id"] for s in seen] == [str(sid)]
    bob_headers = bearer(token(bob))
    assert client.post(f"/api/v1/statuses/{sid}/pin", **bob_headers).status_code == 422
    assert client.post("/api/v1/statuses/999999999/pin", **headers).status_code == 404
    answer = client.post(f"/api/v1/statuses/{sid}/unpin", **headers)
    assert answer.status_code == 200 and answer.json()["pinned"] is False
    assert client.get(f"/api/v1/accounts/{alice['id']}/statuses?pinned=true").json() == []
    assert other  # never pinned
    instance = client.get("/api/v2/instance").json()
    assert instance["configuration"]["accounts"]["max_pinned_statuses"] == pins.MAX_PINNED


def test_api_pin_past_the_most_is_422(r, client, alice, token):
    headers = bearer(token(alice))
    for n in range(pins.MAX_PINNED):
        client.post(f"/api/v1/statuses/{post(r, alice, f'p{n}')}/pin", **headers)
    refused = client.post(f"/api/v1/statuses/{post(r, alice, 'one more')}/pin", **headers)
    assert refused.status_code == 422 and "unpin one first" in refused.json()["error"]


def test_mastodon_py_pins(r, live_server, settings, alice, token):
    settings.SITE_URL = live_server.url
    sid = post(r, alice, "from Mastodon.py")
    api = Mastodon(access_token=token(alice), api_base_url=live_server.url)
    assert api.status_pin(sid)["pinned"] is True
    assert [int(s["id"]) for s in api.account_statuses(alice["id"], pinned=True)] == [sid]
    assert api.status_unpin(sid)["pinned"] is False
    assert api.account_statuses(alice["id"], pinned=True) == []

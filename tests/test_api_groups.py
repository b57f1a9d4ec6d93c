"""The client API and groups: GET /api/v1/timelines/group/:slug (this site's
extension), and a group's statuses in members' home timelines as ordinary statuses."""

from django.test import Client

from socialsite.actions import Actor
from socialsite.actions import communities as community_actions
from socialsite.actions import statuses as statuses_actions
from socialsite.repository import communities, keys
from tests.support.helpers import bearer, log_in


def in_group(user, slug, text):
    actor = Actor(uid=user["id"], login=user["login"])
    return statuses_actions.post(actor, statuses_actions.NewStatus(text=text), group=slug)


def test_a_groups_timeline_is_paged_as_the_others(r, token, alice, bob):
    cid = communities.create(r, alice["id"], "cats", "Cats", "", "public")
    communities.join(r, cid, bob["id"])
    sids = [in_group(alice, "cats", f"meow {n}") for n in range(3)]
    client = Client()
    body = client.get("/api/v1/timelines/group/cats?limit=2").json()
    assert [int(s["id"]) for s in body] == sids[:0:-1]
    response = client.get(f"/api/v1/timelines/group/cats?max_id={sids[1]}")
    assert [int(s["id"]) for s in response.json()] == [sids[0]]
    response = client.get(f"/api/v1/timelines/group/cats?min_id={sids[0]}&limit=1")
    assert [int(s["id"]) for s in response.json()] == [sids[1]]
    # In a member's home, as an ordinary status.
    home = client.get("/api/v1/timelines/home", **bearer(token(bob))).json()
    assert [int(s["id"]) for s in home] == sids[::-1]
    assert client.get("/api/v1/timelines/group/nosuch").status_code == 404


def test_a_private_groups_timeline_is_for_members(r, token, alice, bob, carol):
    cid = communities.create(r, alice["id"], "secret", "Secret", "", "private")
    communities.invite(r, cid, bob["id"])
    communities.join(r, cid, bob["id"])
    sid = in_group(alice, "secret", "hush")
    client = Client()
    assert client.get("/api/v1/timelines/group/secret").status_code == 404
    outsider = bearer(token(carol))
    assert client.get("/api/v1/timelines/group/secret", **outsider).status_code == 404
    assert client.get(f"/api/v1/statuses/{sid}", **outsider).status_code == 404
    member = bearer(token(bob))
    body = client.get("/api/v1/timelines/group/secret", **member).json()
    assert [int(s["id"]) for s in body] == [sid]
    assert client.get(f"/api/v1/statuses/{sid}", **member).status_code == 200


def test_posting_into_a_group_through_the_api(r, token, alice, bob):
    communities.create(r, alice["id"], "news", "News", "", "announcement")
    communities.join(r, communities.community_id(r, "news"), bob["id"])
    client = Client()
    refused = client.post(
        "/api/v1/statuses", {"status": "hi", "group": "news"}, **bearer(token(bob))
    )
    assert refused.status_code == 403 and "admins post" in refused.json()["error"]
    assert r.zcard(keys.profile(bob["id"])) == 0
    posted = client.post(
        "/api/v1/statuses", {"status": "big", "group": "news"}, **bearer(token(alice))
    )
    assert posted.status_code == 200
    sid = posted.json()["id"]
    reply = client.post(
        "/api/v1/statuses", {"status": "yay", "in_reply_to_id": sid}, **bearer(token(bob))
    )
    assert reply.status_code == 200
    body = client.get("/api/v1/timelines/group/news").json()
    assert [s["content"] for s in body][0].count("yay") == 1


def test_a_pulled_groups_statuses_are_in_members_home_timelines(
    r, token, settings, alice, bob, carol
):
    """A group of FANOUT_PULL_FOLLOWERS members or more is delivered to nobody: the API's
    home timeline merges its statuses for members, paged as the rest (max_id, min_id),
    and the Top timeline ranks them."""
    settings.FANOUT_PULL_FOLLOWERS = 2
    cid = communities.create(r, alice["id"], "crowd", "Crowd", "", "public")
    communities.join(r, cid, bob["id"])
    sids = [in_group(alice, "crowd", f"to the crowd {n}") for n in range(3)]
    assert not r.sismember(keys.home(bob["id"]), sids[-1])
    client = Client()
    member = bearer(token(bob))
    home = client.get("/api/v1/timelines/home", **member).json()
    assert [int(s["id"]) for s in home] == sids[::-1]
    older = client.get(f"/api/v1/timelines/home?max_id={sids[2]}&limit=1", **member).json()
    assert [int(s["id"]) for s in older] == [sids[1]]
    newer = client.get(f"/api/v1/timelines/home?min_id={sids[0]}&limit=1", **member).json()
    assert [int(s["id"]) for s in newer] == [sids[1]]
    top = client.get("/api/v1/timelines/top", **member).json()
    assert {int(s["id"]) for s in top} == set(sids)
    assert client.get("/api/v1/timelines/home", **bearer(token(carol))).json() == []


def test_group_notifications_are_the_pages_alone(r, token, alice, bob):
    # Mastodon has no groups: its apps get none of the groups' notifications, which the
    # notifications page shows (docs/api.md, Notification).
    communities.create(r, alice["id"], "tea", "Tea", "", "private")
    community_actions.join(Actor(uid=bob["id"], login=bob["login"]), "tea")  # asks to join
    client = Client()
    admin = bearer(token(alice))
    assert client.get("/api/v1/notifications", **admin).json() == []
    assert client.get("/api/v2/notifications", **admin).json()["notification_groups"] == []
    page = log_in(Client(), "alice").get("/notifications/").content.decode()
    assert "asked to join your group" in page

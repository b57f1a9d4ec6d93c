"""``bookmarked`` on the client API's Status entities on every timeline (home, public, a
tag's, an account's, a thread's context), read in one round trip with the caller's poll
votes (api.common.read_viewer_marks)."""

from socialsite.repository import bookmarks, graph
from tests.support.helpers import bearer, post


def test_bookmarked_on_every_timeline(r, client, alice, bob, token):
    graph.follow(r, bob["id"], alice["id"])
    kept = post(r, alice, "kept #marked")
    other = post(r, alice, "not kept #marked")
    reply = post(r, alice, "a reply, kept", in_reply_to=kept)
    bookmarks.bookmark(r, bob["id"], kept)
    bookmarks.bookmark(r, bob["id"], reply)
    headers = bearer(token(bob))

    def marks(url):
        shown = client.get(url, **headers).json()
        return {int(s["id"]): s["bookmarked"] for s in shown if int(s["id"]) in (kept, other)}

    for url in (
        "/api/v1/timelines/home",
        "/api/v1/timelines/public",
        "/api/v1/timelines/tag/marked",
        f"/api/v1/accounts/{alice['id']}/statuses",
    ):
        assert marks(url) == {kept: True, other: False}, url
    context = client.get(f"/api/v1/statuses/{kept}/context", **headers).json()
    assert [(s["id"], s["bookmarked"]) for s in context["descendants"]] == [(str(reply), True)]
    context = client.get(f"/api/v1/statuses/{reply}/context", **headers).json()
    assert [(s["id"], s["bookmarked"]) for s in context["ancestors"]] == [(str(kept), True)]
    # A visitor: nothing bookmarked.
    shown = client.get("/api/v1/timelines/public").json()
    assert not any(s["bookmarked"] for s in shown)

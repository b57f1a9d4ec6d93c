"""Groups on the streaming server, over real sockets: a private group's
statuses are never in the sample or filter streams, Mastodon's public and hashtag
streams, or the live page of a follower of the author who is not a member; a public
group's are public statuses.

A stream never says "that was all": a status expected NOT to be sent is posted before
one that is, and the next event read must be the latter.
"""

import json
from urllib.parse import urlencode

import pytest

from socialsite.actions import Actor
from socialsite.actions import statuses as statuses_actions
from socialsite.repository import communities, graph
from socialsite_dev.streams import StreamConnection
from tests.support.helpers import post
from tests.test_streaming_privacy import filtered, live, next_status, sample


@pytest.fixture(scope="module")
def stream_server_options():
    return {"live_refresh": 3600, "keepalive": 1}


def in_group(user, slug, text):
    actor = Actor(uid=user["id"], login=user["login"])
    return statuses_actions.post(actor, statuses_actions.NewStatus(text=text), group=slug)


def mastodon(server, stream, **query):
    path = (
        f"/api/v1/streaming/{stream}?{urlencode(query)}" if query else f"/api/v1/streaming/{stream}"
    )
    return StreamConnection(server.port, "GET", path, headers={"Accept": "text/event-stream"})


def next_update(stream):
    while True:
        kind, data = stream.read_event()
        if kind == "update":
            return int(json.loads(data)["id"])


def test_a_private_groups_statuses_are_in_no_public_stream(
    r, stream_server, settings, alice, bob, carol
):
    communities.create(r, alice["id"], "secret", "Secret", "", "private")
    public = communities.create(r, alice["id"], "open", "Open", "", "public")
    communities.join(r, public, bob["id"])
    graph.follow(r, carol["id"], alice["id"])  # follows the author, is no member
    with (
        sample(stream_server) as firehose,
        filtered(stream_server, follow="alice", track="news") as matching,
        live(stream_server, settings, "carol") as follower,
    ):
        in_group(alice, "secret", "secret news #hush")
        shown = in_group(alice, "open", "open news")
        assert firehose.read_json()["id"] == shown
        assert matching.read_json()["id"] == shown
        assert next_status(follower) == shown


def test_mastodons_public_and_hashtag_streams_leave_a_private_groups_statuses_out(
    r, stream_server, token, alice, bob, carol
):
    communities.create(r, alice["id"], "secret", "Secret", "", "private")
    reader = token(carol)
    with (
        mastodon(stream_server, "public", access_token=reader) as public_stream,
        mastodon(stream_server, "hashtag", tag="hush", access_token=reader) as tag_stream,
    ):
        assert public_stream.status == 200 and tag_stream.status == 200
        in_group(alice, "secret", "secret news #hush")
        shown = post(r, bob, "plain news #hush")
        assert next_update(public_stream) == shown
        assert next_update(tag_stream) == shown


def live_group(server, settings, login, slug):
    """``login``'s live feed of group ``slug`` (its page's), logged in through the site."""
    from django.test import Client

    from tests.support.helpers import log_in

    client = log_in(Client(), login)
    cookie = f"{settings.SESSION_COOKIE_NAME}={client.cookies[settings.SESSION_COOKIE_NAME].value}"
    return StreamConnection(
        server.port, "GET", f"/live/group?slug={slug}",
        headers={"Accept": "text/event-stream", "Cookie": cookie},
    )  # fmt: skip


def test_a_groups_page_is_live_for_its_readers(r, stream_server, settings, alice, bob, carol):
    cats = communities.create(r, alice["id"], "cats", "Cats", "", "public")
    communities.join(r, cats, bob["id"])
    secret = communities.create(r, alice["id"], "secret", "Secret", "", "private")
    communities.invite(r, secret, bob["id"])
    communities.join(r, secret, bob["id"])
    with live_group(stream_server, settings, "carol", "cats") as reader:
        assert reader.status == 200
        post(r, bob, "not in the group")
        in_group(alice, "secret", "in another group")
        sid = in_group(bob, "cats", "meow, live")
        assert next_status(reader) == sid
    with live_group(stream_server, settings, "bob", "secret") as member:
        assert member.status == 200
        sid = in_group(alice, "secret", "for members, live")
        assert next_status(member) == sid
    with live_group(stream_server, settings, "carol", "secret") as outsider:
        assert outsider.status == 404
    with live_group(stream_server, settings, "carol", "nosuch") as nowhere:
        assert nowhere.status == 404


# --- a pulled group's statuses on its members' live home pages ---------------------------
# A group of FANOUT_PULL_FOLLOWERS members or more is merged into its members' homes when
# read, not delivered (communities.add_pulled): its statuses reach their live home pages
# as a followed author's do (streaming/home.py: HomeFilter's groups), whoever the author.


def pulled_group(r, settings, owner, slug, kind, members):
    settings.FANOUT_PULL_FOLLOWERS = 2  # pulled from two members on
    cid = communities.create(r, owner["id"], slug, slug.title(), "", kind)
    for member in members:
        communities.invite(r, cid, member["id"])
        communities.join(r, cid, member["id"])
    return cid


@pytest.mark.parametrize("kind", ["public", "private"])
def test_a_pulled_groups_status_reaches_a_members_live_home(
    r, stream_server, settings, alice, bob, carol, kind
):
    """Bob follows nobody; alice's status in a pulled group he belongs to comes to his
    live home page, as it is on his home page; carol, not a member, who follows alice,
    gets a private group's status on her live page no more than on her home."""
    cid = pulled_group(r, settings, alice, "big", kind, [bob])
    graph.follow(r, carol["id"], alice["id"])
    with (
        live(stream_server, settings, "bob") as member,
        live(stream_server, settings, "carol") as follower,
    ):
        sid = in_group(alice, "big", "to the pulled group")
        assert r.hget(communities.keys.community(cid), "pulled") == "1"  # merged, not delivered
        assert next_status(member) == sid
        if kind == "private":
            shown = post(r, alice, "for every follower")
            assert next_status(follower) == shown
        else:
            assert next_status(follower) == sid
    # The group's page is live with it too.
    with live_group(stream_server, settings, "bob", "big") as page:
        assert page.status == 200
        sid = in_group(alice, "big", "on the page")
        assert next_status(page) == sid


def test_a_pulled_groups_replies_follow_the_homes_reply_rule(
    r, stream_server, settings, alice, bob, carol
):
    """A reply in the group reaches a member's live home only if they follow, or are,
    the person replied to, as a delivery (deliver.lua) and the merge do."""
    pulled_group(r, settings, alice, "big", "public", [bob, carol])
    with live(stream_server, settings, "bob") as member:
        first = in_group(alice, "big", "a question")
        assert next_status(member) == first

        def reply(user, text, parent):
            actor = Actor(uid=user["id"], login=user["login"])
            new = statuses_actions.NewStatus(text=text, in_reply_to=parent)
            return statuses_actions.post(actor, new)

        reply(carol, "an answer", first)  # to alice, whom bob does not follow
        own = in_group(bob, "big", "my question")
        assert next_status(member) == own
        answer = reply(alice, "@bob yes", own)  # to bob: his
        assert next_status(member) == answer


def test_leaving_a_private_group_stops_its_statuses_at_once(
    r, stream_server, settings, alice, bob, carol
):
    """Leaving (or being removed, banned) takes the group out of the member's open live
    pages before any later status: the leave's event drops it (events' ``left``)."""
    pulled_group(r, settings, alice, "big", "private", [bob, carol])
    with (
        live(stream_server, settings, "bob") as home,
        live_group(stream_server, settings, "bob", "big") as page,
    ):
        assert page.status == 200
        sid = in_group(alice, "big", "before")
        assert next_status(home) == sid
        assert next_status(page) == sid
        communities.leave(r, communities.community_id(r, "big"), bob["id"])
        in_group(alice, "big", "after, for members")
        shown = post(r, bob, "bob's own")
        assert next_status(home) == shown

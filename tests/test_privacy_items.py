"""Privacy holes found by an outside tester, one test each: tag pages, the
report form, notifications (quoting, and after a suspension), approving oneself,
replying to a status one may not see, and tags only private accounts use."""

import json

import pytest
from django.test import Client

from socialsite.repository import blocks, graph, moderation, notifications, privacy, statuses
from tests.support.helpers import log_in, make_user, post


@pytest.fixture
def privy(r):
    user = make_user(r, "privy")
    privacy.set_private(r, user["id"], True)
    return user


def as_user(login):
    return log_in(Client(), login)


def test_a_tag_page_shows_nobody_a_private_status_nor_a_blockers(r, privy, alice, bob):
    post(r, privy, "secret one #secrettag @alice")
    post(r, alice, "public but not for bob #secrettag")
    blocks.block(r, alice["id"], bob["id"])
    follower = make_user(r, "follower")
    graph.follow(r, follower["id"], privy["id"])
    privacy.approve(r, privy["id"], follower["id"])
    visitor = Client().get("/tags/secrettag/").content.decode()
    assert "secret one" not in visitor and "public but not for bob" in visitor
    blocked = as_user("bob").get("/tags/secrettag/").content.decode()
    assert "secret one" not in blocked and "public but not for bob" not in blocked
    followed = as_user("follower").get("/tags/secrettag/").content.decode()
    assert "secret one" in followed and "public but not for bob" in followed


def test_the_report_form_lists_only_statuses_the_reporter_may_see(r, privy, alice, bob):
    post(r, privy, "private words")
    blocks.block(r, privy["id"], bob["id"])
    for login in ("alice", "bob"):
        page = as_user(login).get("/@privy/report/")
        assert page.status_code == 200
        assert "private words" not in page.content.decode()
    # A follower still sees them, and can tick them.
    graph.follow(r, alice["id"], privy["id"])
    privacy.approve(r, privy["id"], alice["id"])
    assert "private words" in as_user("alice").get("/@privy/report/").content.decode()


def test_mention_notifications_do_not_quote_a_private_status_to_a_non_follower(r, alice, bob):
    post(r, alice, "said while public @bob")
    privacy.set_private(r, alice["id"], True)
    post(r, alice, "said while private @bob")
    for url in ("/notifications/", "/notifications/?type=mention"):
        page = as_user("bob").get(url).content.decode()
        assert "said while" not in page
        assert "This status is not available to you." in page
        assert "@alice" in page  # the notification is there, without its text
    graph.follow(r, bob["id"], alice["id"])
    privacy.approve(r, alice["id"], bob["id"])
    page = as_user("bob").get("/notifications/?type=mention").content.decode()
    assert "said while public" in page and "said while private" in page


def test_the_notifications_page_still_works_after_the_mentioner_is_suspended(r, alice, bob, carol):
    hello = post(r, alice, "hello")
    statuses.post_status(r, bob["id"], "rude reply", in_reply_to=hello)
    post(r, bob, "rude mention @alice")
    post(r, carol, "kind mention @alice")
    moderation.suspend(r, bob["id"])
    for url in ("/notifications/", "/notifications/?type=mention", "/notifications/?type=reply"):
        response = as_user("alice").get(url)
        assert response.status_code == 200, url
        assert "rude" not in response.content.decode()
    assert "kind mention" in as_user("alice").get("/notifications/").content.decode()


def test_approving_ones_own_login_is_refused_with_a_message(r, privy):
    client = as_user("privy")
    response = client.post("/settings/requests/privy/approve/", follow=True)
    assert response.status_code == 200
    assert "nothing to approve" in response.content.decode()
    assert privacy.request_count(r, privy["id"]) == 0


def test_a_reply_to_a_status_one_may_not_see_is_refused_as_if_it_did_not_exist(r, privy, alice):
    secret = post(r, privy, "followers only")
    with pytest.raises(statuses.ParentGone):
        statuses.post_status(r, alice["id"], "I saw it", in_reply_to=secret)
    client = as_user("alice")
    client.get("/")  # the welcome message shown and gone
    said = []
    for parent in (secret, 99999):  # the private status, and one that never existed
        response = client.post("/statuses/", {"message": "I saw it", "in_reply_to": parent})
        assert response.status_code == 302
        page = client.get(response.url).content.decode()
        said.append(page[page.index('class="messages"') :].split("</ul>")[0])
    assert said[0] == said[1] and "deleted, or never existed" in said[0]
    assert notifications.events(r, privy["id"]) == []
    assert statuses.get_status(r, secret)["replies"] == 0
    # An approved follower may reply.
    graph.follow(r, alice["id"], privy["id"])
    privacy.approve(r, privy["id"], alice["id"])
    assert statuses.post_status(r, alice["id"], "I see it", in_reply_to=secret)


def test_a_tag_only_private_accounts_use_is_not_searchable(r, privy, alice):
    post(r, privy, "#secretplans tonight")
    post(r, alice, "#secondtag in public")
    client = as_user("alice")
    for url in ("/search/?q=%23sec", "/search/?q=sec", "/search/?q=%23secretplans"):
        page = Client().get(url).content.decode()
        assert "/tags/secretplans/" not in page, url
        assert "/tags/secondtag/" in page or url.endswith("plans"), url
    completed = json.loads(client.get("/search/complete.json?q=%23sec").content)
    assert [result["value"] for result in completed["results"]] == ["#secondtag"]
    # Once a public status uses it, the tag is for everyone.
    post(r, alice, "#secretplans are out")
    assert "/tags/secretplans/" in Client().get("/search/?q=%23sec").content.decode()

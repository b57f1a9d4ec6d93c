"""Groups end to end in a real headless Chromium against live_server:
alice makes a private group from the account menu's Groups link, invites bob, bob
joins and posts from the group's page, and carol, who is no member, sees nothing of it:
not on the group's page, not on bob's profile, not at the status's address.

The browser and its skipping rules are those of tests/test_browser.py.
"""

import re

import pytest

try:
    from playwright.sync_api import expect
except ImportError:  # pragma: no cover - depends on the environment
    expect = None

from socialsite.repository import communities, keys
from tests.support.helpers import account_menu, flash, log_in_browser, make_user

TIMEOUT_MS = 15_000


def test_a_private_group_in_a_real_browser(r, open_page):
    make_user(r, "alice", "Alice Liddell")
    bob = make_user(r, "bob", "Bob Builder")
    make_user(r, "carol", "Carol Danvers")
    expect.set_options(timeout=TIMEOUT_MS)
    as_alice, as_bob, as_carol = open_page(), open_page(), open_page()
    for page, login in ((as_alice, "alice"), (as_bob, "bob"), (as_carol, "carol")):
        log_in_browser(page, login)

    account_menu(as_alice).get_by_role("link", name="Groups").click()
    expect(as_alice.get_by_role("heading", name="Groups", level=1)).to_be_visible()
    as_alice.get_by_role("link", name="Make a group").click()
    as_alice.get_by_label(re.compile(r"^Name:?$")).fill("Tea Party")
    as_alice.get_by_label(re.compile(r"^Address")).fill("teaparty")
    as_alice.get_by_label(re.compile(r"^Kind:?$")).select_option("private")
    as_alice.get_by_role("button", name="Make the group").click()
    expect(as_alice.get_by_role("heading", name="Tea Party", level=1)).to_be_visible()

    as_alice.get_by_role("link", name=re.compile("^Admin")).click()
    as_alice.get_by_label("Login name").fill("bob")
    as_alice.get_by_role("button", name="Invite").click()
    expect(flash(as_alice)).to_have_text(["@bob is invited."])

    as_bob.goto("/g/teaparty/")
    as_bob.get_by_role("button", name="Join", exact=True).click()
    expect(flash(as_bob)).to_have_text(["You are a member of this group now."])
    as_bob.get_by_label(re.compile(r"^What is happening\??")).fill("a very merry unbirthday")
    as_bob.get_by_role("button", name="Post", exact=True).click()
    expect(flash(as_bob)).to_have_text(["Your status is posted."])
    expect(as_bob.locator("#timeline")).to_contain_text("a very merry unbirthday")
    expect(as_bob.locator("#timeline .status-group")).to_contain_text("Tea Party")

    (sid,) = r.zrange(keys.profile(bob["id"]), 0, -1)
    cid = communities.community_id(r, "teaparty")
    assert r.hget(keys.status(sid), keys.STATUS_MEMBERS_ONLY_FIELD) == "1"
    assert r.zcard(keys.community_timeline(cid)) == 1

    # carol, no member, sees nothing of it anywhere.
    as_carol.goto("/g/teaparty/")
    expect(as_carol.get_by_role("heading", name="Tea Party", level=1)).to_be_visible()
    expect(as_carol.locator("main")).to_contain_text("members alone read it")
    expect(as_carol.locator("main")).not_to_contain_text("unbirthday")
    as_carol.goto("/@bob/")
    expect(as_carol.locator("main")).not_to_contain_text("unbirthday")
    response = as_carol.goto(f"/@bob/{sid}/")
    assert response.status == 404
    as_carol.goto("/")
    expect(as_carol.locator("main")).not_to_contain_text("unbirthday")


@pytest.fixture(scope="module")
def stream_server_options(live_server):
    """The stream server of this module: the site's port, for the CORS check."""
    return {"site_port": int(live_server.url.rsplit(":", 1)[1])}


def test_a_groups_page_is_live(browser, live_person, r):
    expect.set_options(timeout=TIMEOUT_MS)
    alice = make_user(r, "alice", "Alice Liddell")
    bob = make_user(r, "bob", "Bob Builder")
    cid = communities.create(r, alice["id"], "cats", "Cat People", "", "public")
    communities.join(r, cid, bob["id"])
    page = live_person("bob").new_page()
    page.goto("/g/cats/")
    expect(page.locator("#timeline")).to_have_attribute("data-live", "connected")
    poster = live_person("alice").new_page()
    poster.goto("/g/cats/")
    poster.get_by_label(re.compile(r"^What is happening\??")).fill("meow, live")
    poster.get_by_role("button", name="Post", exact=True).click()
    expect(flash(poster)).to_have_text(["Your status is posted."])
    bar = page.locator(".live-bar")
    expect(bar).to_have_text("1 new status")
    bar.click()
    expect(page.locator("#timeline article.status")).to_contain_text("meow, live")

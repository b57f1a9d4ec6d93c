"""Direct messages in a real headless Chromium: alice starts a conversation from the
inbox's form; bob, with the conversation open in another browser, sees her next message
arrive without a reload, and the badge on his home page counts it live; reading marks
it read; a request from a stranger is accepted into the inbox. The live part comes
from a real ``manage.py stream`` process (/live/messages, /live/home)."""

import pytest

try:
    from playwright.sync_api import expect
except ImportError:  # pragma: no cover - the browser fixture skips (or fails with CI=true)
    expect = None

from socialsite.repository import direct, graph

TIMEOUT_MS = 15_000


@pytest.fixture(scope="module")
def stream_server_options(live_server):
    return {"site_port": int(live_server.url.rsplit(":", 1)[1])}


def test_a_conversation_started_and_a_message_arriving_live(browser, live_person, r, alice, bob):
    expect.set_options(timeout=TIMEOUT_MS)
    graph.follow(r, bob["id"], alice["id"])
    graph.follow(r, alice["id"], bob["id"])
    bob_context = live_person("bob")
    bob_home = bob_context.new_page()
    bob_home.goto("/")
    expect(bob_home.locator("#timeline")).to_have_attribute("data-live", "connected")
    expect(bob_home.locator(".direct-count")).to_be_hidden()

    alice_page = live_person("alice").new_page()
    alice_page.goto("/messages/")
    alice_page.get_by_role("textbox", name="To:").fill("bob")
    alice_page.get_by_role("textbox", name="Message:").fill("Hello <b>bob</b>, lunch?")
    alice_page.get_by_role("button", name="Send").click()
    expect(alice_page.locator("#messages .direct-message.own p.message")).to_have_text(
        ["Hello <b>bob</b>, lunch?"]
    )
    conversation = alice_page.url.split("#")[0]

    # bob's home page counts it without a reload.
    expect(bob_home.locator(".direct-count")).to_have_text("1")
    bob_page = bob_context.new_page()
    bob_page.goto(conversation)  # read: the badge goes
    expect(bob_page.locator(".direct-count")).to_be_hidden()
    expect(bob_page.locator("#messages")).to_have_attribute("data-live", "connected")
    bob_page.evaluate("window.sameDocument = true")

    alice_page.get_by_role("textbox", name="Your message:").fill("At noon?")
    alice_page.get_by_role("button", name="Send").click()
    expect(alice_page.locator("#messages .direct-message")).to_have_count(2)

    # bob's open conversation shows it without a reload, in the group of alice's first
    # message (a moment before, the same day: no second day separator); his home
    # page's badge counts it.
    expect(bob_page.locator("#messages .direct-message.theirs p.message")).to_have_text(
        ["Hello <b>bob</b>, lunch?", "At noon?"]
    )
    assert bob_page.evaluate("window.sameDocument === true")
    expect(bob_page.locator("#messages .direct-message").nth(1)).to_have_class(
        "direct-message theirs continued"
    )
    expect(bob_page.locator("#messages .chat-day")).to_have_count(1)
    # The open page that showed it read it: no badge, live or on the next page.
    expect(bob_home.locator(".direct-count")).to_be_hidden()
    bob_home.goto("/notifications/")
    expect(bob_home.locator(".direct-count")).to_be_hidden()
    # Its forms work: delete the message for himself, from the message's menu.
    arrived = bob_page.locator("#messages .direct-message").nth(1)
    arrived.locator(".message-menu > summary").click()
    arrived.get_by_role("button", name="Delete for me").click()
    expect(bob_page.locator("#messages .direct-message")).to_have_count(1)


def test_a_request_is_accepted_into_the_inbox(browser, live_person, r, alice, bob):
    expect.set_options(timeout=TIMEOUT_MS)
    direct.set_messages_from(r, bob["id"], "everyone")
    alice_page = live_person("alice").new_page()
    alice_page.goto("/messages/")
    alice_page.get_by_role("textbox", name="To:").fill("@bob")
    alice_page.get_by_role("textbox", name="Message:").fill("We have not met")
    alice_page.get_by_role("button", name="Send").click()
    expect(alice_page.locator("#messages .direct-message")).to_have_count(1)

    bob_page = live_person("bob").new_page()
    bob_page.goto("/messages/")
    expect(bob_page.locator("main .empty")).to_contain_text("No conversations yet.")
    bob_page.get_by_role("link", name="Requests").click()
    bob_page.get_by_role("link", name="Alice Liddell @alice").click()
    bob_page.get_by_role("button", name="Accept").click()
    expect(bob_page.locator("ul.messages")).to_contain_text("Request accepted")
    bob_page.goto("/messages/")
    expect(bob_page.locator("ul.conversations .last-message")).to_have_text("We have not met")

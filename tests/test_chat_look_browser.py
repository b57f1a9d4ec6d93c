"""Direct messages look like a chat, in a real headless Chromium: a conversation is no
ordered list; the reader's messages are marked (class ``own`` and a "You" for screen
readers) and stand on the right, the others' on the left under an avatar; messages of
one sender a moment apart form one group; days are separated; each message's actions
wait in its "more" menu; the composer comes last and every control measures at least
44 x 44 px on a phone. The inbox shows avatars, the last message and unread marks, and
its empty states are sentences.

With LOOK_SHOTS=<directory> the tests also save screenshots there at 1280 and 390 px."""

import os
import re
import time
from pathlib import Path

import pytest

try:
    from axe_playwright_python.sync_playwright import Axe
    from playwright.sync_api import expect
except ImportError:  # pragma: no cover - the browser fixture skips (or fails with CI=true)
    Axe = expect = None

from socialsite.repository import direct, graph, users

TIMEOUT_MS = 15_000
# The rules: WCAG 2.2 AA and axe's best practices.
AXE_OPTIONS = {
    "runOnly": {
        "type": "tag",
        "values": ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22aa", "best-practice"],
    },
    "resultTypes": ["violations"],
}
DAY_MS = 86_400_000


@pytest.fixture(scope="module")
def stream_server_options(live_server):
    return {"site_port": int(live_server.url.rsplit(":", 1)[1])}


def shoot(page, name):
    where = os.environ.get("LOOK_SHOTS")
    if where:
        Path(where).mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(Path(where) / f"{name}.png"), full_page=True)


@pytest.fixture
def talk(r, alice, bob):
    """A conversation of alice and bob: two messages of bob's and two of alice's
    yesterday, then one of each today. Its id."""
    graph.follow(r, bob["id"], alice["id"])
    graph.follow(r, alice["id"], bob["id"])
    now = int(time.time() * 1000)
    yesterday = now - DAY_MS
    bob_user, alice_user = users.get_user(r, bob["id"]), users.get_user(r, alice["id"])
    cid = direct.start(r, bob["id"], [alice_user], "Are you coming tomorrow?", "a" * 22,
                       now_ms=yesterday).cid  # fmt: skip
    direct.reply(r, cid, bob["id"], "There will be cake.", "b" * 22, now_ms=yesterday + 30_000)
    direct.reply(r, cid, alice["id"], "Yes!", "c" * 22, now_ms=yesterday + 60_000)
    direct.reply(r, cid, alice["id"], "I will bring tea: https://example.com/tea #tea",
                 "d" * 22, now_ms=yesterday + 90_000)  # fmt: skip
    direct.reply(r, cid, bob["id"], "See you in an hour, @alice", "e" * 22, now_ms=now - 20_000)
    direct.reply(r, cid, alice["id"], "On my way.", "f" * 22, now_ms=now - 10_000)
    assert bob_user  # the fixture's users exist
    return cid


def test_a_conversation_is_a_chat_not_an_ordered_list(browser, live_person, talk):
    expect.set_options(timeout=TIMEOUT_MS)
    page = live_person("alice").new_page()
    page.set_viewport_size({"width": 1280, "height": 900})
    page.goto(f"/messages/{talk}/")
    chat = page.locator("#messages")
    expect(chat).to_have_attribute("data-live", "connected")
    # No ordered list, no numbers: a log of messages.
    assert chat.evaluate("el => el.tagName") != "OL"
    assert page.locator("main ol").count() == 0
    expect(chat).to_have_attribute("role", "log")
    messages = chat.locator(".direct-message")
    expect(messages).to_have_count(6)
    # The reader's messages: marked by a class, and "You" for screen readers.
    own = chat.locator(".direct-message.own")
    expect(own).to_have_count(3)
    for n in range(3):
        expect(own.nth(n).locator(".sender")).to_have_text("You")
    expect(chat.locator(".direct-message.theirs .sender").first).to_contain_text("Bob Builder")
    # Theirs on the left under an avatar, the reader's on the right.
    theirs_box = chat.locator(".theirs .bubble").first.bounding_box()
    own_box = chat.locator(".own .bubble").first.bounding_box()
    chat_box = chat.bounding_box()
    assert theirs_box["x"] < chat_box["x"] + 60
    assert own_box["x"] + own_box["width"] > chat_box["x"] + chat_box["width"] - 60
    assert own_box["x"] > theirs_box["x"] + 100
    expect(chat.locator(".theirs .chat-avatar .avatar").first).to_be_visible()
    # Grouped: a sender's second message a moment later continues the group, its name
    # and time visually hidden; days have their separators.
    expect(chat.locator(".direct-message.continued")).to_have_count(2)
    expect(chat.locator(".chat-day")).to_have_text(["Yesterday", "Today"])
    shoot(page, "conversation-1280")
    # A message's actions are in its menu, closed until asked for: Report and its form
    # for another's message, Delete for me.
    first = chat.locator(".direct-message.theirs").first
    first.locator(".message-menu > summary").click()
    first.locator(".menu-report > summary").click()
    expect(first.get_by_role("combobox", name="What is wrong?")).to_be_visible()
    first.locator(".message-menu > summary").click()  # closed again
    last = own.nth(2)
    delete = last.get_by_role("button", name="Delete for me")
    expect(delete).to_be_hidden()
    expect(last.locator(".menu-report")).to_have_count(0)  # no reporting oneself
    last.locator(".message-menu > summary").click()
    expect(delete).to_be_visible()
    shoot(page, "conversation-menu-1280")
    delete.click()
    expect(page.locator("ul.messages")).to_contain_text("Message deleted for you")
    expect(page.locator("#messages .direct-message")).to_have_count(5)


def test_on_a_phone_the_composer_is_last_and_targets_are_big(browser, live_person, talk):
    expect.set_options(timeout=TIMEOUT_MS)
    page = live_person("alice").new_page()
    page.set_viewport_size({"width": 390, "height": 844})
    page.goto(f"/messages/{talk}/")
    chat = page.locator("#messages")
    expect(chat).to_have_attribute("data-live", "connected")
    composer = page.locator(".chat-composer")
    last_message = chat.locator(".direct-message").last
    assert composer.bounding_box()["y"] > last_message.bounding_box()["y"]
    expect(composer.get_by_role("button", name="Send")).to_be_in_viewport()
    controls = [
        composer.get_by_role("button", name="Send"),
        page.locator(".chat-head .menu > summary"),
        *(chat.locator(".message-menu > summary").nth(n) for n in range(6)),
    ]
    for control in controls:
        box = control.bounding_box()
        assert box["width"] >= 44 and box["height"] >= 44, box
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    shoot(page, "conversation-390")
    page.locator(".chat-head .menu > summary").click()
    expect(page.get_by_role("button", name="Mute")).to_be_visible()
    shoot(page, "conversation-head-menu-390")


def test_the_inbox_shows_avatars_last_messages_and_unread_marks(
    browser, live_person, r, talk, alice, bob, carol
):
    expect.set_options(timeout=TIMEOUT_MS)
    # A group too, older, of carol's, which bob has read: two avatars, no unread mark.
    graph.follow(r, bob["id"], carol["id"])
    graph.follow(r, alice["id"], carol["id"])
    others = [users.get_user(r, bob["id"]), users.get_user(r, alice["id"])]
    then = int(time.time() * 1000) - 3 * DAY_MS
    group = direct.start(r, carol["id"], others, "Plans for the weekend?", "g" * 22, now_ms=then)
    direct.reply(r, group.cid, bob["id"], "Hiking!", "h" * 22, now_ms=then + 60_000)
    page = live_person("bob").new_page()
    for width in (1280, 390):
        page.set_viewport_size({"width": width, "height": 800})
        page.goto("/messages/")
        assert page.locator("main ol").count() == 0
        rows = page.locator(".conversations .conversation")
        expect(rows).to_have_count(2)
        expect(rows.nth(1)).to_have_class("conversation")
        expect(rows.nth(1).locator(".avatar")).to_have_count(2)
        expect(rows.nth(1).locator(".last-message")).to_have_text("You: Hiking!")
        row = rows.first
        expect(row).to_have_class("conversation unread")
        expect(row.locator(".avatar")).to_be_visible()
        expect(row.locator(".last-message")).to_have_text("On my way.")
        expect(row.locator(".unread-mark")).to_have_text(re.compile(r"^\d+ unread$"))
        expect(row.get_by_role("link", name="Alice Liddell @alice")).to_be_visible()
        # The whole row opens the conversation.
        box = row.bounding_box()
        assert page.evaluate(
            "([x, y]) => document.elementFromPoint(x, y).closest('a.conversation-link') !== null",
            [box["x"] + box["width"] - 20, box["y"] + box["height"] / 2],
        )
        shoot(page, f"inbox-{width}")
    page.locator(".conversation-link").nth(1).click()
    expect(page.locator("h1")).to_have_text("Alice Liddell, Carol Danvers")
    expect(page.locator(".chat-members")).to_have_text("Group: you, @alice, @carol")
    expect(page.locator(".chat-avatars .avatar")).to_have_count(2)
    shoot(page, "group-390")
    page.goto("/messages/")
    page.locator(".conversation-link").first.click()
    expect(page.locator("#messages")).to_be_visible()
    page.goto("/messages/")
    expect(page.locator(".conversation").first).to_have_class("conversation")
    expect(page.locator(".last-message").first).to_have_text("On my way.")


def test_empty_states_read_as_sentences(browser, live_person, carol):
    expect.set_options(timeout=TIMEOUT_MS)
    page = live_person("carol").new_page()
    page.set_viewport_size({"width": 390, "height": 800})
    for url, text in [
        ("/messages/", "No conversations yet. Write to someone below"),
        ("/messages/requests/", "You have no message requests."),
    ]:
        page.goto(url)
        assert page.locator("main ol, main li.empty").count() == 0
        empty = page.locator("main .empty")
        expect(empty).to_have_count(1)
        expect(empty).to_contain_text(text)
        assert empty.inner_text().strip().endswith(".")
        shoot(page, "inbox-empty-390" if url == "/messages/" else "requests-empty-390")


def axe_violations(axe, page):
    found = axe.run(page, options=AXE_OPTIONS).response["violations"]
    return [
        f"{page.url} {violation['id']}: {node['target']}: {node['html']}"
        for violation in found
        for node in violation["nodes"]
    ]


@pytest.mark.parametrize("theme", ["light", "dark"])
def test_the_chat_pages_have_no_violation_in_either_theme(browser, live_person, talk, theme):
    """axe on the inbox, the requests, the setting of who may message one, and a
    conversation with a message's menu and its report form open, at 1280 and 390 px, in
    the light and the dark theme (the page's data-theme, as the reader's choice sets it);
    no menu runs off a phone's screen."""
    expect.set_options(timeout=TIMEOUT_MS)
    axe = Axe()
    page = live_person("alice").new_page()
    found = []
    for width in (1280, 390):
        page.set_viewport_size({"width": width, "height": 900})
        for url in (
            "/messages/",
            "/messages/requests/",
            f"/messages/{talk}/",
            "/settings/messages/",
        ):
            page.goto(url)
            page.evaluate(f"document.documentElement.dataset.theme = {theme!r}")
            if url.endswith(f"/{talk}/"):
                # Each menu in turn (the site's script may close one as another opens):
                # inside the screen; axe with the last, the report form open.
                own = page.locator("#messages .direct-message.own").last
                first = page.locator("#messages .direct-message.theirs").first
                for summary, then in [
                    (own.locator(".message-menu > summary"), None),
                    (page.locator(".chat-head .menu > summary"), None),
                    (
                        first.locator(".message-menu > summary"),
                        first.locator(".menu-report > summary"),
                    ),
                ]:
                    summary.click()
                    if then is not None:
                        then.click()
                    box = summary.locator("xpath=..").locator("> .menu-items").bounding_box()
                    assert box["x"] >= 0 and box["x"] + box["width"] <= width, box
                    if then is None:
                        summary.click()  # closed again
            found += axe_violations(axe, page)
            shoot(page, f"{url.strip('/').replace('/', '-')}-{width}-{theme}")
    assert not found, "axe found:\n" + "\n".join(found)

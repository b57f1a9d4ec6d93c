"""Polls end to end in a real headless Chromium (Playwright's sync API) against
live_server: alice posts a poll from her home page's form, bob votes on the status's
page (the page's one actions form, no script needed), sees "You voted" with his choice
marked, and a second reader still gets the form.

The browser and its skipping rules are those of tests/test_browser.py.
"""

try:
    from playwright.sync_api import expect
except ImportError:  # pragma: no cover - depends on the environment
    expect = None

from socialsite.repository import graph, keys, polls, statuses
from tests.support.helpers import flash, log_in_browser, make_user

TIMEOUT_MS = 15_000


def test_voting_in_a_poll_in_a_real_browser(r, open_page):
    alice = make_user(r, "alice", "Alice Liddell")
    bob = make_user(r, "bob", "Bob Builder")
    carol = make_user(r, "carol", "Carol Danvers")
    graph.follow(r, bob["id"], alice["id"])
    graph.follow(r, carol["id"], alice["id"])
    expect.set_options(timeout=TIMEOUT_MS)
    as_alice, as_bob, as_carol = open_page(), open_page(), open_page()
    for page, login in ((as_alice, "alice"), (as_bob, "bob"), (as_carol, "carol")):
        log_in_browser(page, login)

    # alice posts a poll from her home page's form (its poll part opens without script).
    as_alice.goto("/")
    as_alice.locator('textarea[name="message"]').fill("Tea or coffee?")
    as_alice.get_by_text("Add a poll").click()
    as_alice.locator('input[name="poll_option_1"]').fill("Tea")
    as_alice.locator('input[name="poll_option_2"]').fill("Coffee")
    as_alice.get_by_role("button", name="Post").click()
    expect(flash(as_alice)).to_have_text(["Your status is posted."])
    sid = int(r.zrange(keys.profile(alice["id"]), -1, -1)[0])

    # bob votes on its page.
    as_bob.goto(f"/@alice/{sid}/")
    as_bob.get_by_label("Coffee").check()
    as_bob.get_by_role("button", name="Vote").click()
    expect(flash(as_bob)).to_have_count(1)
    assert polls.poll_of(statuses.get_status(r, sid)).votes == (0, 1)

    # His pages show his choice, not the form; carol's home still has the form.
    as_bob.goto("/")
    poll = as_bob.locator(f"#status-{sid} .poll")
    expect(poll).to_contain_text("You voted")
    expect(poll.locator(".poll-mine")).to_contain_text("Coffee")
    expect(poll.get_by_role("button", name="Vote")).to_have_count(0)
    as_carol.goto("/")
    carol_poll = as_carol.locator(f"#status-{sid} .poll")
    expect(carol_poll.get_by_role("button", name="Vote")).to_be_visible()
    expect(carol_poll).not_to_contain_text("You voted")
    assert carol  # a reader who has not voted

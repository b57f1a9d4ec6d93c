"""Named lists end to end in a real headless Chromium (Playwright's sync API) against
live_server: a user makes a list, adds alice (whom they follow) to it from its page,
alice posts from her home page, and the list's page shows her status.

The browser and its skipping rules are those of tests/test_browser.py.
"""

import re

try:
    from playwright.sync_api import expect
except ImportError:  # pragma: no cover - depends on the environment
    expect = None

from tests.support.helpers import account_menu, flash, log_in_browser, make_user

TIMEOUT_MS = 15_000


def test_a_list_in_a_real_browser(r, open_page):
    make_user(r, "alice", "Alice Liddell")
    make_user(r, "dan", "Dan Reader")
    expect.set_options(timeout=TIMEOUT_MS)
    as_alice, as_dan = open_page(), open_page()
    log_in_browser(as_alice, "alice")
    log_in_browser(as_dan, "dan")

    # dan follows alice, then makes a list from the navigation's Lists link.
    as_dan.goto("/@alice/")
    as_dan.get_by_role("button", name="Follow", exact=True).click()
    expect(flash(as_dan)).to_have_text(["You now follow @alice."])
    account_menu(as_dan).get_by_role("link", name="Lists").click()
    expect(as_dan.get_by_role("heading", name="Lists", level=1)).to_be_visible()
    as_dan.get_by_label(re.compile(r"^List name:?$")).fill("Wonderland")
    as_dan.get_by_role("button", name="Make the list").click()
    expect(as_dan.get_by_role("heading", name="Wonderland", level=1)).to_be_visible()

    # Someone dan does not follow is refused, with the login kept in the field.
    login_field = as_dan.locator("form.add-member").get_by_label(re.compile(r"^Login name:?$"))
    login_field.fill("nobody")
    as_dan.get_by_role("button", name="Add to the list").click()
    expect(as_dan.locator(".field-error")).to_have_text(["There is no user @nobody."])
    expect(login_field).to_have_value("nobody")

    login_field.fill("alice")
    as_dan.get_by_role("button", name="Add to the list").click()
    expect(flash(as_dan)).to_have_text(["@alice is on \u201cWonderland\u201d now."])
    expect(as_dan.locator(".list-members")).to_contain_text("Alice Liddell")

    # alice posts from her home page; dan's list shows it.
    text = "Curiouser and curiouser! (for the lists)"
    as_alice.goto("/")
    as_alice.locator('textarea[name="message"]').fill(text)
    as_alice.get_by_role("button", name="Post").click()
    expect(flash(as_alice)).to_have_text(["Your status is posted."])
    as_dan.reload()
    status = as_dan.locator("article.status").filter(has_text=text)
    expect(status).to_have_count(1)
    # The author link: the made avatar (initials hidden from screen readers), the name.
    expect(status.locator(".author")).to_have_accessible_name("Alice Liddell @alice")
    expect(status.locator(".author .avatar")).to_have_text("AL")

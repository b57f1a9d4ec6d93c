"""Mentions, tags and links in a real headless Chromium: a posted status's tag and link
are links, the tag leads to its page, and the form's counter (static/js/site.js) counts
as the server does, a link as 23 characters whatever its length.

The browser is Debian's chromium (CHROMIUM_PATH points elsewhere). Without a browser the
tests are skipped, except when CI=true: there they fail.
"""

import pytest

try:
    from playwright.sync_api import expect
except ImportError:  # pragma: no cover - depends on the environment; the browser
    expect = None  # fixture then skips (or fails when CI=true)

from socialsite.repository import entities
from tests.support.helpers import log_in_browser

TIMEOUT_MS = 15_000
MAX_LENGTH = 280

# Messages whose length the counter must work out exactly as the server does: links
# at every boundary the parser knows, and characters outside the BMP.
COUNTED = [
    "",
    "plain words",
    "🙂🙂🙂 👩‍👩‍👧",
    "https://a.io",
    "see https://example.org/" + "x" * 300 + " and more",
    "see https://example.org.",
    "(https://example.org/a_(b)) and [https://x.org/]",
    "'https://example.org/x'?!",
    "HTTPS://EXAMPLE.ORG:8080/path?q=1#frag",
    "https://例え.jp/パス🙂 end",
    "xhttps://example.org no, https://ok.example yes",
    "javascript://example.org ftp://example.org https:// https:///x",
    "https://user@evil.example/ https://[::1]/ https://-x.org",
    'http://a.b<c>d"e https://a.b\u3000https://c.d',
    "https://a.org https://b.orghttps://c.org",
    "#tag @alice https://a.io/#tag@alice",
    "  https://trimmed.example  ",
    "line one\nhttps://line.two/\nline three",
]


@pytest.fixture
def home(browser_contexts, alice, bob):
    """alice's home page in a browser context of its own."""
    expect.set_options(timeout=TIMEOUT_MS)
    page = browser_contexts().new_page()
    log_in_browser(page, "alice")
    page.goto("/")
    return page


def test_a_posted_statuss_tag_mention_and_link_are_links(home):
    url = "https://redis.io/docs/latest/develop/data-types/sorted-sets/"
    home.locator('textarea[name="message"]').fill(f"Hi @bob, #Redis ZSETs: {url}")
    home.get_by_role("button", name="Post").click()
    expect(home.locator("ul.messages li.message")).to_have_text(["Your status is posted."])

    message = home.locator("article.status p.message")
    tag = message.get_by_role("link", name="#Redis")
    expect(tag).to_have_attribute("href", "/tags/redis/")
    expect(message.get_by_role("link", name="@bob")).to_have_attribute("href", "/@bob/")
    link = message.get_by_role("link", name="redis.io/docs/latest/develop/d…")
    expect(link).to_have_attribute("href", url)
    expect(link).to_have_attribute("rel", "nofollow noopener noreferrer ugc")

    tag.click()
    expect(home).to_have_url(f"{home.url.split('/tags/')[0]}/tags/redis/")
    expect(home.locator("h1")).to_have_text("#redis")
    expect(home.locator("article.status")).to_have_count(1)
    expect(home.locator("article.status p.message")).to_contain_text("Hi @bob, #Redis ZSETs:")


def test_the_counter_counts_a_link_as_23(home):
    box = home.locator('textarea[name="message"]')
    counter = home.locator(".status-form .counter")
    expect(counter).to_have_text(f"{MAX_LENGTH} left")
    box.fill("x https://example.org/" + "y" * 100)
    expect(counter).to_have_text(f"{MAX_LENGTH - 2 - 23} left")
    box.fill("x" * (MAX_LENGTH - 23) + " https://a.io")  # a short link counts 23 too
    expect(counter).to_have_text("-1 left")
    expect(counter).to_have_class("counter over")


def test_the_counter_counts_as_the_server_does(home):
    box = home.locator('textarea[name="message"]')
    counter = home.locator(".status-form .counter")
    for message in COUNTED:
        box.fill(message)
        # The server counts what Django's form leaves: the ends stripped.
        left = MAX_LENGTH - entities.weighted_length(message.strip())
        expect(counter, message).to_have_text(f"{left} left")

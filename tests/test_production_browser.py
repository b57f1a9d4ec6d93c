"""The production headers and text rules in a real headless Chromium.

The home page's live updates work under the Content-Security-Policy, with no violation
reported (the page's securitypolicyviolation events and console are watched from
before it loads); and long unbroken names, logins and statuses wrap inside the page on
a phone-sized screen. The browser is Debian's chromium; without one the tests are
skipped, except when CI=true: there they fail.
"""

import pytest

try:
    from playwright.sync_api import expect
except ImportError:  # pragma: no cover - depends on the environment; the browser
    expect = None  # fixture then skips (or fails when CI=true)

from socialsite.repository import graph
from tests.support.helpers import log_in_browser, make_user, post

TIMEOUT_MS = 15_000

# Runs in every page before its own scripts (Playwright adds it outside the page's CSP).
WATCH_VIOLATIONS = """
window.cspViolations = [];
document.addEventListener("securitypolicyviolation", function (event) {
  window.cspViolations.push(event.violatedDirective + " " + event.blockedURI);
});
"""


@pytest.fixture(scope="module")
def stream_server_options(live_server):
    """The site's port, for the stream server's CORS check."""
    return {"site_port": int(live_server.url.rsplit(":", 1)[1])}


@pytest.fixture
def open_context(browser_contexts, settings):
    """Browser contexts on the live server (own cookies each) that record CSP
    violations (WATCH_VIOLATIONS), closed afterwards."""

    def new_context(**options):
        context = browser_contexts(**options)
        context.add_init_script(WATCH_VIOLATIONS)
        return context

    return new_context


def watch_console(page):
    """The page's console errors and warnings, as they come."""
    messages = []
    page.on(
        "console",
        lambda message: (
            messages.append(f"{message.type}: {message.text}")
            if message.type in ("error", "warning")
            else None
        ),
    )
    return messages


def test_live_updates_work_under_the_content_security_policy(
    browser, open_context, stream_server, settings, r, alice, bob
):
    expect.set_options(timeout=TIMEOUT_MS)
    settings.STREAM_PORT = stream_server.port  # the pages (and their CSP) point there
    settings.STREAM_PUBLIC_URL = ""
    graph.follow(r, alice["id"], bob["id"])
    page = open_context().new_page()
    console = watch_console(page)
    log_in_browser(page, "alice")

    response = page.goto("/")
    policy = response.headers["content-security-policy"]
    assert f"localhost:{stream_server.port}" in policy and "'unsafe-inline'" not in policy
    timeline = page.locator("#timeline")
    expect(timeline).to_have_attribute("data-live", "connected")

    post(r, bob, "Live under the policy")
    bar = page.locator(".live-bar")
    expect(bar).to_have_text("1 new status")
    bar.click()
    expect(page.locator("article.status p.message")).to_have_text(["Live under the policy"])
    # The counter under the status box (site.js) runs too.
    page.locator('textarea[name="message"]').fill("four")
    expect(page.locator(".status-form .counter")).to_have_text(f"{280 - 4} left")

    assert page.evaluate("window.cspViolations") == []
    assert console == []

    # The watch sees a violation when there is one: an inline script is refused.
    page.evaluate(
        "var s = document.createElement('script'); s.textContent = 'window.ran = 1';"
        " document.body.appendChild(s)"
    )
    page.wait_for_function("window.cspViolations.length > 0")
    assert page.evaluate("window.ran") is None
    assert page.evaluate("window.cspViolations")[0].startswith("script-src")


LONG_NAME = "W" * 50
LONG_LOGIN = "w" * 30
LONG_WORD = "x" * 280

# Elements that show text people wrote, on the pages below.
USER_TEXT = (
    ".nav a, .status .author, .status .message, .profile-card h1, .content h1, .user-list li"
)

OVERFLOWING = """(selector) => {
  const limit = document.querySelector(".content").getBoundingClientRect().right + 0.5;
  const found = [];
  for (const element of document.querySelectorAll(selector)) {
    const right = element.getBoundingClientRect().right;
    if (right > limit) found.push(element.className || element.tagName);
  }
  if (document.documentElement.scrollWidth > window.innerWidth) found.push("the page");
  return found;
}"""


def test_long_unbroken_names_logins_and_statuses_wrap_on_a_phone(open_context, r):
    expect.set_options(timeout=TIMEOUT_MS)
    long = make_user(r, LONG_LOGIN, LONG_NAME)
    fan = make_user(r, "f" * 30, "F" * 50)
    graph.follow(r, fan["id"], long["id"])
    page = open_context(viewport={"width": 360, "height": 740}).new_page()
    log_in_browser(page, LONG_LOGIN)
    sid = post(r, long, LONG_WORD)

    pages = ["/", f"/@{LONG_LOGIN}/", f"/@{LONG_LOGIN}/{sid}/", f"/@{LONG_LOGIN}/followers/"]
    for path in pages:
        page.goto(path)
        expect(page.locator(".content")).to_contain_text(LONG_NAME[:10])
        assert page.evaluate(OVERFLOWING, USER_TEXT) == [], path

    # The check finds overflow where there is some: without the wrapping rule.
    page.goto("/")
    page.evaluate(
        "for (const e of document.querySelectorAll('.nav, .content, .status .message'))"
        " e.style.overflowWrap = 'normal'"
    )
    assert page.evaluate(OVERFLOWING, USER_TEXT) != []

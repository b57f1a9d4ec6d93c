"""The look's pages in a real headless Chromium: a visitor's landing page,
the header search's suggestions, the moderation pages at a phone's width.

Debian's chromium, as in tests/test_browser.py: without one the tests are skipped,
except with CI=true, where they fail.
"""

import re

import pytest

try:
    from axe_playwright_python.sync_playwright import Axe
    from playwright.sync_api import expect
except ImportError:  # pragma: no cover - the browser fixture skips (or fails with CI=true)
    Axe = expect = None

from socialsite.repository import moderation, trends, users
from tests.support.helpers import log_in_browser, make_user, post
from tests.test_accessibility_browser import violations

PHONE = {"width": 390, "height": 844}
DESKTOP = {"width": 1280, "height": 900}
TIMESTAMP = re.compile(r"^\d{1,2} [A-Z][a-z]{2} \d{4}, \d{2}:\d{2} UTC$")


@pytest.fixture
def new_page(browser_contexts):
    """A page in a fresh browser context (cookies of its own) on the live server."""
    return lambda viewport=DESKTOP: browser_contexts(viewport=viewport).new_page()


def overflowing(page):
    """What sticks out of the page's width (the page scrolls sideways): the page's
    scroll width over the viewport's, and the elements whose right edge passes it."""
    return page.evaluate(
        """() => {
        const root = document.documentElement, width = root.clientWidth, out = [];
        if (root.scrollWidth > width) out.push("page " + root.scrollWidth);
        for (const element of document.querySelectorAll("main *")) {
            const box = element.getBoundingClientRect();
            if (box.width && box.right > width + 0.5)
                out.push(`${element.tagName}.${element.className} ${Math.round(box.right)}`);
        }
        return out;
    }"""
    )


def small_targets(page, selector):
    """The elements of ``selector`` smaller than 44 x 44 CSS px, with their size."""
    return page.eval_on_selector_all(
        selector,
        """elements => elements.map(e => [e.textContent.trim(), e.getBoundingClientRect()])
            .filter(([, box]) => box.width < 44 || box.height < 44)
            .map(([text, box]) => `${text}: ${box.width}x${box.height}`)""",
    )


# --- a visitor's landing page -------------------------------------------------------------


def test_a_visitors_home_page_lists_public_statuses_and_trends(r, new_page):
    people = [make_user(r, f"user{n}", f"User {n}") for n in range(10)]
    for person in people[:3]:
        post(r, person, "see you at the #meetup")
    post(r, people[4], "Pneumonoultramicroscopicsilicovolcanoconiosis" * 3)
    trends.recompute(r)
    for viewport in (DESKTOP, PHONE):
        page = new_page(viewport)
        page.goto("/")
        expect(page.get_by_role("heading", name="Recent posts")).to_be_visible()
        expect(page.locator("article.status")).to_have_count(4)
        main = page.get_by_role("main")
        expect(main.get_by_role("link", name="Sign up")).to_be_visible()
        expect(main.get_by_role("link", name="Log in")).to_be_visible()
        trend = page.locator(".landing-trends").get_by_role("link", name=re.compile("#meetup"))
        expect(trend).to_contain_text("3 people today")
        assert overflowing(page) == []
        if viewport is PHONE:
            assert small_targets(page, ".landing-actions a, .trend-link") == []


# --- the header's search box --------------------------------------------------------------


def test_the_header_search_suggests_people_and_tags_from_two_letters(r, new_page, alice):
    make_user(r, "grace", "Grace Hopper")  # alice does not follow her
    make_user(r, "gregory", "Gregory House")
    post(r, alice, "#grammar and #graphs")
    page = new_page()
    log_in_browser(page, "alice")
    page.goto("/explore/")
    box = page.get_by_role("combobox", name="Search people, tags and statuses")
    box.press_sequentially("g")
    page.wait_for_timeout(400)
    expect(page.get_by_role("listbox", name="Suggestions")).to_be_hidden()  # one letter
    box.press_sequentially("r")
    options = page.get_by_role("listbox", name="Suggestions").get_by_role("option")
    expect(options).to_have_text(
        [
            re.compile("Grace Hopper @grace"),
            re.compile("Gregory House @gregory"),
            re.compile("#grammar"),
            re.compile("#graphs"),
        ]
    )
    expect(box).to_have_attribute("aria-expanded", "true")
    box.press("ArrowDown")
    expect(options.first).to_have_attribute("aria-selected", "true")
    expect(box).to_have_attribute("aria-activedescendant", re.compile("-0$"))
    found = violations(Axe(), page)
    assert not found, "axe found:\n" + "\n".join(found)
    box.press("Enter")
    expect(page).to_have_url(re.compile(r"/@grace/$"))

    # By a word of the name; a click opens a tag's page.
    box = page.get_by_role("combobox", name="Search people, tags and statuses")
    box.fill("")
    box.press_sequentially("hop")
    suggestions = page.get_by_role("listbox", name="Suggestions")
    expect(suggestions.get_by_role("option")).to_have_text([re.compile("Grace Hopper @grace")])
    box.fill("")
    box.press_sequentially("gram")
    suggestions.get_by_role("option", name=re.compile("#grammar")).click()
    expect(page).to_have_url(re.compile(r"/tags/grammar/$"))

    # Enter with nothing highlighted searches, as without the script; Escape closes.
    box = page.get_by_role("combobox", name="Search people, tags and statuses")
    box.press_sequentially("gr")
    expect(page.get_by_role("listbox", name="Suggestions").get_by_role("option")).to_have_count(4)
    box.press("Escape")
    expect(page.get_by_role("listbox", name="Suggestions")).to_be_hidden()
    box.press("Enter")
    expect(page).to_have_url(re.compile(r"/search/\?q=gr$"))


def test_the_header_search_suggestions_fit_a_phone(r, new_page, alice):
    make_user(r, "grace", "Grace Hopper")
    page = new_page(PHONE)
    log_in_browser(page, "alice")
    box = page.get_by_role("combobox", name="Search people, tags and statuses")
    box.press_sequentially("gr")
    option = page.get_by_role("option", name=re.compile("Grace Hopper"))
    expect(option).to_be_visible()
    box_size = option.bounding_box()
    assert box_size["height"] >= 44
    assert box_size["x"] >= 0 and box_size["x"] + box_size["width"] <= PHONE["width"]


# --- the moderation pages -----------------------------------------------------------------


def moderation_site(r):
    """A moderator, an open report about a long spam status, and a log with a long
    reason and a long word."""
    mod = make_user(r, "mod", "Moe Derator")
    moderation.add_moderator(r, mod["id"])
    spammer = make_user(r, "spammer", "Sp Ammer")
    reporter = make_user(r, "reporter", "Re Porter")
    sid = post(
        r,
        spammer,
        "Buy now https://spam.example/" + "x" * 80 + " and more words " * 20 + "#spam",
        spoiler="Not what it seems",
    )
    moderation.file_report(r, reporter, spammer, "spam", "Posted ten times " * 10, [sid])
    for _ in range(3):
        moderation.record(
            r, "suspend", "mod", mod["id"], users.get_user(r, spammer["id"]), "why " * 30
        )
    moderation.record(r, "dismiss report", "mod", mod["id"], reporter, "A" * 120, report=1)
    return mod


@pytest.mark.parametrize("viewport", [DESKTOP, PHONE], ids=["desktop", "phone"])
def test_the_moderation_pages_fit_and_read_their_times(r, new_page, viewport):
    moderation_site(r)
    page = new_page(viewport)
    log_in_browser(page, "mod")
    page.goto("/moderation/")
    report = page.locator("article.report")
    expect(report).to_have_count(1)
    status = report.locator(".reported-card")
    # The reported status whole: its warning written out, its whole message.
    expect(status).to_contain_text("Content warning Not what it seems")
    expect(status).to_contain_text("and more words " * 19)
    expect(status.locator("time")).to_have_text(TIMESTAMP)
    assert overflowing(page) == []

    page.goto("/moderation/log/")
    times = page.locator(".moderation-log time")
    expect(times).to_have_count(5)  # the moderator's appointment, 3 suspensions, a dismissal
    for n in range(5):
        expect(times.nth(n)).to_have_text(TIMESTAMP)
        expect(times.nth(n)).to_have_attribute(
            "datetime", re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?\+00:00$")
        )
    assert overflowing(page) == []
    if viewport is DESKTOP:
        # Each header on one line: none broken mid-word ("Accou nt").
        heights = page.eval_on_selector_all(
            ".moderation-log th", "cells => cells.map(c => c.getBoundingClientRect().height)"
        )
        assert max(heights) < 40, heights
    if viewport is PHONE:
        assert small_targets(page, "nav.tabs a") == []
        found = violations(Axe(), page)  # the log as cards
        page.goto("/moderation/")
        found += violations(Axe(), page)
        assert not found, "axe found:\n" + "\n".join(found)

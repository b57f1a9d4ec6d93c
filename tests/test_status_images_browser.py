"""Images posted through the status form in a real headless Chromium (Playwright's sync
API) against live_server, without any script of the page's own doing the work: alice
chooses two images, describes them, and sees them, in order with their alt text, on
her home page, her profile and the status's thread; a status behind a content warning
shows its images once the warning is opened. The pages pass axe-core.

The browser is Debian's chromium (see tests/test_browser.py); without one the test is
skipped, except when CI=true: there it fails.
"""

import pytest

try:
    from axe_playwright_python.sync_playwright import Axe
    from playwright.sync_api import expect
except ImportError:  # pragma: no cover - the browser fixture skips (or fails with CI=true)
    Axe = expect = None

from socialsite.repository import keys
from tests.support.helpers import log_in_browser, make_user
from tests.test_accessibility_browser import assert_no_violations
from tests.test_profile_browser import natural_width, png_bytes

TIMEOUT_MS = 15_000


@pytest.fixture
def axe():
    return Axe()


def choose(page, *pictures):
    page.get_by_text("Add images").click()
    page.get_by_label("Images:", exact=True).set_input_files([
        {"name": name, "mimeType": "image/png", "buffer": png_bytes(size, colour)}
        for name, size, colour in pictures
    ])  # fmt: skip


def test_two_images_with_alt_text_posted_through_the_form(r, browser_contexts, media_root, axe):
    alice = make_user(r, "alice", "Alice Liddell")
    expect.set_options(timeout=TIMEOUT_MS)
    page = browser_contexts().new_page()
    log_in_browser(page, "alice")

    page.goto("/")
    page.get_by_label("What is happening?").fill("Two squares")
    choose(page, ("red.png", (1200, 900), "red"), ("blue.png", (300, 300), "blue"))
    page.get_by_label("Description of image 1 (alt text)").fill("A red square")
    page.get_by_label("Description of image 2 (alt text)").fill("A blue square")
    page.get_by_role("button", name="Post").click()
    expect(page.locator("ul.messages")).to_contain_text("Your status is posted.")

    sid = int(r.zrevrange(keys.profile(alice["id"]), 0, 0)[0])
    for path in ("/", "/@alice/", f"/@alice/{sid}/"):
        page.goto(path)
        article = page.locator(f"#status-{sid}")
        pictures = article.locator("img.media-image")
        expect(pictures).to_have_count(2)
        expect(pictures.nth(0)).to_have_attribute("alt", "A red square")
        expect(pictures.nth(1)).to_have_attribute("alt", "A blue square")
        expect(pictures.nth(0)).to_have_attribute("loading", "lazy")
        page.wait_for_load_state("load")
        pictures.nth(0).scroll_into_view_if_needed()
        page.wait_for_function(
            "img => img.complete && img.naturalWidth > 0",
            arg=pictures.nth(0).element_handle(),
        )
        assert natural_width(page, f"#status-{sid} img.media-image >> nth=0") == 640
        assert_no_violations(axe, page)

    # A click opens the original.
    page.locator(f"#status-{sid} a.media-link").first.click()
    page.wait_for_load_state("load")
    assert page.url.endswith(".jpg")
    assert page.evaluate("document.images[0].naturalWidth") == 1200


def test_a_content_warning_hides_the_images_until_opened(r, browser_contexts, media_root, axe):
    alice = make_user(r, "alice", "Alice Liddell")
    expect.set_options(timeout=TIMEOUT_MS)
    page = browser_contexts().new_page()
    log_in_browser(page, "alice")

    page.goto("/")
    choose(page, ("green.png", (400, 300), "green"))
    page.get_by_label("Description of image 1 (alt text)").fill("A green field")
    page.get_by_text("Add a content warning").click()
    page.get_by_label("Content warning").fill("Spoilers for the film")
    page.get_by_role("button", name="Post").click()
    expect(page.locator("ul.messages")).to_contain_text("Your status is posted.")

    sid = int(r.zrevrange(keys.profile(alice["id"]), 0, 0)[0])
    page.goto(f"/@alice/{sid}/")
    picture = page.locator(f"#status-{sid} a.media-link img.media-image")
    expect(picture).to_be_hidden()
    assert_no_violations(axe, page)
    page.locator(f"#status-{sid} summary").filter(has_text="Spoilers for the film").click()
    expect(picture).to_be_visible()
    expect(picture).to_have_attribute("alt", "A green field")
    assert_no_violations(axe, page)


def test_a_refused_image_comes_back_with_the_text_and_says_choose_again(
    r, browser_contexts, media_root
):
    make_user(r, "alice", "Alice Liddell")
    expect.set_options(timeout=TIMEOUT_MS)
    page = browser_contexts().new_page()
    log_in_browser(page, "alice")
    page.goto("/")
    page.get_by_label("What is happening?").fill("kept words")
    page.get_by_text("Add images").click()
    page.get_by_label("Images:", exact=True).set_input_files(
        {"name": "fake.png", "mimeType": "image/png", "buffer": b"just text"}
    )
    page.get_by_role("button", name="Post").click()
    expect(page.locator("ul.messages")).to_contain_text("Choose your images again")
    expect(page.get_by_label("What is happening?")).to_have_value("kept words")

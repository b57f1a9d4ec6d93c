"""The look's pages: the visitor's landing page, the "new since you last read"
divider, trends on a small site, the moderation pages' times."""

import re

from socialsite.repository import graph, moderation, privacy, trends
from tests.support.helpers import log_in, make_user, post
from timeline.jinja_helpers import abstime


def test_the_divider_never_marks_the_readers_own_new_post(r, client, alice, bob):
    graph.follow(r, alice["id"], bob["id"])
    post(r, bob, "read before")
    log_in(client, "alice")
    client.get("/")  # the marker: up to "read before"
    post(r, alice, "my own new post")
    page = client.get("/").content.decode()
    assert "my own new post" in page
    assert 'id="read-marker"' not in page  # only the reader's own is above the marker


def test_the_divider_counts_others_and_leaves_the_readers_own_below(r, client, alice, bob):
    graph.follow(r, alice["id"], bob["id"])
    post(r, bob, "read before")
    log_in(client, "alice")
    client.get("/")
    post(r, alice, "my own new post")
    post(r, bob, "news from bob")
    page = client.get("/").content.decode()
    assert "New since you last read: 1 above" in page
    assert page.index("news from bob") < page.index('id="read-marker"')
    assert page.index('id="read-marker"') < page.index("my own new post")
    assert page.index("my own new post") < page.index("read before")


# --- a visitor's landing page -------------------------------------------------------------


def test_a_visitors_home_page_lists_recent_public_statuses_and_trends(r, client):
    people = [make_user(r, f"user{n}") for n in range(10)]
    for person in people[:3]:
        post(r, person, "see you at the #meetup")
    post(r, people[3], "a public hello")
    trends.recompute(r)
    html = client.get("/").content.decode()
    assert "Short posts from the people you follow" in html
    assert 'href="/accounts/signup/"' in html and 'href="/accounts/login/"' in html
    assert html.count('class="status"') == 4
    assert "a public hello" in html
    assert html.index('id="landing-trends-title"') < html.index('href="/tags/meetup/"')
    assert 'name="message"' not in html  # no status form for a visitor


def test_a_visitors_home_page_leaves_out_what_only_some_may_see(r, client, alice, bob, carol):
    privacy.set_private(r, bob["id"], True)
    post(r, bob, "for bob's followers")
    post(r, carol, "carol in public")
    moderation.suspend(r, carol["id"])
    post(r, alice, "alice in public")
    html = client.get("/").content.decode()
    assert "alice in public" in html
    assert "for bob's followers" not in html
    assert "carol in public" not in html


def test_a_visitors_home_page_pages_through_older_statuses(r, client, alice, settings):
    settings.TIMELINE_PAGE_SIZE = 2
    for n in range(5):
        post(r, alice, f"number {n}")
    first = client.get("/").content.decode()
    assert "number 4" in first and "number 3" in first and "number 2" not in first
    older = re.search(r'href="(\?before=\d+)"', first).group(1)
    second = client.get("/" + older).content.decode()
    assert "number 2" in second and "number 4" not in second


def test_a_visitors_home_page_says_so_when_nobody_posted(client):
    html = client.get("/").content.decode()
    assert "Nobody has posted in public yet" in html
    assert "Trending now" not in html


# --- the moderation pages' times ------------------------------------------------------------


def test_a_moderation_time_reads_as_a_date_and_a_time_in_utc():
    at = 1795928902.126  # 2026-11-29T05:08:22.126000+00:00, as the log printed it before
    assert abstime(at) == "29 Nov 2026, 05:08 UTC"
    assert abstime(at, "Europe/Paris") == "29 Nov 2026, 06:08 CET"  # a reader's zone
    assert abstime(at, "Not/A_Zone") == abstime(at, "") == "29 Nov 2026, 05:08 UTC"


def test_the_log_shows_readable_times_with_the_exact_one_in_datetime(r, client, alice, bob):
    moderation.add_moderator(r, alice["id"])
    moderation.suspend(r, bob["id"], by="alice", by_uid=alice["id"], reason="spam")
    log_in(client, "alice")
    html = client.get("/moderation/log/").content.decode()
    times = re.findall(r'<time datetime="([^"]+)">(.*?)</time>', html)
    assert len(times) == 2  # the appointment, the suspension
    for exact, shown in times:
        assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?\+00:00", exact)
        text = re.sub(r"<[^>]+>", "", shown)
        assert re.fullmatch(r"\d{1,2} [A-Z][a-z]{2} \d{4}, \d\d:\d\d UTC", text), text
    assert "+00:00</time>" not in html  # the ISO time is no longer the text
    assert '<th scope="col">Account</th>' in html

"""Reading timelines: newest first, cursor paging, capped homes, authors attached."""

from socialsite.repository import graph, statuses, timelines
from socialsite.repository.limits import HOME_TIMELINE_SIZE


def test_home_page_is_newest_first_with_authors(r, alice, bob):
    graph.follow(r, alice["id"], bob["id"])
    first = statuses.post_status(r, alice["id"], "one")
    second = statuses.post_status(r, bob["id"], "two")
    page = timelines.home_page(r, alice["id"])
    assert [s["id"] for s in page.items] == [second, first]
    assert page.items[0]["author"]["name"] == "Bob Builder"
    assert page.next_cursor is None


def test_cursor_paging_neither_repeats_nor_skips_while_new_statuses_arrive(r, alice):
    posted = [statuses.post_status(r, alice["id"], f"s{i}") for i in range(10)]
    first = timelines.profile_page(r, alice["id"], count=4)
    assert [s["id"] for s in first.items] == posted[:-5:-1]
    statuses.post_status(r, alice["id"], "newer, arriving between page loads")
    second = timelines.profile_page(r, alice["id"], before=first.next_cursor, count=4)
    third = timelines.profile_page(r, alice["id"], before=second.next_cursor, count=4)
    seen = [s["id"] for page in (first, second, third) for s in page.items]
    assert seen == posted[::-1]
    assert third.next_cursor is None


def test_an_exactly_full_last_page_has_no_older_link(r, alice):
    for i in range(4):
        statuses.post_status(r, alice["id"], f"s{i}")
    page = timelines.profile_page(r, alice["id"], count=4)
    assert len(page.items) == 4
    assert page.next_cursor is None


def test_home_timeline_is_capped(r, alice, bob):
    graph.follow(r, bob["id"], alice["id"])
    posted = [statuses.post_status(r, alice["id"], "x") for _ in range(HOME_TIMELINE_SIZE + 5)]
    home = timelines.home_ids(r, bob["id"])
    assert len(home) == HOME_TIMELINE_SIZE
    assert home[0] == posted[-1]
    assert len(timelines.home_ids(r, alice["id"])) == HOME_TIMELINE_SIZE
    # The profile keeps everything the user posted.
    assert len(timelines.profile_ids(r, alice["id"])) == HOME_TIMELINE_SIZE + 5

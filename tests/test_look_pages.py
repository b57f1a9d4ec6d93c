"""The look's pages (issue 43): the visitor's landing page, the "new since you last read"
divider, trends on a small site, the moderation pages' times."""

from socialsite.repository import graph
from tests.support.helpers import log_in, post


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

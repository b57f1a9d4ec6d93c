"""Mentions, tags and links on the pages: the status component's links, the escaping of
everything around them (an XSS corpus), the tag pages, and the status form's length.
"""

import html as html_module
import re
from html.parser import HTMLParser
from urllib.parse import quote

import pytest

from socialsite import memory
from socialsite.repository import keys, statuses, timelines
from tests.support.helpers import log_in, post
from tests.test_views_timeline import html_of, older_cursor, page_through, status_ids

REL = "nofollow noopener noreferrer ugc"


@pytest.fixture
def alice_client(client, alice):
    return log_in(client, "alice")


class MessageMarkup(HTMLParser):
    """The elements inside each <p class="message" dir="auto"> of a page: [(tag, attrs, text)]."""

    def __init__(self):
        super().__init__()
        self.messages = []
        self.depth = 0  # inside a message: elements open, counting the <p> itself

    def handle_starttag(self, tag, attrs):
        if self.depth:
            self.depth += tag != "br"
            self.messages[-1].append([tag, dict(attrs), ""])
        elif tag == "p" and ("class", "message") in attrs:
            self.depth = 1
            self.messages.append([])

    def handle_endtag(self, tag):
        if self.depth:
            self.depth -= 1

    def handle_data(self, data):
        if self.depth > 1 and self.messages[-1]:
            self.messages[-1][-1][2] += data


def message_elements(html):
    parser = MessageMarkup()
    parser.feed(html)
    return parser.messages


def shown_text(html):
    """The text of the page's first message, as a browser shows it (<br> as a line
    break)."""
    markup = re.search(r'<p class="message" dir="auto">(.*?)</p>', html, re.S).group(1)
    return html_module.unescape(re.sub(r"<[^>]+>", "", markup.replace("<br>", "\n")))


# --- the status component -----------------------------------------------------------------


def test_mentions_tags_and_links_are_links(r, client, alice, bob):
    post(r, alice, "@bob look: #Redis at https://redis.io/docs/latest/develop/ (or @nobody)")
    html = html_of(client.get("/@alice/"))
    assert '<a class="mention" href="/@bob/">@bob</a>' in html
    assert '<a class="hashtag" href="/tags/redis/">#Redis</a>' in html
    assert (
        f'<a href="https://redis.io/docs/latest/develop/" rel="{REL}">'
        "redis.io/docs/latest/develop/</a>"
    ) in html
    assert "(or @nobody)" in html  # nobody by that login: text
    [elements] = message_elements(html)
    assert [(tag, text) for tag, _, text in elements] == [
        ("a", "@bob"),
        ("a", "#Redis"),
        ("a", "redis.io/docs/latest/develop/"),
    ]


def test_a_long_link_shows_cut_and_leads_to_the_whole(r, client, alice):
    url = "https://example.org/a/very/long/path/that/goes/on?and=on"
    post(r, alice, url)
    html = html_of(client.get("/@alice/"))
    assert (
        f'<a href="{url.replace("&", "&amp;")}" rel="{REL}">example.org/a/very/long/path/t…</a>'
        in html
    )


def test_tags_in_any_script_link_to_their_normalized_page(r, client, alice):
    post(r, alice, "#Café ＃東京 #ＲＥＤＩＳ")
    html = html_of(client.get("/@alice/"))
    assert f'<a class="hashtag" href="/tags/{quote("café")}/">#Café</a>' in html
    assert f'<a class="hashtag" href="/tags/{quote("東京")}/">＃東京</a>' in html
    assert '<a class="hashtag" href="/tags/redis/">#ＲＥＤＩＳ</a>' in html


def test_line_breaks_stay_around_entities(r, client, alice):
    post(r, alice, "one #a\ntwo @alice\r\nthree")
    html = html_of(client.get("/@alice/"))
    assert (
        '<p class="message" dir="auto">one <a class="hashtag" href="/tags/a/">#a</a><br>two '
        '<a class="mention" href="/@alice/">@alice</a><br>three</p>'
    ) in html


def test_a_status_posted_before_entities_shows_as_plain_text(r, client, alice, bob):
    sid = post(r, alice, "#old @bob https://example.org <b>")
    r.hdel(keys.status(sid), "entities")
    html = html_of(client.get("/@alice/"))
    assert '<p class="message" dir="auto">#old @bob https://example.org &lt;b&gt;</p>' in html


def test_the_home_page_shows_the_links_too(r, alice_client, alice):
    post(r, alice, "#home https://example.org")
    html = html_of(alice_client.get("/"))
    assert '<a class="hashtag" href="/tags/home/">#home</a>' in html
    assert f'<a href="https://example.org" rel="{REL}">example.org</a>' in html


# Messages that try to get markup, attributes or scripts onto the page through the
# parser: each is posted, and no status may show more than the links it should.
XSS_CORPUS = [
    "<script>alert(1)</script> #tag",
    "#tag<script>alert(1)</script>",
    '#tag"onmouseover="alert(1)',
    'https://example.org/"onmouseover=alert(1)//',
    "https://example.org/'onmouseover='alert(1)",
    "https://example.org/<script>alert(1)</script>",
    "https://example.org/</a><script>alert(1)</script>",
    "https://example.org/?q=<img src=x onerror=alert(1)>",
    "javascript:alert(1)",
    "javascript://example.org/%0aalert(1)",
    "JaVaScRiPt:alert(1) https://ok.example/",
    "data:text/html,<script>alert(1)</script>",
    "https://x.org@evil.example/",
    "@<script>alert(1)</script>",
    "@alice<script>alert(1)</script>",
    "#<script>",
    "&#60;script&#62; &lt;b&gt; #tag",
    "🙂🙂🙂 #tag @alice https://example.org/🙂 <b>",
    "\U0001f1eb\U0001f1f7 #drapeau",
    "https://example.org/#tag@alice",
    "#a#b@alice@bob https://a.org/https://b.org/",
    "e\u0301#tag \u202e#evil\u202c",
]


@pytest.mark.parametrize("message", XSS_CORPUS)
def test_no_message_gets_markup_of_its_own(r, client, alice, message):
    sid = post(r, alice, message)
    html = html_of(client.get("/@alice/"))
    assert "<script>" not in html.split("</header>", 1)[1].split("<footer", 1)[0]
    [elements] = message_elements(html)
    expected = statuses.status_entities(statuses.get_status(r, sid))
    links = len(expected["hashtags"]) + len(expected["user_mentions"]) + len(expected["urls"])
    assert [tag for tag, _, _ in elements if tag != "br"] == ["a"] * links
    for _, attrs, _ in elements:
        assert set(attrs) <= {"href", "rel", "class"}
        href = attrs.get("href", "")
        assert href.startswith(("/@", "/tags/", "https://", "http://")), href
    # What shows is what was written, every character of it, links as display_url.
    written = message
    for url in reversed(expected["urls"]):
        start, end = url["indices"]
        written = written[:start] + url["display_url"] + written[end:]
    assert shown_text(html) == written


def test_stored_entities_that_do_not_fit_the_message_show_nothing_of_theirs(r, client, alice):
    message = "javascript:alert(1) #ok @alice"
    sid = post(r, alice, message)
    # A damaged field: a "link" over the javascript: text, spans past the end or not
    # on a hash sign, and a hashtag overlapping the two entities that are right.
    damaged = '{"u":[[0,19]],"h":[[20,23],[20,30],[21,23],[1,99]],"m":[[24,30,1]]}'
    r.hset(keys.status(sid), "entities", damaged)
    html = html_of(client.get("/@alice/"))
    [elements] = message_elements(html)
    assert [(attrs["href"], text) for _, attrs, text in elements] == [
        ("/tags/ok/", "#ok"),
        ("/@alice/", "@alice"),
    ]
    assert 'href="javascript' not in html
    assert shown_text(html) == message


def test_remembered_markup_is_the_same_as_made_fresh(r, client, alice, bob):
    post(r, alice, "@bob #Redis https://redis.io/")
    first = html_of(client.get("/@alice/"))
    again = html_of(client.get("/@alice/"))
    memory.forget_all()
    fresh = html_of(client.get("/@alice/"))

    def article(html):
        return re.search(r"<article.*?</article>", html, re.S).group(0)

    assert article(first) == article(again) == article(fresh)


# --- tag pages ----------------------------------------------------------------------------


def test_a_tag_page_shows_the_tags_statuses_newest_first(r, client, alice, bob):
    first = post(r, alice, "#redis one")
    post(r, bob, "#django only")
    second = post(r, bob, "＃Ｒｅｄｉｓ two")
    response = client.get("/tags/redis/")
    assert response.status_code == 200
    html = html_of(response)
    assert "<title>#redis" in html
    assert '<h1 class="tag-title">#redis</h1>' in html
    assert status_ids(response) == [second, first]


def test_a_tag_page_shows_30_a_page_and_pages_without_repeats(r, client, alice, bob):
    posted = [post(r, (alice, bob)[n % 2], f"#many {n}") for n in range(65)]
    first = client.get("/tags/many/")
    assert len(status_ids(first)) == 30
    assert older_cursor(first) is not None
    seen, pages = page_through(client, "/tags/many/")
    assert seen == posted[::-1]
    assert pages == 3


def test_a_tag_page_never_shows_a_deleted_status(r, client, alice):
    kept = post(r, alice, "#gone kept")
    gone = post(r, alice, "#gone deleted")
    client.get("/tags/gone/")  # shown once: this process remembers it
    assert statuses.delete_status(r, alice["id"], gone) is statuses.DeleteResult.DELETED
    assert status_ids(client.get("/tags/gone/")) == [kept]


def test_a_tag_page_skips_a_status_whose_hash_is_gone(r, client, alice):
    kept = post(r, alice, "#half kept")
    lost = post(r, alice, "#half lost")
    r.delete(keys.status(lost))  # left on the tag's timeline
    memory.forget_all()  # a process that has not shown it
    assert status_ids(client.get("/tags/half/")) == [kept]


def test_a_tag_page_reads_its_statuses_through_the_deletion_notes(r, client, alice):
    # As a home page: a status this process remembers is trusted without asking whether
    # it still exists, unless the notes every shard keeps say it was deleted lately.
    kept = post(r, alice, "#noted kept")
    lost = post(r, alice, "#noted lost")
    assert status_ids(client.get("/tags/noted/")) == [lost, kept]  # now remembered
    statuses._note_deleted(r, lost)  # noted, still on the tag's timeline
    assert status_ids(client.get("/tags/noted/")) == [kept]


def test_a_tag_page_says_when_it_is_empty(client):
    response = client.get("/tags/quiet/")
    assert response.status_code == 200
    assert "No statuses with #quiet yet." in html_of(response)


@pytest.mark.parametrize(
    ("path", "normalized"),
    [
        ("/tags/Redis/", "/tags/redis/"),
        (f"/tags/{quote('ＲＥＤＩＳ')}/", "/tags/redis/"),
        (f"/tags/{quote('Café')}/", f"/tags/{quote('café')}/"),
        ("/tags/Redis/?before=12", "/tags/redis/?before=12"),
    ],
)
def test_another_spelling_of_a_tag_is_sent_to_its_normalized_page(client, path, normalized):
    response = client.get(path)
    assert response.status_code == 301
    assert response["Location"] == normalized


@pytest.mark.parametrize(
    "tag",
    ["123", "_", "a-b", "a.b", "<script>", "a" * 65, "%20", "🙂", "a b", "\u202e"],
)
def test_an_invalid_tag_is_a_readable_404(client, tag):
    response = client.get(f"/tags/{quote(tag, safe='')}/")
    assert response.status_code == 404
    html = html_of(response)
    assert "a tag is 1 to 64 letters, digits and underscores, with at least one letter" in html
    assert "<script>" not in html.split("<body", 1)[1]


def test_a_tag_page_answers_400_to_a_malformed_cursor(client):
    response = client.get("/tags/redis/?before=abc")
    assert response.status_code == 400


def test_a_tag_of_64_characters_has_a_page(r, client, alice):
    tag = "t" * 64
    sid = post(r, alice, f"#{tag}")
    assert status_ids(client.get(f"/tags/{tag}/")) == [sid]


# --- the status form counts links as 23 ---------------------------------------------------


def test_a_link_counts_23_so_a_long_one_fits(r, alice_client, alice):
    url = "https://example.org/" + "x" * 300
    message = "y" * (280 - 23 - 1) + " " + url  # 280 as counted, 557 as written
    alice_client.post("/statuses/", {"message": message})
    [sid] = timelines.profile_ids(r, alice["id"])
    assert statuses.get_status(r, sid)["message"] == message


def test_a_status_too_long_with_its_links_counted_as_23_is_refused(r, alice_client, alice):
    message = "y" * (280 - 23) + " https://a.io"  # a short link counts 23 too: 281
    alice_client.post("/statuses/", {"message": message})
    html = html_of(alice_client.get("/"))
    assert (
        "A status is at most 280 characters, every link counting as 23; this one has 281." in html
    )
    assert timelines.profile_ids(r, alice["id"]) == []


def test_a_status_is_at_most_1000_characters_as_written(r, alice_client, alice):
    message = "see https://example.org/" + "x" * 1000
    alice_client.post("/statuses/", {"message": message})
    html = html_of(alice_client.get("/"))
    assert (
        "A status is at most 1000 characters as written, links in full; this one has 1024." in html
    )
    assert timelines.profile_ids(r, alice["id"]) == []


def test_a_line_break_counts_as_one_character(r, alice_client, alice):
    message = "a" * 139 + "\r\n" + "b" * 140  # 280 with the line break as one
    alice_client.post("/statuses/", {"message": message})
    [sid] = timelines.profile_ids(r, alice["id"])
    assert statuses.get_status(r, sid)["message"] == message.replace("\r\n", "\n")

"""The live pages' feed, GET /live/home on the streaming server, over real sockets.

The stream server authenticates with the site's session cookie, as the pages do: the
tests log in through the site (Django's test client) and present that cookie.
"""

import json
import re
import time

import pytest
from django.contrib.auth.hashers import make_password

from socialsite.repository import graph, statuses, users
from socialsite_dev.streams import StreamConnection
from tests.support.helpers import PASSWORD, log_in, post

NEW_PASSWORD = "a brand new password of mine"

SITE_PORT = 8123  # the port pages are on, as far as the CORS check knows
# How often a live stream re-reads follows and its session by itself: longer than any
# test here, which shows that follows, logouts and password changes reach it at once
# (tests/test_streaming_live_refresh.py has the periodic reading).
REFRESH_SECONDS = 600


@pytest.fixture(scope="module")
def stream_server_options():
    """This module's stream_server (tests/conftest.py), which has the site's SECRET_KEY
    to read its signed sessions."""
    return {
        "env": {"CSRF_TRUSTED_ORIGINS": "https://*.example.org"},
        "site_port": SITE_PORT,
        "live_refresh": REFRESH_SECONDS,
        "keepalive": 1,
    }


def session_cookie(client, settings, login):
    log_in(client, login)
    return f"{settings.SESSION_COOKIE_NAME}={client.cookies[settings.SESSION_COOKIE_NAME].value}"


def live(server, cookie=None, origin=None, method="GET"):
    headers = {"Accept": "text/event-stream"}
    if cookie:
        headers["Cookie"] = cookie
    if origin:
        headers["Origin"] = origin
    return StreamConnection(server.port, method, "/live/home", headers=headers)


@pytest.fixture
def alice_live(client, settings, stream_server, alice):
    """alice, logged in, with her live feed open."""
    with live(stream_server, session_cookie(client, settings, "alice")) as stream:
        assert stream.status == 200
        yield stream


def follow_while_connected(r, stream, user, other):
    """``user`` follows ``other`` while ``user``'s stream is open; return once the
    stream has picked it up (the follow is published, and the stream reads the follows
    again at once, in a thread): ``other`` posts probes until one comes through. Probes
    posted before that never come."""
    graph.follow(r, user["id"], other["id"])
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        probe = post(r, other, "probe")
        try:
            kind, data = stream.read_event(timeout=0.5)
        except TimeoutError:
            continue
        assert (kind, f'"id": {probe}' in data) == ("status", True)
        return
    raise AssertionError("the live stream never picked up the new follow")


def test_it_refuses_a_visitor_without_a_session(stream_server):
    with live(stream_server) as stream:
        assert stream.status == 401
        assert "Log in" in stream.read_body()


def test_it_refuses_a_made_up_session(stream_server, settings):
    with live(stream_server, f"{settings.SESSION_COOKIE_NAME}=madeup") as stream:
        assert stream.status == 401


def test_it_refuses_a_session_whose_password_changed(client, settings, stream_server, r, alice):
    cookie = session_cookie(client, settings, "alice")
    users.set_password_hash(r, alice["id"], make_password("a brand new password"))
    with live(stream_server, cookie) as stream:
        assert stream.status == 401


def test_it_sends_server_sent_events(alice_live):
    assert alice_live.headers["content-type"].startswith("text/event-stream")
    assert alice_live.read_line() == "retry: 5000"
    assert alice_live.read_line() == ""
    # Nothing happens: a comment comes to keep the connection visibly alive.
    assert alice_live.read_line(timeout=10) == ": keep-alive"


def status_event(stream):
    """The data of the next event, which must be a status."""
    kind, data = stream.read_event()
    assert kind == "status"
    return json.loads(data)


def test_it_sends_the_statuses_of_people_followed_and_ones_own(r, alice, bob, carol, alice_live):
    # Followed after connecting: the stream learns of it within REFRESH_SECONDS.
    follow_while_connected(r, alice_live, alice, bob)
    post(r, carol, "alice does not follow carol")
    by_bob = post(r, bob, "Can we <fix> it? 'Yes' & \"we\" can", location="51.5,-0.12")
    own = post(r, alice, "my own\nsecond line")
    event = status_event(alice_live)
    assert set(event) == {"id", "html"} and event["id"] == by_bob
    html = event["html"]
    assert html.startswith(f'<article class="status" id="status-{by_bob}" ')
    assert html.endswith("</article>")
    assert ('<a class="author" href="/@bob/"><span class="avatar avatar-small avatar-made') in html
    assert (
        'aria-hidden="true">BB</span> <strong class="name"><bdi>Bob Builder</bdi></strong>'
        ' <span class="login">@bob</span></a>'
    ) in html
    assert f'<a class="when" href="/@bob/{by_bob}/" data-full="' in html and ">now</time>" in html
    assert "Can we &lt;fix&gt; it? &#x27;Yes&#x27; &amp; &quot;we&quot; can" in html
    assert "<fix>" not in html
    assert '<p class="location">&#x1F4CD; 51.5,-0.12</p>' in html
    assert 'class="delete"' not in html  # not hers: no delete form
    # The Like and Repost buttons, which submit the home page's one form.
    assert (
        f'form="status-actions" class="icon-button like" formaction="/statuses/{by_bob}/like/"'
        in html
    )
    assert f'formaction="/statuses/{by_bob}/repost/" aria-pressed="false"' in html
    event = status_event(alice_live)
    assert event["id"] == own
    html = event["html"]
    assert '<strong class="name"><bdi>Alice Liddell</bdi></strong>' in html
    assert "my own<br>second line" in html
    # Her own: a delete form, whose CSRF token the page's script fills in.
    assert f'<form method="post" action="/statuses/{own}/delete/" class="delete">' in html
    assert '<input type="hidden" name="csrfmiddlewaretoken" value="">' in html
    assert '<input type="hidden" name="next" value="/">' in html


def test_a_live_status_is_the_markup_the_page_shows_for_it(client, r, alice, bob, alice_live):
    # One macro makes both: whatever a status shows on a page, it shows live.
    follow_while_connected(r, alice_live, alice, bob)
    by_bob = post(r, bob, "Same <b>markup</b>\nlive & on the page", location="48.8566,2.3522")
    own = post(r, alice, "mine, with its delete form")
    live_html = {}
    for _ in range(2):
        event = status_event(alice_live)
        live_html[event["id"]] = event["html"]
    page = client.get("/").content.decode()  # alice's home page

    def shown(sid):
        article = re.search(rf'<article class="status" id="status-{sid}".*?</article>', page, re.S)
        return article.group(0)

    # The same but for the page's CSRF token (its forms'), which the live page puts in.
    token = re.compile(r'(name="csrfmiddlewaretoken" value=")[^"]+"')
    assert token.search(shown(own))  # the delete form's: others' have no form of their own
    assert live_html[by_bob] == token.sub(r'\1"', shown(by_bob))
    assert live_html[own] == token.sub(r'\1"', shown(own))


def test_a_live_status_links_its_mentions_tags_and_links_as_the_page_does(
    client, r, alice, bob, alice_live
):
    sid = post(r, alice, "🙂 @bob <b>#Redis</b> https://redis.io/\n#two")
    live_html = status_event(alice_live)["html"]
    assert '<a class="mention" href="/@bob/">@bob</a>' in live_html
    assert '&lt;b&gt;<a class="hashtag" href="/tags/redis/">#Redis</a>&lt;/b&gt;' in live_html
    assert (
        '<a href="https://redis.io/" rel="nofollow noopener noreferrer ugc">redis.io/</a>'
        '<br><a class="hashtag" href="/tags/two/">#two</a>'
    ) in live_html
    page = client.get("/").content.decode()  # alice's home page
    message = re.compile(r'<p class="message" dir="auto">.*?</p>', re.S)
    shown = re.search(rf'<article class="status" id="status-{sid}".*?</article>', page, re.S)
    assert message.search(live_html).group(0) == message.search(shown.group(0)).group(0)


def test_a_status_whose_markup_cannot_be_made_is_left_out(caplog):
    from streaming.filters import StatusEvent
    from timeline.live import ServerSentEvents

    def broken(event, own):
        raise ValueError("no such field")

    events = ServerSentEvents(broken).for_viewer(1)
    assert events.bytes_for(StatusEvent({"id": 5, "uid": 2})) == b": status 5 left out\n\n"
    assert "Could not make the markup of status 5" in caplog.text
    deleted = StatusEvent({"id": 5, "uid": 2, "deleted": True})
    assert events.bytes_for(deleted) == b'event: delete\ndata: {"id": 5}\n\n'


def test_it_sends_the_deletions_of_those_statuses(r, alice, bob, alice_live):
    follow_while_connected(r, alice_live, alice, bob)
    sid = post(r, bob, "oops")
    statuses.delete_status(r, bob["id"], sid)
    assert alice_live.read_event()[0] == "status"
    assert alice_live.read_event() == ("delete", f'{{"id": {sid}}}')


def test_following_at_connection_time_counts_at_once(
    client, settings, stream_server, r, alice, bob
):
    graph.follow(r, alice["id"], bob["id"])
    with live(stream_server, session_cookie(client, settings, "alice")) as stream:
        sid = post(r, bob, "hello alice")
        kind, data = stream.read_event()
    assert kind == "status"
    assert f'"id": {sid}' in data


def test_a_logout_elsewhere_ends_the_stream_at_once(client, settings, alice_live):
    client.post("/accounts/logout/")
    # The logout is published: the stream checks the session now and ends its response.
    assert alice_live.read_event(timeout=10) is None
    assert alice_live.ended


def test_a_password_change_elsewhere_ends_the_other_sessions_streams_at_once(
    client, settings, stream_server, alice, alice_live
):
    from django.test import Client

    elsewhere = Client()
    log_in(elsewhere, "alice")
    response = elsewhere.post(
        "/accounts/password/",
        {"old_password": PASSWORD, "new_password1": NEW_PASSWORD, "new_password2": NEW_PASSWORD},
    )
    assert response.status_code == 302
    assert alice_live.read_event(timeout=10) is None
    assert alice_live.ended


def test_an_unfollow_stops_the_statuses_at_once(r, alice, bob, alice_live):
    follow_while_connected(r, alice_live, alice, bob)
    graph.unfollow(r, alice["id"], bob["id"])
    time.sleep(1)  # the stream reads the follows again in a thread
    post(r, bob, "alice no longer follows bob")
    own = post(r, alice, "mine")
    assert status_event(alice_live)["id"] == own


def test_pages_of_the_site_may_read_the_stream_across_ports(client, settings, stream_server, alice):
    cookie = session_cookie(client, settings, "alice")
    for origin in (f"http://localhost:{SITE_PORT}", "https://www.example.org"):
        with live(stream_server, cookie, origin) as stream:
            assert stream.status == 200
            assert stream.headers["access-control-allow-origin"] == origin
            assert stream.headers["access-control-allow-credentials"] == "true"


@pytest.mark.parametrize(
    "origin",
    [
        "http://evil.example:8123",  # not an allowed host
        "http://localhost:9999",  # an allowed host, but not the site's port
        "https://localhost:8123.evil.example",
        "http://example.org",  # trusted only over https, and with a subdomain
        "null",
    ],
)
def test_other_origins_get_no_cors_headers(client, settings, stream_server, alice, origin):
    with live(stream_server, session_cookie(client, settings, "alice"), origin) as stream:
        assert "access-control-allow-origin" not in stream.headers
        assert "access-control-allow-credentials" not in stream.headers


def test_it_answers_a_cors_preflight(stream_server):
    origin = f"http://127.0.0.1:{SITE_PORT}"
    with live(stream_server, origin=origin, method="OPTIONS") as stream:
        assert stream.status == 204
        assert stream.headers["access-control-allow-origin"] == origin
        assert stream.headers["access-control-allow-methods"] == "GET"


def test_it_only_answers_get(stream_server):
    with live(stream_server, method="POST") as stream:
        assert stream.status == 405


# --- replies and unread counts ------------------------------------------------------------


def test_a_reply_comes_live_only_under_the_home_timelines_rule(r, alice, bob, carol, alice_live):
    follow_while_connected(r, alice_live, alice, bob)
    to_carol = statuses.post_status(r, bob["id"], "not for alice", in_reply_to=post(r, carol, "c"))
    to_alice = statuses.post_status(r, bob["id"], "for alice", in_reply_to=post(r, alice, "a"))
    assert to_carol < to_alice

    def next_status():  # the reply to alice notifies her too: that event is passed over
        while True:
            kind, data = alice_live.read_event()
            if kind == "status":
                return json.loads(data)

    assert next_status()["id"] == to_alice - 1  # her own status first
    event = next_status()
    assert event["id"] == to_alice
    assert 'Replying to <a href="/@alice/">@alice</a>' in event["html"]


def unread_event(stream, above_version):
    """The data of the next unread-count event newer than ``above_version``; status
    events and older counts (on a cluster, ones of earlier tests still on their way,
    for users who had the same ids) are passed over."""
    while True:
        kind, data = stream.read_event()
        if kind == "unread" and json.loads(data)["version"] > above_version:
            return json.loads(data)


def test_a_users_unread_count_comes_to_their_live_pages_alone(
    r, keys_module, alice, bob, carol, alice_live
):
    # Versions far above those of earlier tests whose users had the same ids.
    for user in (alice, bob):
        r.hset(keys_module.notifications_state(user["id"]), "version", 1_000_000)
    graph.follow(r, carol["id"], bob["id"])  # bob's: not sent to alice
    statuses.post_status(r, carol["id"], "hi @alice", mentioned_uids=[alice["id"]])
    assert unread_event(alice_live, 1_000_000) == {"count": 1, "version": 1_000_001}
    graph.follow(r, bob["id"], alice["id"])
    assert unread_event(alice_live, 1_000_001) == {"count": 2, "version": 1_000_002}


@pytest.fixture
def keys_module():
    from socialsite.repository import keys

    return keys


def test_a_live_status_shows_its_images_and_warning_as_the_page_does(
    client, r, alice, alice_live, media_root
):
    from django.core.files.uploadedfile import SimpleUploadedFile

    from tests.test_media_images import png

    images = [SimpleUploadedFile(f"{n}.png", png(), "image/png") for n in (1, 2)]
    form = {"message": "look", "spoiler_text": "Birds", "media": images,
            "media_description": ["a heron", "a swan"]}  # fmt: skip
    assert client.post("/statuses/", form).status_code == 302
    event = status_event(alice_live)
    live_html = event["html"]
    warning = '<details class="content-warning"><summary><span class="cw-text">Birds</span>'
    assert warning in live_html
    assert 'alt="a heron"' in live_html and 'alt="a swan"' in live_html
    page = client.get("/").content.decode()
    shown = re.search(rf'<article class="status" id="status-{event["id"]}".*?</article>', page,
                      re.S)  # fmt: skip
    token = re.compile(r'(name="csrfmiddlewaretoken" value=")[^"]+"')
    assert live_html == token.sub(r'\1"', shown.group(0))


def test_a_live_repost_shows_its_originals_images(r, alice, bob, carol, alice_live):
    from socialsite.repository import keys, reposts

    media = {"o": "attachments/oooooooooooooooooooooo.jpg", "w": 800, "h": 600,
             "p": "attachments/pppppppppppppppppppppp.jpg", "pw": 640, "ph": 480,
             "a": "A kingfisher", "c": "#3a6e9a"}  # fmt: skip
    by_carol = post(r, carol, "", **{keys.STATUS_MEDIA_FIELD: json.dumps([media])})
    follow_while_connected(r, alice_live, alice, bob)
    reposts.repost(r, bob["id"], by_carol)
    live_html = status_event(alice_live)["html"]
    assert "reposted" in live_html
    assert 'src="/media/attachments/pppppppppppppppppppppp.jpg" alt="A kingfisher"' in live_html

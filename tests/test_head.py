"""HEAD on every address of the site answers what GET answers, without a body
(socialsite/head.py). The addresses come from the URLconf, so a page added later is
walked without anyone remembering it; one whose address takes a parameter this test
has no value for fails until it is given one (the ``site`` fixture).

Requests go through Django's WSGI handler itself, not the test client (which drops a
HEAD's body on its own), as a visitor, a logged-in owner and a moderator; and one page
over a socket.
"""

import http.client
import re
from io import BytesIO
from urllib.parse import urlsplit

import pytest
from django.conf import settings
from django.core.handlers.wsgi import WSGIHandler
from django.test import Client, RequestFactory
from django.urls import URLPattern, URLResolver, get_resolver
from PIL import Image

from media import files, images
from socialsite.repository import communities, direct, graph, lists, moderation, statuses, users
from tests.support.helpers import log_in, make_user, post


def png_bytes():
    buffer = BytesIO()
    Image.new("RGB", (30, 10), "orange").save(buffer, "PNG")
    return buffer.getvalue()


PARAMETER = re.compile(r"<(?:\w+:)?(\w+)>")

# Header fields a HEAD must answer as its GET did (others, such as Set-Cookie with a
# new CSRF token, differ from one request to the next).
SAME_FIELDS = ("Content-Type", "Location", "Allow", "Cache-Control", "X-RateLimit-Limit")


def routes(patterns=None, prefix=""):
    """Every route of the URLconf, its includes' prefixes joined: "@<str:login>/"."""
    for entry in get_resolver().url_patterns if patterns is None else patterns:
        if isinstance(entry, URLResolver):
            yield from routes(entry.url_patterns, prefix + str(entry.pattern))
        else:
            assert isinstance(entry, URLPattern)
            yield prefix + str(entry.pattern)


@pytest.fixture
def site(r, alice, bob, media_root):
    """alice's public statuses (a tag, a mention), a list, a report; a moderator; a
    stored picture."""
    mod = make_user(r, "mod")
    moderation.add_moderator(r, mod["id"])
    graph.follow(r, bob["id"], alice["id"])
    sid = post(r, alice, "hello #walked @bob")
    statuses.post_status(r, bob["id"], "a reply", in_reply_to=sid)
    _, list_id = lists.create_list(r, alice["id"], "friends")
    communities.create(r, alice["id"], "walked", "Walked", "", "public")  # groups
    report_id = moderation.file_report(r, bob, alice, "spam", status_ids=[sid])
    talk = direct.start(r, alice["id"], [users.get_user(r, bob["id"])], "hello bob", "k" * 22)
    picture = images.read_image(png_bytes())
    (header,) = files.save_all("headers", [images.header(picture)])
    return {
        "name": header,
        "login": "alice",
        "status_id": str(sid),
        "tag": "walked",
        "list_id": str(list_id),
        "report_id": str(report_id),
        # A direct conversation of alice's and its message.
        "cid": str(talk.cid),
        "mid": str(talk.mid),
        # The mailed links' pages, for links that do not work (a readable 400).
        "uidb64": "MQ",
        "token": "expired-or-forged",
        # An OAuth app's revoke form (api/oauth_views.py): POST only.
        "client_id": "no-such-app",
        # The client API's ids (api/): a visitor and a session get its 401.
        "account_id": str(alice["id"]),
        "notification_id": "1",
        "media_id": "AAAAAAAAAAAAAAAAAAAAAA",
        "conversation_id": str(talk.cid),
        "group_key": "follow-0",
        # Groups: a public group of alice's; its forms' parts (POST only).
        "slug": "walked",
        "act": "promote",
        "decision": "approve",
        # A poll (named by its status), a keyword filter and one of its keywords.
        "poll_id": str(sid),
        "filter_id": "1",
        "keyword_id": "1",
    }


def wsgi(method, path, cookie=""):
    """(status code, headers, body) of ``method path`` through Django's WSGI handler."""
    environ = RequestFactory().generic(method, path, REMOTE_ADDR="203.0.113.7").environ
    environ.update({"HTTP_COOKIE": cookie, "wsgi.input": BytesIO(b"")})
    answer = {}

    def start_response(status, headers, exc_info=None):
        answer["status"], answer["headers"] = int(status.split()[0]), dict(headers)

    response = WSGIHandler()(environ, start_response)
    try:
        body = b"".join(response)
    finally:
        response.close()
    return answer["status"], answer["headers"], body


def session_cookie(login):
    client = log_in(Client(REMOTE_ADDR="203.0.113.7"), login)
    client.get("/")  # shows "Welcome back": no page after it differs by that message
    return f"{settings.SESSION_COOKIE_NAME}={client.cookies[settings.SESSION_COOKIE_NAME].value}"


def test_head_answers_every_address_as_get_without_a_body(site):
    viewers = {"visitor": "", "alice": session_cookie("alice"), "mod": session_cookie("mod")}
    walked = 0
    for route in routes():
        names = PARAMETER.findall(route)
        missing = [name for name in names if name not in site]
        assert not missing, f"give test_head.py a value for {missing} ({route})"
        path = "/" + PARAMETER.sub(lambda match: site[match.group(1)], route)
        for viewer, cookie in viewers.items():
            # A GET first, for pages that change what they show once seen (the
            # notifications' badge): the HEAD and the GET after it see the same.
            wsgi("GET", path, cookie)
            head_status, head_headers, head_body = wsgi("HEAD", path, cookie)
            status, headers, body = wsgi("GET", path, cookie)
            where = f"HEAD {path} as {viewer}"
            assert head_status == status, f"{where}: {head_status}, GET {status}"
            assert head_body == b"", where
            for field in SAME_FIELDS:
                assert head_headers.get(field) == headers.get(field), f"{where}: {field}"
            if "Content-Length" in headers:
                assert head_headers.get("Content-Length") == str(len(body)), where
            walked += status != 405
    assert walked > 90  # most addresses are pages for one viewer or another


def test_head_gets_no_download_made(site):
    """The account's export is made as it is sent: a HEAD does not make it."""
    status, headers, body = wsgi("HEAD", "/settings/export/", session_cookie("alice"))
    assert status == 200 and body == b""
    assert headers["Content-Type"] == "application/zip"


def test_a_405_names_head_where_it_names_get(site):
    status, headers, _ = wsgi("OPTIONS", "/accounts/login/")  # CSRF lets it by
    assert status == 405
    assert headers["Allow"] == "GET, POST, HEAD"
    status, headers, _ = wsgi("HEAD", "/accounts/logout/")
    assert status == 405 and headers["Allow"] == "POST"


def test_head_over_a_socket(live_server):
    """On the wire (Django's threaded server): the GET's status and length, no body."""
    address = urlsplit(live_server.url)
    answers = {}
    for method in ("GET", "HEAD"):
        connection = http.client.HTTPConnection(address.hostname, address.port, timeout=10)
        connection.request(method, "/accounts/login/")
        response = connection.getresponse()
        answers[method] = response.status, response.getheader("Content-Length"), response.read()
        connection.close()
    get_status, get_length, page = answers["GET"]
    assert get_status == 200 and get_length == str(len(page)) and b"Log in" in page
    assert answers["HEAD"] == (200, get_length, b"")


def test_head_marks_nothing_read(r, alice, bob):
    """A HEAD shows nobody anything (a link checker, a monitor, a prefetch): the pages
    that mark something read when shown (notifications, a conversation, the home page's
    "new since you last read") mark nothing for it; the GET after it still does."""
    from socialsite.repository import markers, notifications

    graph.follow(r, alice["id"], bob["id"])
    graph.follow(r, bob["id"], alice["id"])
    cookie = session_cookie("bob")
    post(r, alice, "for @bob to see")
    talk = direct.start(r, alice["id"], [users.get_user(r, bob["id"])], "hello bob", "k" * 22)

    def unread():
        home = markers.get_markers(r, bob["id"]).get(markers.HOME)
        return (
            notifications.unread(r, bob["id"]).count,
            direct.unread(r, bob["id"]).count,
            home.last_read_id if home else None,
        )

    before = unread()
    assert before[0] >= 1 and before[1] == 1
    for path in ("/notifications/", f"/messages/{talk.cid}/", "/"):
        assert wsgi("HEAD", path, cookie)[0] == 200
    assert unread() == before
    for path in ("/notifications/", f"/messages/{talk.cid}/", "/"):
        assert wsgi("GET", path, cookie)[0] == 200
    after = unread()
    assert after[:2] == (0, 0) and after[2] != before[2]

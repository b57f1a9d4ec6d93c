"""Helpers the test modules share: users, logging in, posting, counting commands.

Fixtures (the personas alice, bob and carol, the Redis servers, the stream server) are
in tests/conftest.py; these are plain functions.
"""

import io
import json
import re
import zipfile

from django.contrib.auth.hashers import make_password
from redis.cluster import RedisCluster

from socialsite.repository import statuses, users

# Every test user's password.
PASSWORD = "correct horse battery staple"

CSRF_INPUT = re.compile(r'name="csrfmiddlewaretoken" value="([^"]+)"')


def make_user(r, login, name=None):
    """A signed-up user (with PASSWORD) as the repository's dict."""
    uid = users.create_user(r, login, name or login.title(), make_password(PASSWORD))
    return users.get_user(r, uid)


def csrf_token(response):
    """The CSRF token of the form on a page."""
    match = CSRF_INPUT.search(response.content.decode())
    assert match, "the page has no CSRF token"
    return match.group(1)


def log_in(client, login, password=PASSWORD):
    """Log ``client`` (Django's test client) in through the login form; return it.

    A client that enforces CSRF checks, as browsers do, first loads the form for its
    token, as a browser would.
    """
    form = {"username": login, "password": password}
    if client.handler.enforce_csrf_checks:
        form["csrfmiddlewaretoken"] = csrf_token(client.get("/accounts/login/"))
    response = client.post("/accounts/login/", form)
    assert response.status_code == 302, response.content.decode()
    return client


def log_in_browser(page, login, password=PASSWORD):
    """Log in through the login form in ``page`` (Playwright's, on the live server)."""
    from playwright.sync_api import expect  # only the browser tests have it

    page.goto("/accounts/login/")
    page.get_by_label(re.compile(r"^Login name:?$")).fill(login)
    page.get_by_label(re.compile(r"^Password:?$")).fill(password)
    page.get_by_role("button", name="Log in").click()
    # The header's account menu names the account (statuses may name @login too).
    menu = page.locator("header .account-menu > summary")
    expect(menu).to_have_attribute("aria-label", f"Account menu of @{login}")


def flash(page):
    """The flash messages list of a browser's page (not the statuses, whose text is a
    p.message too)."""
    return page.locator("ul.messages li.message")


def account_menu(page):
    """The header's account menu (Lists, Settings, Password, Moderation, Log out), opened."""
    menu = page.locator("header .account-menu")
    if menu.get_attribute("open") is None:
        menu.locator("> summary").click()
    return menu


def answer_of(response):
    """What ``response`` answers, to compare two answers word for word: its status code
    and its body; of a page, its <main> (the header around it counts the reader's
    unread notifications, which change with anything), without the messages flashed
    to the session before and without what differs between any two requests (the
    request's id, the CSRF token)."""
    content = b"".join(response.streaming_content) if response.streaming else response.content
    body = content.decode(errors="replace")
    main = re.search(r"<main\b.*?</main>", body, re.S)
    if main is not None:
        body = main.group(0)
        flashed = r'<div role="status"><ul class="messages">.*?</ul></div>'
        body = re.sub(flashed, "", body, flags=re.S)
    body = re.sub(r'<p class="request-id">.*?</p>', "", body)
    body = re.sub(r'(name="csrfmiddlewaretoken" value=)"[^"]*"', r"\1", body)
    return response.status_code, body


def post(r, user, message, **data):
    """``user`` posts ``message`` through the repository; the status id."""
    return statuses.post_status(r, user["id"], message, **data)


def stored_files(root):
    """The files under ``root`` (a MEDIA_ROOT), as names relative to it."""
    if not root.exists():
        return []
    return sorted(str(path.relative_to(root)) for path in root.rglob("*") if path.is_file())


def exported(response):
    """The export download of ``response`` (/settings/export/, a streamed zip; or its
    bytes): (its JSON data, {name in the zip: bytes} of its other files)."""
    if not isinstance(response, bytes):
        response = b"".join(response.streaming_content)
    archive = zipfile.ZipFile(io.BytesIO(response))
    assert archive.testzip() is None
    names = archive.namelist()
    data = json.loads(archive.read(names[0]))
    return data, {name: archive.read(name) for name in names[1:]}


# --- the client API ---------------------------------------------------------------------

# The scopes of the test app's tokens (tests/conftest.py: ``app``, ``token``).
READ_WRITE = ["read", "write", "follow"]


def bearer(token):
    """The Django test client's keyword for an ``Authorization: Bearer`` header."""
    return {"HTTP_AUTHORIZATION": f"Bearer {token}"}


def _all_nodes(r):
    return {"target_nodes": RedisCluster.ALL_NODES} if isinstance(r, RedisCluster) else {}


def reset_command_stats(r):
    """Start counting commands again (CONFIG RESETSTAT on every node)."""
    r.config_resetstat(**_all_nodes(r))


def command_calls(r, command):
    """How often ``command`` ran since reset_command_stats, scripts' calls included."""
    info = r.info("commandstats", **_all_nodes(r))
    nodes = info.values() if isinstance(r, RedisCluster) else [info]
    return sum(node.get(f"cmdstat_{command}", {}).get("calls", 0) for node in nodes)

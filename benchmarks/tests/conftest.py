"""Fixtures of the benchmarks' own tests: one throwaway Redis server (socialsite_dev) for
the session, emptied around every test, and the benchmarks' app installed, as
``--settings benchmarks.settings`` installs it. The benchmarks measure pages and
processes, not the data layer: these tests run once, on one server (tests/conftest.py
marks them ``pages_once``, which the cluster run of ./run-tests leaves out).
"""

import pytest
from django.contrib.auth.hashers import make_password

from socialsite import connection
from socialsite.repository import client as repository_client
from socialsite.repository import users
from socialsite_dev.redis_servers import RedisServer

PASSWORD = "correct horse battery staple"


@pytest.fixture(scope="session")
def redis_backend(tmp_path_factory):
    """One running redis-server: an object with .url, .cluster (False) and .stop()."""
    server = RedisServer(tmp_path_factory.mktemp("benchmarks-redis")).start()
    server.cluster = False
    yield server
    server.stop()


@pytest.fixture(scope="session")
def redis_client(redis_backend):
    return repository_client.connect(redis_backend.url, cluster=False)


@pytest.fixture(autouse=True)
def r(redis_client, redis_backend, settings):
    """The repository's client on an empty server, which Django code uses too; the
    benchmarks' app installed, so that their management commands exist."""
    settings.INSTALLED_APPS = [*settings.INSTALLED_APPS, "benchmarks"]
    settings.PASSWORD_HASHERS = ["socialsite_dev.hashers.QuickArgon2PasswordHasher"]
    settings.REDIS_URL = redis_backend.url
    settings.REDIS_CLUSTER = False
    repository_client.flush_all(redis_client)
    connection.use_redis(redis_client)
    yield redis_client
    repository_client.flush_all(redis_client)


def _user(r, login, name):
    uid = users.create_user(r, login, name, make_password(PASSWORD))
    return users.get_user(r, uid)


@pytest.fixture
def alice(r):
    return _user(r, "alice", "Alice Liddell")


@pytest.fixture
def bob(r):
    return _user(r, "bob", "Bob Builder")

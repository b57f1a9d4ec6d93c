"""The production layout of deploy/, run: nginx with deploy/nginx/socialsite.conf in front
of gunicorn, a fan-out worker and the stream server, each started from its systemd unit's
ExecStart, with the example environment's production settings (HTTPS, BEHIND_PROXY,
STREAM_PUBLIC_URL=/stream). Everything below goes through nginx only, over TLS.

The config is templated onto free loopback ports and a temporary prefix (a self-signed
certificate, its own pid file and logs; nothing written under /etc), and nginx runs as the
current user. Debian's nginx: ./run-tests (and so CI's .ci/run) installs it with apt-get
when missing, as it does chromium; without it the test is skipped with the reason, except
with CI=true: there it fails.
"""

import getpass
import http.client
import os
import re
import secrets
import shutil
import signal
import ssl
import subprocess
import sys
import time
from pathlib import Path

import pytest

try:
    from playwright.sync_api import expect
except ImportError:  # pragma: no cover - the browser fixture skips (or fails with CI=true)
    expect = None

from socialsite.repository import graph, timelines, users
from socialsite_dev.ports import free_port
from socialsite_dev.streams import StreamConnection
from tests.support.helpers import PASSWORD, log_in_browser, make_user
from tests.test_profile_browser import png_bytes

REPO = Path(__file__).resolve().parents[1]
DEPLOY = REPO / "deploy"
TIMEOUT_MS = 20_000


def in_ci():
    return os.environ.get("CI", "").strip().lower() in {"true", "1", "yes"}


def nginx_binary():
    """nginx's path (Debian puts it in /usr/sbin), or None."""
    return shutil.which("nginx") or shutil.which("nginx", path="/usr/sbin:/sbin")


@pytest.fixture(scope="module")
def nginx():
    path = nginx_binary()
    if path is None:
        reason = (
            "nginx is not installed: apt-get install nginx (./run-tests does, as root,"
            " as it does chromium)"
        )
        if in_ci():
            pytest.fail(f"CI=true and {reason}", pytrace=False)
        pytest.skip(reason)
    return path


def exec_start(unit, replacements):
    """The argv of a deploy/systemd unit's ExecStart, with /srv/socialsite's programs
    made this checkout's and each of ``replacements`` (text: text) applied."""
    text = (DEPLOY / "systemd" / unit).read_text()
    line = next(line for line in text.splitlines() if line.startswith("ExecStart="))
    command = line.removeprefix("ExecStart=")
    for old, new in replacements.items():
        assert old in command, f"{unit}: {old!r} not in {command!r}"
        command = command.replace(old, new)
    argv = command.split()
    program = argv[0].removeprefix("/srv/socialsite/.venv/bin/")
    assert program in ("python", "gunicorn"), argv
    if program == "python":
        return [sys.executable, *argv[1:]]
    return [sys.executable, "-m", "gunicorn", *argv[1:]]


def nginx_site(ports, tmp, static_root, media_root):
    """deploy/nginx/socialsite.conf on loopback ports, with the test's certificate and
    directories."""
    site = (DEPLOY / "nginx" / "socialsite.conf").read_text()
    replacements = {
        "server 127.0.0.1:8000;": f"server 127.0.0.1:{ports['web']};",
        "server 127.0.0.1:8001;": f"server 127.0.0.1:{ports['stream']};",
        "listen 443 ssl http2;": f"listen 127.0.0.1:{ports['https']} ssl http2;",
        "listen [::]:443 ssl http2;": "",
        "listen 80;": f"listen 127.0.0.1:{ports['http']};",
        "listen [::]:80;": "",
        "/etc/letsencrypt/live/social.example.org/fullchain.pem": str(tmp / "cert.pem"),
        "/etc/letsencrypt/live/social.example.org/privkey.pem": str(tmp / "key.pem"),
        "alias /srv/socialsite/staticfiles/;": f"alias {static_root}/;",
        "alias /srv/socialsite/var/media/;": f"alias {media_root}/;",
        "server_name social.example.org;": "server_name localhost;",
        "/var/log/nginx/socialsite-stream.log": str(tmp / "stream-access.log"),
        "/var/log/nginx/socialsite.log": str(tmp / "site-access.log"),
        "/var/log/nginx/socialsite-error.log": str(tmp / "site-error.log"),
    }
    for old, new in replacements.items():
        assert old in site, f"deploy/nginx/socialsite.conf no longer has {old!r}"
        site = site.replace(old, new)
    return site


def nginx_main_config(tmp, site_path):
    """A main nginx.conf of the test's own: its pid file, logs and temporary files under
    ``tmp``, in the foreground, as the current user."""
    paths = {name: tmp / name for name in ("body", "proxy", "fastcgi", "uwsgi", "scgi")}
    for path in paths.values():
        path.mkdir()
    user = f"user {getpass.getuser()};" if os.geteuid() == 0 else ""
    return f"""
{user}
daemon off;
worker_processes 1;
pid {tmp / "nginx.pid"};
error_log {tmp / "error.log"} info;
events {{ worker_connections 256; }}
http {{
    include /etc/nginx/mime.types;
    default_type application/octet-stream;
    access_log {tmp / "access.log"};
    client_body_temp_path {paths["body"]};
    proxy_temp_path {paths["proxy"]};
    fastcgi_temp_path {paths["fastcgi"]};
    uwsgi_temp_path {paths["uwsgi"]};
    scgi_temp_path {paths["scgi"]};
    include {site_path};
}}
"""


class Processes:
    """Child processes, each in a session of its own, stopped (SIGTERM, then SIGKILL)
    in reverse order; their logs in ``tmp``."""

    def __init__(self, tmp):
        self.tmp = tmp
        self.started = []

    def start(self, name, argv, env):
        log = open(self.tmp / f"{name}.log", "ab")  # noqa: SIM115 - closed in stop_all
        process = subprocess.Popen(
            argv, cwd=REPO, env=env, stdout=log, stderr=log, start_new_session=True
        )
        self.started.append((name, process, log))
        return process

    def logs(self):
        return "\n".join(
            f"--- {name}.log\n{(self.tmp / f'{name}.log').read_text(errors='replace')[-3000:]}"
            for name, _, _ in self.started
        )

    def stop_all(self):
        for _, process, log in reversed(self.started):
            if process.poll() is None:
                os.killpg(process.pid, signal.SIGTERM)
                try:
                    process.wait(15)
                except subprocess.TimeoutExpired:
                    os.killpg(process.pid, signal.SIGKILL)
                    process.wait()
            log.close()


def https_request(port, path, method="GET", headers=None, source="127.0.0.1"):
    """(status, headers, body) of one request to nginx's TLS port, from ``source``."""
    connection = http.client.HTTPSConnection(
        "localhost", port, timeout=10, source_address=(source, 0), context=insecure_tls()
    )
    try:
        connection.request(method, path, headers=headers or {})
        response = connection.getresponse()
        return response.status, dict(response.getheaders()), response.read()
    finally:
        connection.close()


def insecure_tls():
    """The test's self-signed certificate is trusted by not checking it."""
    context = ssl.create_default_context()
    context.check_hostname = False
    context.verify_mode = ssl.CERT_NONE
    return context


def wait_for(what, check, processes, timeout=60.0):
    deadline = time.monotonic() + timeout
    while True:
        for name, process, _ in processes.started:
            if process.poll() is not None:
                pytest.fail(f"{name} exited ({process.returncode}) while waiting for {what}:\n"
                            f"{processes.logs()}")  # fmt: skip
        try:
            if check():
                return
        except OSError:
            pass  # not listening yet
        if time.monotonic() > deadline:
            pytest.fail(f"timed out waiting for {what}:\n{processes.logs()}")
        time.sleep(0.2)


def http_status(port, path):
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
    try:
        connection.request("GET", path, headers={"Host": "localhost"})
        return connection.getresponse().status
    finally:
        connection.close()


@pytest.fixture
def production(r, redis_backend, nginx, tmp_path):
    """The layout running: {"port": nginx's TLS port, "http_port", "media_root", ...}."""
    if redis_backend.cluster:
        pytest.skip("the layout runs once, on the single server")
    ports = {name: free_port() for name in ("web", "stream", "https", "http")}
    data_dir = tmp_path / "var"
    static_root, media_root = tmp_path / "staticfiles", data_dir / "media"
    media_root.mkdir(parents=True)
    origin = f"https://localhost:{ports['https']}"
    # The site's metrics under its own DATA_DIR: gunicorn empties its metrics directory
    # when it starts, which must not be the one this test process writes to.
    inherited = {
        name: value
        for name, value in os.environ.items()
        if name not in ("METRICS_DIR", "PROMETHEUS_MULTIPROC_DIR")
    }
    env = {
        **inherited,
        "DJANGO_SETTINGS_MODULE": "socialsite.settings",
        "DEBUG": "false",
        "SECRET_KEY": secrets.token_urlsafe(50),
        "REDIS_URL": redis_backend.url,
        "REDIS_CLUSTER": "false",
        "ALLOWED_HOSTS": "localhost",
        "CSRF_TRUSTED_ORIGINS": origin,
        "SITE_URL": origin,
        "HTTPS": "true",
        "BEHIND_PROXY": "true",
        "STREAM_PUBLIC_URL": "/stream",
        "EMAIL_URL": "console:",
        "EMAIL_VERIFICATION": "off",
        "DATA_DIR": str(data_dir),
        "STATIC_ROOT": str(static_root),
        "MEDIA_ROOT": str(media_root),
        # A post to more than one follower goes to the worker.
        "INLINE_FANOUT_LIMIT": "1",
        "THROTTLE_SEARCH": "3/5m",
        "LOG_LEVEL": "WARNING",
    }
    subprocess.run(
        [sys.executable, "manage.py", "collectstatic", "--noinput"],
        cwd=REPO, env=env, check=True, capture_output=True,
    )  # fmt: skip
    subprocess.run(
        ["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2",
         "-subj", "/CN=localhost", "-keyout", str(tmp_path / "key.pem"),
         "-out", str(tmp_path / "cert.pem")],
        check=True, capture_output=True,
    )  # fmt: skip
    site_path = tmp_path / "socialsite.conf"
    site_path.write_text(nginx_site(ports, tmp_path, static_root, media_root))
    main_path = tmp_path / "nginx.conf"
    main_path.write_text(nginx_main_config(tmp_path, site_path))

    processes = Processes(tmp_path)
    try:
        processes.start(
            "gunicorn",
            exec_start("socialsite-web.service", {
                "127.0.0.1:8000": f"127.0.0.1:{ports['web']}",
                "--workers 5": "--workers 2",
            }),
            env,
        )  # fmt: skip
        processes.start("fanout", exec_start("socialsite-fanout@.service", {}), env)
        processes.start(
            "stream",
            exec_start("socialsite-stream.service", {
                "--port 8001": f"--port {ports['stream']} --processes 1",
            }),
            env,
        )  # fmt: skip
        check = subprocess.run(
            [nginx, "-t", "-p", str(tmp_path), "-c", str(main_path)],
            capture_output=True, text=True, check=False,
        )  # fmt: skip
        assert check.returncode == 0, check.stderr
        processes.start("nginx", [nginx, "-p", str(tmp_path), "-c", str(main_path)], env)

        wait_for("gunicorn", lambda: http_status(ports["web"], "/healthz") == 200, processes)
        wait_for("the stream server", lambda: http_status(ports["stream"], "/health") == 200,
                 processes)  # fmt: skip
        wait_for("nginx", lambda: https_request(ports["https"], "/healthz")[0] == 200,
                 processes)  # fmt: skip
        yield {
            "port": ports["https"],
            "http_port": ports["http"],
            "origin": origin,
            "media_root": media_root,
            "processes": processes,
            "tmp": tmp_path,
        }
    finally:
        processes.stop_all()


def test_the_production_layout_through_nginx(r, production, browser):
    expect.set_options(timeout=TIMEOUT_MS)
    port, origin = production["port"], production["origin"]

    def new_page():
        context = browser.new_context(base_url=origin, ignore_https_errors=True)
        context.set_default_timeout(TIMEOUT_MS)
        return context.new_page()

    # Plain HTTP is sent to https.
    connection = http.client.HTTPConnection("127.0.0.1", production["http_port"], timeout=5)
    connection.request("GET", "/explore/", headers={"Host": "localhost"})
    response = connection.getresponse()
    assert (response.status, response.getheader("Location")) == (301, "https://localhost/explore/")
    connection.close()

    # Sign up through the form.
    poster = new_page()
    poster.goto("/accounts/signup/")
    for field, value in (
        ("Login name", "poster"), ("Display name", "Pat Poster"),
        ("Email address", "poster@example.org"), ("Password", PASSWORD),
        ("Password again", PASSWORD),
    ):  # fmt: skip
        poster.get_by_label(re.compile(rf"^{re.escape(field)}:?$")).fill(value)
    poster.get_by_role("button", name="Sign up").click()
    expect(poster.locator("header .account-menu > summary")).to_have_attribute(
        "aria-label", "Account menu of @poster"
    )
    cookies = {cookie["name"]: cookie for cookie in poster.context.cookies()}
    assert cookies["sessionid"]["secure"], "HTTPS=true behind the proxy: secure cookies"
    pid = users.get_user_id(r, "poster")

    # Two followers: bob follows through the page, carol in Redis. bob waits on his home,
    # whose live updates come from the stream server through nginx.
    bob, carol = make_user(r, "bob"), make_user(r, "carol")
    follower = new_page()
    log_in_browser(follower, "bob")
    follower.goto("/@poster/")
    follower.get_by_role("button", name="Follow", exact=True).click()
    expect(follower.get_by_role("button", name="Unfollow", exact=True)).to_be_visible()
    graph.follow(r, carol["id"], pid)
    follower.goto("/")
    expect(follower.locator("#timeline")).to_have_attribute("data-live", "connected")

    # The streaming API, through the proxy.
    api = StreamConnection(
        port, "GET", "/stream/statuses/sample.json?identifier=ops&percent=100",
        host="localhost", tls=insecure_tls(),
    )  # fmt: skip
    assert api.status == 200, api.read_body()

    # A post with a picture.
    poster.goto("/")
    poster.get_by_label("What is happening?").fill("Hello through nginx")
    poster.get_by_text("Add images").click()
    poster.get_by_label("Images:", exact=True).set_input_files([
        {"name": "red.png", "mimeType": "image/png", "buffer": png_bytes((300, 200), "red")}
    ])  # fmt: skip
    poster.get_by_label("Description of image 1 (alt text)").fill("A red rectangle")
    poster.get_by_role("button", name="Post").click()
    expect(poster.locator("ul.messages")).to_contain_text("Your status is posted.")

    # Live, on the follower's home page.
    bar = follower.locator(".live-bar")
    expect(bar).to_have_text("1 new status")
    bar.click()
    expect(follower.locator("article.status p.message")).to_have_text(["Hello through nginx"])
    # On the stream.
    event = api.read_json(timeout=15)
    assert event["text"] == "Hello through nginx", event
    api.close()
    # On both followers' homes: with INLINE_FANOUT_LIMIT=1 the worker delivered to one.
    sid = timelines.profile_ids(r, pid, 1)[0]
    deadline = time.monotonic() + 15
    while not (timelines.in_home(r, carol["id"], sid) and timelines.in_home(r, bob["id"], sid)):
        assert time.monotonic() < deadline, "the fan-out worker did not deliver"
        time.sleep(0.1)

    # The uploaded picture, from nginx's disk.
    source = follower.locator("article.status img.media-image").first.get_attribute("src")
    assert source.startswith("/media/"), source
    status, headers, body = https_request(port, source)
    assert status == 200 and headers["Content-Type"] in ("image/jpeg", "image/webp"), headers
    assert headers["Cache-Control"] == "public, max-age=31536000, immutable"
    assert (production["media_root"] / source.removeprefix("/media/")).read_bytes() == body
    # Open to web clients on other origins, as Mastodon's.
    assert headers["Access-Control-Allow-Origin"] == "*", headers
    assert headers["Cross-Origin-Resource-Policy"] == "cross-origin", headers

    # A static file, from nginx's disk (collectstatic's).
    script = follower.locator("script[src^='/static/']").first.get_attribute("src")
    status, headers, body = https_request(port, script)
    assert status == 200 and headers["Cache-Control"] == "public, max-age=3600", headers
    assert body == (REPO / "static" / script.removeprefix("/static/")).read_bytes()
    # The default avatar an app shows for an account without one, open to other origins.
    status, headers, _ = https_request(port, "/static/api/avatar-missing.png")
    assert status == 200 and headers["Access-Control-Allow-Origin"] == "*", headers
    assert headers["Cross-Origin-Resource-Policy"] == "cross-origin", headers

    # A throttle counts the address nginx saw (THROTTLE_SEARCH=3/5m), whatever a client
    # writes in X-Forwarded-For itself.
    for _ in range(3):
        assert https_request(port, "/search/?q=nginx", source="127.0.0.2")[0] == 200
    status, headers, body = https_request(port, "/search/?q=nginx", source="127.0.0.2")
    assert status == 429 and "Retry-After" in headers, body
    forged = {"X-Forwarded-For": "203.0.113.9"}
    assert https_request(port, "/search/?q=nginx", headers=forged, source="127.0.0.2")[0] == 429
    assert https_request(port, "/search/?q=nginx", source="127.0.0.3")[0] == 200

    # nginx's own request id ($request_id: 32 hex digits) is the one the site answers
    # with, logs and shows on its error pages.
    status, headers, body = https_request(port, "/no-such-page/")
    assert status == 404 and re.fullmatch(r"[0-9a-f]{32}", headers["X-Request-Id"]), headers
    assert headers["X-Request-Id"].encode() in body

    # Mastodon's streaming API goes to the stream server, the rest of /api/ to gunicorn.
    status, headers, body = https_request(port, "/api/v1/streaming/health")
    assert (status, body.strip()) == (200, b"OK"), (status, body)
    status, headers, body = https_request(port, "/api/v1/instance")
    assert status == 200 and b'"streaming_api"' in body, (status, body)

    # /metrics is nginx's 404, never proxied to the site.
    status, headers, body = https_request(port, "/metrics")
    assert status == 404 and b"nginx" in body, body
    assert "Content-Security-Policy" not in headers  # the site's header: not the site's page

    # No secret reaches a log the layout keeps: an access token in a query string (the
    # API, the stream servers, plain HTTP), OAuth's state, the mailed links' tokens.
    secret = "SECRETTOKEN" + secrets.token_hex(8)
    for path in (
        f"/api/v1/accounts/verify_credentials?access_token={secret}",
        f"/api/v1/timelines/home?access_token={secret}&limit=2",
        f"/stream/health?access_token={secret}",
        f"/api/v1/streaming/health?access_token={secret}",
        f"/oauth/authorize?client_id=x&state={secret}",
        f"/accounts/verify/{secret}/",
        f"/accounts/reset/MQ/{secret}/",
        f"/static/missing.css?code={secret}",
    ):
        assert https_request(port, path)[0] < 500, path
    connection = http.client.HTTPConnection("127.0.0.1", production["http_port"], timeout=5)
    connection.request("GET", f"/?access_token={secret}", headers={"Host": "localhost"})
    assert connection.getresponse().status == 301
    connection.close()
    production["processes"].stop_all()  # every line written out
    logs = {path.name: path.read_text(errors="replace") for path in production["tmp"].glob("*.log")}
    assert "/accounts/verify/[redacted]/" in logs["site-access.log"]
    assert '"GET /api/v1/accounts/verify_credentials"' in logs["site-access.log"]
    assert '"GET /api/v1/streaming/health"' in logs["stream-access.log"]
    leaked = [name for name, text in logs.items() if secret in text]
    assert not leaked, [
        line for name in leaked for line in logs[name].splitlines() if secret in line
    ]

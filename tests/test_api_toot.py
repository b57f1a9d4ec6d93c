"""toot (PyPI, 0.52), Mastodon's command-line client nobody here wrote, scripted against a
live server as a person uses it: ``toot login`` through the browser with the
out-of-band code (toot opens /oauth/authorize/ with its final slash; a real HTTP
session logs in and authorizes on the site's pages, and the code it shows is typed
into toot), the home timeline, a status posted with an image and its alt text, and
``toot unblock <name>``, which finds the account through /api/v2/search. Then
``toot login_cli`` with OAUTH_PASSWORD_GRANT on.

toot is not among the site's packages: it is installed, pinned, into var/toot-venv/
(ignored by git) by pip from PyPI on the first run; the test is skipped with the reason
when it cannot be."""

import html
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
import requests

from media import attachments
from socialsite.repository import blocks, emails, graph, statuses
from tests.support.helpers import PASSWORD
from tests.test_media_images import png

ROOT = Path(__file__).resolve().parents[1]
VENV = ROOT / "var" / "toot-venv"
TOOT_VERSION = "0.52.1"


@pytest.fixture(scope="module")
def toot_command():
    """The path of the ``toot`` command, installed into VENV when missing."""
    command = VENV / "bin" / "toot"
    stamp = VENV / f"installed-{TOOT_VERSION}"
    if not stamp.exists():
        steps = [
            [sys.executable, "-m", "venv", str(VENV)],
            [str(VENV / "bin" / "pip"), "install", "-q", f"toot=={TOOT_VERSION}"],
        ]
        for step in steps:
            done = subprocess.run(step, capture_output=True, text=True, timeout=600, check=False)
            if done.returncode != 0:
                pytest.skip(f"toot cannot be installed: {done.stderr[-800:]}")
        stamp.write_text(TOOT_VERSION)
    return str(command)


@pytest.fixture
def toot(toot_command, tmp_path, live_server, settings):
    """toot(*args, input=None): run toot with its own config directory; the result."""
    settings.SITE_URL = live_server.url
    env = {**os.environ, "XDG_CONFIG_HOME": str(tmp_path / "config"), "PYTHONUNBUFFERED": "1",
           "NO_COLOR": "1", "TERM": "dumb"}  # fmt: skip

    def run(*args, input=None):
        return subprocess.run(
            [toot_command, *args], input=input, capture_output=True, text=True, timeout=120,
            env=env, check=False,
        )  # fmt: skip

    run.env = env
    run.command = toot_command
    return run


def _field(page, name):
    match = re.search(rf'name="{name}" value="([^"]*)"', page)
    assert match, f"no {name} field in the page"
    return html.unescape(match.group(1))


def authorize_in_browser(url, login="alice"):
    """Log in as ``login`` and press Authorize on the consent page ``url`` leads to,
    with a real HTTP session (cookies, CSRF tokens, redirects); the code the site shows."""
    session = requests.Session()
    login_page = session.get(url, timeout=30)
    assert "/accounts/login/" in login_page.url
    consent = session.post(
        login_page.url,
        data={"username": login, "password": PASSWORD, "next": _field(login_page.text, "next"),
              "csrfmiddlewaretoken": _field(login_page.text, "csrfmiddlewaretoken")},
        timeout=30,
    )  # fmt: skip
    assert consent.status_code == 200 and "Authorize" in consent.text, consent.text[:2000]
    assert "/oauth/authorize/" in consent.url  # toot's own form of the path
    shown = session.post(
        consent.url.split("?")[0],
        data={"request": _field(consent.text, "request"), "authorize": "1",
              "csrfmiddlewaretoken": _field(consent.text, "csrfmiddlewaretoken")},
        timeout=30,
    )  # fmt: skip
    assert shown.status_code == 200, shown.text[:2000]
    return re.search(r'id="oauth-code" class="oauth-code" value="([^"]+)"', shown.text).group(1)


def test_toot_logs_in_through_the_browser_reads_posts_and_unblocks(
    r, toot, live_server, alice, bob, tmp_path
):
    graph.follow(r, alice["id"], bob["id"])
    statuses.post_status(r, bob["id"], "Bob says hello to toot")
    # toot login: it prints the login URL, asks whether to open a browser, then for the code.
    process = subprocess.Popen(
        [toot.command, "login", "--instance", live_server.url],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        env=toot.env,
    )  # fmt: skip
    try:
        url = None
        for line in process.stdout:
            if "/oauth/authorize" in line:
                url = line.strip()
                break
        assert url and url.startswith(f"{live_server.url}/oauth/authorize/?"), url
        code = authorize_in_browser(url)
        out, err = process.communicate(f"n\n{code}\n", timeout=60)
    finally:
        if process.poll() is None:
            process.kill()
    assert process.returncode == 0, err[-2000:]
    assert "Successfully logged in" in out

    # Home, as toot prints it.
    home = toot("timeline", "--once")
    assert home.returncode == 0 and "Bob says hello to toot" in home.stdout, home.stdout
    # toot unblock finds bob by name through /api/v2/search?resolve=true, which must
    # find an account the searcher blocks.
    blocks.block(r, alice["id"], bob["id"])
    unblocked = toot("unblock", "bob")
    assert unblocked.returncode == 0, unblocked.stderr
    assert "bob is no longer blocked" in unblocked.stdout
    assert not blocks.is_blocking(r, alice["id"], bob["id"])

    # A status with an image and its alt text.
    image = tmp_path / "red.png"
    image.write_bytes(png((120, 80), colour=(200, 20, 20)))
    posted = toot("post", "A red picture from toot", "--media", str(image),
                  "--description", "A red rectangle")  # fmt: skip
    assert posted.returncode == 0, posted.stderr
    sid = int(re.search(r"/(\d+)/?\s*$", posted.stdout.strip()).group(1))
    stored = statuses.get_status(r, sid)
    assert stored["message"] == "A red picture from toot"
    [item] = attachments.media_of(stored)
    assert item["alt"] == "A red rectangle"


def test_toot_login_cli_with_the_password_grant(r, toot, live_server, alice, settings):
    emails.set_address(r, alice["id"], "alice@example.org", verified=True)
    refused = toot("login_cli", "--instance", live_server.url, "--email", "alice@example.org",
                   "--password", PASSWORD)  # fmt: skip
    assert refused.returncode != 0  # off by default
    settings.OAUTH_PASSWORD_GRANT = True
    done = toot("login_cli", "--instance", live_server.url, "--email", "alice@example.org",
                "--password", PASSWORD)  # fmt: skip
    assert done.returncode == 0, done.stderr
    me = toot("whoami")
    assert me.returncode == 0 and "@alice" in me.stdout, me.stdout

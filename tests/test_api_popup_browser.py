"""A web client on another origin, as Elk or Phanpy are: a minimal client page the test
serves on 127.0.0.1 (the site is on localhost: another origin) logs in to the site
through an OAuth popup, exchanges the code for a token from the page (CORS), and shows
the user's avatar, an image of theirs and another account's default avatar, each
loaded ``crossorigin`` and drawn on a canvas (CORS) from a page that requires
``Cross-Origin-Resource-Policy`` (COEP require-corp), as Mastodon's are.

The popup keeps ``window.opener`` only if every page it passes through (the log-in
page, the consent page, their redirects) allows it (socialsite/security_headers.py);
the site is served as ``./run``'s runserver serves it, static files included
(socialsite/static_files.py)."""

import json
import threading
from http.server import BaseHTTPRequestHandler, HTTPServer
from urllib.parse import urlsplit

import pytest
import requests

from socialsite.repository import oauth
from socialsite.static_files import CrossOriginStaticFilesHandler
from socialsite_dev.ports import free_port
from tests.support.helpers import PASSWORD, make_user
from tests.test_media_images import png

try:
    from playwright.sync_api import expect
except ImportError:  # pragma: no cover - the browser fixture skips (or fails with CI=true)
    expect = None

CLIENT_PAGE = """<!doctype html>
<meta charset="utf-8"><title>Client</title>
<button id="login">Log in</button>
<pre id="result"></pre>
<script>
const SITE = %(site)s, CLIENT = %(client)s, ORIGIN = location.origin;
const show = (data) => { document.getElementById("result").textContent = JSON.stringify(data); };
function loaded(url) {
  return new Promise((resolve) => {
    const img = new Image();
    img.crossOrigin = "anonymous";
    img.onload = () => {
      const canvas = document.createElement("canvas");
      canvas.width = img.naturalWidth; canvas.height = img.naturalHeight;
      const g = canvas.getContext("2d");
      g.drawImage(img, 0, 0);
      let read = false;
      try { g.getImageData(0, 0, 1, 1); read = true; } catch (e) { read = false; }
      document.body.append(img);
      resolve({ url, width: img.naturalWidth, read });
    };
    img.onerror = () => resolve({ url, width: 0, read: false });
    img.src = url;
  });
}
window.addEventListener("message", async (event) => {
  if (event.origin !== ORIGIN || !event.data.code) return;
  const token = await (await fetch(SITE + "/oauth/token", {
    method: "POST",
    body: new URLSearchParams({ grant_type: "authorization_code", code: event.data.code,
      client_id: CLIENT.id, client_secret: CLIENT.secret, redirect_uri: ORIGIN + "/callback" }),
  })).json();
  const api = async (path) => (await fetch(SITE + path, {
    headers: { Authorization: "Bearer " + token.access_token } })).json();
  const me = await api("/api/v1/accounts/verify_credentials");
  const mine = await api("/api/v1/accounts/" + me.id + "/statuses");
  const bob = await api("/api/v1/accounts/lookup?acct=bob");
  show({
    account: me.username,
    pictures: await Promise.all(
      [me.avatar, mine[0].media_attachments[0].url, bob.avatar].map(loaded)),
  });
});
document.getElementById("login").addEventListener("click", () => {
  const query = new URLSearchParams({ response_type: "code", client_id: CLIENT.id,
    scope: "read", redirect_uri: ORIGIN + "/callback" });
  window.open(SITE + "/oauth/authorize?" + query, "login", "popup,width=500,height=700");
});
</script>
"""

CALLBACK_PAGE = """<!doctype html>
<meta charset="utf-8"><title>Callback</title>
<p id="said">no opener</p>
<script>
const code = new URLSearchParams(location.search).get("code");
if (window.opener) {
  document.getElementById("said").textContent = "sent";
  window.opener.postMessage({ code }, location.origin);
}
</script>
"""


class _Client(BaseHTTPRequestHandler):
    def do_GET(self):  # noqa: N802 (http.server's name)
        path = urlsplit(self.path).path
        if path == "/app.html":
            body = self.server.page.encode()
        elif path == "/callback":
            body = CALLBACK_PAGE.encode()
        else:
            self.send_error(404)
            return
        self.send_response(200)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        # Every resource this page loads must say it may be (CORP), or come with CORS.
        self.send_header("Cross-Origin-Embedder-Policy", "require-corp")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


@pytest.fixture
def site(live_server, settings, media_root):
    """The live server, serving as ./run's runserver does: static files through its
    handler, pictures through the site's own view (Django's live server would answer
    MEDIA_URL from its own handler, before the site)."""
    settings.SITE_URL = live_server.url
    httpd = live_server.thread.httpd
    before = httpd.get_app()  # static handler(media handler(the site))
    httpd.set_app(CrossOriginStaticFilesHandler(before.application.application))
    yield live_server.url
    httpd.set_app(before)


@pytest.fixture
def client_origin():
    server = HTTPServer(("127.0.0.1", free_port()), _Client)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    server.origin = f"http://127.0.0.1:{server.server_port}"
    yield server
    server.shutdown()
    server.server_close()


def test_a_client_on_another_origin_logs_in_through_a_popup_and_shows_pictures(
    r, site, client_origin, browser_contexts, token
):
    alice = make_user(r, "alice", "Alice Liddell")
    make_user(r, "bob")  # no avatar: the default one
    own = {"Authorization": f"Bearer {token(alice)}"}
    avatar = requests.patch(
        f"{site}/api/v1/accounts/update_credentials", headers=own, timeout=30,
        files={"avatar": ("a.png", png((200, 200), colour=(20, 160, 60)), "image/png")},
    )  # fmt: skip
    assert avatar.status_code == 200, avatar.text
    media = requests.post(
        f"{site}/api/v2/media", headers=own, timeout=30,
        files={"file": ("b.png", png((300, 200)), "image/png")}, data={"description": "Blue"},
    )  # fmt: skip
    assert media.status_code in (200, 202), media.text
    posted = requests.post(
        f"{site}/api/v1/statuses", headers=own, timeout=30,
        data={"status": "A picture", "media_ids[]": media.json()["id"]},
    )  # fmt: skip
    assert posted.status_code == 200, posted.text
    client_id, secret = oauth.create_app(
        r, "Web client", [f"{client_origin.origin}/callback"], ["read"]
    )
    client_origin.page = CLIENT_PAGE % {
        "site": json.dumps(site),
        "client": json.dumps({"id": client_id, "secret": secret}),
    }

    page = browser_contexts().new_page()
    page.goto(f"{client_origin.origin}/app.html")
    with page.expect_popup() as opened:
        page.get_by_role("button", name="Log in").click()
    popup = opened.value
    popup.wait_for_load_state()
    assert urlsplit(popup.url).path == "/accounts/login/"
    popup.get_by_label("Login name").fill("alice")
    popup.get_by_label("Password").fill(PASSWORD)
    popup.get_by_role("button", name="Log in").click()
    expect(popup.get_by_role("heading", level=1)).to_have_text("Authorize Web client?")
    popup.get_by_role("button", name="Authorize").click()
    expect(popup.locator("#said")).to_have_text("sent")  # window.opener survived

    result = page.locator("#result")
    expect(result).not_to_be_empty(timeout=30_000)
    said = json.loads(result.text_content())
    assert said["account"] == "alice"
    avatar_shown, image_shown, default_shown = said["pictures"]
    assert "/media/" in avatar_shown["url"] and "/media/" in image_shown["url"]
    assert default_shown["url"].endswith("/static/api/avatar-missing.png")
    for picture in said["pictures"]:
        assert picture["width"] > 0 and picture["read"], picture

"""Take docs/screenshot.png: the home page of a logged-in user with a few statuses, in
headless Chromium (Playwright), on a throwaway Redis with a few made-up people; and
beside it, in docs/screenshots/, the home page on a phone (light and dark), a thread,
the settings, a profile, notifications, messages, explore, who to follow, search
results, the Top timeline, a group, the groups and a visitor's home page
(SHOTS).

    .venv/bin/python scripts/take-screenshot.py [docs/screenshot.png [docs/screenshots]]

It starts a redis-server and `manage.py runsite`-like processes of its own (the web server
and a stream server, DEBUG on so static files are served) and stops them at the end.
CHROMIUM_PATH names the browser (/usr/bin/chromium).
"""

import os
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from socialsite_dev.ports import free_port  # noqa: E402
from socialsite_dev.redis_servers import RedisServer  # noqa: E402

PASSWORD = "a screenshot of the home page"  # noqa: S105
PEOPLE = [
    ("alice", "Alice Liddell"),
    ("bob", "Bob Builder"),
    ("carol", "Carol Danvers"),
    ("dave", "Dave Lister"),
    ("erin", "Erin Brockovich"),
]
STATUSES = [
    (
        "carol",
        "Reading chapter 8 of Redis in Action tonight: a whole social network in a few "
        "dozen commands. #redis",
    ),
    ("bob", "Fan-out to a million followers, one pipeline per shard. https://redis.io/docs/"),
    ("alice", "Hello, world! My first status here."),
    ("bob", "@alice welcome! Try the live home page: new statuses show up as they are posted."),
]


def seed(redis_url):
    import django

    django.setup()
    from django.contrib.auth.hashers import make_password

    from socialsite.repository import client, emails, graph, likes, reposts, statuses, users

    r = client.connect(redis_url)
    hashed = make_password(PASSWORD)
    uid = {login: users.create_user(r, login, name, hashed) for login, name in PEOPLE}
    for login in uid:
        emails.set_address(r, uid[login], f"{login}@example.org", verified=True)
    for who, whom in [
        ("alice", "bob"),
        ("alice", "carol"),
        ("bob", "carol"),
        ("dave", "erin"),
        ("bob", "erin"),
        ("carol", "erin"),
    ]:
        graph.follow(r, uid[who], uid[whom])
    posted = [statuses.post_status(r, uid[login], text) for login, text in STATUSES]
    statuses.post_status(r, uid["erin"], "Trending: #redis")
    # A thread under carol's status (the thread's screenshot).
    reply = statuses.post_status(
        r,
        uid["alice"],
        "@carol Chapter 8 is the best one. The timelines part!",
        in_reply_to=posted[0],
    )
    statuses.post_status(
        r,
        uid["carol"],
        "@alice Agreed: fan-out on write, then trim. Elegant.",
        in_reply_to=reply,
    )
    likes.like(r, uid["alice"], posted[0])
    likes.like(r, uid["bob"], posted[0])
    reposts.repost(r, uid["bob"], posted[0])
    likes.like(r, uid["carol"], posted[1])
    # A group bob runs, alice and carol in it (the group's screenshot), each posting once.
    from socialsite import connection
    from socialsite.actions import Actor, communities
    from socialsite.actions import statuses as status_actions

    connection.use_redis(r)
    actors = {login: Actor(uid=uid[login], login=login) for login in uid}
    communities.create(
        actors["bob"], "redis_readers", "Redis readers", "Reading Redis in Action together.",
        "public",
    )  # fmt: skip
    for login, text in [
        ("carol", "Chapter 8 tonight: who has done the exercises?"),
        ("alice", "Done the refill one. Lists next!"),
    ]:
        communities.join(actors[login], "redis_readers")
        status_actions.post(actors[login], status_actions.NewStatus(text), group="redis_readers")


def wait_for(url, timeout=30):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            with urllib.request.urlopen(url, timeout=2):  # noqa: S310
                return
        except OSError:
            time.sleep(0.2)
    raise SystemExit(f"{url} did not answer")


def main(out, more=None):
    with tempfile.TemporaryDirectory() as tmp:
        redis = RedisServer(Path(tmp) / "redis").start()
        web_port, stream_port = free_port(), free_port()
        env = {
            **os.environ,
            "DJANGO_SETTINGS_MODULE": "socialsite.settings",
            "DEBUG": "true",
            "DATA_DIR": tmp,
            "REDIS_URL": redis.url,
            "STREAM_PORT": str(stream_port),
        }
        os.environ.update(env)
        processes = []
        try:
            seed(redis.url)
            manage = [sys.executable, str(ROOT / "manage.py")]
            processes.append(
                subprocess.Popen(
                    [*manage, "runserver", "--noreload", f"127.0.0.1:{web_port}"],
                    env=env,
                    stdout=subprocess.DEVNULL,
                    stderr=subprocess.DEVNULL,
                )
            )
            processes.append(
                subprocess.Popen(
                    [*manage, "stream", "--port", str(stream_port), "--processes", "1"],
                    env=env,
                    stdout=subprocess.DEVNULL,
                    stderr=subprocess.DEVNULL,
                )
            )
            base = f"http://127.0.0.1:{web_port}"
            wait_for(f"{base}/healthz")
            wait_for(f"http://127.0.0.1:{stream_port}/health")
            shoot(base, out, more)
        finally:
            for process in processes:
                process.terminate()
                process.wait(10)
            redis.stop()


# The other screenshots: file name, path (THREAD: the first status's thread), window
# width and height, the colour scheme the browser says the system prefers, and whether
# alice is logged in (else a visitor's page).
THREAD = "thread"
PHONE = (390, 844)
DESKTOP = (1280, 900)
SHOTS = [
    ("home-phone-light.png", "/", PHONE, "light", True),
    ("home-phone-dark.png", "/", PHONE, "dark", True),
    ("home-desktop-dark.png", "/", DESKTOP, "dark", True),
    ("thread-desktop-light.png", THREAD, DESKTOP, "light", True),
    ("settings-desktop-light.png", "/settings/", DESKTOP, "light", True),
    ("profile-desktop-light.png", "/@carol/", DESKTOP, "light", True),
    ("notifications-phone-light.png", "/notifications/", PHONE, "light", True),
    ("messages-phone-dark.png", "/messages/", PHONE, "dark", True),
    ("explore-desktop-light.png", "/explore/", DESKTOP, "light", True),
    ("who-to-follow-phone-light.png", "/explore/people/", PHONE, "light", True),
    ("search-desktop-dark.png", "/search/?q=er", DESKTOP, "dark", True),
    ("top-desktop-light.png", "/top/", DESKTOP, "light", True),
    ("group-desktop-light.png", "/g/redis_readers/", DESKTOP, "light", True),
    ("groups-phone-dark.png", "/groups/", PHONE, "dark", True),
    ("visitor-desktop-light.png", "/", DESKTOP, "light", False),
    ("visitor-phone-dark.png", "/", PHONE, "dark", False),
]


def log_in(page, base):
    page.goto("/accounts/login/")
    page.get_by_label("Login name").fill("alice")
    page.get_by_label("Password").fill(PASSWORD)
    page.get_by_role("button", name="Log in").click()
    page.wait_for_url(f"{base}/")


def shoot(base, out, more=None):
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=os.environ.get("CHROMIUM_PATH", "/usr/bin/chromium"),
            args=["--no-sandbox", "--disable-dev-shm-usage"],
        )
        shots = [(out, "/", DESKTOP, "light", True)]
        if more:
            Path(more).mkdir(parents=True, exist_ok=True)
            shots += [(str(Path(more) / name), *rest) for name, *rest in SHOTS]
        for path, where, (width, height), scheme, logged_in in shots:
            context = browser.new_context(
                base_url=base, viewport={"width": width, "height": height}, color_scheme=scheme
            )
            page = context.new_page()
            if logged_in:
                log_in(page, base)
            if where == THREAD:
                page.goto("/@carol/")  # carol's first status: its thread
                where = page.locator(".status time").last.evaluate(
                    "e => e.closest('a').getAttribute('href')"
                )
            page.goto(where)  # without the login's welcome message
            page.wait_for_timeout(1000)
            page.screenshot(path=path)
            context.close()
        browser.close()


if __name__ == "__main__":
    main(
        sys.argv[1] if len(sys.argv) > 1 else str(ROOT / "docs" / "screenshot.png"),
        sys.argv[2] if len(sys.argv) > 2 else str(ROOT / "docs" / "screenshots"),
    )

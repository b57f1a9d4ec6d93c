"""toot (tests/test_api_toot.py installs it) bookmarks and pins as a person types it:
``toot bookmark``, ``toot unbookmark``, ``toot pin``, ``toot unpin``, logged in
with the password grant."""

from socialsite.repository import bookmarks, emails, pins
from tests.support.helpers import PASSWORD, post
from tests.test_api_toot import toot, toot_command  # noqa: F401 (fixtures)


def test_toot_bookmarks_and_pins(r, toot, live_server, alice, bob, settings):  # noqa: F811
    emails.set_address(r, alice["id"], "alice@example.org", verified=True)
    settings.OAUTH_PASSWORD_GRANT = True
    done = toot("login_cli", "--instance", live_server.url, "--email", "alice@example.org",
                "--password", PASSWORD)  # fmt: skip
    assert done.returncode == 0, done.stderr
    theirs, mine = post(r, bob, "bob's, to keep"), post(r, alice, "alice's, to pin")
    done = toot("bookmark", str(theirs))
    assert done.returncode == 0, done.stderr
    assert bookmarks.bookmarked_of(r, alice["id"], [theirs]) == {theirs}
    done = toot("unbookmark", str(theirs))
    assert done.returncode == 0, done.stderr
    assert bookmarks.bookmarked_of(r, alice["id"], [theirs]) == frozenset()
    done = toot("pin", str(mine))
    assert done.returncode == 0, done.stderr
    assert pins.pinned_ids(r, alice["id"]) == [mine]
    done = toot("unpin", str(mine))
    assert done.returncode == 0, done.stderr
    assert pins.pinned_ids(r, alice["id"]) == []

"""manage.py moderators and manage.py moderation, through call_command on real Redis."""

from io import StringIO

import pytest
from django.core.management import CommandError, call_command

from socialsite.repository import moderation, sessions, statuses, users
from tests.support.helpers import post


def run(*args):
    out = StringIO()
    call_command(*args, stdout=out)
    return out.getvalue()


def test_moderators_add_list_and_remove(r, alice, bob):
    assert run("moderators", "list") == "No moderators.\n"
    assert run("moderators", "add", "bob") == "@bob is a moderator now.\n"
    assert run("moderators", "add", "@BOB") == "@bob is a moderator already.\n"
    run("moderators", "add", "alice")
    assert run("moderators", "list") == "@alice  Alice Liddell\n@bob  Bob Builder\n"
    assert moderation.is_moderator(users.get_user(r, bob["id"]))
    assert run("moderators", "remove", "alice") == "@alice is no longer a moderator.\n"
    assert run("moderators", "remove", "alice") == "@alice is not a moderator.\n"
    assert run("moderators", "list") == "@bob  Bob Builder\n"


@pytest.mark.parametrize(
    "args, message",
    [
        (("moderators", "add", "nobody"), "There is no user @nobody."),
        (("moderators", "remove", "nobody"), "There is no user @nobody."),
        (("moderators", "add"), "add needs a login"),
        (("moderators", "list", "alice"), "list takes no login."),
        (("moderation", "suspend", "nobody", "--reason", "x"), "There is no user @nobody."),
        (("moderation", "unsuspend", "nobody"), "There is no user @nobody."),
        (("moderation", "delete-status", "424242", "--reason", "x"), "There is no status 424242."),
        (("moderation", "log", "--count", "0"), "--count must be at least 1."),
        (("moderation", "suspend", "alice", "--reason", "x", "--by", "bob"), "not a moderator"),
    ],
)
def test_clear_errors(r, alice, bob, args, message):
    with pytest.raises(CommandError, match=message):
        run(*args)
    assert not users.is_suspended(users.get_user(r, alice["id"]))


def test_suspend_and_delete_status_need_a_reason_as_on_the_pages(r, alice):
    sid = post(r, alice, "still here")
    with pytest.raises(CommandError, match="--reason"):
        run("moderation", "suspend", "alice")
    with pytest.raises(CommandError, match="--reason"):
        run("moderation", "delete-status", str(sid))
    with pytest.raises(CommandError, match="Give a reason: the audit log records why."):
        run("moderation", "delete-status", str(sid), "--reason", "  ")
    assert statuses.get_status(r, sid) is not None


def test_suspend_unsuspend_delete_status_and_the_log(r, alice, bob):
    run("moderators", "add", "bob")
    sid = post(r, alice, "against the rules")
    key = sessions.key_naming_user(alice["id"], "s" * 32)
    sessions.save(r, key, "{}", 3600, must_create=True)

    out = run("moderation", "suspend", "alice", "--reason", "spam", "--by", "bob")
    assert out == "@alice is suspended.\n"
    assert users.is_suspended(users.get_user(r, alice["id"]))
    assert sessions.load(r, key) is None
    assert run("moderation", "suspend", "alice", "--reason", "again") == (
        "Nothing to do: already so.\n"
    )
    assert run("moderation", "unsuspend", "alice") == "@alice is no longer suspended.\n"
    assert not users.is_hidden(users.get_user(r, alice["id"]))
    assert run("moderation", "delete-status", str(sid), "--reason", "rules") == (
        f"Status {sid} is deleted.\n"
    )
    assert statuses.get_status(r, sid) is None

    lines = run("moderation", "log").splitlines()
    assert len(lines) == 4
    assert lines[0].endswith(f"manage.py  delete status  @alice  status={sid}  reason: rules")
    assert lines[1].endswith("manage.py  unsuspend  @alice")
    assert lines[2].endswith("@bob  suspend  @alice  reason: spam")
    assert lines[3].endswith("manage.py  add moderator  @bob")
    assert lines[0].split("  ")[0].endswith(" UTC")
    assert len(run("moderation", "log", "--count", "2").splitlines()) == 2


def test_an_empty_log(r):
    assert run("moderation", "log") == "The moderation log is empty.\n"

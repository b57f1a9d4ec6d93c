"""The moderation repository: reports, moderators, suspensions, the audit log, and the
lists of a user's sessions that let a suspension end them all."""

import time

import pytest

from socialsite import memory
from socialsite.repository import (
    graph,
    jobs,
    keys,
    moderation,
    sessions,
    statuses,
    timelines,
    users,
    worker,
)
from tests.support.helpers import make_user, post

Result = moderation.Result


def report(r, reporter, account, sids=(), reason="spam", comment=""):
    return moderation.file_report(r, reporter, account, reason, comment, sids)


def log_actions(r):
    """(action, by, target, reason) of every log entry, oldest first."""
    entries = reversed(moderation.log_page(r, count=1000).items)
    return [(e["action"], e["by"], e["target"], e["reason"]) for e in entries]


def open_session(r, uid, name="k"):
    key = sessions.key_naming_user(uid, name * 32)
    assert sessions.save(r, key, "{}", 3600, must_create=True)
    return key


# --- reports ----------------------------------------------------------------------------


def test_a_report_waits_in_the_queue_with_its_statuses_and_account(r, alice, bob, carol):
    first = post(r, alice, "buy cheap watches")
    second = post(r, alice, "buy cheap watches again")
    rid = report(r, bob, alice, [first, second], comment="a spammer")
    later = report(r, carol, alice, [], reason="abuse")

    page = moderation.open_reports_page(r)
    assert [item["id"] for item in page.items] == [later, rid]  # newest first
    older = page.items[1]
    assert older["reason"] == "spam" and older["reason_label"] == "Spam"
    assert older["comment"] == "a spammer"
    assert older["reporter_user"]["login"] == "bob"
    assert older["account_user"]["login"] == "alice"
    assert [(sid, s["message"]) for sid, s in older["statuses_found"]] == [
        (first, "buy cheap watches"),
        (second, "buy cheap watches again"),
    ]
    assert older["open_about"] == 2
    assert moderation.open_report_count(r) == 2


def test_statuses_of_keeps_only_the_accounts_own(r, alice, bob):
    hers = post(r, alice, "mine")
    his = post(r, bob, "his")
    assert moderation.statuses_of(r, alice["id"], [his, hers, hers, 999_999]) == [hers]
    assert moderation.statuses_of(r, alice["id"], []) == []


def test_a_deleted_status_shows_as_gone_in_the_queue(r, alice, bob):
    sid = post(r, alice, "soon gone")
    report(r, bob, alice, [sid])
    statuses.delete_status(r, alice["id"], sid)
    (item,) = moderation.open_reports_page(r).items
    assert item["statuses_found"] == [(sid, None)]


def test_the_queue_pages_newest_first_without_repeats(r, alice, bob):
    rids = [report(r, bob, alice) for _ in range(7)]
    seen, before = [], None
    while True:
        page = moderation.open_reports_page(r, before=before, count=3)
        seen += [item["id"] for item in page.items]
        if page.next_cursor is None:
            break
        before = page.next_cursor
    assert seen == rids[::-1]


def test_dismissing_closes_the_report_and_records_it(r, alice, bob, carol):
    rid = report(r, bob, alice)
    assert moderation.dismiss_report(r, rid, "carol", carol["id"], "not spam") is Result.DONE
    assert moderation.open_reports_page(r).items == []
    closed = moderation.get_report(r, rid)
    assert (closed["state"], closed["outcome"], closed["closed_by"]) == (
        "closed",
        "dismissed",
        "carol",
    )
    assert 0 < r.ttl(keys.report(rid)) <= moderation.REPORT_KEEP_SECONDS
    assert r.zcard(keys.reports_about(alice["id"])) == 0
    assert moderation.dismiss_report(r, rid, "carol", carol["id"]) is Result.ALREADY
    assert moderation.dismiss_report(r, 12345, "carol", carol["id"]) is Result.NOT_FOUND
    assert log_actions(r) == [("dismiss report", "carol", "alice", "not spam")]


# --- moderators -------------------------------------------------------------------------


def test_moderators_are_flagged_on_their_hash_and_listed(r, alice, bob):
    assert moderation.add_moderator(r, bob["id"]) is Result.DONE
    assert moderation.add_moderator(r, bob["id"]) is Result.ALREADY
    assert moderation.add_moderator(r, alice["id"]) is Result.DONE
    assert moderation.is_moderator(users.get_user(r, bob["id"]))
    assert [u["login"] for u in moderation.moderators(r)] == ["alice", "bob"]
    assert moderation.remove_moderator(r, alice["id"]) is Result.DONE
    assert moderation.remove_moderator(r, alice["id"]) is Result.ALREADY
    assert not moderation.is_moderator(users.get_user(r, alice["id"]))
    assert [u["login"] for u in moderation.moderators(r)] == ["bob"]
    assert moderation.add_moderator(r, 999_999) is Result.NOT_FOUND
    assert [entry[:3] for entry in log_actions(r)] == [
        ("add moderator", "manage.py", "bob"),
        ("add moderator", "manage.py", "alice"),
        ("remove moderator", "manage.py", "alice"),
    ]


def test_flagging_a_user_that_is_gone_makes_no_hash(r):
    assert not users.flag(r, 4242, keys.MODERATOR_FIELD, "1")
    assert not r.exists(keys.user(4242))


# --- sessions ---------------------------------------------------------------------------


def test_a_users_sessions_are_listed_and_end_together(r, alice, bob):
    mine = [open_session(r, alice["id"], name) for name in "abc"]
    his = open_session(r, bob["id"])
    assert set(r.zrange(keys.user_sessions(alice["id"]), 0, -1)) == set(mine)
    assert 0 < r.pttl(keys.user_sessions(alice["id"])) <= 3600 * 1000
    sessions.delete(r, mine[0])  # a logout takes its entry along
    assert set(r.zrange(keys.user_sessions(alice["id"]), 0, -1)) == set(mine[1:])

    assert sessions.end_all(r, alice["id"]) == 2
    assert all(sessions.load(r, key) is None for key in mine)
    assert not r.exists(keys.user_sessions(alice["id"]))
    assert sessions.load(r, his) == "{}"


def test_a_session_that_expired_leaves_the_list_when_another_is_saved(r, alice):
    old = sessions.key_naming_user(alice["id"], "o" * 32)
    assert sessions.save(r, old, "{}", 1, must_create=True)
    r.zadd(keys.user_sessions(alice["id"]), {old: 1})  # expired long ago
    new = open_session(r, alice["id"])
    assert r.zrange(keys.user_sessions(alice["id"]), 0, -1) == [new]


def test_saving_a_session_that_ended_does_not_list_it_again(r, alice):
    key = open_session(r, alice["id"])
    sessions.end_all(r, alice["id"])
    assert not sessions.save(r, key, "{}", 3600)  # a request that finished late
    assert not r.exists(keys.user_sessions(alice["id"]))


# --- suspensions ------------------------------------------------------------------------


def test_a_suspension_hides_the_account_and_ends_its_sessions(r, alice, bob, carol):
    graph.follow(r, bob["id"], alice["id"])
    graph.follow(r, alice["id"], carol["id"])
    sid = post(r, alice, "hello from alice")
    key = open_session(r, alice["id"])
    report(r, bob, alice, [sid])
    report(r, carol, alice)
    assert [s["id"] for s in timelines.home_page(r, bob["id"]).items] == [sid]

    assert moderation.suspend(r, alice["id"], "bob", bob["id"], "spam") is Result.DONE

    suspended = users.get_user(r, alice["id"])
    assert users.is_suspended(suspended) and users.is_hidden(suspended)
    assert sessions.load(r, key) is None
    # At once in this process (it made the suspension): no status of hers on bob's home.
    assert timelines.home_page(r, bob["id"]).items == []
    assert graph.followers_page(r, carol["id"]).items == []  # listed nowhere
    assert moderation.suspended_ids(r) == {alice["id"]}
    assert moderation.open_reports_page(r).items == []  # both reports closed
    assert moderation.suspend(r, alice["id"], "bob", bob["id"]) is Result.ALREADY
    assert log_actions(r) == [("suspend", "bob", "alice", "spam")]

    assert moderation.unsuspend(r, alice["id"], "bob", bob["id"], "appeal") is Result.DONE
    assert not users.is_hidden(users.get_user(r, alice["id"]))
    assert [s["id"] for s in timelines.home_page(r, bob["id"]).items] == [sid]
    assert [u["login"] for u in graph.followers_page(r, carol["id"]).items] == ["alice"]
    assert moderation.suspended_ids(r) == set()
    assert moderation.unsuspend(r, alice["id"], "bob", bob["id"]) is Result.ALREADY
    assert log_actions(r)[-1] == ("unsuspend", "bob", "alice", "appeal")


def test_other_processes_hide_a_suspended_author_once_their_memory_expires(
    r, alice, bob, monkeypatch
):
    graph.follow(r, bob["id"], alice["id"])
    sid = post(r, alice, "remembered")
    assert [s["id"] for s in timelines.home_page(r, bob["id"]).items] == [sid]
    # Another process suspends her: this one's memory of authors still has her.
    users.flag(r, alice["id"], keys.SUSPENDED_FIELD, "1")
    assert [s["id"] for s in timelines.home_page(r, bob["id"]).items] == [sid]
    later = time.monotonic() + users.AUTHOR_CACHE_SECONDS + 1
    monkeypatch.setattr(memory, "_monotonic", lambda: later)
    assert timelines.home_page(r, bob["id"]).items == []


def test_fan_out_skips_a_suspended_authors_status(r, alice, bob, carol):
    graph.follow(r, bob["id"], alice["id"])
    graph.follow(r, carol["id"], alice["id"])
    jobs.ensure_group(r)
    # Posted with every follower deferred, then suspended before a worker ran.
    sid = statuses.post_status(r, alice["id"], "just before", inline_limit=0)
    moderation.suspend(r, alice["id"], reason="spam")
    worker.work_until_idle(r)
    assert not timelines.in_home(r, bob["id"], sid)
    assert not timelines.in_home(r, carol["id"], sid)
    # Statuses posted before the suspension were delivered and stay where they are.
    moderation.unsuspend(r, alice["id"])
    other = statuses.post_status(r, alice["id"], "after", inline_limit=0)
    worker.work_until_idle(r)
    assert timelines.in_home(r, bob["id"], other) and timelines.in_home(r, carol["id"], other)


def test_nobody_and_a_leaving_account_cannot_be_suspended(r, alice):
    assert moderation.suspend(r, 999_999) is Result.NOT_FOUND
    users.flag(r, alice["id"], keys.LEAVING_FIELD, "1")
    assert moderation.suspend(r, alice["id"]) is Result.NOT_FOUND
    assert moderation.unsuspend(r, 999_999) is Result.NOT_FOUND


def test_the_suspended_list_pages_latest_first(r):
    people = [make_user(r, f"user{i}") for i in range(5)]
    for person in people:
        moderation.suspend(r, person["id"])
        time.sleep(0.002)  # distinct times (ms): the list is scored by them
    page = moderation.suspended_page(r, count=3)
    assert [u["login"] for u in page.items] == ["user4", "user3", "user2"]
    rest = moderation.suspended_page(r, before=page.next_cursor, count=3)
    assert [u["login"] for u in rest.items] == ["user1", "user0"]
    assert all(u["suspended_at"] > 0 for u in page.items)


# --- deleting a status ------------------------------------------------------------------


def test_a_moderator_deletes_a_status_and_its_report_closes_when_none_is_left(r, alice, bob, carol):
    graph.follow(r, bob["id"], alice["id"])
    first, second = post(r, alice, "one"), post(r, alice, "two")
    rid = report(r, bob, alice, [first, second])
    assert moderation.delete_status(r, first, "carol", carol["id"], "rude", rid) is Result.DONE
    assert statuses.get_status(r, first) is None
    assert users.get_user(r, alice["id"])["posts"] == 1
    assert [i["id"] for i in moderation.open_reports_page(r).items] == [rid]  # one left
    assert moderation.delete_status(r, second, "carol", carol["id"], "rude", rid) is Result.DONE
    assert moderation.open_reports_page(r).items == []
    assert moderation.get_report(r, rid)["outcome"] == "status deleted"
    assert moderation.delete_status(r, second, "carol") is Result.NOT_FOUND
    entries = moderation.log_page(r).items
    assert [(e["action"], e["status"], e["report"]) for e in entries] == [
        ("delete status", str(second), str(rid)),
        ("delete status", str(first), str(rid)),
    ]
    # The same cleanup as the author's own deletion.
    worker.work_until_idle(r)
    assert timelines.home_ids(r, bob["id"]) == []


# --- the audit log ----------------------------------------------------------------------


def test_the_log_says_who_what_when_and_why_and_pages(r, alice):
    before = time.time()
    for i in range(7):
        moderation.record(r, "suspend", "mod", 1, alice, f"reason {i}", report=i)
    page = moderation.log_page(r, count=3)
    newest = page.items[0]
    assert (newest["action"], newest["by"], newest["by_id"], newest["target"]) == (
        "suspend",
        "mod",
        "1",
        "alice",
    )
    assert (newest["reason"], newest["report"]) == ("reason 6", "6")
    assert before - 1 <= newest["at"] <= time.time() + 1
    reasons, cursor = [], None
    while True:
        page = moderation.log_page(r, before=cursor, count=3)
        reasons += [entry["reason"] for entry in page.items]
        if page.next_cursor is None:
            break
        cursor = page.next_cursor
    assert reasons == [f"reason {i}" for i in reversed(range(7))]


@pytest.mark.parametrize("cursor", ["1-0", "99999999999999-0"])
def test_log_cursors_are_entry_ids(r, alice, cursor):
    moderation.record(r, "suspend", "mod", 1, alice)
    expected = 0 if cursor == "1-0" else 1
    assert len(moderation.log_page(r, before=cursor).items) == expected
    assert moderation.LOG_CURSOR.fullmatch(cursor)

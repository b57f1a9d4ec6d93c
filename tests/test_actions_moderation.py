"""socialsite/actions/moderation.py: each act called directly with an Actor (its result
or refusal), and the doors that share one act driven side by side: the report page and
POST /api/v1/reports (the throttle, the verified address, which statuses a report may
name, blocks, reporting oneself or a suspended account), the conversation page's report
and the account's, the moderation pages and manage.py (a reason, one log entry, the
metrics)."""

from io import StringIO

import pytest
from django.core.management import CommandError, call_command
from django.test import Client

from socialsite.actions import Actor, Invalid, NotAllowed, NotFound
from socialsite.actions import moderation as acts
from socialsite.actions.moderation import CannotReportSelf
from socialsite.repository import (
    blocks,
    direct,
    graph,
    keys,
    moderation,
    privacy,
    statuses,
    trends,
    users,
)
from tests.support.helpers import bearer, log_in, make_user, post
from tests.test_metrics import scrape, value


def actor(user, moderator=False):
    return Actor(uid=user["id"], login=user["login"], is_moderator=moderator)


@pytest.fixture
def mod(r):
    user = make_user(r, "mod", "Moe Derator")
    moderation.add_moderator(r, user["id"])
    return user


def open_reports(r):
    return moderation.open_reports_page(r).items


def log_actions(r):
    return [entry["action"] for entry in moderation.log_page(r).items]


def acts_counted(act):
    return value(scrape(), "socialsite_moderation_acts_total", act=act)


def run(*args):
    out = StringIO()
    call_command(*args, stdout=out)
    return out.getvalue()


# --- the two doors of a report ---------------------------------------------------------


class Doors:
    """A report about ``account`` sent by ``reporter`` through the page or the API; its
    outcome as both doors can say it: ("filed", status ids), or ("refused", kind,
    words) where kind is what each door's status code means."""

    PAGE_KINDS = {400: "invalid", 404: "not found", 403: "not allowed", 429: "throttled"}
    API_KINDS = {422: "invalid", 404: "not found", 403: "not allowed", 429: "throttled"}

    def __init__(self, r, reporter, token):
        self.r = r
        self.page = log_in(Client(), reporter["login"])
        self.api = Client()
        self.headers = bearer(token(reporter))

    def _filed(self):
        newest = open_reports(self.r)[0]
        return ("filed", newest["status_ids"])

    def through_page(self, account, reason="spam", status_ids=(), comment=""):
        before = len(open_reports(self.r))
        form = {"reason": reason, "comment": comment, "status": [str(s) for s in status_ids]}
        response = self.page.post(f"/@{account['login']}/report/", form)
        if response.status_code == 302:
            assert len(open_reports(self.r)) == before + 1
            return self._filed()
        return ("refused", self.PAGE_KINDS[response.status_code], response.content.decode())

    def through_api(self, account, reason="spam", status_ids=(), comment=""):
        before = len(open_reports(self.r))
        data = {"account_id": account["id"], "category": reason, "comment": comment}
        data["status_ids[]"] = [str(s) for s in status_ids]
        response = self.api.post("/api/v1/reports", data, **self.headers)
        if response.status_code == 200:
            assert len(open_reports(self.r)) == before + 1
            return self._filed()
        words = response.json()["error"].removeprefix("Validation failed: ")
        return ("refused", self.API_KINDS[response.status_code], words)

    def both(self, account, **report):
        return self.through_page(account, **report), self.through_api(account, **report)


def same_refusal(page, api, kind, words):
    """Both doors refused with ``kind``, and both say ``words`` (the page escapes)."""
    assert page[:2] == api[:2] == ("refused", kind), (page, api)
    assert words in api[2], api
    assert words.replace("'", "&#39;") in page[2], page


@pytest.fixture
def doors(r, bob, token):
    return Doors(r, bob, token)


def test_parity_a_report_with_its_statuses_is_filed_by_both_doors(r, doors, alice, bob):
    sid = post(r, alice, "buy watches")
    page, api = doors.both(alice, status_ids=[sid], comment="ads")
    assert page == api == ("filed", [sid])
    assert [item["comment"] for item in open_reports(r)] == ["ads", "ads"]


def test_parity_one_throttle_counts_reports_through_both_doors(r, doors, alice, settings):
    settings.THROTTLES = {**settings.THROTTLES, "reports": (2, 3600)}
    assert doors.through_page(alice)[0] == "filed"
    assert doors.through_api(alice)[0] == "filed"
    page, api = doors.both(alice)
    assert page[:2] == api[:2] == ("refused", "throttled")
    assert "Too many reports" in page[2] and "Too many reports" in api[2]
    assert len(open_reports(r)) == 2


def test_parity_an_unverified_address_may_report_through_both_doors(r, doors, alice, bob, settings):
    """Reporting needs no verified address (posting, following, liking do): anyone
    logged in may tell the moderators, through either door."""
    settings.EMAIL_VERIFICATION = "required"
    r.hset(keys.user(bob["id"]), keys.EMAIL_STATE_FIELD, "unverified")
    page, api = doors.both(alice)
    assert page[0] == api[0] == "filed"


def test_parity_only_the_accounts_statuses_the_reporter_sees_may_be_named(
    r, doors, alice, bob, carol
):
    carols = post(r, carol, "not alice's")
    page, api = doors.both(alice, status_ids=[carols])
    same_refusal(page, api, "invalid", f"Status {carols} is not one of @alice's statuses")
    # A private account's statuses, to someone who does not follow it: the same words.
    hers = post(r, alice, "for my followers")
    privacy.set_private(r, alice["id"], True)
    page, api = doors.both(alice, status_ids=[hers])
    same_refusal(page, api, "invalid", f"Status {hers} is not one of @alice's statuses")
    too_many = [str(n) for n in range(1, 22)]
    page, api = doors.both(alice, status_ids=too_many)
    same_refusal(page, api, "invalid", "A report names at most 20 statuses; this one 21.")
    assert open_reports(r) == []


def test_parity_an_account_that_blocks_the_reporter_is_reported_without_its_statuses(
    r, doors, alice, bob
):
    sid = post(r, alice, "rude")
    blocks.block(r, alice["id"], bob["id"])
    page, api = doors.both(alice, status_ids=[sid])
    same_refusal(page, api, "invalid", f"Status {sid} is not one of @alice's statuses")
    page, api = doors.both(alice)
    assert page == api == ("filed", [])


def test_parity_nobody_reports_themself_and_both_doors_say_it_alike(r, doors, bob):
    """Drift: the API said "you cannot report yourself", the page "You cannot report
    yourself."; both now say the action's words."""
    page, api = doors.both(bob)
    same_refusal(page, api, "invalid", "You cannot report yourself.")
    assert open_reports(r) == []


def test_parity_a_suspended_account_is_not_found_through_both_doors(r, doors, alice):
    moderation.suspend(r, alice["id"])
    page, api = doors.both(alice)
    assert page[:2] == api[:2] == ("refused", "not found")


def test_parity_reasons_and_comments_are_refused_in_the_same_words(r, doors, alice):
    page, api = doors.both(alice, reason="boredom")
    same_refusal(page, api, "invalid", "Select a valid choice. boredom is not one of the")
    page, api = doors.both(alice, comment="x" * 1001)
    same_refusal(page, api, "invalid", "at most 1000 characters (it has 1001)")
    assert open_reports(r) == []


# --- reporting a message, and the account ----------------------------------------------


@pytest.fixture
def conversation(r, alice, bob):
    """(cid, mid) of a message alice sent bob."""
    graph.follow(r, bob["id"], alice["id"])  # bob takes messages from alice
    sent = direct.start(r, alice["id"], [bob], "rude words", "key-1")
    return sent.cid, sent.mid


def test_parity_message_and_account_reports_share_the_reports_throttle(
    r, conversation, alice, bob, settings
):
    settings.THROTTLES = {**settings.THROTTLES, "reports": (1, 3600)}
    cid, mid = conversation
    client = log_in(Client(), "bob")
    assert client.post(f"/messages/{cid}/{mid}/report/", {"reason": "abuse"}).status_code == 302
    assert client.post("/@alice/report/", {"reason": "spam"}).status_code == 429
    assert client.post(f"/messages/{cid}/{mid}/report/", {"reason": "abuse"}).status_code == 429
    assert len(open_reports(r)) == 1


def test_parity_a_suspended_sender_is_reported_through_neither_door(r, conversation, alice, bob):
    """Drift: the report page answered 404 for a suspended account, while a message of
    theirs could still be reported, into the queue of an account already dealt with."""
    cid, mid = conversation
    moderation.suspend(r, alice["id"])
    client = log_in(Client(), "bob")
    assert client.post("/@alice/report/", {"reason": "spam"}).status_code == 404
    response = client.post(f"/messages/{cid}/{mid}/report/", {"reason": "abuse"}, follow=True)
    assert "That account is suspended" in response.content.decode()
    assert open_reports(r) == []


def test_report_message_directly(r, conversation, alice, bob, carol):
    cid, mid = conversation
    with pytest.raises(NotFound):
        acts.report_message(actor(carol), cid, mid, "spam")  # not a member
    with pytest.raises(NotFound):
        acts.report_message(actor(bob), cid, mid + 1, "spam")
    with pytest.raises(CannotReportSelf, match="your own message"):
        acts.report_message(actor(alice), cid, mid, "spam")
    with pytest.raises(Invalid, match="pick a reason") as refused:
        acts.report_message(actor(bob), cid, mid, "")
    assert refused.value.field == "reason"
    before = acts_counted("report message")
    filed = acts.report_message(actor(bob), cid, mid, "abuse", "  rude  ")
    assert (filed.login, filed.reason, filed.comment, filed.status_ids) == (
        "alice",
        "abuse",
        "rude",
        (),
    )
    report = moderation.get_report(r, filed.id)
    assert [m["message"] for m in report["messages"]] == ["rude words"]
    assert acts_counted("report message") == before + 1


def test_report_account_directly(r, alice, bob, carol):
    sid, carols = post(r, alice, "hers"), post(r, carol, "carol's")
    with pytest.raises(NotFound):
        acts.report_account(actor(bob), 424242, "spam")
    with pytest.raises(CannotReportSelf):
        acts.report_account(actor(bob), bob["id"], "spam")
    with pytest.raises(Invalid, match="not one of @alice's statuses") as refused:
        acts.report_account(actor(bob), alice["id"], "spam", "", [sid, carols])
    assert refused.value.field == "status"
    with pytest.raises(Invalid, match="Null characters"):
        acts.report_account(actor(bob), alice["id"], "spam", "a\x00b")
    before = acts_counted("report")
    filed = acts.report_account(actor(bob), alice["id"], "illegal", "see", [sid, sid])
    assert (filed.login, filed.status_ids) == ("alice", (sid,))
    assert open_reports(r)[0]["id"] == filed.id
    assert acts_counted("report") == before + 1
    moderation.suspend(r, alice["id"])
    with pytest.raises(NotFound):
        acts.report_account(actor(bob), alice["id"], "spam")


def test_parse_status_ids():
    assert acts.parse_status_ids(["3", "1", "3", 0]) == [3, 1, 0]
    with pytest.raises(Invalid, match="A status is named by its number, not '12abc'"):
        acts.parse_status_ids(["12abc"])


# --- a moderator's acts ----------------------------------------------------------------


def test_only_moderators_act(r, alice, bob):
    sid = post(r, alice, "x")
    rid = moderation.file_report(r, bob, alice, "spam", "", [sid])
    nobody = actor(bob)
    for act, args in [
        (acts.dismiss_report, (rid,)),
        (acts.delete_status, (sid, "why")),
        (acts.suspend, (alice["id"], "why")),
        (acts.unsuspend, (alice["id"],)),
        (acts.add_moderator, (bob["id"],)),
        (acts.remove_moderator, (alice["id"],)),
        (acts.hide_tag, ("spam",)),
        (acts.unhide_tag, ("spam",)),
    ]:
        with pytest.raises(NotAllowed):
            act(nobody, *args)
    assert statuses.get_status(r, sid) is not None
    assert [item["id"] for item in open_reports(r)] == [rid]
    assert not users.is_suspended(users.get_user(r, alice["id"]))
    assert log_actions(r) == []


def test_each_act_writes_the_log_once_and_counts_once(r, mod, alice, bob):
    moe = actor(mod, moderator=True)
    counted = {act: acts_counted(act) for act in ("suspend", "unsuspend", "dismiss report")}
    assert acts.suspend(moe, alice["id"], "spam") is acts.Result.DONE
    assert acts.suspend(moe, alice["id"], "spam again") is acts.Result.ALREADY
    assert acts.unsuspend(moe, alice["id"]) is acts.Result.DONE
    assert acts.unsuspend(moe, alice["id"]) is acts.Result.ALREADY
    rid = moderation.file_report(r, bob, alice, "spam")
    assert acts.dismiss_report(moe, rid) is acts.Result.DONE
    assert acts.dismiss_report(moe, rid) is acts.Result.ALREADY
    assert log_actions(r) == ["dismiss report", "unsuspend", "suspend", "add moderator"]
    entry = moderation.log_page(r).items[2]
    assert (entry["by"], entry["by_id"], entry["reason"]) == ("mod", str(mod["id"]), "spam")
    for act, before in counted.items():
        assert acts_counted(act) == before + 1, act


def test_moderator_acts_refuse_what_is_missing_or_unnamed(r, mod, alice, bob):
    moe = actor(mod, moderator=True)
    named, other = post(r, alice, "named"), post(r, alice, "not named")
    rid = moderation.file_report(r, bob, alice, "spam", "", [named])
    with pytest.raises(Invalid, match="Give a reason") as refused:
        acts.delete_status(moe, named, "  ", report_id=rid)
    assert refused.value.field == "reason"
    with pytest.raises(Invalid, match="Give a reason"):
        acts.suspend(moe, alice["id"], "")
    with pytest.raises(Invalid, match=f"Report {rid} does not name status {other}"):
        acts.delete_status(moe, other, "x", report_id=rid)
    with pytest.raises(NotFound):
        acts.delete_status(moe, named, "x", report_id=424242)
    with pytest.raises(NotFound, match="There is no status 424242."):
        acts.delete_status(moe, 424242, "x")
    with pytest.raises(NotFound):
        acts.dismiss_report(moe, 424242)
    with pytest.raises(NotFound):
        acts.suspend(moe, 424242, "x")
    assert statuses.get_status(r, other) is not None
    assert acts.delete_status(moe, named, "rude", report_id=rid) is acts.Result.DONE
    assert open_reports(r) == []  # none of the statuses it names is left
    assert log_actions(r)[0] == "delete status"


def test_parity_a_moderators_deletion_through_the_page_and_the_command(r, mod, alice, bob):
    """One act: both doors need a reason (the command's was optional: drift), both
    write one log entry and count it once."""
    first, second = post(r, alice, "one"), post(r, alice, "two")
    rid = moderation.file_report(r, bob, alice, "abuse", "", [first])
    page = log_in(Client(), "mod")
    form = {"action": "delete-status", "status": str(first)}
    assert page.post(f"/moderation/reports/{rid}/", form).status_code == 400
    with pytest.raises(CommandError, match="--reason"):
        run("moderation", "delete-status", str(second))
    before = acts_counted("delete status")
    response = page.post(f"/moderation/reports/{rid}/", {**form, "reason": "rude"})
    assert response.status_code == 302
    out = run("moderation", "delete-status", str(second), "--reason", "rude", "--by", "mod")
    assert out == f"Status {second} is deleted.\n"
    assert statuses.get_status(r, first) is None and statuses.get_status(r, second) is None
    entries = moderation.log_page(r).items[:2]
    assert [(e["action"], e["by"], e["status"], e["reason"]) for e in entries] == [
        ("delete status", "mod", str(second), "rude"),
        ("delete status", "mod", str(first), "rude"),
    ]
    assert acts_counted("delete status") == before + 2
    # Deleted already: the command says so, the page says there is nothing to do.
    with pytest.raises(CommandError, match=f"There is no status {second}."):
        run("moderation", "delete-status", str(second), "--reason", "x")


def test_parity_suspending_through_the_page_and_the_command(r, mod, alice, bob):
    page = log_in(Client(), "mod")
    assert page.post("/moderation/accounts/alice/suspend/", {"reason": "bot"}).status_code == 302
    assert run("moderation", "suspend", "alice", "--reason", "bot") == (
        "Nothing to do: already so.\n"
    )
    assert run("moderation", "unsuspend", "alice", "--by", "@mod") == (
        "@alice is no longer suspended.\n"
    )
    response = page.post("/moderation/accounts/alice/unsuspend/", {"reason": ""}, follow=True)
    assert "Nothing to do: already so." in response.content.decode()
    assert log_actions(r) == ["unsuspend", "suspend", "add moderator"]
    assert [e["by"] for e in moderation.log_page(r).items[:2]] == ["mod", "mod"]


def test_the_command_line_acts_as_manage_py(r, alice):
    assert acts.command_line_actor().login == moderation.COMMAND_LINE
    assert acts.add_moderator(acts.command_line_actor(), alice["id"]) is acts.Result.DONE
    entry = moderation.log_page(r).items[0]
    assert (entry["action"], entry["by"], entry["by_id"]) == ("add moderator", "manage.py", "")
    with pytest.raises(NotAllowed, match="@bob is not a moderator"):
        acts.moderator_actor("bob")
    assert acts.moderator_actor("@alice").uid == alice["id"]
    moderation.suspend(r, alice["id"])
    with pytest.raises(NotFound, match="suspended or leaving"):
        acts.add_moderator(acts.command_line_actor(), alice["id"])


def test_hiding_a_tag_is_a_moderators_act_in_the_log(r):
    before = acts_counted("hide tag")
    assert run("trends", "hide", "#Spam", "--reason", "flood") == "#spam is hidden from trends.\n"
    assert run("trends", "hide", "spam") == "#spam was hidden.\n"
    assert trends.hidden_tags(r) == ["spam"]
    entry = moderation.log_page(r).items[0]
    assert (entry["action"], entry["by"], entry["tag"], entry["reason"]) == (
        "hide tag",
        "manage.py",
        "spam",
        "flood",
    )
    assert acts_counted("hide tag") == before + 1
    assert (
        run("moderation", "log")
        .splitlines()[0]
        .endswith("manage.py  hide tag  -  tag=spam  reason: flood")
    )
    assert run("trends", "unhide", "spam") == "#spam may trend again (from the next recompute).\n"
    assert log_actions(r) == ["unhide tag", "hide tag"]
    with pytest.raises(Invalid, match="is not a tag"):
        acts.hide_tag(acts.command_line_actor(), "#!!")

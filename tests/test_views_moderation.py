"""Reports and the moderation pages, through the real views on real Redis: the report
form and its refusals, 404 for everyone but moderators, each moderator action, the
audit log's pages, and what a suspension does to the pages and to logging in."""

import re

import pytest
from django.test import Client

from socialsite.repository import graph, moderation, reposts, statuses, users
from tests.support.helpers import PASSWORD, log_in, make_user, post

SUSPENDED_LOGIN_ERROR = "This account is suspended"


def html_of(response):
    return response.content.decode()


def status_ids(response):
    return [int(sid) for sid in re.findall(r'data-status-id="(\d+)"', html_of(response))]


@pytest.fixture
def mod(r):
    user = make_user(r, "mod", "Moe Derator")
    moderation.add_moderator(r, user["id"])
    return user


def as_user(login):
    return log_in(Client(), login)


def open_reports(r):
    return moderation.open_reports_page(r).items


# --- the report form --------------------------------------------------------------------


def test_the_report_form_offers_the_accounts_statuses_and_ticks_the_one_named(
    r, client, alice, bob
):
    older = post(r, alice, "an older one")
    newer = post(r, alice, "the newest")
    post(r, bob, "bob's own")
    log_in(client, "bob")
    response = client.get(f"/@alice/report/?status={older}")
    assert response.status_code == 200
    html = html_of(response)
    assert f'name="status" value="{older}" checked' in html
    assert f'name="status" value="{newer}">' in html
    assert "bob&#39;s own" not in html
    for reason in moderation.REASONS:
        assert f'value="{reason}"' in html
    assert 'name="comment"' in html


def test_the_report_form_shows_a_repost_as_pages_do_and_names_the_repost(
    r, client, alice, bob, carol
):
    """A repost is offered as every timeline shows it: the original's words under
    "↻ <reposter> reposted", never an empty checkbox; ticking it reports the repost."""
    original = post(r, carol, "words of carol")
    reposts.repost(r, alice["id"], original)
    rid = reposts.repost_id(r, alice["id"], original)
    log_in(client, "bob")
    html = html_of(client.get(f"/@alice/report/?status={rid}"))
    assert f'name="status" value="{rid}" checked>' in html
    assert re.search(
        rf'value="{rid}" checked>\s*<span class="reposted-by">.*Alice Liddell</bdi></a> '
        r'reposted</span>\s*<span class="message">words of carol</span>',
        html,
    )
    response = client.post("/@alice/report/", {"reason": "spam", "status": [str(rid)]})
    assert response.status_code == 302
    assert open_reports(r)[0]["status_ids"] == [rid]


def test_reporting_needs_a_login(client, alice):
    response = client.get("/@alice/report/")
    assert response.status_code == 302
    assert response["Location"].startswith("/accounts/login/?next=")


def test_a_report_is_filed_and_the_reporter_told_nothing_more(r, client, alice, bob, carol):
    sid = post(r, alice, "spam spam spam")
    moderation.file_report(r, carol, alice, "abuse")  # someone else's report
    log_in(client, "bob")
    response = client.post(
        "/@alice/report/", {"reason": "spam", "comment": "selling watches", "status": [sid]}
    )
    assert response.status_code == 302 and response["Location"] == "/@alice/"
    page = html_of(client.get("/@alice/"))
    assert "Thank you: your report about @alice is with the moderators." in page
    assert "carol" not in page
    newest = open_reports(r)[0]
    assert (newest["reporter_login"], newest["reason"], newest["comment"]) == (
        "bob",
        "spam",
        "selling watches",
    )
    assert newest["status_ids"] == [sid]


def test_a_status_of_someone_else_is_refused_and_nothing_typed_is_lost(r, client, alice, bob):
    hers = post(r, alice, "hers")
    his = post(r, bob, "his")
    log_in(client, "bob")
    response = client.post(
        "/@alice/report/",
        {"reason": "abuse", "comment": "keep this text", "status": [str(hers), str(his)]},
    )
    assert response.status_code == 400
    html = html_of(response)
    assert f"Status {his} is not one of @alice&#39;s statuses" in html
    assert "keep this text" in html
    assert 'value="abuse" required checked>' in html
    assert f'name="status" value="{hers}" checked' in html
    assert open_reports(r) == []


@pytest.mark.parametrize(
    "form, error",
    [
        ({"comment": "no reason given"}, "Say what is wrong: pick a reason."),
        ({"reason": "boredom"}, "Select a valid choice."),
        ({"reason": "spam", "status": "12abc"}, "A status is named by its number"),
        ({"reason": "spam", "comment": "x" * 1001}, "at most 1000 characters"),
        ({"reason": "spam", "status": [str(i) for i in range(21)]}, "at most 20 statuses"),
    ],
)
def test_bad_reports_are_refused_with_a_reason(r, client, alice, bob, form, error):
    log_in(client, "bob")
    response = client.post("/@alice/report/", form)
    assert response.status_code == 400
    assert error in html_of(response)
    assert open_reports(r) == []


def test_nobody_reports_themself_or_a_suspended_account(r, client, alice, bob):
    log_in(client, "bob")
    response = client.get("/@bob/report/")
    assert response.status_code == 400
    assert "You cannot report yourself." in html_of(response)
    moderation.suspend(r, alice["id"])
    assert client.get("/@alice/report/").status_code == 404
    assert client.post("/@alice/report/", {"reason": "spam"}).status_code == 404
    assert client.get("/@nobody/report/").status_code == 404


def test_profile_and_status_pages_link_to_the_report_form(r, client, alice, bob):
    sid = post(r, alice, "look")
    log_in(client, "bob")
    profile = html_of(client.get("/@alice/"))  # in its more menu, after the flag icon
    assert re.search(r'href="/@alice/report/">(<svg .*?</svg>) Report @alice</a>', profile)
    status_page = html_of(client.get(f"/@alice/{sid}/"))  # in the status's more menu, once
    report = rf'href="/@alice/report/\?status={sid}">(?:<svg .*?</svg>) Report this status</a>'
    reports = re.findall(report, status_page)
    assert len(reports) == 1
    # Not on one's own.
    assert "Report" not in html_of(client.get("/@bob/"))


# --- who may moderate -------------------------------------------------------------------


MODERATION_GETS = ["/moderation/", "/moderation/log/"]


def moderation_posts(rid):
    return [
        (f"/moderation/reports/{rid}/", {"action": "dismiss", "reason": "x"}),
        ("/moderation/accounts/alice/suspend/", {"reason": "x"}),
        ("/moderation/accounts/alice/unsuspend/", {"reason": "x"}),
    ]


def test_moderation_pages_are_404_for_everyone_but_moderators(r, client, alice, bob):
    rid = moderation.file_report(r, bob, alice, "spam")
    log_in(client, "bob")
    for viewer in (Client(), client):  # anonymous, then a user who is no moderator
        for path in MODERATION_GETS:
            assert viewer.get(path).status_code == 404, path
        for path, form in moderation_posts(rid):
            assert viewer.post(path, form).status_code == 404, path
    assert [item["id"] for item in open_reports(r)] == [rid]
    assert not users.is_suspended(users.get_user(r, alice["id"]))
    assert "/moderation/" not in html_of(client.get("/"))


def test_moderation_addresses_are_404_whatever_the_method(r, client, alice, bob, mod):
    rid = moderation.file_report(r, bob, alice, "spam")
    log_in(client, "bob")
    for viewer in (Client(), client):  # anonymous, then a user who is no moderator
        for path, _ in moderation_posts(rid):
            assert viewer.get(path).status_code == 404, path
            assert viewer.head(path).status_code == 404, path
        for path in MODERATION_GETS:
            assert viewer.post(path).status_code == 404, path
    # A moderator: an action's address has no page, whether the report exists or not.
    moderator = as_user("mod")
    for path in (f"/moderation/reports/{rid}/", "/moderation/reports/999/"):
        response = moderator.get(path)
        assert response.status_code == 404, path
        assert "There is no page here" in html_of(response)
    assert moderator.get("/moderation/accounts/alice/suspend/").status_code == 404
    assert moderator.post("/moderation/").status_code == 405
    assert [item["id"] for item in open_reports(r)] == [rid]


def test_a_moderator_who_is_removed_loses_the_pages_at_once(r, mod):
    client = as_user("mod")
    assert client.get("/moderation/").status_code == 200
    assert 'class="menu-item" href="/moderation/">' in html_of(client.get("/"))
    moderation.remove_moderator(r, mod["id"])
    assert client.get("/moderation/").status_code == 404


# --- the queue and its actions ----------------------------------------------------------


def test_the_queue_shows_open_reports_with_their_statuses(r, mod, alice, bob):
    sid = post(r, alice, "the reported words")
    moderation.file_report(r, bob, alice, "abuse", "please look", [sid])
    html = html_of(as_user("mod").get("/moderation/"))
    assert "Open reports (1)" in html
    assert "Abuse or harassment" in html
    assert "the reported words" in html
    assert "please look" in html
    assert "Reported by @bob" in html
    assert 'name="action" value="suspend"' in html


def test_the_queue_shows_a_reported_repost_as_pages_do_and_can_undo_it(r, mod, alice, bob, carol):
    original = post(r, carol, "words of carol")
    reposts.repost(r, alice["id"], original)
    rid = reposts.repost_id(r, alice["id"], original)
    report = moderation.file_report(r, bob, alice, "spam", "", [rid])
    client = as_user("mod")
    html = html_of(client.get("/moderation/"))
    assert re.search(r'class="reposted-by">.*Alice Liddell</bdi></a> reposted</p>', html)
    assert '<p class="message" dir="auto">words of carol</p>' in html
    assert "Carol" in html[html.index('class="reported-card"') :]  # the original's author
    response = client.post(
        f"/moderation/reports/{report}/",
        {"action": "delete-status", "status": str(rid), "reason": "spam"},
    )
    assert response.status_code == 302
    assert not reposts.has_reposted(r, alice["id"], original)
    assert statuses.get_status(r, original) is not None  # the original stays
    assert open_reports(r) == []


def test_dismissing(r, mod, alice, bob):
    rid = moderation.file_report(r, bob, alice, "spam")
    client = as_user("mod")
    response = client.post(f"/moderation/reports/{rid}/", {"action": "dismiss"})
    assert response.status_code == 302 and response["Location"] == "/moderation/"
    assert open_reports(r) == []
    assert f"Report {rid} about @alice is dismissed." in html_of(client.get("/moderation/"))
    assert moderation.log_page(r).items[0]["action"] == "dismiss report"


def test_deleting_a_reported_status(r, mod, alice, bob):
    sid = post(r, alice, "rude words")
    rid = moderation.file_report(r, bob, alice, "abuse", "", [sid])
    client = as_user("mod")
    response = client.post(
        f"/moderation/reports/{rid}/",
        {"action": "delete-status", "status": str(sid), "reason": "rude"},
    )
    assert response.status_code == 302
    assert statuses.get_status(r, sid) is None
    assert open_reports(r) == []
    entry = moderation.log_page(r).items[0]
    assert (entry["action"], entry["by"], entry["status"], entry["reason"]) == (
        "delete status",
        "mod",
        str(sid),
        "rude",
    )


def test_suspending_from_a_report_hides_the_account_everywhere(r, mod, alice, bob):
    graph.follow(r, bob["id"], alice["id"])
    sid = post(r, alice, "visible until suspended")
    rid = moderation.file_report(r, bob, alice, "spam", "", [sid])
    alice_browser = as_user("alice")
    bob_browser = as_user("bob")
    assert status_ids(bob_browser.get("/")) == [sid]

    response = as_user("mod").post(
        f"/moderation/reports/{rid}/", {"action": "suspend", "reason": "spam account"}
    )
    assert response.status_code == 302

    profile = alice_browser.get("/@alice/")  # her own session has ended
    assert profile.status_code == 404 and "This account is suspended." in html_of(profile)
    assert "Log out</button>" not in html_of(alice_browser.get("/"))
    assert bob_browser.get(f"/@alice/{sid}/").status_code == 404
    assert bob_browser.get("/@alice/followers/").status_code == 404
    assert status_ids(bob_browser.get("/")) == []
    refused = Client().post("/accounts/login/", {"username": "alice", "password": PASSWORD})
    assert refused.status_code == 400 and SUSPENDED_LOGIN_ERROR in html_of(refused)
    # A wrong password learns nothing of the suspension.
    wrong = Client().post("/accounts/login/", {"username": "alice", "password": "x" * 20})
    assert SUSPENDED_LOGIN_ERROR not in html_of(wrong)
    assert "@alice" in html_of(as_user("mod").get("/moderation/"))  # listed as suspended

    response = as_user("mod").post("/moderation/accounts/alice/unsuspend/", {"reason": "appeal"})
    assert response.status_code == 302
    assert bob_browser.get("/@alice/").status_code == 200
    assert status_ids(bob_browser.get("/")) == [sid]
    as_user("alice")  # she can log in again
    actions = [entry["action"] for entry in moderation.log_page(r).items]
    assert actions == ["unsuspend", "suspend", "add moderator"]


def test_suspending_an_account_directly(r, mod, alice):
    response = as_user("mod").post("/moderation/accounts/alice/suspend/", {"reason": "bot"})
    assert response.status_code == 302
    assert users.is_suspended(users.get_user(r, alice["id"]))


@pytest.mark.parametrize(
    "form, error",
    [
        ({"action": "suspend"}, "Give a reason: the audit log records why."),
        ({"action": "delete-status", "status": "1"}, "Give a reason: the audit log records why."),
        ({"action": "delete-status", "reason": "x", "status": "a"}, "A status is named by its"),
        ({"action": "explode", "reason": "x"}, "Select a valid choice."),
    ],
)
def test_actions_without_what_they_need_are_refused(r, mod, alice, bob, form, error):
    sid = post(r, alice, "still here")
    rid = moderation.file_report(r, bob, alice, "spam", "", [sid])
    response = as_user("mod").post(f"/moderation/reports/{rid}/", form)
    assert response.status_code == 400
    assert error in html_of(response)
    assert [item["id"] for item in open_reports(r)] == [rid]
    assert statuses.get_status(r, sid) is not None
    assert not users.is_suspended(users.get_user(r, alice["id"]))


def test_only_a_status_the_report_names_can_be_deleted_from_it(r, mod, alice, bob):
    named, other = post(r, alice, "named"), post(r, alice, "not named")
    rid = moderation.file_report(r, bob, alice, "spam", "", [named])
    response = as_user("mod").post(
        f"/moderation/reports/{rid}/",
        {"action": "delete-status", "status": str(other), "reason": "x"},
    )
    assert response.status_code == 400
    assert statuses.get_status(r, other) is not None
    assert as_user("mod").post("/moderation/reports/999/", {"action": "dismiss"}).status_code == 404


# --- the audit log ----------------------------------------------------------------------


def test_the_log_page_shows_each_action_and_pages(r, mod, alice):
    for i in range(55):
        moderation.record(r, "suspend", "mod", mod["id"], alice, f"why {i}")
    client = as_user("mod")
    first = html_of(client.get("/moderation/log/"))
    assert "why 54" in first and "why 5<" in first and "why 4<" not in first
    cursor = re.search(r'href="\?before=([0-9-]+)">Older', first).group(1)
    second = html_of(client.get(f"/moderation/log/?before={cursor}"))
    assert "why 4<" in second and "why 0<" in second and "why 5<" not in second
    bad = client.get("/moderation/log/?before=yesterday")
    assert bad.status_code == 400 and "log entry" in html_of(bad)


# --- hostile values, as a moderator ----------------------------------------------------


def test_hostile_values_in_every_moderation_field_make_no_5xx(r, mod, alice, bob):
    """tests/test_fuzz.py sends its values to these pages as a user who is no
    moderator (404s); here a moderator sends them."""
    from tests.test_fuzz import VALUES

    sid = post(r, alice, "reported")
    rid = moderation.file_report(r, bob, alice, "spam", "", [sid])
    client = log_in(Client(raise_request_exception=False), "mod")
    failures = []
    for value in VALUES:
        for method, path, data in [
            ("GET", "/moderation/", {"before": value}),
            ("GET", "/moderation/log/", {"before": value}),
            ("POST", f"/moderation/reports/{rid}/", {"action": value, "reason": value}),
            ("POST", f"/moderation/reports/{rid}/", {"action": "delete-status", "status": value}),
            ("POST", "/moderation/accounts/bob/suspend/", {"reason": value}),
            ("POST", "/moderation/accounts/bob/unsuspend/", {"reason": value}),
        ]:
            send = client.get if method == "GET" else client.post
            response = send(path, data)
            if response.status_code >= 500:
                failures.append((path, data, response.status_code))
    assert not failures, failures[:5]


# --- CSRF -------------------------------------------------------------------------------


def test_reports_and_moderator_actions_need_the_forms_csrf_token(r, mod, alice, bob):
    from tests.support.helpers import csrf_token

    sid = post(r, alice, "reported")
    reporter = log_in(Client(enforce_csrf_checks=True), "bob")
    assert reporter.post("/@alice/report/", {"reason": "spam"}).status_code == 403
    assert open_reports(r) == []
    token = csrf_token(reporter.get("/@alice/report/"))
    form = {"reason": "spam", "status": str(sid), "csrfmiddlewaretoken": token}
    assert reporter.post("/@alice/report/", form).status_code == 302
    [item] = open_reports(r)

    moderator = log_in(Client(enforce_csrf_checks=True), "mod")
    path = f"/moderation/reports/{item['id']}/"
    suspend = {"action": "suspend", "reason": "spam"}
    assert moderator.post(path, suspend).status_code == 403
    assert moderator.post("/moderation/accounts/alice/suspend/", {"reason": "x"}).status_code == 403
    assert not users.is_suspended(users.get_user(r, alice["id"]))
    token = csrf_token(moderator.get("/moderation/"))
    assert moderator.post(path, {**suspend, "csrfmiddlewaretoken": token}).status_code == 302
    assert users.is_suspended(users.get_user(r, alice["id"]))

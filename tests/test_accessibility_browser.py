"""Every page passes axe-core's WCAG 2.2 A and AA rules and its best practices, in a real
headless Chromium, in both themes at a desktop's and a phone's width.

axe-core comes with the PyPI package axe-playwright-python (requirements-dev.txt). Each
page of the URLconf is loaded logged in (as alice, a moderator, so that every link of
the navigation shows) and logged out, on a site with something on every page (a thread,
likes, reposts, a list, blocks, mutes, follow requests, notifications, an open report),
and so are the error pages and forms sent back with their errors. A test fails on any
violation, naming the rule, the element and why. Each page is checked in four looks
(LOOKS: 1280 and 390 px wide, the system light and dark), and the walk through every page
again with the theme chosen in the settings (dark while the system is light).

PAGES names a page for each GET view of the URLconf and ACTIONS the rest (POST-only
views, JSON, health checks); a test fails when a URL name is in neither, so that a new
page cannot go unchecked.
"""

import re
from urllib.parse import urlencode

import pytest
from django.urls import URLPattern, URLResolver, get_resolver

try:
    from axe_playwright_python.sync_playwright import Axe
    from playwright.sync_api import expect
except ImportError:  # pragma: no cover - the browser fixture skips (or fails with CI=true)
    Axe = expect = None

from accounts import tokens
from media import attachments
from socialsite.repository import (
    blocks,
    communities,
    direct,
    emails,
    filters,
    graph,
    likes,
    lists,
    moderation,
    oauth,
    privacy,
    profiles,
    reposts,
    statuses,
    trends,
    users,
)
from tests.support.helpers import log_in_browser, make_user, post
from tests.test_media_images import png

# The rules: WCAG 2.0, 2.1 and 2.2, levels A and AA, and axe's best practices (among them
# a page's one h1 and landmarks told apart by their names).
AXE_TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22aa", "best-practice"]
AXE_OPTIONS = {
    "runOnly": {"type": "tag", "values": AXE_TAGS},
    "resultTypes": ["violations"],
}
# Each page is checked as shown in each of these: (window width, the system's colour
# scheme). The page is not loaded again: the window is resized and the preference
# changed, as a person turning a phone or switching their system's theme would.
WIDTHS = [1280, 390]
LOOKS = [(width, scheme) for width in WIDTHS for scheme in ("light", "dark")]
WINDOW_HEIGHT = 900

# Violations inside a status (templates/_status.html) or the status form
# (templates/_status_form.html), which another change rewrites: (axe rule, a CSS selector
# part of the element axe names) -> why. Remove an entry once its template is fixed.
EXPECTED = {}


@pytest.fixture(scope="module")
def axe():
    return Axe()


def images(*descriptions):
    """A status's media field: a stored image for each of ``descriptions`` (alt texts)."""
    prepared = [attachments.prepare(png((300 + 40 * n, 200))) for n in range(len(descriptions))]
    return attachments.store(prepared, list(descriptions))[0]


@pytest.fixture
def site(r, media_root):
    """Something on every page, as alice sees it."""
    alice = make_user(r, "alice", "Alice Liddell")
    bob = make_user(r, "bob", "Bob Builder")
    carol = make_user(r, "carol", "Carol Danvers")
    dave = make_user(r, "dave", "Dave Lister")
    erin = make_user(r, "erin", "Erin Brockovich")
    moderation.add_moderator(r, alice["id"])
    privacy.set_private(r, carol["id"], True)
    graph.follow(r, alice["id"], bob["id"])
    graph.follow(r, bob["id"], alice["id"])
    graph.follow(r, dave["id"], carol["id"])  # a request carol has yet to answer
    graph.follow(r, alice["id"], carol["id"], approved=True)
    blocks.block(r, alice["id"], erin["id"])
    blocks.mute(r, alice["id"], dave["id"])
    first = post(r, bob, "Hello #launch day, @alice: see https://example.com/notes")
    reply = post(r, alice, "@bob Congratulations!", in_reply_to=first)
    post(r, bob, "@alice Thanks, and more to come", in_reply_to=reply)
    private = post(r, carol, "Only for my followers #launch")
    own = post(r, alice, "A status of my own", location="48.8566,2.3522")
    statuses.edit_status(r, alice["id"], own, "A status of my own, edited #launch")  # edits
    # Images, described and not, and a content warning over them.
    post(r, bob, "Two pictures #launch", media=images("A red square", ""))
    post(r, alice, "", media=images("A blue square"), spoiler="Squares", sensitive="1")
    likes.like(r, alice["id"], first)
    likes.like(r, bob["id"], reply)
    reposts.repost(r, alice["id"], first)
    _, lid = lists.create_list(r, alice["id"], "Friends")
    lists.add_member(r, alice["id"], lid, bob["id"])
    ad = post(r, dave, "Buy followers now: cheap-followers.example")
    moderation.file_report(r, bob, dave, "spam", "posts nothing but ads", status_ids=[ad])
    for n in range(6):  # enough people for #launch to trend and to suggest bob
        fan = make_user(r, f"fan{n}")
        graph.follow(r, fan["id"], bob["id"])
        post(r, fan, "hello #launch")
    trends.recompute(r)
    # A direct conversation, with a link, a tag and a mention, and a reply.
    talk = direct.start(
        r,
        bob["id"],
        [users.get_user(r, alice["id"])],
        "Lunch at https://example.com/menu #launch, @alice?",
        "k" * 22,
    )
    direct.reply(r, talk.cid, alice["id"], "Yes!\nSee you there.", "j" * 22)
    # Addresses: the verification link's page is erin's, the reset link's alice's.
    emails.set_address(r, erin["id"], "erin@example.org")
    emails.set_address(r, alice["id"], "alice@example.org", verified=True)
    alice_state = tokens.ResetState(alice["id"], users.get_password_hash(r, alice["id"]),
                                    "alice@example.org")  # fmt: skip
    reset_token = tokens.password_reset_tokens.make_token(alice_state)
    # An app alice authorized (/settings/apps/), asking her again (the consent page).
    client_id, _ = oauth.create_app(r, "Pocket Toot", ["urn:ietf:wg:oauth:2.0:oob"],
                                    ["read", "write"], "https://pocket.example/")  # fmt: skip
    oauth.issue_token(r, client_id, ["read", "write"], uid=alice["id"])
    # Groups: alice runs a private group with bob in it; dave asks to join.
    from socialsite.actions import Actor
    from socialsite.actions import statuses as statuses_actions

    tea = communities.create(r, alice["id"], "tea", "Tea Party", "Tea, and talk", "private")
    communities.invite(r, tea, bob["id"])
    communities.join(r, tea, bob["id"])
    communities.join(r, tea, dave["id"])
    statuses_actions.post(
        Actor(uid=bob["id"], login="bob"),
        statuses_actions.NewStatus(text="More tea? #launch"),
        group="tea",
    )
    # Keyword filters: alice's warn filter collapses the fans' statuses on #launch's page.
    _, fid = filters.save_filter(
        r, alice["id"], 0, title="Launch talk", context=["home", "public"], action="warn",
        keywords=[(0, "hello", True)], expires_ms=0,
    )  # fmt: skip
    return {
        "filter": fid,
        "status": first, "reply": reply, "conversation": talk.cid, "private": private, "list": lid,
        "own": own,
        "verify": f"/accounts/verify/{tokens.verification_token(erin['id'], 'erin@example.org')}/",
        "reset": f"/accounts/reset/{tokens.uidb64(alice['id'])}/{reset_token}/",
        "authorize": "/oauth/authorize?" + urlencode({"response_type": "code",
            "client_id": client_id, "redirect_uri": "urn:ietf:wg:oauth:2.0:oob",
            "scope": "read write", "state": "s"}),
    }  # fmt: skip


# Every GET page of the URLconf: its URL name -> its path, for the site above.
PAGES = {
    "home": lambda s: "/",
    "profile": lambda s: "/@bob/",
    "followers": lambda s: "/@bob/followers/",
    "following": lambda s: "/@bob/following/",
    "status_detail": lambda s: f"/@alice/{s['reply']}/",
    "status_likes": lambda s: f"/@bob/{s['status']}/likes/",
    "reposters": lambda s: f"/@bob/{s['status']}/reposts/",
    "user_likes": lambda s: "/@alice/likes/",
    "bookmarks_page": lambda s: "/bookmarks/",
    "edit_status": lambda s: f"/statuses/{s['own']}/edit/",  # edits
    "status_history": lambda s: f"/statuses/{s['own']}/history/",
    "tag": lambda s: "/tags/launch/",
    "notifications": lambda s: "/notifications/",
    "settings": lambda s: "/settings/",
    "edit_profile": lambda s: "/settings/profile/",
    "settings_blocks": lambda s: "/settings/blocks/",
    "settings_mutes": lambda s: "/settings/mutes/",
    "mute": lambda s: "/@bob/mute/",
    "settings_requests": lambda s: "/settings/requests/",
    "explore": lambda s: "/explore/",
    "explore_people": lambda s: "/explore/people/",
    "lists": lambda s: "/lists/",
    "list_timeline": lambda s: f"/lists/{s['list']}/",
    "list_members": lambda s: f"/lists/{s['list']}/members/",
    "search": lambda s: "/search/?q=bo",
    "report": lambda s: f"/@bob/report/?status={s['status']}",
    "moderation_queue": lambda s: "/moderation/",
    "moderation_log": lambda s: "/moderation/log/",
    "signup": lambda s: "/accounts/signup/",
    "login": lambda s: "/accounts/login/",
    "password_change": lambda s: "/accounts/password/",
    "delete_account": lambda s: "/settings/delete/",
    "email_settings": lambda s: "/settings/email/",
    "password_reset": lambda s: "/accounts/password/reset/",
    "password_reset_sent": lambda s: "/accounts/password/reset/sent/",
    "verify_email": lambda s: s["verify"],
    "password_reset_confirm": lambda s: s["reset"],
    "oauth_authorize": lambda s: s["authorize"],
    "settings_apps": lambda s: "/settings/apps/",
    "inbox": lambda s: "/messages/",
    "requests": lambda s: "/messages/requests/",
    "conversation": lambda s: f"/messages/{s['conversation']}/",
    "settings_messages": lambda s: "/settings/messages/",
    # Groups.
    "groups": lambda s: "/groups/",
    "new_group": lambda s: "/groups/new/",
    "group": lambda s: "/g/tea/",
    "group_requests": lambda s: "/g/tea/requests/",
    # The Top timeline (timeline/top.py): its page, Latest's own address, its settings
    # with the preview.
    # Keyword filters.
    "settings_filters": lambda s: "/settings/filters/",
    "edit_filter": lambda s: f"/settings/filters/{s['filter']}/",
    "top": lambda s: "/top/",
    "latest": lambda s: "/latest/",
    "top_settings": lambda s: (
        "/settings/top/?people=more&popular=normal&newest=less&home_tab=latest&preview=1"
    ),
}

# The URLconf's other names: what a form posts to, JSON, health checks.
ACTIONS = {
    "healthz",
    "readyz",
    # Prometheus's text format (socialsite/metrics_page.py).
    "metrics",
    "export_account",
    "search_complete",
    # The settings page's Search form posts here (full-text search's setting).
    "search_settings",
    "logout",
    "post_status",
    "delete_status",
    "follow",
    "unfollow",
    "block",
    "unblock",
    "unmute",
    # Pictures' files (media/views.py): images, not pages.
    "media",
    "approve_request",
    "reject_request",
    "rename_list",
    "delete_list",
    # Keyword filters: the settings page's delete form; the client API's filters.
    "delete_filter",
    "filters",
    "filter",
    "filter_keywords",
    "filter_keyword",
    "filters_v1",
    # Polls: the vote form posts here; the client API's polls.
    "vote_poll",
    "poll",
    "poll_votes",
    "add_to_list",
    "remove_from_list",
    "like",
    "unlike",
    "repost",
    "unrepost",
    "moderation_report_action",
    "moderation_suspend",
    "moderation_unsuspend",
    # The client API (api/): JSON, and what its pages' forms post to.
    "verify_credentials",
    "update_credentials",
    "account_lookup",
    "relationships",
    "account_search",
    "account",
    "account_statuses",
    "instance_v1",
    "instance_v2",
    "statuses",
    "status",
    "status_context",
    "status_source",
    "status_history",
    "favourite",
    "unfavourite",
    "reblog",
    "unreblog",
    "favourited_by",
    "reblogged_by",
    "timeline_home",
    "timeline_public",
    "timeline_tag",
    "timeline_list",
    "timeline_top",
    "notifications_clear",
    "notification",
    "notification_dismiss",
    "create_app",
    "verify_app",
    "oauth_token",
    "oauth_revoke",
    "oauth_server_metadata",
    "revoke_app",
    "media_upload",
    "media_upload_v1",
    "conversations",
    "conversation_read",
    # Direct messages' actions (timeline/direct.py); mute and unmute are named above.
    "leave",
    "accept",
    "delete",
    "delete_message",
    "report_message",
    # The client API's markers, lists, blocks, mutes, ...: JSON.
    "markers",
    "list",
    "list_accounts",
    "blocks",
    "mutes",
    "follow_requests",
    "follow_request_authorize",
    "follow_request_reject",
    "reports",
    "favourites",
    # Bookmarks: the menu's forms, and the client API's.
    "bookmark_status",
    "unbookmark_status",
    "bookmark",
    "unbookmark",
    "bookmarks",
    # Pinned statuses.
    "pin_status",
    "unpin_status",
    "pin",
    "unpin",
    # Followed hashtags.
    "tag_follow_page",
    "tag_unfollow_page",
    "tag_api",
    "tag_follow",
    "tag_unfollow",
    "followed_tags",
    # Groups' forms (timeline/groups.py) and the client API's group timeline.
    "group_join",
    "group_leave",
    "group_home",
    "group_invite",
    "group_decide",
    "group_member",
    "group_remove_status",
    "group_edit",
    "group_delete",
    "group_suspend",
    "timeline_group",
    # The client API's grouped notifications, what apps ask for as they start, NodeInfo
    # and any other path under /api/: JSON.
    "notification_groups",
    "notification_group",
    "notification_group_accounts",
    "notification_group_dismiss",
    "notification_unread_count",
    "preferences",
    "custom_emojis",
    "announcements",
    "featured_tags",
    "trends",
    "trend_tags",
    "trend_statuses",
    "trend_links",
    "api_not_found",
    "nodeinfo_links",
    "nodeinfo",
}


def url_names(patterns=None):
    """Every URL name of the URLconf."""
    names = set()
    for entry in get_resolver().url_patterns if patterns is None else patterns:
        if isinstance(entry, URLResolver):
            names |= url_names(entry.url_patterns)
        elif isinstance(entry, URLPattern) and entry.name:
            names.add(entry.name)
    return names


def test_every_page_of_the_urlconf_is_checked():
    names = url_names()
    assert names - set(PAGES) - ACTIONS == set(), "add the new page to PAGES (or ACTIONS)"
    assert (set(PAGES) | ACTIONS) - names == set(), "a name the URLconf no longer has"


def violations(axe, page):
    """axe's violations on ``page`` in each of LOOKS, less the EXPECTED ones, as readable
    lines; the page is left as it was found (1280 px, the system light)."""
    lines = []
    for width, scheme in LOOKS:
        page.set_viewport_size({"width": width, "height": WINDOW_HEIGHT})
        page.emulate_media(color_scheme=scheme)
        found = axe.run(page, options=AXE_OPTIONS).response["violations"]
        for violation in found:
            for node in violation["nodes"]:
                target = " ".join(str(part) for part in node["target"])
                if any(rule == violation["id"] and part in target for rule, part in EXPECTED):
                    continue
                why = "; ".join(
                    check["message"] for kind in ("any", "all", "none") for check in node[kind]
                )
                lines.append(
                    f"{page.url} ({width} px, system {scheme}) {violation['id']}: "
                    f"{target}: {node['html']}: {why}"
                )
    page.set_viewport_size({"width": WIDTHS[0], "height": WINDOW_HEIGHT})
    page.emulate_media(color_scheme="light")
    return lines


def assert_no_violations(axe, page):
    found = violations(axe, page)
    assert not found, "axe found:\n" + "\n".join(found)


@pytest.fixture
def viewer_page(r, browser_contexts):
    """``viewer_page(login, theme="")``: a page in a context of its own, logged in as
    ``login`` (None: logged out) who chose ``theme`` in the settings ("": the system's)."""

    def open_page(login=None, theme=""):
        page = browser_contexts(
            viewport={"width": WIDTHS[0], "height": WINDOW_HEIGHT}, color_scheme="light"
        ).new_page()
        if login:
            profiles.set_theme(r, users.get_user_id(r, login), theme)
            log_in_browser(page, login)
        return page

    return open_page


@pytest.mark.parametrize(
    ("viewer", "theme"),
    [("alice", ""), (None, ""), ("alice", "dark")],
    ids=["logged-in", "logged-out", "logged-in-dark-setting"],
)
def test_every_page_has_no_violation(axe, site, viewer_page, viewer, theme):
    """One walk through every page (the site and the log-in are made once): a failure
    lists every violation of every page. A page that needs a log-in sends a visitor to
    the log-in page, which is checked too. Each page in each of LOOKS; and once more with
    the dark theme chosen in the settings."""
    page = viewer_page(viewer, theme)
    found = []
    for name in sorted(PAGES):
        page.goto(PAGES[name](site))
        found += violations(axe, page)
    assert not found, "axe found:\n" + "\n".join(found)


def test_the_read_markers_have_no_violation(r, axe, site, viewer_page):
    """The "new since you last read" dividers (markers.py) of the home page and the
    notifications page, each with something new above it."""
    bob = users.get_user_by_login(r, "bob")
    page = viewer_page("alice")
    page.goto("/")  # the home marker set to what is there now
    post(r, bob, "Something new since")
    page.goto("/")
    expect(page.locator("#read-marker")).to_be_visible()
    found = violations(axe, page)
    page.goto("/notifications/")  # read up to now
    post(r, bob, "@alice a mention since")
    page.goto("/notifications/")
    expect(page.locator("#read-marker")).to_be_visible()
    found += violations(axe, page)
    assert not found, "axe found:\n" + "\n".join(found)


def test_the_pages_of_a_private_account_have_no_violation(axe, site, viewer_page):
    """What only carol sees: her follow requests (from dave), her settings with her
    account private, her profile with its badge."""
    page = viewer_page("carol")
    page.goto("/settings/requests/")
    expect(page.get_by_role("main")).to_contain_text("@dave")
    found = violations(axe, page)
    for path in ["/settings/", "/@carol/"]:
        page.goto(path)
        found += violations(axe, page)
    expect(page.get_by_text("Only for my followers")).to_be_visible()
    assert not found, "axe found:\n" + "\n".join(found)


def test_statuses_with_images_and_an_open_warning_have_no_violation(axe, site, viewer_page):
    """The site's images (one described, one not) and a content warning, closed and
    opened, on the home page and the profile."""
    page = viewer_page("alice")
    page.goto("/")
    expect(page.get_by_role("img", name="A red square")).to_be_visible()
    found = violations(axe, page)
    page.get_by_text("Squares").click()
    expect(page.get_by_role("img", name="A blue square")).to_be_visible()
    found += violations(axe, page)
    page.goto("/@bob/")
    found += violations(axe, page)
    assert not found, "axe found:\n" + "\n".join(found)


def test_the_oauth_answers_have_no_violation(axe, site, viewer_page):
    """After the consent page (in PAGES): the code shown for the oob URI, the page of
    a denial, and the page of an app's wrong request."""
    page = viewer_page("alice")
    page.goto(site["authorize"])
    page.get_by_role("button", name="Authorize").click()
    expect(page.get_by_label("Authorization code")).to_be_visible()
    found = violations(axe, page)
    page.goto(site["authorize"])
    page.get_by_role("button", name="Deny").click()
    expect(page.get_by_role("heading", name="Access denied")).to_be_visible()
    found += violations(axe, page)
    page.goto("/oauth/authorize?response_type=code&client_id=nobody")
    expect(page.get_by_role("heading", level=1)).to_contain_text("request is wrong")
    found += violations(axe, page)
    assert not found, "axe found:\n" + "\n".join(found)


# --- error pages and forms sent back with their errors ----------------------------------


def send_form(page, action, **fields):
    """Post ``fields`` to ``action`` from ``page``, as one of its forms would (with its
    CSRF token): for the answers no form on the site leads to. The answer."""
    with page.expect_navigation() as answer:
        page.evaluate(
            """([action, fields]) => {
              const form = document.createElement("form");
              form.method = "post";
              form.action = action;
              const token = document.querySelector("[name=csrfmiddlewaretoken]");
              if (token) fields.csrfmiddlewaretoken = token.value;
              for (const [name, value] of Object.entries(fields)) {
                const input = document.createElement("input");
                input.type = "hidden";
                input.name = name;
                input.value = value;
                form.appendChild(input);
              }
              document.body.appendChild(form);
              form.submit();
            }""",
            [action, fields],
        )
    return answer.value


def click_past_browser_checks(page, button):
    """Click ``button`` with the browser's own form checks off (required, maxlength):
    the server's checks then answer, as they must for any client. The answer."""
    page.evaluate("document.querySelectorAll('form').forEach(f => f.noValidate = true)")
    with page.expect_navigation() as answer:
        page.get_by_role("button", name=button, exact=True).click()
    return answer.value


def search_twice(page, site, settings):
    settings.THROTTLES = {**settings.THROTTLES, "search": (1, 300)}
    settings.BEHIND_PROXY = True  # else a visitor from loopback is spared
    page.goto("/search/?q=bo")
    return page.goto("/search/?q=al")


def delete_someone_elses_status(page, site, settings):
    page.goto("/")
    return send_form(page, f"/statuses/{site['status']}/delete/")


def log_in_without_the_csrf_cookie(page, site, settings):
    page.goto("/accounts/login/")
    page.context.clear_cookies()
    return click_past_browser_checks(page, "Log in")


# What leads to each error page: a path, or a function(page, site, settings).
ERROR_PAGES = [
    pytest.param(None, "/@nobody/", 404, id="404-no-such-user"),
    pytest.param("alice", "/@nobody/", 404, id="404-no-such-user-logged-in"),
    pytest.param("bob", "/moderation/", 404, id="404-not-a-moderator"),
    pytest.param(None, "/?before=x", 400, id="400-malformed-link"),
    pytest.param("alice", "/?before=x", 400, id="400-malformed-link-logged-in"),
    pytest.param(None, "/accounts/logout/", 405, id="405-get-a-form-action"),
    pytest.param("alice", "/accounts/logout/", 405, id="405-get-a-form-action-logged-in"),
    # A status the reader may not see is not there, as one never posted (Mastodon's 404).
    pytest.param(None, lambda s: f"/@carol/{s['private']}/", 404, id="404-private-status"),
    pytest.param("erin", "/@alice/", 403, id="403-blocked"),
    pytest.param("alice", delete_someone_elses_status, 404, id="404-not-your-status"),
    pytest.param(None, log_in_without_the_csrf_cookie, 403, id="403-csrf"),
    pytest.param(None, search_twice, 429, id="429-search"),
    pytest.param("alice", search_twice, 429, id="429-search-logged-in"),
]


@pytest.mark.parametrize(("viewer", "leads_there", "status"), ERROR_PAGES)
def test_the_error_page_has_no_violation(
    axe, site, viewer_page, settings, viewer, leads_there, status
):
    page = viewer_page(viewer)
    if isinstance(leads_there, str):
        response = page.goto(leads_there)
    elif leads_there.__code__.co_argcount == 1:
        response = page.goto(leads_there(site))
    else:
        response = leads_there(page, site, settings)
    assert response.status == status
    assert_no_violations(axe, page)


# Each form, sent back with its errors: viewer, the form's page, what to fill in, its button.
FORMS = [
    pytest.param(
        None,
        "/accounts/signup/",
        {"Login name": "bob", "Password": "short", "Password again": "other"},
        "Sign up",
        id="signup",
    ),
    pytest.param(
        None, "/accounts/login/", {"Login name": "alice", "Password": "wrong"}, "Log in", id="login"
    ),
    pytest.param("alice", "/accounts/password/", {}, "Change password", id="password"),
    pytest.param(
        "alice", "/settings/profile/", {"Display name": ""}, "Save profile", id="profile-name"
    ),
    pytest.param("alice", "/settings/delete/", {}, "Delete my account", id="delete-account"),
    pytest.param("alice", "/lists/", {}, "Make the list", id="new-list"),
    pytest.param("alice", "/settings/filters/", {}, "Make the filter", id="new-filter"),
    pytest.param(
        "alice", lambda s: f"/lists/{s['list']}/", {"List name": ""}, "Rename", id="rename-list"
    ),
    pytest.param(
        "alice", lambda s: f"/lists/{s['list']}/", {}, "Add to the list", id="add-to-list"
    ),
    pytest.param("alice", "/@dave/report/", {}, "Send the report", id="report"),
    pytest.param("alice", "/moderation/", {}, "Suspend @dave", id="moderation-suspend"),
    pytest.param("alice", "/", {}, "Post", id="post"),
    pytest.param(
        "alice", lambda s: f"/@bob/{s['status']}/", {"Your reply": ""}, "Reply", id="reply"
    ),
]


@pytest.mark.parametrize(("viewer", "path", "fields", "button"), FORMS)
def test_a_form_with_errors_has_no_violation(axe, site, viewer_page, viewer, path, fields, button):
    page = viewer_page(viewer)
    page.goto(path if isinstance(path, str) else path(site))
    for label, value in fields.items():
        page.get_by_label(re.compile(rf"^{re.escape(label)}:?$")).fill(value)
    click_past_browser_checks(page, button)
    expect(page.locator(".field-error, .form-errors, .errorlist").first).to_be_visible()
    assert_no_violations(axe, page)


def test_the_search_form_with_errors_has_no_violation(axe, site, viewer_page):
    page = viewer_page("alice")
    page.goto("/search/?q=" + "b" * 101)
    expect(page.locator(".errorlist")).to_be_visible()
    assert_no_violations(axe, page)


# --- what axe cannot see: screenshots, button text, the header -------------------------

# The main pages, as alice sees them.
MAIN_PAGES = [
    "home",
    "profile",
    "status_detail",
    "notifications",
    "search",
    "explore",
    "settings",
    "moderation_queue",
]

# The contrast of each visible button's text with what is behind it: the colour of the
# first ancestor with a background (semi-transparent ones blended in), white at the root.
# axe leaves text the colour of its own background aside ("incomplete", not a violation):
# that is how a red Block button with red text went unnoticed.
BUTTONS_CONTRAST_JS = """
() => {
  function rgba(text) {
    const parts = text.match(/[\\d.]+/g).map(Number);
    return parts.length > 3 ? parts.slice(0, 4) : parts.concat([1]);
  }
  function over(top, bottom) {
    return [0, 1, 2].map(i => top[i] * top[3] + bottom[i] * (1 - top[3])).concat([1]);
  }
  function background(element) {
    const layers = [];
    for (let e = element; e && layers.every(c => c[3] < 1); e = e.parentElement) {
      const color = rgba(getComputedStyle(e).backgroundColor);
      if (color[3] > 0) layers.push(color);
    }
    return layers.reverse().reduce((below, layer) => over(layer, below), [255, 255, 255, 1]);
  }
  function luminance(color) {
    const [r, g, b] = color.slice(0, 3).map(v => {
      v /= 255;
      return v <= 0.03928 ? v / 12.92 : Math.pow((v + 0.055) / 1.055, 2.4);
    });
    return 0.2126 * r + 0.7152 * g + 0.0722 * b;
  }
  function contrast(a, b) {
    const [light, dark] = [luminance(a), luminance(b)].sort((x, y) => y - x);
    return (light + 0.05) / (dark + 0.05);
  }
  const buttons = document.querySelectorAll(
    "button, input[type=submit], input[type=button], a.button, summary");
  return Array.from(buttons)
    .filter(b => b.getClientRects().length && getComputedStyle(b).visibility === "visible")
    .filter(b => !(b.closest("details:not([open])") && !b.closest("summary")))
    .map(b => {
      const style = getComputedStyle(b);
      const behind = background(b);
      return {
        // An icon button (templates/_status.html) shows its icon, in the text's
        // colour, and is named by hidden text or aria-label.
        text: (b.innerText || b.value ||
               (b.querySelector("svg.icon") && (b.getAttribute("aria-label") || b.textContent))
               || "").trim(),
        color: style.color,
        background: "rgb(" + behind.slice(0, 3).map(Math.round).join(", ") + ")",
        contrast: contrast(over(rgba(style.color), behind), behind),
      };
    });
}
"""

# Every link, button and field of the header that a person cannot reach: outside the
# window, or covered or clipped where its middle should be. A closed menu's items are
# reached by opening it (its summary is checked).
UNREACHABLE_IN_HEADER_JS = """
() => Array.from(document.querySelectorAll(
    ".site-header a, .site-header button, .site-header summary, "
    + ".site-header input:not([type=hidden])"))
  .filter(e => !e.closest("details:not([open]) > .menu-items"))
  .filter(e => {
    const box = e.getBoundingClientRect();
    if (!box.width || !box.height) return true;
    if (box.left < 0 || box.right > window.innerWidth) return true;
    const hit = document.elementFromPoint(box.left + box.width / 2, box.top + box.height / 2);
    return !(hit && (hit === e || e.contains(hit)));
  })
  .map(e => e.outerHTML)
"""

# The frame (templates/base.html), measured: the header (the top bar on a phone, the side
# column on a desktop), the navigation (the tab bar on a phone), the main column, and
# each control of the frame smaller than a finger (WCAG 2.5.5: 44 x 44 px).
FRAME_JS = """
() => {
  const box = e => { const b = e.getBoundingClientRect();
    return {top: b.top, bottom: b.bottom, left: b.left, right: b.right, height: b.height}; };
  const controls = document.querySelectorAll(
    ".site-header a, .site-header button, .site-header summary");
  return {
    header: box(document.querySelector(".site-header")),
    nav: box(document.querySelector(".site-header nav")),
    main: box(document.querySelector("main")),
    window: {width: window.innerWidth, height: window.innerHeight},
    small: Array.from(controls)
      .filter(e => e.getClientRects().length && !e.closest("details:not([open]) > .menu-items"))
      .filter(e => { const b = e.getBoundingClientRect(); return b.width < 44 || b.height < 44; })
      .map(e => e.outerHTML.slice(0, 80)),
  };
}
"""
# The phone's top bar: at most this high, so that the content starts at once.
TOP_BAR_MAX_HEIGHT = 64

# WCAG AA for text of a normal size.
MIN_CONTRAST = 4.5


def defects(page, width):
    """What is wrong with the page as shown ``width`` pixels wide, as readable lines."""
    found = []
    buttons = page.evaluate(BUTTONS_CONTRAST_JS)
    if not buttons:
        found.append("no button at all (the header has Log out and Search)")
    for button in buttons:
        if not button["text"] or button["contrast"] < MIN_CONTRAST:
            found.append(f"a button whose text cannot be read: {button}")
    for element in page.evaluate(UNREACHABLE_IN_HEADER_JS):
        found.append(f"out of reach in the header: {element}")
    if page.evaluate("document.documentElement.scrollWidth") > width:
        found.append("wider than the window: it scrolls sideways")
    frame = page.evaluate(FRAME_JS)
    header, nav, main = frame["header"], frame["nav"], frame["main"]
    if width >= 1280 and header["right"] > main["left"]:
        found.append(f"the side column is not beside the content: {header}, {main}")
    if width < 1280:
        if header["height"] > TOP_BAR_MAX_HEIGHT or header["top"] != 0:
            found.append(f"the top bar is not one line at the top: {header}")
        if abs(nav["bottom"] - frame["window"]["height"]) > 1:
            found.append(f"the tab bar is not at the bottom of the window: {nav}")
        for control in frame["small"]:
            found.append(f"a control of the frame smaller than 44 x 44 px: {control}")
    return [f"{page.url} at {width} px: {line}" for line in found]


@pytest.mark.parametrize("scheme", ["light", "dark"])
@pytest.mark.parametrize("width", WIDTHS)
def test_the_main_pages_look_right(site, browser_contexts, tmp_path, width, scheme):
    """Each main page, as alice sees it: a screenshot (in the test's tmp_path), then
    its buttons' text, its frame and its width checked."""
    page = browser_contexts(
        viewport={"width": width, "height": WINDOW_HEIGHT}, color_scheme=scheme
    ).new_page()
    log_in_browser(page, "alice")
    found = []
    for name in MAIN_PAGES:
        page.goto(PAGES[name](site))
        page.screenshot(path=tmp_path / f"{name}-{width}-{scheme}.png", full_page=True)
        found += defects(page, width)
    assert not found, "\n".join(found)


@pytest.mark.parametrize("viewer", ["alice", None], ids=["logged-in", "logged-out"])
def test_the_phone_top_bar_is_at_most_64_px_tall(site, viewer_page, viewer):
    """On a phone the header is one bar, the content right under it; the navigation is
    the tab bar at the bottom of the window."""
    page = viewer_page(viewer)
    page.set_viewport_size({"width": 390, "height": 844})
    page.goto("/explore/")
    banner = page.get_by_role("banner").bounding_box()
    assert banner["y"] == 0 and banner["height"] <= TOP_BAR_MAX_HEIGHT, banner
    assert page.get_by_role("main").bounding_box()["y"] <= TOP_BAR_MAX_HEIGHT
    tabs = page.get_by_role("navigation", name="Site").bounding_box()
    assert tabs["y"] + tabs["height"] == 844
    if viewer:
        tab_names = ["Home", "Explore", "Notifications", "Messages", "Profile"]
        for name in tab_names:
            tab = page.get_by_role("navigation", name="Site").get_by_role("link", name=name)
            box = tab.bounding_box()
            assert box["width"] >= 44 and box["height"] >= 44, (name, box)
        expect(page.get_by_role("link", name="New status")).to_be_visible()
        # Lists, Settings, Password, Moderation and Log out: under the account's menu.
        menu = page.locator("header .account-menu")
        expect(menu.get_by_role("link", name="Settings")).to_be_hidden()
        menu.locator("> summary").click()
        for name in ["Lists", "Settings", "Password", "Moderation"]:
            expect(menu.get_by_role("link", name=name)).to_be_visible()
        expect(menu.get_by_role("button", name="Log out")).to_be_visible()


BACKGROUND_JS = "() => getComputedStyle(document.body).backgroundColor"


def test_the_dark_theme_changes_the_page_background(r, site, viewer_page):
    """The system's dark preference darkens the page; the reader's choice in the settings
    wins over the system's, either way."""
    page = viewer_page(None)
    page.goto("/explore/")
    light = page.evaluate(BACKGROUND_JS)
    page.emulate_media(color_scheme="dark")
    dark = page.evaluate(BACKGROUND_JS)
    assert light != dark
    assert page.evaluate("getComputedStyle(document.documentElement).colorScheme") == "light dark"

    page = viewer_page("alice", "dark")  # the system light
    page.goto("/explore/")
    assert page.evaluate(BACKGROUND_JS) == dark
    profiles.set_theme(r, users.get_user_id(r, "alice"), "light")
    page.emulate_media(color_scheme="dark")
    page.goto("/explore/")
    assert page.evaluate(BACKGROUND_JS) == light
    # Chosen on the settings page, it shows on the next page.
    page.goto("/settings/")
    page.get_by_label("Theme").select_option("Dark")
    page.get_by_role("button", name="Save").click()
    expect(page.locator("html")).to_have_attribute("data-theme", "dark")
    assert page.evaluate(BACKGROUND_JS) == dark

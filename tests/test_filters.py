"""Keyword filters (socialsite/actions/filters.py, repository/filters.py, decision 0073):
matching, the actions' rules, the settings pages, the v2 and v1 filters API, and the
filters applied in every context (home, notifications, public, thread, account) on the
pages and through the API; Mastodon.py drives them; the home page keeps its round trip."""

import json
import re
import time

import pytest
from django.test import Client

from socialsite.actions import Actor, Invalid, NotFound
from socialsite.actions import filters as filter_actions
from socialsite.actions import statuses as statuses_actions
from socialsite.repository import filters, graph, keys, limits
from tests.support.helpers import bearer, log_in, make_user, post

KC = filter_actions.KeywordChange


def actor(user):
    return Actor(uid=user["id"], login=user["login"])


def make_filter(user, title="Spoilers", words=("dragon",), action="hide",
                context=filters.CONTEXTS, expires_in=None, whole_word=True):  # fmt: skip
    return filter_actions.create_filter(
        actor(user), title, context, action, [KC(w, whole_word) for w in words], expires_in
    )


def html(response):
    return response.content.decode()


def shown(page, text):
    return text in html(page)


# --- matching --------------------------------------------------------------------------


def _matcher(*keywords, action="hide"):
    found = filters.Filter(
        1, "t", filters.CONTEXTS, action,
        tuple(filters.Keyword(i, w, whole) for i, (w, whole) in enumerate(keywords)), 0,
    )  # fmt: skip
    return filters.matcher_for((found,), "home")


def test_a_status_is_matched_once_per_version():
    """A Matcher remembers each status's result by its id and edit time: an edit (a new
    time) is matched again, the same version is not."""
    matcher = _matcher(("dragon", True))
    assert matcher.check({"id": 7, "message": "a quiet day"}) is None
    # The same version: its result is remembered (the text is not read again).
    assert matcher.check({"id": 7, "message": "a dragon, unseen"}) is None
    edited = {"id": 7, "message": "a dragon after all", "edited": "1700000000000"}
    assert matcher.check(edited).action == filters.HIDE
    assert filters.decode_all({}) == ()


@pytest.mark.parametrize(
    "keyword, whole, status, hit",
    [
        ("dragon", True, {"message": "A DRAGON appears"}, True),
        ("dragon", True, {"message": "dragons everywhere"}, False),
        ("dragon", False, {"message": "dragons everywhere"}, True),
        ("c++", True, {"message": "I write C++ daily"}, True),
        ("#tv", True, {"message": "watching #TV"}, True),
        ("finale", True, {"message": "ok", "spoiler": "Finale talk"}, True),
        ("sunset", True, {"message": "look", "media": json.dumps([{"a": "a red sunset"}])}, True),
        ("pineapple", True, {"message": "?", "poll": json.dumps({"options": ["Pineapple"]})}, True),
        ("été", True, {"message": "L'ÉTÉ arrive"}, True),
        ("dragon", True, {"message": "nothing here"}, False),
    ],
)
def test_matching_is_on_text_warning_descriptions_and_options_ignoring_case(
    keyword, whole, status, hit
):
    assert (_matcher((keyword, whole)).check(status) is not None) is hit


def test_hide_wins_over_warn_and_warn_lists_every_filter_and_word():
    mine = (
        filters.Filter(1, "Warned", ("home",), "warn", (filters.Keyword(1, "cat", True),), 0),
        filters.Filter(2, "Also", ("home",), "warn", (filters.Keyword(2, "dog", True),), 0),
        filters.Filter(3, "Gone", ("home",), "hide", (filters.Keyword(3, "rat", True),), 0),
    )
    matcher = filters.matcher_for(mine, "home")
    found = matcher.check({"message": "a cat and a dog and a Cat"})
    assert found.action == "warn" and found.titles == "Warned, Also"
    assert found.keyword_matches == (("cat", "Cat"), ("dog",))
    assert matcher.check({"message": "a cat and a rat"}).action == "hide"
    assert filters.matcher_for(mine, "public") is None  # no filter of that context
    expired = (dataclass_replace(mine[2], expires_ms=int(time.time() * 1000) - 1),)
    assert filters.matcher_for(expired, "home") is None


def dataclass_replace(found, **changes):
    import dataclasses

    return dataclasses.replace(found, **changes)


# --- the actions -----------------------------------------------------------------------


def test_a_filter_is_made_changed_and_deleted_by_its_owner_alone(r, alice, bob):
    made = make_filter(alice, words=("dragon", "Dragon", "wyvern"), expires_in=3600)
    assert made.title == "Spoilers" and [k.keyword for k in made.keywords] == ["dragon", "wyvern"]
    assert made.expires_ms > time.time() * 1000 + 3500_000
    dragon, wyvern = made.keywords
    changed = filter_actions.update_filter(
        actor(alice), made.id, title="Fantasy", action="warn",
        keywords=[KC("drake", False, id=dragon.id), KC(id=wyvern.id, destroy=True), KC("orc")],
        expires_in=None,
    )  # fmt: skip
    assert changed.title == "Fantasy" and changed.action == "warn" and changed.expires_ms == 0
    assert [(k.id, k.keyword, k.whole_word) for k in changed.keywords][0] == (
        dragon.id,
        "drake",
        False,
    )
    assert [k.keyword for k in changed.keywords] == ["drake", "orc"]
    assert changed.keywords[1].id not in (dragon.id, wyvern.id)
    with pytest.raises(NotFound):
        filter_actions.get_filter(actor(bob), made.id)
    with pytest.raises(NotFound):
        filter_actions.delete_filter(actor(bob), made.id)
    filter_actions.delete_filter(actor(alice), made.id)
    with pytest.raises(NotFound):
        filter_actions.delete_filter(actor(alice), made.id)  # a retry
    assert filters.get_filters(r, alice["id"]) == ()


@pytest.mark.parametrize(
    "values, field",
    [
        ({"title": " "}, "title"),
        ({"title": "x" * 101}, "title"),
        ({"context": []}, "context"),
        ({"context": ["home", "elsewhere"]}, "context"),
        ({"action": "blur"}, "filter_action"),
        ({"words": ("x" * 101,)}, "keywords_attributes"),
        ({"words": [f"w{i}" for i in range(51)]}, "keywords_attributes"),
        ({"expires_in": 0}, "expires_in"),
    ],
)
def test_values_out_of_bounds_are_refused(r, alice, values, field):
    with pytest.raises(Invalid) as refused:
        make_filter(alice, **values)
    assert refused.value.field == field
    assert filters.get_filters(r, alice["id"]) == ()


def test_a_user_has_at_most_so_many_filters(r, alice, monkeypatch):
    monkeypatch.setattr(filter_actions, "FILTERS_PER_USER", 2)
    make_filter(alice)
    make_filter(alice)
    with pytest.raises(Invalid):
        make_filter(alice)
    assert len(filters.get_filters(r, alice["id"])) == 2


def test_deleting_the_account_deletes_its_filters(r, alice):
    make_filter(alice)
    assert filters.forget(r, alice["id"], 10) == 1
    assert not r.exists(keys.filters(alice["id"])) and not r.exists(keys.filter_ids(alice["id"]))


# --- the settings pages -----------------------------------------------------------------


def test_the_settings_pages_make_edit_and_delete_a_filter(r, alice, bob):
    browser = log_in(Client(), "alice")
    assert "You have no filters yet." in html(browser.get("/settings/filters/"))
    assert 'href="/settings/filters/"' in html(browser.get("/settings/"))
    response = browser.post(
        "/settings/filters/",
        {"title": "Spoilers", "keywords": "dragon\n\nthe finale\n", "whole_word": "on",
         "context": ["home", "thread"], "filter_action": "warn", "expires_in": "86400"},
    )  # fmt: skip
    assert response.status_code == 302 and response.url == "/settings/filters/"
    (made,) = filters.get_filters(r, alice["id"])
    assert [k.keyword for k in made.keywords] == ["dragon", "the finale"]
    assert made.context == ("home", "thread") and made.action == "warn" and made.expires_ms
    page = html(browser.get("/settings/filters/"))
    assert "Your filter \u201cSpoilers\u201d is on." in page and "the finale" in page
    edit = html(browser.get(f"/settings/filters/{made.id}/"))
    assert 'value="Spoilers"' in edit and "the finale" in edit
    response = browser.post(
        f"/settings/filters/{made.id}/",
        {"title": "Shows", "keywords": "dragon\nepisode", "context": ["public"],
         "filter_action": "hide", "expires_in": "keep"},
    )  # fmt: skip
    assert response.status_code == 302
    (changed,) = filters.get_filters(r, alice["id"])
    assert changed.title == "Shows" and changed.action == "hide"
    assert changed.keywords[0] == filters.Keyword(made.keywords[0].id, "dragon", False)
    assert changed.expires_ms == made.expires_ms
    # Another user's filter is a plain 404.
    other = log_in(Client(), "bob")
    assert other.get(f"/settings/filters/{made.id}/").status_code == 404
    assert other.post(f"/settings/filters/{made.id}/delete/").status_code == 404
    response = browser.post(f"/settings/filters/{made.id}/delete/", follow=True)
    assert "Your filter \u201cShows\u201d is deleted." in html(response)
    assert filters.get_filters(r, alice["id"]) == ()


def test_the_settings_page_says_what_is_wrong(r, alice):
    browser = log_in(Client(), "alice")
    response = browser.post(
        "/settings/filters/", {"title": "", "keywords": "x", "filter_action": "warn"}
    )
    assert response.status_code == 400
    errors = re.findall(r'<span class="field-error" role="alert">([^<]*)</span>', html(response))
    assert len(errors) == 2  # the title, where it applies
    assert filters.get_filters(r, alice["id"]) == ()
    assert Client().get("/settings/filters/").status_code == 302  # to log in


# --- applied on the pages ----------------------------------------------------------------


@pytest.fixture
def reading(r, alice, bob):
    """bob follows alice, who posted a status about a dragon and one about tea."""
    graph.follow(r, bob["id"], alice["id"])
    dragon = post(r, alice, "The dragon wins in the end")
    tea = post(r, alice, "Time for tea")
    return dragon, tea


def test_a_hide_filter_removes_the_status_from_home_and_profile(r, alice, bob, reading):
    browser = log_in(Client(), "bob")
    assert shown(browser.get("/"), "The dragon wins")
    make_filter(bob, action="hide", context=("home", "account"))
    for url in ("/", "/latest/", "/@alice/"):
        page = browser.get(url)
        assert not shown(page, "The dragon wins") and shown(page, "Time for tea"), url
    # Alice's own statuses are never filtered for her; other readers are unaffected.
    make_filter(alice, action="hide")
    assert shown(log_in(Client(), "alice").get("/@alice/"), "The dragon wins")
    assert shown(Client().get("/@alice/"), "The dragon wins")


def test_a_warn_filter_collapses_the_status_behind_its_title(r, alice, bob, carol, reading):
    graph.follow(r, carol["id"], alice["id"])
    browser = log_in(Client(), "bob")
    make_filter(bob, title="No spoilers", action="warn", context=("home",))
    page = html(browser.get("/"))
    assert "Filtered: <bdi>No spoilers</bdi>" in page
    collapsed = re.search(r'<details class="filtered">.*?</details>', page, re.S).group()
    assert "The dragon wins" in collapsed and "Time for tea" not in collapsed
    # The same status's markup, remembered, is shown bare to another reader.
    other = html(log_in(Client(), "carol").get("/"))
    assert "The dragon wins" in other and "Filtered:" not in other
    # A context the filter does not name: shown as it is.
    assert "Filtered:" not in html(browser.get("/@alice/"))


def test_filters_apply_to_tags_threads_and_notifications(r, alice, bob):
    tagged = post(r, alice, "The dragon is back #shows")
    root = post(r, bob, "What happened?")
    reply = statuses_actions.post(
        actor(alice), statuses_actions.NewStatus("@bob the dragon did it", in_reply_to=root)
    )
    make_filter(bob, action="hide", context=("public", "thread", "notifications"))
    browser = log_in(Client(), "bob")
    assert not shown(browser.get("/tags/shows/"), "The dragon is back")
    thread = browser.get(f"/@bob/{root}/")
    assert shown(thread, "What happened?") and not shown(thread, "the dragon did it")
    notes = html(browser.get("/notifications/"))
    assert "the dragon did it" not in notes
    # The status asked for by its link is shown, collapsed, not hidden.
    focused = html(browser.get(f"/@alice/{reply}/"))
    assert "Filtered: <bdi>Spoilers</bdi>" in focused and "the dragon did it" in focused
    assert tagged


def test_a_warn_filter_collapses_a_notification(r, alice, bob):
    statuses_actions.post(actor(alice), statuses_actions.NewStatus("@bob the dragon is here"))
    make_filter(bob, title="Beasts", action="warn", context=("notifications",))
    page = html(log_in(Client(), "bob").get("/notifications/"))
    assert "Filtered: <bdi>Beasts</bdi>" in page and "the dragon is here" in page


def test_an_expired_filter_applies_nowhere(r, alice, bob, reading):
    made = make_filter(bob, expires_in=3600)
    r.hset(keys.filters(bob["id"]), made.id, json.dumps({
        "title": made.title, "context": list(made.context), "action": "hide",
        "keywords": [{"id": 2, "keyword": "dragon", "whole_word": True}],
        "expires": int(time.time() * 1000) - 1000,
    }))  # fmt: skip
    browser = log_in(Client(), "bob")
    assert shown(browser.get("/"), "The dragon wins")
    assert "expired" in html(browser.get("/settings/filters/"))


def test_the_home_page_keeps_its_round_trip_with_ten_filters(
    r, client, alice, round_trips, redis_backend
):
    # The filters are read with the session (filters.Read): the same round trips as
    # without them (who to follow is counted in both).
    from tests.test_round_trips import cost

    reader = make_user(r, "reader")
    log_in(client, "reader")
    graph.follow(r, reader["id"], alice["id"])
    for n in range(30):
        post(r, alice, f"status {n} about topic{n % 15}")
    before = cost(client, "/", round_trips)
    for n in range(10):
        make_filter(reader, title=f"f{n}", words=[f"topic{n}", *(f"word{n}x{k}" for k in range(4))],
                    action="warn" if n % 2 else "hide")  # fmt: skip
    assert cost(client, "/", round_trips) == before
    page = client.get("/").content.decode()
    assert page.count("Filtered: ") == 10 and page.count('class="status"') == 20


# --- the client API ---------------------------------------------------------------------


def test_the_api_makes_reads_changes_and_deletes_filters_as_form_fields(r, alice, bob, token):
    auth = bearer(token(alice))
    response = Client().post(
        "/api/v2/filters",
        {"title": "Spoilers", "context[]": ["home", "public"], "filter_action": "hide",
         "keywords_attributes[][keyword]": ["dragon", "finale"],
         "keywords_attributes[][whole_word]": ["true", "false"], "expires_in": "600"},
        **auth,
    )  # fmt: skip
    assert response.status_code == 200, response.content
    made = response.json()
    assert made["title"] == "Spoilers" and made["context"] == ["home", "public"]
    assert made["filter_action"] == "hide" and made["expires_at"].endswith("Z")
    assert [(k["keyword"], k["whole_word"]) for k in made["keywords"]] == [
        ("dragon", True), ("finale", False)
    ]  # fmt: skip
    fid = made["id"]
    assert Client().get("/api/v2/filters", **auth).json() == [made]
    assert Client().get(f"/api/v2/filters/{fid}", **auth).json() == made
    assert Client().get(f"/api/v2/filters/{fid}", **bearer(token(bob))).status_code == 404
    dragon = made["keywords"][0]["id"]
    changed = (
        Client()
        .put(
            f"/api/v2/filters/{fid}",
            f"title=Shows&keywords_attributes[0][id]={dragon}&keywords_attributes[0][_destroy]=1"
            "&keywords_attributes[1][keyword]=orc",
            content_type="application/x-www-form-urlencoded",
            **auth,
        )
        .json()
    )
    assert changed["title"] == "Shows" and changed["context"] == ["home", "public"]
    assert [k["keyword"] for k in changed["keywords"]] == ["finale", "orc"]
    assert changed["expires_at"] == made["expires_at"]
    keywords = Client().get(f"/api/v2/filters/{fid}/keywords", **auth).json()
    assert [k["keyword"] for k in keywords] == ["finale", "orc"]
    v1 = Client().get("/api/v1/filters", **auth).json()
    assert [(f["phrase"], f["irreversible"]) for f in v1] == [("finale", True), ("orc", True)]
    assert Client().delete(f"/api/v2/filters/{fid}", **auth).json() == {}
    assert Client().get(f"/api/v2/filters/{fid}", **auth).status_code == 404


def test_the_api_takes_json_and_refuses_bad_values(r, alice, token):
    auth = bearer(token(alice))
    response = Client().post(
        "/api/v2/filters",
        json.dumps({"title": "T", "context": ["thread"], "filter_action": "warn",
                    "keywords_attributes": [{"keyword": "cat", "whole_word": True}]}),
        content_type="application/json", **auth,
    )  # fmt: skip
    assert response.status_code == 200 and response.json()["keywords"][0]["keyword"] == "cat"
    fid = response.json()["id"]
    added = Client().post(f"/api/v2/filters/{fid}/keywords", {"keyword": "dog"}, **auth).json()
    assert added["keyword"] == "dog" and added["whole_word"] is False
    assert Client().delete(f"/api/v2/filters/keywords/{added['id']}", **auth).status_code == 200
    assert len(filters.get_filters(r, alice["id"])[0].keywords) == 1
    for bad in ({"title": "", "context": ["home"]}, {"title": "x", "context": ["nowhere"]},
                {"title": "x", "context": ["home"], "filter_action": "blur"},
                {"title": "x", "context": ["home"], "expires_in": "soon"}):  # fmt: skip
        response = Client().post(
            "/api/v2/filters", json.dumps(bad), content_type="application/json", **auth
        )
        assert response.status_code == 422, bad
    assert (
        Client().get("/api/v2/filters", **bearer(token(alice, ["read:statuses"]))).status_code
        == 403
    )


def test_the_api_hides_and_marks_statuses_in_every_context(r, alice, bob, token):
    graph.follow(r, bob["id"], alice["id"])
    post(r, alice, "A dragon story #tales")
    post(r, alice, "A cat story #tales")
    root = post(r, bob, "Tell me")
    statuses_actions.post(actor(alice), statuses_actions.NewStatus("@bob a dragon reply",
                                                                  in_reply_to=root))  # fmt: skip
    make_filter(bob, title="Beasts", words=("dragon",), action="hide")
    make_filter(bob, title="Pets", words=("cat",), action="warn")
    auth = bearer(token(bob))

    def texts(entities):
        return [e["content"] for e in entities]

    urls = ["/api/v1/timelines/home", "/api/v1/timelines/tag/tales", "/api/v1/timelines/public",
            f"/api/v1/accounts/{alice['id']}/statuses"]  # fmt: skip
    for url in urls:
        found = Client().get(url, **auth).json()
        assert not any("dragon" in t for t in texts(found)), url
        cat = next(e for e in found if "cat story" in e["content"])
        (result,) = cat["filtered"]
        assert result["filter"]["title"] == "Pets" and result["keyword_matches"] == ["cat"]
    context = Client().get(f"/api/v1/statuses/{root}/context", **auth).json()
    assert context["descendants"] == []
    notes = Client().get("/api/v1/notifications", **auth).json()
    assert not any(n["status"] and "dragon" in n["status"]["content"] for n in notes)
    grouped = Client().get("/api/v2/notifications", **auth).json()
    assert not any("dragon" in s["content"] for s in grouped["statuses"])
    # Without filters, the same calls show them.
    carol = make_user(r, "carol")
    graph.follow(r, carol["id"], alice["id"])
    home = Client().get("/api/v1/timelines/home", **bearer(token(carol))).json()
    assert any("dragon" in t for t in texts(home)) and all(e["filtered"] == [] for e in home)


def test_a_status_asked_for_by_id_is_marked_by_a_hide_filter_never_left_out(r, alice, bob, token):
    sid = post(r, alice, "The dragon did it")
    other = post(r, alice, "Nothing to see")
    make_filter(bob, title="Spoilers", words=("dragon",), action="hide", context=("thread",))
    auth = bearer(token(bob))
    found = Client().get(f"/api/v1/statuses/{sid}", **auth).json()
    (result,) = found["filtered"]
    assert result["filter"]["title"] == "Spoilers" and result["keyword_matches"] == ["dragon"]
    assert Client().get(f"/api/v1/statuses/{other}", **auth).json()["filtered"] == []
    # Another's filters are theirs alone; a visitor has none.
    carol = make_user(r, "carol")
    assert Client().get(f"/api/v1/statuses/{sid}", **bearer(token(carol))).json()["filtered"] == []
    assert Client().get(f"/api/v1/statuses/{sid}").json()["filtered"] == []


def test_mastodon_py_drives_filters(r, live_server, settings, alice, bob, token):
    from mastodon import Mastodon

    settings.SITE_URL = live_server.url
    graph.follow(r, bob["id"], alice["id"])
    post(r, alice, "The dragon wins")
    post(r, alice, "Tea time")
    api = Mastodon(access_token=token(bob), api_base_url=live_server.url, version_check_mode="none")
    made = api.create_filter_v2(
        "Spoilers",
        ["home"],
        "warn",
        keywords_attributes=[{"keyword": "dragon", "whole_word": True}],
    )
    assert made["title"] == "Spoilers" and made["keywords"][0]["keyword"] == "dragon"
    assert [f["id"] for f in api.filters_v2()] == [made["id"]]
    assert api.filters()[0]["phrase"] == "dragon"
    home = api.timeline_home()
    warned = [s for s in home if s["filtered"]]
    assert len(warned) == 1 and warned[0]["filtered"][0]["filter"]["title"] == "Spoilers"
    api.update_filter_v2(made["id"], filter_action="hide")
    assert [s["content"] for s in api.timeline_home()] == ["<p>Tea time</p>"]
    assert [k["keyword"] for k in api.filter_keywords_v2(made["id"])] == ["dragon"]
    api.delete_filter_v2(made["id"])
    assert api.filters_v2() == [] and len(api.timeline_home()) == 2
    assert limits.FILTERS_PER_USER >= 10

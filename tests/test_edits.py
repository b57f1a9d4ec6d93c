"""Editing a status (decision 0074): the repository's write and its history,
the action, what follows the new text (tags, search, mentions, reposters told), the
per-process memory showing the new version; the edit page, the history page and the
"Edited" marker; the client API (PUT /api/v1/statuses/:id, form and JSON; /history;
/source; edited_at), Mastodon.py driving it."""

import io
from urllib.parse import urlencode

import pytest
from django.test import Client
from mastodon import Mastodon

from socialsite.actions import statuses as statuses_actions
from socialsite.actions.core import Actor, Invalid, NotFound
from socialsite.repository import (
    keys,
    notifications,
    reposts,
    status_search,
    statuses,
    tags,
)
from tests.support.helpers import bearer, log_in, post
from tests.test_media_images import png

Edit = statuses_actions.StatusEdit


def actor(user):
    return Actor(uid=user["id"], login=user["login"])


def kinds(r, user):
    return [
        (event.kind, event.actor, event.status) for event in notifications.events(r, user["id"])
    ]


# --- the repository and the action ------------------------------------------------------


def test_an_edit_keeps_the_earlier_version_and_changes_the_status(r, alice):
    sid = post(r, alice, "first words #old")
    edited = statuses_actions.edit(
        actor(alice), sid, Edit(text="second words #new", spoiler_text="cw")
    )
    assert edited.status["message"] == "second words #new"
    status = statuses.get_status(r, sid)
    assert status["message"] == "second words #new" and status["spoiler"] == "cw"
    assert status[keys.STATUS_EDITED_FIELD]
    history = statuses.status_history(r, sid)
    assert [version["message"] for version in history] == ["first words #old"]
    assert history[0]["at"] == int(status["posted"] * 1000)
    # Tags follow the text.
    assert sid not in tags.tag_ids(r, "old")
    assert sid in tags.tag_ids(r, "new")


def test_the_memory_of_another_process_shows_the_new_version(r, alice):
    sid = post(r, alice, "before")
    assert statuses.get_statuses(r, [sid])[0]["message"] == "before"
    remembered = statuses._known.get(sid)
    statuses_actions.edit(actor(alice), sid, Edit(text="after"))
    # Another process, which still remembers the version it read...
    statuses._known.put(sid, remembered)
    # ...reads the hash again, since the counts read with it say it was edited.
    assert statuses.get_statuses(r, [sid])[0]["message"] == "after"
    assert (
        statuses.get_statuses(r, [sid], deletions_skipped=True, counts_fresh=True)[0]["message"]
        == "after"
    )


def test_only_the_author_edits_and_refusals(r, alice, bob):
    sid = post(r, alice, "mine")
    with pytest.raises(NotFound):
        statuses_actions.edit(actor(bob), sid, Edit(text="theirs"))
    with pytest.raises(NotFound):
        statuses_actions.edit(actor(alice), 10**9, Edit(text="none"))
    with pytest.raises(Invalid):
        statuses_actions.edit(actor(alice), sid, Edit(text="   "))
    with pytest.raises(Invalid):
        statuses_actions.edit(actor(alice), sid, Edit(text="x" * 600))
    assert statuses.get_status(r, sid)["message"] == "mine"


def test_at_most_max_edits(r, alice, monkeypatch):
    monkeypatch.setattr(statuses, "MAX_EDITS", 2)
    sid = post(r, alice, "v0")
    for n in (1, 2):
        statuses_actions.edit(actor(alice), sid, Edit(text=f"v{n}"))
    result, _ = statuses.edit_status(r, alice["id"], sid, "v3", most=2)
    assert result is statuses.EditResult.TOO_MANY
    assert len(statuses.status_history(r, sid)) == 2


def test_new_mentions_notified_once_and_reposters_told(r, alice, bob, carol):
    sid = post(r, alice, "hello")
    reposts.repost(r, carol["id"], sid)
    statuses_actions.edit(actor(alice), sid, Edit(text="hello @bob"))
    statuses_actions.edit(actor(alice), sid, Edit(text="hello again @bob"))
    assert kinds(r, bob).count(("mention", alice["id"], sid)) == 1
    # The reposter: one update notification, moved up by the second edit.
    assert [k for k in kinds(r, carol) if k[0] == "update"] == [("update", alice["id"], sid)]
    # A mention taken out is not taken back (as Mastodon).
    statuses_actions.edit(actor(alice), sid, Edit(text="hello"))
    assert ("mention", alice["id"], sid) in kinds(r, bob)


def test_search_follows_the_new_text(r, alice):
    status_search.set_indexable(r, alice["id"], True)
    sid = post(r, alice, "aardvark")
    statuses_actions.edit(actor(alice), sid, Edit(text="zebra"))
    assert r.sismember(keys.status_words_of(sid, "zebra"), sid)
    assert not r.sismember(keys.status_words_of(sid, "aardvark"), sid)


def test_deleting_an_edited_status_deletes_its_history(r, alice):
    sid = post(r, alice, "v0")
    statuses_actions.edit(actor(alice), sid, Edit(text="v1"))
    statuses_actions.delete(actor(alice), sid)
    assert not r.exists(keys.status_history(sid))


# --- the client API -------------------------------------------------------------------


def test_api_put_form_encoded_and_json(r, client, alice, bob, token):
    sid = post(r, alice, "api first")
    headers = bearer(token(alice))
    answer = client.put(
        f"/api/v1/statuses/{sid}",
        "status=api+second&spoiler_text=cw&sensitive=true",
        content_type="application/x-www-form-urlencoded",
        **headers,
    )
    assert answer.status_code == 200, answer.content
    entity = answer.json()
    assert "api second" in entity["content"] and entity["spoiler_text"] == "cw"
    assert entity["sensitive"] is True and entity["edited_at"]
    answer = client.put(
        f"/api/v1/statuses/{sid}", {"status": "api third"}, content_type="application/json",
        **headers,
    )  # fmt: skip
    assert answer.status_code == 200 and "api third" in answer.json()["content"]
    # GET says edited_at too; the source gives the text as written.
    assert client.get(f"/api/v1/statuses/{sid}").json()["edited_at"]
    source = client.get(f"/api/v1/statuses/{sid}/source", **headers).json()
    assert source["text"] == "api third"
    history = client.get(f"/api/v1/statuses/{sid}/history").json()
    assert ["api first" in v["content"] for v in history] == [True, False, False]
    assert "api third" in history[-1]["content"] and history[1]["spoiler_text"] == "cw"
    assert history[0]["created_at"] < history[1]["created_at"] <= history[2]["created_at"]
    # Another's status: 404; bad input: 422; a poll: 422.
    other = bearer(token(bob))
    assert client.put(f"/api/v1/statuses/{sid}", {"status": "x"},
                      content_type="application/json", **other).status_code == 404  # fmt: skip
    assert client.put(f"/api/v1/statuses/{sid}", {"status": ""},
                      content_type="application/json", **headers).status_code == 422  # fmt: skip
    assert client.put(f"/api/v1/statuses/{sid}", "{not json",
                      content_type="application/json", **headers).status_code == 422  # fmt: skip
    assert client.put(f"/api/v1/statuses/{sid}", {"status": "x", "poll": {"options": ["a"]}},
                      content_type="application/json", **headers).status_code == 422  # fmt: skip
    assert client.put(f"/api/v1/statuses/{sid}", {"status": "x"},
                      content_type="application/json").status_code == 401  # fmt: skip


def test_api_timelines_say_edited_at(r, client, alice, token):
    sid = post(r, alice, "on the timeline")
    headers = bearer(token(alice))
    client.get("/api/v1/timelines/home", **headers)  # remembered unedited
    statuses_actions.edit(actor(alice), sid, Edit(text="edited on the timeline"))
    shown = client.get("/api/v1/timelines/home", **headers).json()
    assert "edited on the timeline" in shown[0]["content"] and shown[0]["edited_at"]
    account = client.get(f"/api/v1/accounts/{alice['id']}/statuses", **headers).json()
    assert account[0]["edited_at"] and "edited on" in account[0]["content"]


def test_api_update_notification(r, client, alice, bob, token):
    sid = post(r, alice, "repost me")
    reposts.repost(r, bob["id"], sid)
    statuses_actions.edit(actor(alice), sid, Edit(text="reposted and edited"))
    headers = bearer(token(bob))
    found = client.get("/api/v1/notifications", **headers).json()
    assert "update" in [n["type"] for n in found]
    update = next(n for n in found if n["type"] == "update")
    assert update["status"]["id"] == str(sid) and update["account"]["id"] == str(alice["id"])
    grouped = client.get("/api/v2/notifications", **headers).json()
    assert "update" in [g["type"] for g in grouped["notification_groups"]]
    only = client.get("/api/v1/notifications?types[]=update", **headers).json()
    assert [n["type"] for n in only] == ["update"]


def test_mastodon_py_status_update_and_history(r, live_server, settings, alice, token):
    settings.SITE_URL = live_server.url
    api = Mastodon(access_token=token(alice), api_base_url=live_server.url)
    status = api.status_post("from Mastodon.py")
    edited = api.status_update(status["id"], "edited by Mastodon.py", spoiler_text="cw")
    assert "edited by Mastodon.py" in edited["content"] and edited["edited_at"]
    history = api.status_history(status["id"])
    assert len(history) == 2 and "from Mastodon.py" in history[0]["content"]
    assert api.status_source(status["id"])["text"] == "edited by Mastodon.py"


# --- the pages ------------------------------------------------------------------------


def page_client(login):
    client = Client()
    log_in(client, login)
    return client


def test_edit_page_edits_and_the_history_page_shows_both(r, alice, bob):
    sid = post(r, alice, "page first #before")
    client = page_client("alice")
    profile = client.get("/@alice/").content.decode()
    assert f'href="/statuses/{sid}/edit/"' in profile and "Edited</a>" not in profile
    form = client.get(f"/statuses/{sid}/edit/")
    assert form.status_code == 200 and "page first #before" in form.content.decode()
    done = client.post(
        f"/statuses/{sid}/edit/", {"message": "page second #after", "spoiler_text": ""}
    )
    assert done.status_code == 302 and done["Location"] == f"/@alice/{sid}/"
    thread = client.get(done["Location"]).content.decode()
    assert "page second" in thread and f'href="/statuses/{sid}/history/"' in thread
    # Another reader sees the new text and the marker; the history page, both versions.
    other = page_client("bob")
    assert "page second" in other.get("/@alice/").content.decode()
    history = other.get(f"/statuses/{sid}/history/").content.decode()
    assert history.index("page second") < history.index("page first")
    assert Client().get(f"/statuses/{sid}/history/").status_code == 200
    # Not one's own: 404; nor a missing one's history.
    assert other.get(f"/statuses/{sid}/edit/").status_code == 404
    assert other.post(f"/statuses/{sid}/edit/", {"message": "x"}).status_code == 404
    assert other.get("/statuses/999999/history/").status_code == 404


def test_edit_page_says_what_is_wrong(r, alice):
    sid = post(r, alice, "keep me")
    client = page_client("alice")
    refused = client.post(f"/statuses/{sid}/edit/", {"message": "x" * 600})
    assert refused.status_code == 400 and "at most" in refused.content.decode()
    refused = client.post(f"/statuses/{sid}/edit/", {"message": "  "})
    assert refused.status_code == 400 and "Write something" in refused.content.decode()
    assert statuses.get_status(r, sid)["message"] == "keep me"
    assert Client().get(f"/statuses/{sid}/edit/").status_code == 302  # to log in


def test_notifications_page_says_an_edit(r, alice, bob):
    sid = post(r, alice, "to repost")
    reposts.repost(r, bob["id"], sid)
    statuses_actions.edit(actor(alice), sid, Edit(text="edited after the repost"))
    page = page_client("bob").get("/notifications/").content.decode()
    assert "edited a status you reposted" in page and "edited after the repost" in page


def test_round_trips_of_the_new_pages_and_an_edited_status(r, alice, bob, round_trips,
                                                           redis_backend):  # fmt: skip
    sid = post(r, alice, "counted")
    statuses_actions.edit(actor(alice), sid, Edit(text="counted again"))
    client = page_client("bob")

    def cost(url):
        client.get(url)
        round_trips["n"] = 0
        assert client.get(url).status_code == 200
        return round_trips["n"]

    history = cost(f"/statuses/{sid}/history/")
    edit_page = page_client("alice")
    edit_page.get(f"/statuses/{sid}/edit/")
    round_trips["n"] = 0
    assert edit_page.get(f"/statuses/{sid}/edit/").status_code == 200
    editing = round_trips["n"]
    if not redis_backend.cluster:
        assert history == 4 and editing == 2
    # A profile showing a status this process remembers from before an edit: one more.
    profile = cost("/@alice/")
    remembered = statuses._known.get(sid)
    statuses_actions.edit(actor(alice), sid, Edit(text="counted a third time"))
    statuses._known.put(sid, remembered)
    client.get("/@alice/")  # the new version read once...
    assert cost("/@alice/") == profile  # ...and remembered


def test_api_edit_images_add_describe_remove(r, client, alice, bob, token, media_root):
    headers = bearer(token(alice))

    def upload():
        sent = io.BytesIO(png())
        sent.name = "photo.png"
        return client.post("/api/v2/media", {"file": sent}, **headers).json()["id"]

    first = upload()
    posted = client.post(
        "/api/v1/statuses", {"status": "with a picture", "media_ids[]": [first]}, **headers
    ).json()
    sid = posted["id"]
    second = upload()
    # Added (a pending upload of one's own), both described; as Mastodon.py sends it.
    body = urlencode([("status", "two pictures"), ("media_ids[]", first), ("media_ids[]", second),
                      ("media_attributes[][id]", first),
                      ("media_attributes[][description]", "the first")], doseq=True)  # fmt: skip
    answer = client.put(f"/api/v1/statuses/{sid}", body,
                        content_type="application/x-www-form-urlencoded", **headers)  # fmt: skip
    assert answer.status_code == 200, answer.content
    media = answer.json()["media_attachments"]
    assert [m["id"] for m in media] == [first, second] and media[0]["description"] == "the first"
    # Not sent: kept. Another's upload: 422.
    kept = client.put(f"/api/v1/statuses/{sid}", {"status": "still two"},
                      content_type="application/json", **headers).json()  # fmt: skip
    assert len(kept["media_attachments"]) == 2
    sent = io.BytesIO(png())
    sent.name = "b.png"
    theirs = client.post("/api/v2/media", {"file": sent}, **bearer(token(bob))).json()["id"]
    refused = client.put(f"/api/v1/statuses/{sid}", {"status": "x", "media_ids": [theirs]},
                         content_type="application/json", **headers)  # fmt: skip
    assert refused.status_code == 422
    # Removed: the status shows one; the history still the version with two.
    answer = client.put(f"/api/v1/statuses/{sid}", {"status": "one left", "media_ids": [second]},
                        content_type="application/json", **headers)  # fmt: skip
    assert [m["id"] for m in answer.json()["media_attachments"]] == [second]
    history = client.get(f"/api/v1/statuses/{sid}/history").json()
    assert [len(v["media_attachments"]) for v in history] == [1, 2, 2, 1]


def test_edit_page_describes_and_drops_images(r, client, alice, token, media_root):
    headers = bearer(token(alice))
    ids = []
    for name in ("a.png", "b.png"):
        sent = io.BytesIO(png())
        sent.name = name
        ids.append(client.post("/api/v2/media", {"file": sent}, **headers).json()["id"])
    sid = client.post("/api/v1/statuses", {"status": "two", "media_ids[]": ids}, **headers).json()[
        "id"
    ]
    browser = page_client("alice")
    form = browser.get(f"/statuses/{sid}/edit/").content.decode()
    assert f'name="keep_{ids[0]}"' in form and f'name="alt_{ids[1]}"' in form
    done = browser.post(
        f"/statuses/{sid}/edit/",
        {"message": "one", f"keep_{ids[1]}": "on", f"alt_{ids[1]}": "the second"},
    )
    assert done.status_code == 302
    shown = client.get(f"/api/v1/statuses/{sid}").json()["media_attachments"]
    assert [(m["id"], m["description"]) for m in shown] == [(ids[1], "the second")]

"""Editing a status (issue 47, decision 0074): the repository's write and its history,
the action, what follows the new text (tags, search, mentions, reposters told), the
per-process memory showing the new version; the edit page, the history page and the
"Edited" marker; the client API (PUT /api/v1/statuses/:id, form and JSON; /history;
/source; edited_at), Mastodon.py driving it."""


import pytest

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
from tests.support.helpers import post

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

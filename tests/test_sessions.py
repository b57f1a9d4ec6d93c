"""The session store's contract (Django's five methods), on the Redis under test."""

import json

import pytest
from django.contrib.sessions.backends.base import SessionBase, UpdateError

from accounts.session_store import SessionStore
from socialsite.repository import keys


def test_a_new_session_is_saved_and_loaded_back(r):
    session = SessionStore()
    session["colour"] = "green"
    session.save()
    assert session.session_key
    assert SessionStore(session.session_key)["colour"] == "green"
    assert session.exists(session.session_key)


def test_an_unknown_key_loads_empty_and_gets_a_new_key_on_save(r):
    session = SessionStore("doesnotexist0123456789abcdefghij")
    assert session.load() == {}
    session["x"] = 1
    session.save()
    assert session.session_key != "doesnotexist0123456789abcdefghij"


def test_delete_removes_the_session(r):
    session = SessionStore()
    session["x"] = 1
    session.save()
    session.delete()
    assert not session.exists(session.session_key)


def test_cycle_key_keeps_the_data_under_a_new_key(r):
    session = SessionStore()
    session["x"] = 1
    session.save()
    old_key = session.session_key
    session.cycle_key()
    assert session.session_key != old_key
    assert not session.exists(old_key)
    assert SessionStore(session.session_key)["x"] == 1


def test_a_session_expires_in_redis_with_its_age(r, settings):
    settings.SESSION_COOKIE_AGE = 60
    session = SessionStore()
    session["x"] = 1
    session.save()
    ttl = r.ttl(keys.session(session.session_key))
    assert 50 < ttl <= 60


def test_a_deleted_session_is_not_brought_back_by_a_late_save(r):
    session = SessionStore()
    session["x"] = 1
    session.save()
    late = SessionStore(session.session_key)
    assert late["x"] == 1  # loaded at the start of its request
    session.delete()  # e.g. logged out in another tab
    late["y"] = 2
    with pytest.raises(UpdateError):
        late.save()
    assert not late.exists(session.session_key)


def test_tampered_data_loads_as_an_empty_session(r):
    session = SessionStore()
    session["x"] = 1
    session.save()
    r.set(keys.session(session.session_key), "not-signed-data")
    assert SessionStore(session.session_key).load() == {}


@pytest.mark.parametrize("stored", ["{not json", "[1, 2]", '"text"', "{}x"])
def test_data_that_is_not_a_json_object_loads_as_an_empty_session(r, stored):
    session = SessionStore()
    session["x"] = 1
    session.save()
    r.set(keys.session(session.session_key), stored)
    assert SessionStore(session.session_key).load() == {}


def test_data_is_stored_as_json_and_sessions_stored_signed_still_load(r):
    session = SessionStore()
    session["colour"] = "green"
    session.save()
    assert json.loads(r.get(keys.session(session.session_key))) == {"colour": "green"}
    # As Django's own encode() wrote sessions before this store had its own format.
    signed = SessionBase.encode(session, {"colour": "blue"})
    r.set(keys.session(session.session_key), signed)
    assert SessionStore(session.session_key)["colour"] == "blue"


def test_a_logged_in_sessions_key_names_its_user_and_lives_in_their_slot(r, client, alice):
    from tests.support.helpers import PASSWORD

    client.post("/accounts/login/", {"username": "alice", "password": PASSWORD})
    key = client.cookies["sessionid"].value
    uid, dot, random_part = key.partition(".")
    assert (int(uid), dot, len(random_part)) == (alice["id"], ".", 32)
    assert keys.session(key) == f"session:{keys.shard(alice['id'])}:{key}"
    assert r.exists(keys.session(key))


def test_loading_a_session_that_names_its_user_reads_the_user_too(r, client, alice, round_trips):
    from accounts.auth import user_from_session
    from tests.support.helpers import PASSWORD

    client.post("/accounts/login/", {"username": "alice", "password": PASSWORD})
    key = client.cookies["sessionid"].value
    # Once first: a connection's opening handshake (CLIENT SETINFO) would count too.
    user_from_session(SessionStore(key))
    fresh = SessionStore(key)
    round_trips["n"] = 0
    user = user_from_session(fresh)
    assert user.id == alice["id"] and user.login == "alice"
    assert round_trips["n"] == 1  # one slot: one node even on a cluster


@pytest.mark.parametrize("key", ["1.", "x.abcdefghijklmnop", "99999999999999999999.abc", "-1.a"])
def test_a_key_that_only_looks_like_it_names_a_user_is_an_ordinary_unknown_key(r, key):
    assert SessionStore(key).load() == {}


def test_a_session_naming_a_user_that_no_longer_exists_is_anonymous(r, alice):
    from accounts.auth import user_from_session

    session = SessionStore()
    session["_auth_user_id"] = alice["id"]
    session.save()
    r.delete(keys.user(alice["id"]))
    assert not user_from_session(SessionStore(session.session_key)).is_authenticated


def test_logging_in_over_someone_elses_session_gives_a_key_naming_the_new_user(r, rf, alice, bob):
    from accounts import auth

    alices = SessionStore()
    alices["_auth_user_id"] = alice["id"]
    alices.save()
    request = rf.get("/")
    request.session = SessionStore(alices.session_key)
    auth.login(request, auth.load_user(bob["id"]))
    request.session.save()  # as the session middleware does
    assert request.session.session_key.startswith(f"{bob['id']}.")
    assert not r.exists(keys.session(alices.session_key))
    assert SessionStore(request.session.session_key)["_auth_user_id"] == bob["id"]


def test_the_read_along_is_queued_before_the_session_and_user_reads(r, alice, monkeypatch):
    # Why the order matters: the comment in sessions.load_with_user (one write from Redis).
    from socialsite.repository import client, scripts, sessions, timelines

    key = sessions.key_naming_user(alice["id"], "a" * 32)
    queued = []
    run_pipeline = scripts.run_pipeline

    def recording(r, fill):
        batch = client._Batch()
        fill(batch)
        queued.extend(args[0] for args, _ in batch.commands)
        return run_pipeline(r, fill)

    monkeypatch.setattr(scripts, "run_pipeline", recording)
    ids_read = timelines.HomeIdsRead(None, 30)
    data, user = sessions.load_with_user(r, key, read_along=[ids_read])
    assert (data, user) == (None, None)  # no such session: nobody is logged in
    assert ids_read.ids == []
    # The page's ids, whether its home is evicted and the user's groups; the session,
    # its user; the note that the user the key names was seen today (eviction.queue_seen).
    assert queued[0] in ("EVALSHA", "EVAL")
    assert queued[1:] == ["ZMSCORE", "ZRANGE", "GET", "HGETALL", "HGET", "ZADD"]

import threading
import time

from socialsite.repository import keys, users


def test_it_creates_a_user_with_zero_counts(r):
    uid = users.create_user(r, "dr_josiah", "Josiah Carlson", "hash")
    user = users.get_user(r, uid)
    assert user["login"] == "dr_josiah"
    assert user["name"] == "Josiah Carlson"
    assert (user["followers"], user["following"], user["posts"]) == (0, 0, 0)
    assert user["signup"] > 0


def test_it_keeps_the_password_hash_out_of_the_public_hash(r):
    uid = users.create_user(r, "alice", "Alice", "argon2$secret")
    assert "password" not in r.hgetall(keys.user(uid))
    assert users.get_password_hash(r, uid) == "argon2$secret"


def test_it_refuses_a_second_user_with_the_same_login_in_any_case(r):
    assert users.create_user(r, "Alice", "Alice", "h") is not None
    assert users.create_user(r, "alice", "Other Alice", "h") is None
    assert users.create_user(r, "ALICE", "Third Alice", "h") is None
    assert users.get_user_by_login(r, "aLiCe")["name"] == "Alice"


def test_a_refused_sign_up_leaves_no_keys_behind(r):
    users.create_user(r, "alice", "Alice", "h")
    before = int(r.get(keys.USER_IDS))
    assert users.create_user(r, "alice", "Other", "h") is None
    assert users.get_user(r, before + 1) is None
    assert users.get_password_hash(r, before + 1) is None


def test_racing_sign_ups_for_one_login_have_exactly_one_winner(r):
    results = []
    start = threading.Barrier(8)

    def sign_up(i):
        start.wait()
        results.append(users.create_user(r, "popular", f"Person {i}", "h"))

    threads = [threading.Thread(target=sign_up, args=(i,)) for i in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    winners = [uid for uid in results if uid is not None]
    assert len(winners) == 1
    assert users.get_user_id(r, "popular") == winners[0]


def test_get_users_fetches_several_and_skips_missing(r, alice, bob):
    found = users.get_users(r, [alice["id"], bob["id"], 999])
    assert set(found) == {alice["id"], bob["id"]}
    assert found[bob["id"]]["login"] == "bob"


def test_authors_are_read_once_then_remembered_for_a_while(r, round_trips, monkeypatch):
    alice = users.create_user(r, "alice", "Alice", "h")
    bob = users.create_user(r, "bob", "Bob", "h")
    expected = {
        alice: {"id": alice, "login": "alice", "name": "Alice"},
        bob: {"id": bob, "login": "bob", "name": "Bob"},
    }

    def names(found):
        return {
            uid: {k: author[k] for k in ("id", "login", "name")} for uid, author in found.items()
        }

    found = users.get_authors(r, [alice, bob, alice])
    assert names(found) == expected
    # With the counts and sign-up time the client API's Account says.
    assert found[alice]["posts"] == 0 and found[alice]["signup"] > 0
    assert found[alice]["followers"] == found[alice]["following"] == 0
    before = round_trips["n"]
    assert names(users.get_authors(r, [bob, alice])) == expected
    assert round_trips["n"] == before  # nothing read
    # Once an entry is older than AUTHOR_CACHE_SECONDS, it is read again.
    r.hset(keys.user(bob), "name", "Robert")
    assert users.get_authors(r, [bob])[bob]["name"] == "Bob"
    later = time.monotonic() + users.AUTHOR_CACHE_SECONDS + 1
    monkeypatch.setattr(time, "monotonic", lambda: later)
    assert users.get_authors(r, [bob])[bob]["name"] == "Robert"


def test_unknown_authors_are_left_out_and_a_flush_forgets_them(r):
    from socialsite.repository import client

    assert users.get_authors(r, [999]) == {}
    uid = users.create_user(r, "alice", "Alice", "h")
    assert users.get_authors(r, [uid])[uid]["login"] == "alice"
    client.flush_all(r)
    assert users.create_user(r, "carol", "Carol", "h") == uid  # ids start again
    assert users.get_authors(r, [uid])[uid]["login"] == "carol"

"""socialsite.memory: what a process remembers between requests stays bounded, forgets
the least recently used first, expires, and is emptied all at once."""

import threading
import time

import pytest

from socialsite import memory, status_markup
from socialsite.memory import Memory
from timeline import jinja_helpers


@pytest.fixture
def clock(monkeypatch):
    """The memories' clock (time.monotonic), moved by hand: ``clock["now"] += 61``."""
    clock = {"now": 1000.0}
    monkeypatch.setattr(time, "monotonic", lambda: clock["now"])
    return clock


def test_a_memory_is_bounded_and_forgets_the_least_recently_used_first():
    remembered = Memory("test lru", 3)
    remembered.put_many({1: "one", 2: "two", 3: "three"})
    assert remembered.get(1) == "one"  # 1 is now the most recently used, 2 the least
    remembered.put(4, "four")
    assert len(remembered) == 3
    assert 2 not in remembered
    assert remembered.get_many([1, 2, 3, 4]) == {1: "one", 3: "three", 4: "four"}
    # get_many counts as a use too: 1, 3, 4 in that order, so 1 goes next.
    remembered.put(5, "five")
    assert remembered.get_many([1, 3, 4, 5]) == {3: "three", 4: "four", 5: "five"}


def test_asking_whether_a_key_is_remembered_is_not_a_use():
    remembered = Memory("test contains", 2)
    remembered.put_many({1: "one", 2: "two"})
    assert 1 in remembered
    remembered.put(3, "three")
    assert 1 not in remembered and 2 in remembered


def test_entries_expire_their_ttl_after_they_were_put_in_however_often_read(clock):
    remembered = Memory("test ttl", 10, ttl=60)
    remembered.put("a", 1)
    clock["now"] += 30
    remembered.put("b", 2)
    assert remembered.get("a") == 1
    clock["now"] += 29.9
    assert remembered.get_many(["a", "b"]) == {"a": 1, "b": 2}
    clock["now"] += 0.2  # "a" is 60.1 s old, "b" 30.1 s
    assert remembered.get("a") is None
    assert remembered.get_many(["a", "b"]) == {"b": 2}
    clock["now"] += 30
    assert remembered.get("b", "gone") == "gone"
    assert len(remembered) == 0


def test_a_memory_without_ttl_keeps_entries_until_it_needs_room(clock):
    remembered = Memory("test no ttl", 10)
    remembered.put("a", 1)
    clock["now"] += 10 * 365 * 86400
    assert remembered.get("a") == 1


def test_forget_all_empties_every_memory_of_the_process():
    mine = Memory("test forget all", 10)
    mine.put("a", 1)
    jinja_helpers._remembered.put(("test", "key"), "markup")
    assert {"statuses", "authors", "status markup", "test forget all"} <= set(memory.memories())
    memory.forget_all()
    for name, each in memory.memories().items():
        assert len(each) == 0, name
    assert mine.get("a") is None


def test_the_sites_memories_are_bounded():
    import socialsite.jinja2  # noqa: F401 -- loads the template environment's memories

    memories = memory.memories()
    expected = {"statuses", "authors", "status markup", "page headers", "blank forms"}
    assert expected <= set(memories)
    for name in expected:
        assert 0 < memories[name].size <= 100_000, name


def test_two_memories_cannot_share_a_name():
    kept = Memory("test unique", 1)
    with pytest.raises(ValueError):
        Memory("test unique", 1)
    del kept
    Memory("test unique", 1)  # the first one is gone: its name is free


def test_threads_may_share_a_memory():
    remembered = Memory("test threads", 100, ttl=60)
    errors = []

    def work(offset):
        try:
            for n in range(2000):
                remembered.put_many({(offset, n % 150): n, (offset, -1): n})
                remembered.get_many([(offset, k) for k in range(0, 150, 7)])
                remembered.forget((offset, n % 13))
        except Exception as exc:  # pragma: no cover - what the test looks for
            errors.append(exc)

    threads = [threading.Thread(target=work, args=(i,)) for i in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    assert len(remembered) <= 100


def test_remembered_markup_forgets_the_least_recently_shown_statuses_first(rf, monkeypatch):
    monkeypatch.setattr(jinja_helpers, "_remembered", Memory("test status markup", 8))
    links = status_markup.StatusLinks("/", None)
    request = rf.get("/")
    request.user = type("Visitor", (), {"id": None})()
    made = []

    def article(status, links, *options):
        made.append(status["id"])
        return f"<p>{status['id']}</p>"

    def show(*sids):
        statuses = [{"id": sid, "uid": 1, "posted": "1700000000", "message": "hi",
                     "author": {"login": "alice", "name": "Alice"}} for sid in sids]  # fmt: skip
        jinja_helpers.status_list_markup(article, statuses, request, "", links, None, None)

    show(*range(8))
    show(0)  # 0 is now the most recently shown, 1 the least
    show(8)  # the memory is full: 1 is forgotten
    assert made == list(range(9))
    show(0, 2, 3, 4, 5, 6, 7, 8)
    assert made == list(range(9))
    show(1)
    assert made == [*range(9), 1]

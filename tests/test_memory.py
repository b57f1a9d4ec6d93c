"""socialsite.memory.make_room, which bounds what a process remembers between requests."""

from socialsite.memory import make_room
from timeline import jinja_helpers


def test_a_memory_with_room_is_left_alone():
    memory = {n: n for n in range(7)}
    make_room(memory, limit=8)
    assert list(memory) == list(range(7))


def test_a_full_memory_forgets_its_oldest_quarter_and_keeps_the_rest():
    memory = {n: n for n in range(8)}
    memory[3] = "updated"  # an update keeps its place: age is when first put in
    make_room(memory, limit=8)
    assert list(memory) == [2, 3, 4, 5, 6, 7]
    assert memory[3] == "updated"


def test_adding_more_than_a_quarter_forgets_as_many_as_it_needs():
    memory = {n: n for n in range(8)}
    make_room(memory, limit=8, adding=5)
    assert list(memory) == [5, 6, 7]


class _ChangedWhileRead(dict):
    def __iter__(self):
        raise RuntimeError("dictionary changed size during iteration")


def test_a_memory_another_thread_changes_while_it_is_read_is_emptied():
    memory = _ChangedWhileRead({n: n for n in range(8)})
    make_room(memory, limit=8)
    assert memory == {}


def test_remembered_markup_forgets_the_oldest_statuses_first(monkeypatch):
    monkeypatch.setattr(jinja_helpers, "REMEMBERED_STATUSES", 8)
    monkeypatch.setattr(jinja_helpers, "_remembered", {})
    links = jinja_helpers.StatusLinks("/", None)
    rendered = []

    def render(status, links, when):
        rendered.append(status["id"])
        return f"<p>{status['id']}</p>"

    def show(sid):
        status = {"id": sid, "posted": "1700000000", "message": "hi", "uid": 1,
                  "author": {"login": "alice", "name": "Alice"}}  # fmt: skip
        return jinja_helpers.remembered_status(render, status, links)

    for sid in range(9):
        show(sid)
    assert rendered == list(range(9))
    # The ninth made room by forgetting the two oldest: the others are still there.
    for sid in (8, 2):
        show(sid)
    assert rendered == list(range(9))
    for sid in (0, 1):
        show(sid)
    assert rendered == [*range(9), 0, 1]

"""Stream servers send nothing of a suspended author, over real sockets against
``manage.py stream``: the suspension's account event hides the author at once, and a
server that missed it (started later, or the event lost) reads the suspended list.

A stream never says "that was all": a status that must NOT be sent is posted before
one that is, so the next line read must be the latter.
"""

from urllib.parse import urlencode

from socialsite.repository import keys, moderation, users
from socialsite_dev.streams import StreamConnection, StreamServerProcess
from tests.support.helpers import post


def sample(server):
    query = urlencode({"identifier": "moderation", "percent": 100})
    return StreamConnection(server.port, "GET", f"/statuses/sample.json?{query}")


def test_a_suspended_authors_events_are_not_sent(r, stream_server, alice, bob):
    with sample(stream_server) as stream:
        shown = post(r, alice, "before the suspension")
        assert stream.read_json()["id"] == shown

        moderation.suspend(r, alice["id"], reason="spam")
        # A post already under way when she was suspended, and a deletion of hers.
        post(r, alice, "in flight")
        moderation.delete_status(r, shown, "mod")
        later = post(r, bob, "bob is still here")
        assert stream.read_json()["id"] == later
        assert stream_server.health()["hidden_authors"] == 1

        moderation.unsuspend(r, alice["id"])
        back = post(r, alice, "after the suspension")
        assert stream.read_json()["id"] == back
        assert stream_server.health()["hidden_authors"] == 0


def test_a_server_that_missed_the_event_reads_the_suspended_list(
    r, redis_backend, tmp_path, alice, bob
):
    # Suspended with no stream server listening: the event is lost.
    users.flag(r, alice["id"], keys.SUSPENDED_FIELD, "1")
    r.zadd(keys.SUSPENDED, {alice["id"]: 1})
    server = StreamServerProcess(
        redis_backend.url, redis_backend.cluster, log_path=tmp_path / "stream.log"
    ).start()
    try:
        server.wait_until(lambda health: health["hidden_authors"] == 1)
        with sample(server) as stream:
            post(r, alice, "hidden")
            shown = post(r, bob, "shown")
            assert stream.read_json()["id"] == shown
    finally:
        assert server.stop() == 0

"""Matching by index (streaming/index.py) against the scan it replaces.

The property test builds random clients (samples, track phrases, follows, location
boxes from tiny to the whole world, live home pages with hidden authors, filters
replaced while connected) and random events (private, deleted, replies, suspended
authors, points on cell edges), hands every event to two hubs holding the same
clients, one matching by index and one by scan, and requires the same bytes queued
to the same clients. In memory: the hubs are not started, no Redis is read.
"""

import asyncio
import json
import random

import pytest

from streaming import filters
from streaming.filters import StatusEvent
from streaming.home import HomeFilter
from streaming.hub import Format, Hub
from streaming.twitter import JSON_LINES

WORDS = "redis django python cluster paris rain #redis #rain coffee stream a b".split()
UIDS = list(range(1, 41))
LOGINS = {uid: f"user{uid}" for uid in UIDS}


class PrivateLines(Format):
    """A format that shows private statuses (as the live pages' does), plain bytes."""

    shows_private = True

    def render(self, event):
        return f"{event.id} {'deleted' if event.deleted else 'posted'}\n".encode()


PRIVATE_LINES = PrivateLines()


def coordinate(rng, low, high):
    """A number in [low, high], often exactly on a cell's edge or a box's."""
    if rng.random() < 0.3:
        cell = filters.CELL_DEGREES
        return max(low, min(high, rng.randint(int(low // cell), int(high // cell)) * cell))
    return rng.uniform(low, high)


def random_box(rng):
    shape = rng.choice(["tiny", "city", "country", "continent", "world", "line"])
    if shape == "world":
        return (-180.0, -90.0, 180.0, 90.0)
    size = {"tiny": 0.001, "city": 1.0, "country": 12.0, "continent": 70.0, "line": 0.0}[shape]
    west = coordinate(rng, -180, 180 - size)
    south = coordinate(rng, -90, 90 - min(size, 100))
    return (west, south, min(180.0, west + size), min(90.0, south + size))


def random_predicate(rng):
    kind = rng.choice(["sample", "firehose", "track", "follow", "locations"])
    if kind == "sample":
        return filters.SampleFilter(f"id-{rng.random()}", rng.randint(1, 99))
    if kind == "firehose":
        return filters.SampleFilter("fire", 100)
    if kind == "track":
        phrases = [
            " ".join(rng.sample(WORDS, rng.choice([1, 1, 2, 3]))) for _ in range(rng.randint(1, 4))
        ]
        return filters.TrackFilter(phrases)
    if kind == "follow":
        uids = rng.sample(UIDS, rng.randint(0, 5))
        logins = [LOGINS[uid] for uid in rng.sample(UIDS, rng.randint(0, 3))]
        return filters.FollowFilter(uids, logins)
    return filters.LocationFilter([random_box(rng) for _ in range(rng.randint(1, 4))])


def random_client_spec(rng):
    """(filter, format, user id) of a random client: API or live home page."""
    if rng.random() < 0.3:
        uid = rng.choice(UIDS)
        home = HomeFilter(uid, rng.sample(UIDS, rng.randint(0, 20)), rng.sample(UIDS, 2))
        return home, PRIVATE_LINES, uid
    predicates = [random_predicate(rng) for _ in range(rng.choice([1, 1, 2, 3]))]
    return filters.any_of(predicates), JSON_LINES, None


def random_event(rng, sid):
    uid = rng.choice(UIDS)
    words = rng.sample(WORDS, rng.randint(0, 6))
    if rng.random() < 0.3:
        words.append(f"@{LOGINS[rng.choice(UIDS)]}")
    status = {"id": sid, "uid": uid, "login": LOGINS[uid], "message": " ".join(words)}
    if rng.random() < 0.6:
        lat, lon = coordinate(rng, -90, 90), coordinate(rng, -180, 180)
        status["location"] = f"{lat},{lon}"
    if rng.random() < 0.15:
        status["private"] = "1"
    if rng.random() < 0.2:
        status["in_reply_to_uid"] = str(rng.choice(UIDS))
    if rng.random() < 0.1:
        status = {
            "id": sid,
            "uid": uid,
            "deleted": True,
            **({"private": "1"} if "private" in status else {}),
        }
    return status


def queued(hub):
    """{client name: the bytes queued to it}, emptying the queues."""
    found = {}
    for client in hub.clients:
        found[client.name] = b"".join(client.pending)
        client.pending.clear()
    return found


@pytest.mark.parametrize("seed", range(5))
def test_the_index_matches_exactly_what_the_scan_matches(seed):
    asyncio.run(compare_index_and_scan(seed))


async def compare_index_and_scan(seed):
    rng = random.Random(seed)
    hubs = [
        Hub([], matching="index", client_buffer=10**6),
        Hub([], matching="scan", client_buffer=10**6),
    ]
    # Suspended authors, whose statuses no client gets.
    hidden = frozenset(rng.sample(UIDS, 2)) if seed % 2 else frozenset()
    for hub in hubs:
        hub.hidden = hidden
    clients = {}

    def connect(n):
        spec = random_client_spec(rng)
        clients[n] = [hub.client(*spec[:2], f"client {n}", spec[2]) for hub in hubs]
        for hub, client in zip(hubs, clients[n], strict=True):
            assert hub.add(client)

    for n in range(300):
        connect(n)
    total = 0
    for sid in range(1, 1501):
        change = rng.random()
        if change < 0.02:
            # A client leaves and another comes.
            gone = rng.choice(list(clients))
            for hub, client in zip(hubs, clients.pop(gone), strict=True):
                hub.remove(client)
            connect(len(clients) + sid * 1000)
        elif change < 0.04:
            # A live page blocks or mutes someone (the relations event), or reads its
            # filter again with other follows.
            homes = [n for n, pair in clients.items() if pair[0].user_id is not None]
            if homes:
                n = rng.choice(homes)
                viewer = clients[n][0].user_id
                author = rng.choice(UIDS)
                if rng.random() < 0.5:
                    text = json.dumps({"relations_changed": [viewer], "hidden": [[viewer, author]]})
                    for hub in hubs:
                        await hub.dispatch(text)
                else:
                    following = rng.sample(UIDS, rng.randint(0, 20))
                    for client in clients[n]:
                        client.match = HomeFilter(viewer, following, [author])
        text = json.dumps(random_event(rng, sid))
        for hub in hubs:
            await hub.dispatch(text)
        by_index, by_scan = (queued(hub) for hub in hubs)
        assert by_index == by_scan, f"event {text}"
        total += sum(1 for data in by_scan.values() if data)
    # The comparison means something: many deliveries, of every kind of client.
    assert total > 10_000


def live_home(hub, uid, following, hidden=()):
    client = hub.client(HomeFilter(uid, following, hidden), PRIVATE_LINES, f"@{uid}", uid)
    hub.add(client)
    return client


def test_an_event_is_offered_only_to_the_clients_it_can_match():
    hub = Hub([])
    for n in range(1000):
        hub.add(hub.client(filters.FollowFilter([1000 + n], []), JSON_LINES, f"follow {n}"))
        hub.add(hub.client(filters.TrackFilter([f"word{n}"]), JSON_LINES, f"track {n}"))
        # Small boxes in the far south, and box 3 around the event's point.
        west, south = -170 + (n % 300) * 0.5, -80 + (n // 300) * 5
        box = (3, 3, 4, 4) if n == 3 else (west, south, west + 0.4, south + 0.4)
        hub.add(hub.client(filters.LocationFilter([box]), JSON_LINES, f"box {n}"))
    firehose = hub.client(filters.SampleFilter("x", 100), JSON_LINES, "firehose")
    hub.add(firehose)
    event = StatusEvent({"id": 7, "uid": 1005, "message": "word3 and more", "location": "3.5,3.5"})
    candidates = hub.index.candidates(event)
    names = {client.name for client in candidates}
    assert {"follow 5", "track 3", "box 3", "firehose"} <= names
    assert len(candidates) < 30  # of 3,001 clients
    assert {client.name for client in hub.targets(event)} == {
        "follow 5",
        "track 3",
        "box 3",
        "firehose",
    }


def test_boxes_as_large_as_the_world_cost_one_entry_each():
    hub = Hub([])
    world = hub.client(filters.LocationFilter([(-180, -90, 180, 90)]), JSON_LINES, "world")
    hub.add(world)
    assert hub.index.tables[filters.INDEX_WIDE] == {None: {world}}
    assert not hub.index.tables[filters.INDEX_CELL]
    located = StatusEvent({"id": 1, "uid": 2, "message": "", "location": "89.9,-179.9"})
    nowhere = StatusEvent({"id": 2, "uid": 2, "message": ""})
    assert hub.targets(located) == [world] and hub.targets(nowhere) == []


def test_a_live_page_is_indexed_by_whom_it_gets_and_follows_its_changes():
    hub = Hub([])
    page = live_home(hub, 1, following={2, 3})
    authors = hub.index.tables[filters.INDEX_AUTHOR]
    assert {uid for uid, clients in authors.items() if page in clients} == {1, 2, 3}
    # A mute of user 2, published on the channel: the index drops them at once.
    asyncio.run(hub.dispatch(json.dumps({"relations_changed": [1], "hidden": [[1, 2]]})))
    assert 2 not in authors and page in authors[3]
    # Its filter read again (a follow of 4 made in another tab).
    page.match = HomeFilter(1, {3, 4})
    assert {uid for uid, clients in authors.items() if page in clients} == {1, 3, 4}
    hub.remove(page)
    assert not authors and not hub.index.indexed


def test_a_filter_without_keys_is_offered_every_event():
    """A predicate the index does not know (a later kind of filter) is still exact."""
    hub = Hub([])
    client = hub.client(lambda event: event.id == 3, JSON_LINES, "custom")
    hub.add(client)
    events = [StatusEvent({"id": sid, "uid": 1, "message": ""}) for sid in range(5)]
    assert [event.id for event in events if hub.targets(event)] == [3]


def test_a_clients_pending_events_go_out_in_one_write_in_order():
    async def scenario():
        hub = Hub([])
        client = hub.client(filters.SampleFilter("x", 100), JSON_LINES, "firehose")
        hub.add(client)
        for sid in range(1, 51):
            await hub.dispatch(json.dumps({"id": sid, "uid": 1, "message": f"n{sid}"}))
        batch = await client.next_batch()
        return [json.loads(line)["id"] for line in batch.splitlines()], client.pending

    ids, left = asyncio.run(scenario())
    assert ids == list(range(1, 51)) and not left


def test_the_hub_refuses_an_unknown_matching():
    with pytest.raises(ValueError):
        Hub([], matching="guess")

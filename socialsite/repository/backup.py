"""Every key of every Redis master, written to a file and restored from it (``manage.py
backup`` and ``restore``).

Over the network only (the Redis may be on another host, or managed): SCAN each master,
then DUMP and PTTL each key, pipelined, a batch a round trip; RESTORE puts them back,
on a cluster each on the master of its slot, with the expiry as an absolute time so a key
restored later expires when it would have. The clients here return bytes
(``client.connect(..., decode=False)``): DUMP payloads are binary.

The file is a run of records: the key's length (4 bytes, big-endian), the key, the
expiry in Unix milliseconds (8 bytes, 0 for none), the payload's length (4 bytes), the
payload (Redis's serialization with its version and checksum, which RESTORE checks).
"""

import hashlib
import struct
import time
from dataclasses import dataclass, field

from .client import is_cluster

_LENGTH = struct.Struct(">I")
_EXPIRY = struct.Struct(">q")


@dataclass
class DumpReport:
    keys: int = 0
    bytes: int = 0
    sha256: str = ""
    # One entry per master: its address and the keys read from it.
    masters: list = field(default_factory=list)


@dataclass
class RestoreReport:
    keys: int = 0
    expired: int = 0  # keys whose expiry passed between the backup and now: left out


def _masters(rb):
    """(address, plain client) of each master."""
    if is_cluster(rb):
        return [(f"{node.host}:{node.port}", node.redis_connection) for node in rb.get_primaries()]
    kwargs = rb.connection_pool.connection_kwargs
    address = kwargs.get("path") or f"{kwargs.get('host')}:{kwargs.get('port')}"
    return [(address, rb)]


def key_count(rb):
    """The number of keys on every master together."""
    return sum(node.dbsize() for _, node in _masters(rb))


def _batches(iterable, size):
    batch = []
    for item in iterable:
        batch.append(item)
        if len(batch) == size:
            yield batch
            batch = []
    if batch:
        yield batch


def dump(rb, out, batch=1000):
    """Write every key of every master of ``rb`` (a bytes client) to the binary file
    ``out``. A key gone between SCAN and DUMP is left out; one changed meanwhile is
    written as DUMP found it: this is not a point-in-time snapshot while the site writes."""
    report = DumpReport()
    digest = hashlib.sha256()
    for address, node in _masters(rb):
        count = 0
        for names in _batches(node.scan_iter(count=batch), batch):
            pipe = node.pipeline(transaction=False)
            for name in names:
                pipe.dump(name)
                pipe.pttl(name)
            replies = pipe.execute()
            now_ms = int(time.time() * 1000)
            for i, name in enumerate(names):
                payload, ttl_ms = replies[2 * i], replies[2 * i + 1]
                if payload is None:
                    continue  # deleted or expired since SCAN
                expires_at = now_ms + ttl_ms if ttl_ms > 0 else 0
                record = b"".join((
                    _LENGTH.pack(len(name)), name, _EXPIRY.pack(expires_at),
                    _LENGTH.pack(len(payload)), payload,
                ))  # fmt: skip
                out.write(record)
                digest.update(record)
                report.bytes += len(record)
                count += 1
        # RESTORE takes a payload from the same or an older Redis only.
        version = node.info("server")["redis_version"]
        report.masters.append({"address": address, "keys": count, "redis_version": version})
        report.keys += count
    report.sha256 = digest.hexdigest()
    return report


def _read_exactly(source, size):
    data = source.read(size)
    if len(data) != size:
        raise ValueError("the backup file ends in the middle of a record (truncated?)")
    return data


def read_records(source):
    """(key, expires_at_ms, payload) of each record of the file ``source``."""
    while True:
        head = source.read(_LENGTH.size)
        if not head:
            return
        if len(head) != _LENGTH.size:
            raise ValueError("the backup file ends in the middle of a record (truncated?)")
        name = _read_exactly(source, _LENGTH.unpack(head)[0])
        expires_at = _EXPIRY.unpack(_read_exactly(source, _EXPIRY.size))[0]
        payload = _read_exactly(source, _LENGTH.unpack(_read_exactly(source, _LENGTH.size))[0])
        yield name, expires_at, payload


def restore(rb, source, replace=False, batch=1000):
    """RESTORE every record of ``source`` into ``rb`` (a bytes client), a batch a round
    trip (on a cluster, a round trip per master). ``replace``: a key that exists is
    replaced (else Redis refuses it: BUSYKEY). Safe to run again with ``replace``."""
    report = RestoreReport()
    for records in _batches(read_records(source), batch):
        pipe = rb.pipeline(transaction=False)
        now_ms = int(time.time() * 1000)
        queued = 0
        for name, expires_at, payload in records:
            if expires_at and expires_at <= now_ms:
                report.expired += 1
                continue
            if expires_at:
                pipe.restore(name, expires_at, payload, replace=replace, absttl=True)
            else:
                pipe.restore(name, 0, payload, replace=replace)
            queued += 1
        if queued:
            pipe.execute()
        report.keys += queued
    return report

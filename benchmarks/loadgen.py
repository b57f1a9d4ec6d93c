"""A small HTTP/1.1 load generator for the benchmarks: no dependencies, no Django.

``run(host, port, request, connections, seconds)`` opens ``connections`` keep-alive
connections in one asyncio loop. Each sends its request, waits for the whole answer,
and sends the next at once (a closed loop, as wrk does), until the time is up or
``max_requests`` answers are in. Every answer's latency (request written to last byte
read) is kept. A server that closes the connection after an answer (gunicorn's sync
workers do) gets a new connection; as with wrk, the next latency starts when its request
is written, so the connection's set-up is not in it (the time the request then waits for
a worker to accept the connection is).

It uses asyncio Protocols rather than streams, and parses no more of an answer than
it must (status, Content-Length or chunked, Connection: close): the generator shares
the machine's cores with the server it measures, so its own cost per request is kept
small, and measured (``Result.cpu_seconds``).
"""

import asyncio
import gc
import math
import resource
import time
from collections import Counter
from dataclasses import dataclass, field

# Stop waiting for answers this long after the measurement's end: a server that hangs
# must not hang the benchmark.
GRACE_SECONDS = 10.0


def build_request(method, path, host, headers=(), body=b""):
    """The bytes of one HTTP/1.1 request (keep-alive is HTTP/1.1's default)."""
    lines = [f"{method} {path} HTTP/1.1", f"Host: {host}", "User-Agent: socialsite-loadgen"]
    lines += [f"{name}: {value}" for name, value in headers]
    if body or method == "POST":
        lines.append(f"Content-Length: {len(body)}")
    return ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1") + body


@dataclass
class Result:
    """What one run measured. Latencies are in seconds, in the order answers came."""

    seconds: float = 0.0
    latencies: list = field(default_factory=list)
    # The same latencies by the client's local port, one list per connection: a caller
    # that knows which server process holds which connection can split them up.
    latencies_by_port: dict = field(default_factory=dict)
    statuses: Counter = field(default_factory=Counter)
    errors: int = 0
    reconnects: int = 0
    cpu_seconds: float = 0.0
    # Set when an outside tool (wrk) measured: it reports a count and a few percentiles
    # ({0.5: seconds, 0.99: seconds}) rather than every latency.
    count: int | None = None
    reported: dict = field(default_factory=dict)

    @property
    def requests(self):
        return len(self.latencies) if self.count is None else self.count

    @property
    def rate(self):
        return self.requests / self.seconds if self.seconds else 0.0

    @property
    def client_cpu_share(self):
        """The generator's CPU time as a share of one core over the run."""
        return self.cpu_seconds / self.seconds if self.seconds else 0.0

    def percentile(self, share):
        """The latency below which ``share`` (0..1) of the answers came (nearest rank)."""
        if share in self.reported:
            return self.reported[share]
        if not self.latencies:
            return float("nan")
        ordered = sorted(self.latencies)
        rank = min(max(1, math.ceil(share * len(ordered))), len(ordered))
        return ordered[rank - 1]


class _ParseError(Exception):
    pass


def parse_response(buffer):
    """(status, end, close) of the first complete answer in ``buffer``, or None.

    ``end`` is where the answer ends in the buffer; ``close`` whether the server said
    it will close the connection. Raises _ParseError on something that is not HTTP.
    """
    head_end = buffer.find(b"\r\n\r\n")
    if head_end < 0:
        return None
    head = bytes(buffer[:head_end]).decode("latin-1").split("\r\n")
    parts = head[0].split(" ", 2)
    if len(parts) < 2 or not parts[0].startswith("HTTP/1.") or not parts[1].isdigit():
        raise _ParseError(head[0])
    status = int(parts[1])
    length, chunked, close = None, False, parts[0] == "HTTP/1.0"
    for line in head[1:]:
        name, _, value = line.partition(":")
        name = name.strip().lower()
        if name == "content-length":
            length = int(value)
        elif name == "transfer-encoding":
            chunked = "chunked" in value.lower()
        elif name == "connection":
            close = value.strip().lower() == "close"
    body_start = head_end + 4
    if chunked:
        end = _chunked_end(buffer, body_start)
        return None if end is None else (status, end, close)
    if length is None:
        if status in (204, 304) or 100 <= status < 200:
            return status, body_start, close
        raise _ParseError("an answer without Content-Length or chunked encoding")
    end = body_start + length
    return (status, end, close) if len(buffer) >= end else None


def _chunked_end(buffer, position):
    while True:
        line_end = buffer.find(b"\r\n", position)
        if line_end < 0:
            return None
        size = int(bytes(buffer[position:line_end]).split(b";")[0], 16)
        position = line_end + 2
        if size == 0:
            trailer_end = buffer.find(b"\r\n\r\n", position - 2)
            return None if trailer_end < 0 else trailer_end + 4
        position += size + 2
        if len(buffer) < position:
            return None


class _Connection(asyncio.Protocol):
    """One client connection of the closed loop. ``finished`` is resolved when this
    client stops for good (a replacement connection takes the future over)."""

    def __init__(self, run, finished):
        self.run = run
        self.finished = finished
        self.transport = None
        self.local_port = None
        self.buffer = bytearray()
        self.sent_at = 0.0
        self.waiting = False
        self.handed_over = False

    def connection_made(self, transport):
        self.transport = transport
        self.local_port = transport.get_extra_info("sockname")[1]
        self.run.open.add(self)
        self.send()

    def send(self):
        self.waiting = True
        self.sent_at = time.perf_counter()
        self.transport.write(self.run.request)

    def data_received(self, data):
        self.buffer += data
        try:
            parsed = parse_response(self.buffer)
        except (_ParseError, ValueError):
            self.run.result.errors += 1
            self.stop()
            return
        if parsed is None:
            return
        status, end, close = parsed
        self.waiting = False
        self.run.answered(self.local_port, time.perf_counter() - self.sent_at, status)
        extra = end != len(self.buffer)
        self.buffer.clear()
        if extra:
            self.run.result.errors += 1  # bytes nobody asked for
            self.stop()
        elif not self.run.going():
            self.stop()
        elif close:
            # The server closes after each answer (gunicorn's sync worker): reconnect.
            self.handed_over = True
            self.transport.close()
            self.run.reconnect(self.finished)
        else:
            self.send()

    def connection_lost(self, exc):
        self.run.open.discard(self)
        if self.handed_over:
            return
        if self.waiting:
            self.run.result.errors += 1  # the server went away without answering
        self._finish()

    def stop(self):
        self.transport.close()
        self._finish()

    def _finish(self):
        if not self.finished.done():
            self.finished.set_result(None)


class _Run:
    def __init__(self, host, port, request, deadline, max_requests, record_after):
        self.host, self.port, self.request = host, port, request
        self.deadline = deadline
        self.max_requests = max_requests
        self.record_after = record_after
        self.result = Result()
        self.answers = 0
        self.open = set()

    def going(self):
        return self.answers < self.max_requests and time.perf_counter() < self.deadline

    def answered(self, local_port, latency, status):
        self.answers += 1
        if time.perf_counter() >= self.record_after:
            self.result.latencies.append(latency)
            self.result.latencies_by_port.setdefault(local_port, []).append(latency)
            self.result.statuses[status] += 1

    def reconnect(self, finished):
        self.result.reconnects += 1
        asyncio.get_running_loop().create_task(self.connect(finished))

    async def connect(self, finished):
        loop = asyncio.get_running_loop()
        try:
            await loop.create_connection(lambda: _Connection(self, finished), self.host, self.port)
        except OSError:
            self.result.errors += 1
            if not finished.done():
                finished.set_result(None)


async def _run(host, port, request, connections, seconds, warmup, max_requests, on_start):
    loop = asyncio.get_running_loop()
    start = time.perf_counter()
    measured_from = start + warmup
    run = _Run(host, port, request, measured_from + seconds, max_requests, measured_from)
    cpu_at_start = [_cpu_seconds()]

    failures = []

    def measurement_starts():
        cpu_at_start[0] = _cpu_seconds()
        if on_start is not None:
            try:
                on_start()
            except Exception as error:  # raised below, not lost in the event loop's log
                failures.append(error)

    loop.call_later(warmup, measurement_starts)
    finished = [loop.create_future() for _ in range(connections)]
    for future in finished:
        loop.create_task(run.connect(future))
    await asyncio.wait(finished, timeout=warmup + seconds + GRACE_SECONDS)
    for connection in list(run.open):  # only after a timeout: answers that never came
        run.result.errors += connection.waiting
        connection.waiting = False
        connection.transport.close()
    # The measured time runs until the last answer, so that answers to requests sent
    # just before the deadline are not counted in less time than they took.
    run.result.seconds = time.perf_counter() - measured_from
    run.result.cpu_seconds = _cpu_seconds() - cpu_at_start[0]
    if failures:
        raise failures[0]
    return run.result


def _cpu_seconds():
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def run(host, port, request, connections=32, seconds=10.0, warmup=0.0, max_requests=10**7,
        on_measurement_start=None):  # fmt: skip
    """Drive ``request`` (bytes, see build_request) at host:port; return a Result.

    Answers that come during the first ``warmup`` seconds are not recorded. The run
    ends after ``warmup + seconds`` or ``max_requests`` answers, whichever is first.
    ``on_measurement_start()`` is called when recording starts (to read other
    processes' CPU counters, say).
    """
    # The objects alive now (all of Django, in bench_web) are left out of the garbage
    # collector's full passes while the load runs: a pass over them all pauses this
    # process long enough to hold up every connection's answer at once.
    # (Unfrozen afterwards only if nothing was frozen before: a caller's freeze stays.)
    frozen_by_us = gc.get_freeze_count() == 0
    gc.collect()
    gc.freeze()
    try:
        return asyncio.run(
            _run(host, port, request, connections, seconds, warmup, max_requests,
                 on_measurement_start)
        )  # fmt: skip
    finally:
        if frozen_by_us:
            gc.unfreeze()

"""``manage.py bench_stream``: how fast the streaming server delivers, measured in one run.

1. Starts a throwaway Redis (unless --redis-url) and creates --posters users.
2. For each design (one Redis subscription per process, then the book's one per
   client; --design picks one): starts ``manage.py stream``, or for the book's
   ``manage.py bench_stream_server`` (book_stream.py), on a free loopback port,
   opens --clients streaming connections with assorted filters (sample, track,
   follow, locations), posts --rate statuses a second for --seconds through the
   repository (statuses.post_status, as the site does), and records, for every line
   a client receives, the delay from the status's ``posted`` time to its arrival.
3. Prints, per design: delay median and p99, clients held, deliveries received
   against those expected (every client's filter run on every posted status), Redis
   subscriptions and connections used, the server's memory per client, and the CPU
   the stream server and Redis used.

Everything runs on 127.0.0.1 and is stopped at the end, also on Ctrl-C. Bounded: at
most --clients connections (opened within a minute) and --rate x --seconds posts.
"""

import asyncio
import json
import os
import platform
import random
import statistics
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlencode

from django.core.management.base import CommandError

from socialsite.repository import client as redis_client
from socialsite.repository import events, statuses, users
from tests.support.redis_servers import RedisServer
from tests.support.streams import StreamServerProcess
from timeline.streaming import filters
from timeline.streaming.hub import redacted

HOST = "127.0.0.1"
# The command that serves each design: one Redis subscription per process (the
# product's), or per client (the book's).
SERVERS = {"process": "stream", "client": "bench_stream_server"}
# The words statuses are made of and clients track: a small vocabulary, so that a
# tracked word turns up in a few percent of statuses, as a popular topic would.
VOCABULARY = """
    redis django python stream cluster timeline status follow post delete coffee
    morning release deploy review queue server client latency memory socket chunk
    filter sample track location paris london tokyo berlin lagos lima sydney toronto
    music football weather lunch train meeting holiday garden book film game news
    cat dog rain sun snow code test bug fix ship build cloud data model graph cache
    index query shard replica backup restart monitor alert metric log trace span
    green blue red quick slow happy tired busy early late today tomorrow weekend
""".split()
WORDS_PER_STATUS = 10
# Share of the statuses with a location, and share mentioning another poster.
LOCATED = 0.5
MENTIONING = 0.2
# Sample percents the sample clients ask for: mostly Twitter's "spritzer" (1%), some
# more. The whole firehose (100%) goes to --firehose clients of their own: few, as
# the partners who take it are few.
SAMPLE_PERCENTS = [1, 1, 1, 5, 10]
CONNECT_CONCURRENCY = 100
CONNECT_TIMEOUT = 60.0
# Deliveries still arriving this long after the last post are counted.
DRAIN_SECONDS = 2.0


@dataclass
class ClientSpec:
    kind: str
    method: str
    path: str
    body: bytes
    match: object


@dataclass
class RunResult:
    design: str
    clients: int
    connected: int = 0
    held: int = 0
    delays: list = field(default_factory=list)
    received: int = 0
    expected: int = 0
    subscriptions: int = 0
    redis_connections: int = 0
    memory_per_client: float = 0.0
    dropped: int = 0
    posted: int = 0
    post_seconds: float = 0.0
    server_cpu: float = 0.0
    redis_cpu: float = 0.0


class BenchClient(asyncio.Protocol):
    """One streaming client: sends its request, decodes the chunked response, and
    records each status line's delay. Kept lean: a thousand of them share this
    process with the poster."""

    def __init__(self, request, recorder):
        self.request = request
        self.recorder = recorder
        self.raw = bytearray()
        self.data = bytearray()
        self.head_done = False
        self.status = None
        self.closed = False
        self.ready = asyncio.get_running_loop().create_future()

    def connection_made(self, transport):
        self.transport = transport
        transport.write(self.request)

    def data_received(self, data):
        now = time.time()
        self.raw += data
        if not self.head_done:
            end = self.raw.find(b"\r\n\r\n")
            if end < 0:
                return
            self.status = int(self.raw[: self.raw.find(b"\r\n")].split()[1])
            del self.raw[: end + 4]
            self.head_done = True
            if not self.ready.done():
                self.ready.set_result(self.status)
        # Undo the chunked encoding, then record each complete line.
        while True:
            size_end = self.raw.find(b"\r\n")
            if size_end < 0:
                break
            size = int(self.raw[:size_end], 16)
            if len(self.raw) < size_end + 2 + size + 2:
                break
            self.data += self.raw[size_end + 2 : size_end + 2 + size]
            del self.raw[: size_end + 2 + size + 2]
            if size == 0:
                break
        last = self.data.rfind(b"\n")
        if last < 0:
            return
        lines = bytes(self.data[:last]).split(b"\n")
        del self.data[: last + 1]
        for line in lines:
            if line:
                self.recorder(json.loads(line), now)

    def connection_lost(self, exc):
        self.closed = True
        if not self.ready.done():
            self.ready.set_exception(ConnectionError("closed before answering"))


class StreamBenchmark:
    """One run of ``manage.py bench_stream`` with its options (a dict)."""

    def __init__(self, stdout, stderr):
        # The command's output wrappers: each write() is a line.
        self.stdout = stdout
        self.stderr = stderr

    def run(self, options):
        if options["clients"] < 1 or options["rate"] <= 0 or options["seconds"] <= 0:
            raise CommandError("--clients, --rate and --seconds must be positive")
        if options["warmup"] >= options["seconds"]:
            raise CommandError("--warmup must be shorter than --seconds")
        with tempfile.TemporaryDirectory(prefix="bench-stream-") as workdir:
            workdir = Path(workdir)
            redis_server = None
            url, cluster = options["redis_url"], options["cluster"]
            if not url:
                redis_server = RedisServer(workdir / "redis").start()
                url, cluster = redis_server.url, False
            try:
                self.measure(url, cluster, workdir, options)
            finally:
                if redis_server is not None:
                    redis_server.stop()

    def measure(self, url, cluster, workdir, options):
        r = redis_client.connect(url, cluster=cluster)
        rng = random.Random(options["seed"])
        posters = self.create_posters(r, options["posters"])
        # Everything shares this machine's cores: say how busy it already was.
        load = ", ".join(f"{value:.2f}" for value in os.getloadavg())
        self.stdout.write(
            f"Machine: {os.cpu_count()} cores, load average {load} before starting; "
            f"{platform.python_implementation()} {platform.python_version()}"
        )
        self.stdout.write(
            f"Streaming benchmark: {options['rate']:g} posts/s for {options['seconds']:g} s "
            f"(first {options['warmup']:g} s not measured), {len(posters)} posters, "
            f"Redis {'cluster' if cluster else 'server'} at {redacted(url)}"
        )
        designs = []
        if options["design"] in ("both", "process"):
            designs.append(("process", options["clients"]))
        if options["design"] in ("both", "client"):
            designs.append(("client", options["compare_clients"] or options["clients"]))
        # The same clients for both designs (the first ``count`` of them).
        all_specs = [
            self.client_spec(rng, n, posters, options["firehose"])
            for n in range(max(count for _, count in designs))
        ]
        results = []
        for design, count in designs:
            specs = all_specs[:count]
            kinds = {
                kind: sum(spec.kind == kind for spec in specs) for kind in ["firehose", *KINDS]
            }
            self.stdout.write(
                f"\n== one subscription per {design}: {count} clients ("
                + ", ".join(f"{n} {kind}" for kind, n in kinds.items())
                + ")"
            )
            results.append(
                self.run_design(r, url, cluster, workdir, design, specs, posters, options)
            )
        self.report(results)

    # --- the workload ---

    def create_posters(self, r, count):
        """{uid: login} of ``count`` users who post (made now if need be)."""
        posters = {}
        for n in range(count):
            login = f"bench_poster_{n}"
            uid = users.create_user(r, login, f"Poster {n}", "") or users.get_user_id(r, login)
            posters[uid] = login
        return posters

    def client_spec(self, rng, n, posters, firehose):
        """Client ``n``'s request: the firehose for the first ``firehose`` clients, then
        a quarter each of sample, track, follow and locations."""
        kind = "firehose" if n < firehose else KINDS[n % len(KINDS)]
        identifier = f"bench-{n}"
        if kind in ("sample", "firehose"):
            percent = 100 if kind == "firehose" else rng.choice(SAMPLE_PERCENTS)
            query = urlencode({"identifier": identifier, "percent": percent})
            return ClientSpec(
                kind,
                "GET",
                f"/statuses/sample.json?{query}",
                b"",
                filters.SampleFilter(identifier, percent),
            )
        if kind == "track":
            phrases = [
                " ".join(rng.sample(VOCABULARY, rng.choice([1, 1, 2])))
                for _ in range(rng.randint(1, 3))
            ]
            fields = {"track": ",".join(phrases)}
            match = filters.TrackFilter(phrases)
        elif kind == "follow":
            chosen = rng.sample(sorted(posters), rng.randint(1, 5))
            fields = {"follow": ",".join(posters[uid] for uid in chosen)}
            match = filters.FollowFilter(chosen, [posters[uid] for uid in chosen])
        else:
            boxes = []
            for _ in range(rng.randint(1, 3)):
                west, south = rng.uniform(-180, 150), rng.uniform(-60, 40)
                boxes.append((west, south, west + 30, south + 20))
            fields = {"locations": ",".join(f"{value:.4f}" for box in boxes for value in box)}
            match = filters.LocationFilter(
                [tuple(float(f"{value:.4f}") for value in box) for box in boxes]
            )
        path = f"/statuses/filter.json?{urlencode({'identifier': identifier})}"
        return ClientSpec(kind, "POST", path, urlencode(fields).encode(), match)

    def status_text(self, rng, posters):
        words = rng.choices(VOCABULARY, k=WORDS_PER_STATUS)
        if rng.random() < MENTIONING:
            words.append("@" + posters[rng.choice(list(posters))])
        location = ""
        if rng.random() < LOCATED:
            location = f"{rng.uniform(-60, 60):.4f},{rng.uniform(-180, 180):.4f}"
        return " ".join(words), location

    # --- one design ---

    def run_design(self, r, url, cluster, workdir, design, specs, posters, options):
        result = RunResult(design, len(specs))
        connections_before = redis_client.connected_clients(r)
        # Every client connects from 127.0.0.1: the per-address limit, made for clients
        # on the internet, must let them all in (and /health with them).
        server = StreamServerProcess(
            url,
            cluster,
            log_path=workdir / f"stream-{design}.log",
            command=SERVERS[design],
            max_per_address=options["clients"] + 100,
            max_clients=options["clients"] + 100,
        ).start()
        try:
            rss_before = server.rss_bytes()
            run_event_loop(self.drive(r, server, specs, posters, options, result))
            if rss_before and result.memory_per_client:
                result.memory_per_client = (result.memory_per_client - rss_before) / max(
                    result.connected, 1
                )
            result.redis_connections -= connections_before
        finally:
            server.stop()
        self.stdout.write(self.summary(result))
        return result

    async def drive(self, r, server, specs, posters, options, result):
        loop = asyncio.get_running_loop()
        arrivals = []  # (status id, delay) of every status line any client received

        def record(line, now):
            if "posted" in line:
                arrivals.append((line["id"], now - line["posted"]))

        clients = await self.connect_all(loop, server, specs, record, result)
        await asyncio.sleep(1.0)  # let the server settle before measuring it
        health = server.health() or {}
        result.memory_per_client = server.rss_bytes() or 0
        result.subscriptions = events.subscriber_count(r)
        result.redis_connections = redis_client.connected_clients(r)
        self.stdout.write(
            f"   {result.connected} clients connected; server reports {health.get('clients')}, "
            f"{result.subscriptions} Redis subscription(s)"
        )

        rng = random.Random(options["seed"] + 1)
        posted = []
        cpu_before = server.cpu_seconds() or 0.0
        redis_cpu_before = redis_client.cpu_seconds(r)
        started = time.time()
        poster = threading.Thread(
            target=self.post_steadily,
            args=(r, rng, posters, options, posted),
            daemon=True,
        )
        poster.start()
        while poster.is_alive():
            await asyncio.sleep(0.2)
        result.post_seconds = time.time() - started
        result.server_cpu = ((server.cpu_seconds() or 0.0) - cpu_before) / result.post_seconds
        result.redis_cpu = (redis_client.cpu_seconds(r) - redis_cpu_before) / result.post_seconds
        await asyncio.sleep(DRAIN_SECONDS)

        health = server.health() or {}
        result.held = sum(not client.closed for client in clients)
        result.dropped = health.get("clients_dropped", 0)
        result.posted = len(posted)
        # Measured: the statuses posted after the warm-up, received or expected.
        measured = [status for status in posted if not status["warmup"]]
        first = measured[0]["id"] if measured else float("inf")
        result.delays = [delay for sid, delay in arrivals if sid >= first]
        result.received = len(result.delays)
        result.expected = self.expected(measured, clients)
        for client in clients:
            client.transport.close()

    async def connect_all(self, loop, server, specs, record, result):
        gate = asyncio.Semaphore(CONNECT_CONCURRENCY)
        clients = []

        async def connect(spec):
            request = (
                f"{spec.method} {spec.path} HTTP/1.1\r\nHost: {HOST}:{server.port}\r\n"
                "Content-Type: application/x-www-form-urlencoded\r\n"
                f"Content-Length: {len(spec.body)}\r\n\r\n"
            ).encode() + spec.body
            async with gate:
                _, protocol = await loop.create_connection(
                    lambda: BenchClient(request, record), HOST, server.port
                )
                clients.append(protocol)
                protocol.spec = spec
                if await protocol.ready == 200:
                    result.connected += 1

        outcomes = await asyncio.wait_for(
            asyncio.gather(*(connect(spec) for spec in specs), return_exceptions=True),
            timeout=CONNECT_TIMEOUT,
        )
        failures = [outcome for outcome in outcomes if isinstance(outcome, BaseException)]
        if failures:
            self.stderr.write(f"   {len(failures)} clients failed to connect: {failures[0]!r}")
        return clients

    def post_steadily(self, r, rng, posters, options, posted):
        """Post --rate statuses a second for --seconds, on a fixed schedule (a late post
        does not shift the ones after it); append each to ``posted``."""
        uids = list(posters)
        rate = options["rate"]
        start = time.monotonic()
        for n in range(int(rate * options["seconds"])):
            delay = start + n / rate - time.monotonic()
            if delay > 0:
                time.sleep(delay)
            uid = rng.choice(uids)
            message, location = self.status_text(rng, posters)
            sid = statuses.post_status(r, uid, message, location=location)
            status = {"id": sid, "uid": uid, "login": posters[uid], "message": message}
            if location:
                status["location"] = location
            posted.append({**status, "warmup": n < rate * options["warmup"]})

    def expected(self, posted, clients):
        """How many status lines the connected clients should have received: every
        client's filter run on every status posted (the same filter classes)."""
        connected = [client.spec for client in clients if client.status == 200]
        count = 0
        for status in posted:
            event = filters.StatusEvent(status)
            count += sum(1 for spec in connected if spec.match(event))
        return count

    # --- output ---

    def summary(self, result):
        if not result.delays:
            return "   no deliveries measured"
        delays = sorted(result.delays)
        p99 = delays[min(len(delays) - 1, int(len(delays) * 0.99))]
        return (
            f"   {result.posted} statuses in {result.post_seconds:.1f} s; "
            f"delay median {statistics.median(delays) * 1000:.1f} ms, p99 {p99 * 1000:.1f} ms, "
            f"max {delays[-1] * 1000:.1f} ms; {result.received} of {result.expected} expected "
            f"deliveries; {result.held} clients held"
        )

    def report(self, results):
        rows = [
            ("clients connected / held at the end", lambda x: f"{x.connected} / {x.held}"),
            ("clients dropped as too slow", lambda x: str(x.dropped)),
            ("Redis subscriptions", lambda x: str(x.subscriptions)),
            ("Redis connections used by the server", lambda x: str(x.redis_connections)),
            ("server memory per client", lambda x: f"{x.memory_per_client / 1024:.1f} KiB"),
            ("stream server CPU while posting", lambda x: f"{x.server_cpu * 100:.0f}% of a core"),
            ("Redis CPU while posting", lambda x: f"{x.redis_cpu * 100:.0f}% of a core"),
            ("posts per second achieved", lambda x: f"{x.posted / x.post_seconds:.0f}"),
            ("deliveries received / expected", self.deliveries),
            ("delay post -> client, median", lambda x: self.percentile(x, 0.5)),
            ("delay post -> client, p99", lambda x: self.percentile(x, 0.99)),
            ("delay post -> client, max", lambda x: self.percentile(x, 1.0)),
        ]
        names = {"process": "per process (ours)", "client": "per client (book)"}
        header = f"{'one Redis subscription':<38}" + "".join(
            f"{names[x.design]:>22}" for x in results
        )
        self.stdout.write("\n" + header)
        for label, value in rows:
            self.stdout.write(f"{label:<38}" + "".join(f"{value(x):>22}" for x in results))

    def deliveries(self, result):
        share = result.received / result.expected * 100 if result.expected else 0
        return f"{result.received}/{result.expected} ({share:.0f}%)"

    def percentile(self, result, fraction):
        if not result.delays:
            return "-"
        delays = sorted(result.delays)
        value = delays[min(len(delays) - 1, int(len(delays) * fraction))]
        return f"{value * 1000:.1f} ms"


KINDS = ["sample", "track", "follow", "locations"]


def run_event_loop(coroutine):
    """asyncio.run, on uvloop when it is installed (as the stream server runs): the
    clients' side of the benchmark should cost as little CPU as the server's."""
    try:
        import uvloop
    except ImportError:
        return asyncio.run(coroutine)
    with asyncio.Runner(loop_factory=uvloop.new_event_loop) as runner:
        return runner.run(coroutine)

"""``manage.py bench_stream``: how fast the streaming server delivers, measured in one run.

1. Starts a throwaway Redis (unless --redis-url) and creates --posters users (or, with
   --live-homes, --users users, each live home following --following of them).
2. For each design of --design (``index``: the product, events finding their clients
   through indexes; ``scan``: every client's filter on every event; ``client``: the
   book's one subscription per client): starts ``manage.py stream --matching DESIGN
   --processes N``, or for the book's ``manage.py bench_stream_server``
   (book_stream.py), on a free loopback port, opens --clients streaming connections
   with assorted filters (sample, track, follow, locations) and --live-homes logged-in
   live home pages (Server-Sent Events; with --mastodon, Mastodon user streams with an
   access token instead, /api/v1/streaming/user), and for each rate of --rate (a list: steps,
   on the same connections) posts that many statuses a second for --seconds through
   the repository (statuses.post_status, as the site does; from a process of its own,
   poster.py), recording for every
   status a client receives the delay from its posting to its arrival.
3. Prints, per design and rate: delay median and p99, clients held and dropped,
   deliveries received against those expected (every client's filter on every posted
   status), Redis subscriptions and connections used, the server's memory per idle
   client, the CPU the stream server, Redis and this load generator used, and the
   server's CPU per delivered line; with several rates, the highest one sustained
   (everything delivered, nothing dropped, p99 under --max-p99).

Everything runs on 127.0.0.1 and is stopped at the end, also on Ctrl-C. Bounded: at
most --clients connections (opened within a minute) and --rate x --seconds posts.
"""

import asyncio
import json
import multiprocessing
import os
import platform
import random
import re
import resource
import statistics
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlencode

from django.core.management.base import CommandError

from benchmarks import poster as poster_process
from benchmarks.poster import VOCABULARY
from socialsite import connection
from socialsite.repository import client as redis_client
from socialsite.repository import events, keys, oauth, users
from socialsite_dev.redis_servers import RedisServer
from socialsite_dev.streams import StreamServerProcess
from streaming import filters
from streaming.home import HomeFilter
from streaming.hub import redacted
from streaming.index import ClientIndex

HOST = "127.0.0.1"
# The command that serves each design: one Redis subscription per process (the
# product's, matching by index or by scan), or per client (the book's).
SERVERS = {"index": "stream", "scan": "stream", "client": "bench_stream_server"}
DESIGN_NAMES = {"index": "index (ours)", "scan": "scan (linear)", "client": "book"}
# Older names of --design's values.
DESIGN_ALIASES = {"process": ["index"], "both": ["index", "client"]}
# Sample percents the sample clients ask for: mostly Twitter's "spritzer" (1%), some
# more. The whole firehose (100%) goes to --firehose clients of their own: few, as
# the partners who take it are few.
SAMPLE_PERCENTS = [1, 1, 1, 5, 10]
CONNECT_CONCURRENCY = 100
CONNECT_TIMEOUT = 60.0
# The poster's process is started afresh ("spawn"), not forked from this one, which runs
# an event loop and threads.
POSTER_CONTEXT = multiprocessing.get_context("spawn")
# Seconds the server's CPU is measured with its clients connected and nothing posted.
IDLE_SECONDS = 5.0
# Deliveries still arriving this long after the last post are counted.
DRAIN_SECONDS = 2.0


# A status line's own "id" and "posted" (BenchClient.data_received): a Tweet's line
# starts with created_at then id and ends with posted (streaming/tweets.py).
ID_AND_POSTED = re.compile(
    rb'^\{"created_at": "[^"]*", "id": ([0-9]+), .*"posted": ([-+.eE0-9]+)\}$', re.MULTILINE
)


@dataclass(eq=False)
class ClientSpec:
    kind: str
    method: str
    path: str
    body: bytes
    match: object
    # A live home page's Cookie header (its session); the API's clients have none.
    cookie: str = ""
    # A Mastodon user stream's access token (--mastodon: the live homes' users read
    # their homes through /api/v1/streaming/user instead).
    token: str = ""


@dataclass
class RunResult:
    design: str
    clients: int
    rate: float = 0.0
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
    loadgen_cpu: float = 0.0
    poster_cpu: float = 0.0
    lines_per_write: float = 0.0
    # The server's garbage collector: full passes while posting, and its longest pause
    # since it started (connecting the clients included), in ms.
    gc_full_passes: int = 0
    gc_longest_pause: float = 0.0
    idle_cpu: float = 0.0
    # Every status line received while posting and draining (warm-up included), and the
    # server's CPU seconds over that time: its CPU per delivered line.
    lines: int = 0
    server_cpu_seconds: float = 0.0

    def sustained(self, max_p99):
        """Everything delivered, nothing dropped, p99 under ``max_p99`` seconds."""
        return (
            bool(self.delays)
            and self.received >= self.expected
            and not self.dropped
            and percentile(self.delays, 0.99) < max_p99
        )


class BenchClient(asyncio.Protocol):
    """One streaming client: sends its request, decodes the chunked response, and
    records each status line's delay. Kept lean: a thousand of them share this
    process with the poster."""

    def __init__(self, request, recorder, events=False, mastodon=False):
        self.request = request
        self.recorder = recorder
        # Server-Sent Events (a live home page) rather than JSON lines.
        self.events = events
        # Mastodon's Server-Sent Events (event: update, the Status entity).
        self.mastodon = mastodon
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
        if self.events:
            last = self.data.rfind(b"\n\n")
            if last < 0:
                return
            blocks = bytes(self.data[:last]).split(b"\n\n")
            del self.data[: last + 2]
            for block in blocks:
                if block.startswith(b"id: "):
                    # The connection's cursor (Last-Event-ID): one line before the event.
                    block = block[block.find(b"\n") + 1 :]
                if block.startswith(b"event: status\ndata: "):
                    self.recorder(json.loads(block[20:])["id"], now, None)
                elif self.mastodon and block.startswith(b"event: update\ndata: "):
                    self.recorder(int(json.loads(block[20:])["id"]), now, None)
            return
        last = self.data.rfind(b"\n")
        if last < 0:
            return
        lines = bytes(self.data[:last])
        del self.data[: last + 1]
        # Each status's time and id found by one pass of a pattern over all the lines
        # read, without decoding them, which would cost this process most of its CPU
        # at 10,000 clients: a status line starts with its created_at and id and ends
        # with its posted (tweets.tweet), and a string value of JSON cannot hold the
        # unescaped quotes of the pattern. Lines the pattern does not account for
        # (another field order, a retweet's second "posted") are decoded in full.
        found = ID_AND_POSTED.findall(lines)
        if len(found) == lines.count(b'"posted": '):
            for sid, posted in found:
                self.recorder(int(sid), now, float(posted))
            return
        for line in lines.split(b"\n"):
            if line:
                status = json.loads(line)
                if "posted" in status:
                    self.recorder(status["id"], now, status["posted"])

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
        try:
            options["rates"] = [float(rate) for rate in str(options["rate"]).split(",")]
        except ValueError:
            raise CommandError(
                "--rate takes a number of posts a second, or a list: 100,200"
            ) from None
        options["designs"] = []
        for name in options["design"].split(","):
            for design in DESIGN_ALIASES.get(name.strip(), [name.strip()]):
                if design not in SERVERS:
                    raise CommandError(f"--design: {name!r} is not one of index, scan, client")
                if design not in options["designs"]:
                    options["designs"].append(design)
        if options["clients"] + options["live_homes"] < 1:
            raise CommandError("--clients or --live-homes must be positive")
        if min(options["rates"]) <= 0 or options["seconds"] <= 0 or options["processes"] < 1:
            raise CommandError("--rate, --seconds and --processes must be positive")
        if options["warmup"] >= options["seconds"]:
            raise CommandError("--warmup must be shorter than --seconds")
        if options["live_homes"] and options["following"] > options["users"]:
            raise CommandError("--following must be at most --users")
        raise_open_files_limit(self.stdout)
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
        # The sessions of the live homes are made in this process, on this Redis.
        connection.use_redis(r)
        rng = random.Random(options["seed"])
        count = options["users"] if options["live_homes"] else options["posters"]
        posters = self.create_posters(r, count)
        # Everything shares this machine's cores: say how busy it already was.
        load = ", ".join(f"{value:.2f}" for value in os.getloadavg())
        self.stdout.write(
            f"Machine: {os.cpu_count()} cores, load average {load} before starting; "
            f"{platform.python_implementation()} {platform.python_version()}"
        )
        self.stdout.write(
            f"Streaming benchmark: {options['rate']} posts/s for {options['seconds']:g} s "
            f"(first {options['warmup']:g} s not measured), {len(posters)} posters, "
            f"Redis {'cluster' if cluster else 'server'} at {redacted(url)}"
        )
        designs = []
        for design in options["designs"]:
            count = options["clients"]
            if design == "client":
                count = options["compare_clients"] or count
            designs.append((design, count))
        # The same clients for every design (the first ``count`` of them).
        all_specs = [
            self.client_spec(rng, n, posters, options["firehose"])
            for n in range(max(count for _, count in designs))
        ]
        homes = self.live_home_specs(r, rng, posters, options)
        results = []
        for design, count in designs:
            specs = all_specs[:count] + homes
            kinds = {
                kind: sum(spec.kind == kind for spec in specs)
                for kind in ["firehose", *KINDS, "live home"]
            }
            processes = 1 if design == "client" else options["processes"]
            self.stdout.write(
                f"\n== {DESIGN_NAMES[design]}, {processes} process(es): {len(specs)} clients ("
                + ", ".join(f"{n} {kind}" for kind, n in kinds.items() if n)
                + ")"
            )
            results += self.run_design(r, url, cluster, workdir, design, specs, posters, options)
        self.report(results, options)

    # --- the workload ---

    def create_posters(self, r, count):
        """{uid: login} of ``count`` users who post (made now if need be)."""
        posters = {}
        for n in range(count):
            login = f"bench_poster_{n}"
            uid = users.create_user(r, login, f"Poster {n}", "") or users.get_user_id(r, login)
            posters[uid] = login
        return posters

    def live_home_specs(self, r, rng, posters, options):
        """--live-homes live home pages: the first of the users, each following
        --following others at random, logged in by a session made in Redis as the
        login view makes one (bench_web's way). The follows are written straight into
        the following sets, the one thing the stream server reads of them: following
        through graph.follow would also copy timelines, minutes for millions of follows,
        and nothing of that is measured here."""
        count = options["live_homes"]
        if not count:
            return []
        from benchmarks.web import logged_in_cookies

        uids = sorted(posters)
        if count > len(uids):
            raise CommandError("--live-homes must be at most --users")
        started = time.monotonic()
        specs = []
        if options.get("mastodon"):
            client_id = oauth.create_app(
                r, "bench_stream", ["urn:ietf:wg:oauth:2.0:oob"], ["read"]
            )[0]
        pipe = r.pipeline(transaction=False)
        for n, uid in enumerate(uids[:count]):
            following = rng.sample(uids, options["following"])
            following = [other for other in following if other != uid]
            pipe.delete(keys.following(uid))
            pipe.zadd(keys.following(uid), {other: n for n, other in enumerate(following)})
            if n % 500 == 499:
                pipe.execute()
            home = HomeFilter(uid, following)
            if options.get("mastodon"):
                token = oauth.issue_token(r, client_id, ["read"], uid=uid)
                path = "/api/v1/streaming/user"
                specs.append(ClientSpec("mastodon user", "GET", path, b"", home, token=token))
                continue
            cookie = logged_in_cookies(uid)
            specs.append(ClientSpec("live home", "GET", "/live/home", b"", home, cookie))
        pipe.execute()
        self.stdout.write(
            f"{count} live homes following {options['following']} of {len(uids)} users each, "
            f"logged in, in {time.monotonic() - started:.0f} s"
        )
        return specs

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

    # --- one design ---

    def run_design(self, r, url, cluster, workdir, design, specs, posters, options):
        """One server of ``design``, its clients connected once, then each rate in
        turn: a RunResult per rate measured."""
        processes = 1 if design == "client" else options["processes"]
        extra = {"matching": design} if design in ("index", "scan") else {}
        if options.get("live_refresh") is not None and design != "client":
            extra["live_refresh"] = options["live_refresh"]
        connections_before = redis_client.connected_clients(r)
        # Every client connects from 127.0.0.1: the per-address limit, made for clients
        # on the internet, must let them all in (and /health with them).
        server = StreamServerProcess(
            url,
            cluster,
            log_path=workdir / f"stream-{design}.log",
            command=SERVERS[design],
            max_per_address=len(specs) + 100,
            max_clients=len(specs) + 100,
            processes=processes,
            **extra,
        ).start()
        try:
            if processes > 1:
                # Every process up and subscribed before the clients come.
                health_of_all(server, processes, timeout=60)
            rss_before = server.rss_bytes()
            driving = self.drive(r, url, cluster, server, design, specs, posters, options)
            results = run_event_loop(driving)
            for result in results:
                if rss_before and result.memory_per_client:
                    result.memory_per_client = (result.memory_per_client - rss_before) / max(
                        result.connected, 1
                    )
                result.redis_connections -= connections_before
        finally:
            server.stop()
        return results

    async def drive(self, r, url, cluster, server, design, specs, posters, options):
        loop = asyncio.get_running_loop()
        arrivals = []  # (status id, arrival time, posted time) of every status received

        def record(sid, now, posted):
            arrivals.append((sid, now, posted))

        first = RunResult(design, len(specs))
        clients = await self.connect_all(loop, server, specs, record, first)
        await asyncio.sleep(1.0)  # let the server settle before measuring it
        processes = 1 if design == "client" else options["processes"]
        health = health_of_all(server, processes)
        first.memory_per_client = server.rss_bytes() or 0
        first.subscriptions = events.subscriber_count(r)
        first.redis_connections = redis_client.connected_clients(r)
        self.stdout.write(
            f"   {first.connected} clients connected; server reports {health.get('clients')}, "
            f"{first.subscriptions} Redis subscription(s)"
        )
        # What the clients cost while nothing is posted: keep-alives, and the live
        # pages' periodic re-reading of their sessions and follows.
        cpu_before = server.cpu_seconds() or 0.0
        await asyncio.sleep(IDLE_SECONDS)
        first.idle_cpu = ((server.cpu_seconds() or 0.0) - cpu_before) / IDLE_SECONDS
        results = []
        post_times = {}
        for step, rate in enumerate(options["rates"]):
            result = RunResult(
                design,
                len(specs),
                rate=rate,
                connected=first.connected,
                memory_per_client=first.memory_per_client,
                subscriptions=first.subscriptions,
                redis_connections=first.redis_connections,
                idle_cpu=first.idle_cpu,
            )
            arrivals.clear()
            # The poster: a process of its own, set up before the step is measured.
            pipe, child_pipe = POSTER_CONTEXT.Pipe()
            poster = POSTER_CONTEXT.Process(
                target=poster_process.run,
                args=(child_pipe, url, cluster, posters, rate, options["seconds"],
                      options["warmup"], options["seed"] + 1 + step),
                daemon=True,
            )  # fmt: skip
            poster.start()
            await loop.run_in_executor(None, pipe.recv)  # "ready"
            counted_before = health_of_all(server, processes)
            cpu_before = server.cpu_seconds() or 0.0
            redis_cpu_before = redis_client.cpu_seconds(r)
            own_cpu_before = time.process_time()
            started = time.time()
            pipe.send("go")
            posted, times, poster_cpu = await loop.run_in_executor(None, pipe.recv)
            poster.join()
            post_times.update(times)
            result.post_seconds = time.time() - started
            result.poster_cpu = poster_cpu / result.post_seconds
            result.redis_cpu = (
                redis_client.cpu_seconds(r) - redis_cpu_before
            ) / result.post_seconds
            await asyncio.sleep(DRAIN_SECONDS)
            window = time.time() - started
            result.server_cpu_seconds = (server.cpu_seconds() or 0.0) - cpu_before
            result.server_cpu = result.server_cpu_seconds / window
            # This process: the clients' reading (the poster is a process of its own).
            result.loadgen_cpu = (time.process_time() - own_cpu_before) / window

            health = health_of_all(server, processes)
            result.held = sum(not client.closed for client in clients)
            result.dropped = health.get("clients_dropped", 0)
            # Lines the hub wrote per write it made (Hub.flush): above 1 when events came
            # faster than they were handed out, and were written several at a time.
            writes = health.get("writes", 0) - counted_before.get("writes", 0)
            lines = health.get("deliveries", 0) - counted_before.get("deliveries", 0)
            result.lines_per_write = lines / writes if writes else 0.0
            result.gc_full_passes = health.get("gc_full_passes", 0) - counted_before.get(
                "gc_full_passes", 0
            )
            result.gc_longest_pause = health.get("gc_longest_pause_ms", 0.0)
            result.posted = len(posted)
            result.lines = len(arrivals)
            # Measured: the statuses posted after the warm-up, received or expected.
            measured = [status for status in posted if not status["warmup"]]
            first_id = measured[0]["id"] if measured else float("inf")
            result.delays = [
                now - (posted_at if posted_at is not None else post_times[sid])
                for sid, now, posted_at in arrivals
                if sid >= first_id and (posted_at is not None or sid in post_times)
            ]
            result.received = len(result.delays)
            result.expected = self.expected(measured, clients)
            self.stdout.write(self.summary(result))
            results.append(result)
            if len(options["rates"]) > 1 and not result.sustained(options["max_p99"] / 1000):
                if step + 1 < len(options["rates"]):
                    self.stdout.write("   not sustained: the higher rates are not tried")
                break
        for client in clients:
            client.transport.close()
        return results

    async def connect_all(self, loop, server, specs, record, result):
        gate = asyncio.Semaphore(CONNECT_CONCURRENCY)
        clients = []

        async def connect(spec):
            cookie = f"Cookie: {spec.cookie}\r\n" if spec.cookie else ""
            if spec.token:
                cookie = f"Authorization: Bearer {spec.token}\r\n"
            request = (
                f"{spec.method} {spec.path} HTTP/1.1\r\nHost: {HOST}:{server.port}\r\n"
                "Content-Type: application/x-www-form-urlencoded\r\n"
                f"{cookie}Content-Length: {len(spec.body)}\r\n\r\n"
            ).encode() + spec.body
            async with gate:
                _, protocol = await loop.create_connection(
                    lambda: BenchClient(
                        request,
                        record,
                        events=bool(spec.cookie or spec.token),
                        mastodon=bool(spec.token),
                    ),
                    HOST,
                    server.port,
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

    def expected(self, posted, clients):
        """How many status lines the connected clients should have received: every
        client's filter on every status posted (the same filter classes, found through
        the same index: tests/test_streaming_index.py holds it to the scan's matches)."""
        index = ClientIndex()
        for client in clients:
            if client.status == 200:
                index.add(client.spec)
        count = 0
        for status in posted:
            event = filters.StatusEvent(status)
            count += sum(1 for spec in index.candidates(event) if spec.match(event))
        return count

    # --- output ---

    def summary(self, result):
        if not result.delays:
            return f"   {result.rate:g} posts/s: no deliveries measured"
        delays = sorted(result.delays)
        p99 = delays[min(len(delays) - 1, int(len(delays) * 0.99))]
        return (
            f"   {result.rate:g} posts/s: {result.posted} statuses in {result.post_seconds:.1f} s; "
            f"delay median {statistics.median(delays) * 1000:.1f} ms, p99 {p99 * 1000:.1f} ms, "
            f"max {delays[-1] * 1000:.1f} ms; {result.received} of {result.expected} expected "
            f"deliveries; {result.held} clients held"
        )

    def report(self, results, options):
        rows = [
            ("posts per second asked", lambda x: f"{x.rate:g}"),
            ("clients connected / held at the end", lambda x: f"{x.connected} / {x.held}"),
            ("clients dropped as too slow", lambda x: str(x.dropped)),
            ("Redis subscriptions", lambda x: str(x.subscriptions)),
            ("Redis connections used by the server", lambda x: str(x.redis_connections)),
            ("server memory per client", lambda x: f"{x.memory_per_client / 1024:.1f} KiB"),
            ("stream server CPU, no posts", lambda x: f"{x.idle_cpu * 100:.0f}% of a core"),
            ("stream server CPU while posting", lambda x: f"{x.server_cpu * 100:.0f}% of a core"),
            ("server CPU per delivered line", self.cpu_per_line),
            ("lines per write (hub)", lambda x: f"{x.lines_per_write:.2f}"),
            (
                "collector: full passes; longest pause",
                lambda x: f"{x.gc_full_passes}; {x.gc_longest_pause:.0f} ms",
            ),
            (
                "load generator CPU (this process)",
                lambda x: f"{x.loadgen_cpu * 100:.0f}% of a core",
            ),
            ("poster CPU (its own process)", lambda x: f"{x.poster_cpu * 100:.0f}% of a core"),
            ("Redis CPU while posting", lambda x: f"{x.redis_cpu * 100:.0f}% of a core"),
            ("posts per second achieved", lambda x: f"{x.posted / x.post_seconds:.0f}"),
            ("deliveries received / expected", self.deliveries),
            ("delay post -> client, median", lambda x: self.percentile(x, 0.5)),
            ("delay post -> client, p99", lambda x: self.percentile(x, 0.99)),
            ("delay post -> client, max", lambda x: self.percentile(x, 1.0)),
        ]
        header = f"{'design':<38}" + "".join(f"{DESIGN_NAMES[x.design]:>22}" for x in results)
        self.stdout.write("\n" + header)
        for label, value in rows:
            self.stdout.write(f"{label:<38}" + "".join(f"{value(x):>22}" for x in results))
        if len(options["rates"]) > 1:
            limit = options["max_p99"]
            for design in options["designs"]:
                ok = [x.rate for x in results if x.design == design and x.sustained(limit / 1000)]
                best = f"{max(ok):g} posts/s" if ok else f"none of {options['rate']}"
                self.stdout.write(
                    f"highest rate sustained, {DESIGN_NAMES[design]} (all delivered, none "
                    f"dropped, p99 < {limit:g} ms): {best}"
                )

    def cpu_per_line(self, result):
        if not result.lines:
            return "-"
        return f"{result.server_cpu_seconds / result.lines * 1e6:.1f} us"

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


def percentile(values, fraction):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(len(ordered) * fraction))]


def health_of_all(server, processes, timeout=10.0):
    """The /health counters of every process of the server, summed: each request is a
    new connection, which the kernel gives to any of them, so ask until each has
    answered (its pid) or ``timeout`` passes."""
    answers = {}
    deadline = time.monotonic() + timeout
    while len(answers) < processes and time.monotonic() < deadline:
        health = server.health()
        if health is not None and health.get("subscribed"):
            answers[health.get("pid")] = health
        elif health is None:
            time.sleep(0.05)
    total = {}
    for health in answers.values():
        for name, value in health.items():
            if isinstance(value, int) and not isinstance(value, bool) and name != "pid":
                total[name] = total.get(name, 0) + value
            elif isinstance(value, float):  # the longest of the processes' (a pause)
                total[name] = max(total.get(name, 0.0), value)
    return total


def raise_open_files_limit(stdout):
    """Let this process hold as many connections as the hard limit allows (a soft limit
    of 1,024 is common; 10,000 clients need more), and say so."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft < hard:
        resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    stdout.write(f"Open files limit of the load generator: {hard} (was {soft})")


def run_event_loop(coroutine):
    """asyncio.run, on uvloop when it is installed (as the stream server runs): the
    clients' side of the benchmark should cost as little CPU as the server's."""
    try:
        import uvloop
    except ImportError:
        return asyncio.run(coroutine)
    with asyncio.Runner(loop_factory=uvloop.new_event_loop) as runner:
        return runner.run(coroutine)

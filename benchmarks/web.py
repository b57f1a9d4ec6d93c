"""``manage.py bench_web``: how fast gunicorn serves the pages, measured in one run.

1. Starts a throwaway Redis (unless --redis-url), and seeds it through the repository:
   a reader following 30 authors who posted one status each (a full home page), and
   a poster with --followers followers.
2. For each gunicorn configuration (the recommended one, then each --also): starts
   gunicorn on a free loopback port, logs in through the real login form, and drives
   GET /healthz (the cheapest Django view) and then GET / (the reader's home page)
   with the same generator, connections, warm-up and duration, back to back (with
   --tool both: with each generator in turn, each pair of figures judged on its own).
3. On the first configuration, posts statuses one after the other as the poster
   (POST /statuses/ with the CSRF token, inline fan-out to every follower) and times
   each request.

With --in-process it measures instead the CPU time per request of both pages through
Django's WSGI handler in its own process: no server, no network, and little influence
from other work on the machine; --cold adds each page with the CPU's caches emptied
before every request, which is close to what it costs a gunicorn worker. --spread N
adds, in the same process, a demo network (seed_demo) and the home pages of N of its
users, each a different timeline, against one user's page again and again: what the
per-process memory of statuses and markup saves the repeated page and a site's pages do
not all get.

Everything it starts runs on 127.0.0.1 and is stopped at the end, also on Ctrl-C or
SIGTERM. docs/benchmarks.md has the method and figures; docs/decisions/0013 the gunicorn
settings they support.
"""

import contextlib
import gzip
import http.client
import http.cookies
import importlib.metadata
import io
import os
import platform
import random
import re
import resource
import secrets
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlencode

from django.conf import settings
from django.contrib.auth.hashers import make_password
from django.contrib.staticfiles import finders
from django.core.handlers.wsgi import WSGIHandler
from django.core.management import call_command
from django.core.management.base import CommandError
from django.test import Client, RequestFactory
from redis.cluster import RedisCluster
from redis.utils import HIREDIS_AVAILABLE

from accounts import auth
from accounts.session_store import SessionStore
from benchmarks import loadgen
from socialsite import connection
from socialsite.repository import client, graph, likes, ranking, statuses, timelines, users
from socialsite_dev.ports import free_port
from socialsite_dev.redis_servers import RedisServer

HOST = "127.0.0.1"
HOME_AUTHORS = 30  # one page: settings.TIMELINE_PAGE_SIZE
CSRF_INPUT = re.compile(r'name="csrfmiddlewaretoken" value="([^"]+)"')
STATUS_ARTICLE = 'class="status"'
# --pulled: accounts with this many followers are pulled (decision 0054), and post this
# many statuses each.
PULLED_THRESHOLD = 3
PULLED_STATUSES = 10
# The floor of the home page's cost: at least this share of /healthz's by gunicorn CPU
# per request (docs/benchmarks.md).
HOME_FLOOR = 0.30
# The Top timeline's first page (ranked afresh on every request): at least this share.
TOP_FLOOR = 0.25
# The ranking's own measurement: the Redis time of one ranked page with this many
# candidates (--ranking-sizes), over a home of that many statuses by RANKING_AUTHORS.
RANKING_SIZES = (200, 800)
RANKING_AUTHORS = 50
# The load generators of --tool. wrk (C, two threads) spends less CPU per request than
# the built-in client, which on a small machine is CPU the server gets back.
TOOL_NAMES = {"python": "built-in asyncio client", "wrk": "wrk"}
MESSAGE = (
    "Trying the new release of the timeline this morning: pages feel quick, posting too."
    " Coffee first, then the review queue."
)


@dataclass(frozen=True)
class GunicornConfig:
    worker_class: str
    workers: int
    threads: int
    reuse_port: bool = False

    @classmethod
    def parse(cls, text):
        """ "gthread:2:4" (class:workers:threads), "sync:3" (threads default to 1), with
        ":reuse-port" at the end for a listening socket per worker."""
        parts = text.split(":")
        reuse_port = parts[-1] == "reuse-port"
        if reuse_port:
            parts = parts[:-1]
        try:
            if not 2 <= len(parts) <= 3:
                raise ValueError
            workers = int(parts[1])
            threads = int(parts[2]) if len(parts) == 3 else 1
        except ValueError:
            raise CommandError(
                f"--also wants CLASS:WORKERS[:THREADS][:reuse-port], not {text!r}"
            ) from None
        if workers < 1 or threads < 1:
            raise CommandError(f"workers and threads must be at least 1: {text!r}")
        return cls(parts[0], workers, threads, reuse_port)

    def argv(self):
        args = ["--worker-class", self.worker_class, "--workers", str(self.workers)]
        if self.worker_class == "gthread":
            args += ["--threads", str(self.threads)]
        if self.reuse_port:
            args.append("--reuse-port")
        return args

    def __str__(self):
        return "gunicorn " + " ".join(self.argv())


@dataclass
class Measurement:
    label: str
    rate: float
    p50_ms: float
    p99_ms: float
    requests: int
    errors: int
    unexpected: dict
    client_cpu: float  # share of one core
    server_cpu: float
    worker_cpu: list  # each gunicorn worker's share of a core
    redis_cpu: float
    server_ms_per_request: float  # gunicorn's CPU time (all processes) per request
    reconnects: int = 0  # connections the server closed after an answer
    # For each gunicorn worker: (its connections, their p50 ms, their p99 ms).
    per_worker: list = field(default_factory=list)


class Browser:
    """One keep-alive HTTP connection with a cookie jar: logging in and posting."""

    def __init__(self, port):
        self.port = port
        self.connection = http.client.HTTPConnection(HOST, port, timeout=30)
        self.cookies = {}

    def request(self, method, path, form=None, headers=None):
        """(status, headers, body text) of one request; cookies kept as a browser does.
        ``headers``: more request headers (an API token)."""
        headers = dict(headers or {})
        body = None
        if form is not None:
            body = urlencode(form)
            headers["Content-Type"] = "application/x-www-form-urlencoded"
        if self.cookies:
            headers["Cookie"] = self.cookie_header()
        self.connection.request(method, path, body=body, headers=headers)
        response = self.connection.getresponse()
        text = response.read().decode()
        for line in response.headers.get_all("Set-Cookie") or []:
            for name, morsel in http.cookies.SimpleCookie(line).items():
                if morsel["max-age"] == "0":
                    self.cookies.pop(name, None)
                else:
                    self.cookies[name] = morsel.value
        return response.status, response.headers, text

    def cookie_header(self):
        return "; ".join(f"{name}={value}" for name, value in self.cookies.items())

    def close(self):
        self.connection.close()


# The configuration recommended for 2 cores (docs/decisions/0013): the command's defaults.
DEFAULT_CONFIG = GunicornConfig("sync", 5, 1, reuse_port=False)


class WebBenchmark:
    """One run of ``manage.py bench_web`` with its options (a dict)."""

    # The pages measured through gunicorn, in turn: (path, label); /healthz and the home
    # page first (their ratio is the floor).
    PAGES = [("/healthz", "/healthz"), ("/", "/ (home, 30)"), ("/top/", "/top/ (30)")]
    # The floor of each page after the first two: (its name in the verdict, the floor).
    # The Top timeline's first page is ranked on every request.
    FLOORS = [("top", TOP_FLOOR)]
    # A subclass whose home page is another (more filters, images): its name in one more
    # verdict line, on the CPU ratio alone (that benchmark's floor).
    HOME_VARIANT = None

    def __init__(self, stdout, stderr):
        # The command's output wrappers: each write() is a line.
        self.stdout = stdout
        self.stderr = stderr

    def run(self, options):
        if options["tool"] in ("wrk", "both") and not shutil.which("wrk"):
            raise CommandError("wrk is not installed (Debian: apt-get install -y wrk)")
        if options["cluster"] and not options["redis_url"]:
            raise CommandError("--cluster needs --redis-url")
        # Bounded runs: a benchmark that is left alone still stops by itself.
        if not (0 < options["seconds"] <= 600 and 0 <= options["warmup"] <= 60):
            raise CommandError("--seconds must be in (0, 600] and --warmup in [0, 60]")
        if not (1 <= options["connections"] <= 1000 and 1 <= options["repeat"] <= 20):
            raise CommandError("--connections must be in [1, 1000] and --repeat in [1, 20]")
        if options["spread"] and not (
            options["in_process"] and not options["redis_url"]
            and 1 <= options["spread"] <= options["spread_users"] <= 1_000_000
        ):  # fmt: skip
            raise CommandError(
                "--spread needs --in-process and the throwaway Redis (the demo network"
                " replaces everything in it), and 1 <= --spread <= --spread-users <= 1,000,000"
            )
        configs = [
            GunicornConfig(
                options["worker_class"],
                options["workers"],
                options["threads"],
                options["reuse_port"],
            ),
            *(GunicornConfig.parse(text) for text in options["also"]),
        ]
        # SIGTERM stops the run as Ctrl-C does: every process started is stopped.
        signal.signal(signal.SIGTERM, lambda signum, frame: sys.exit(1))
        with contextlib.ExitStack() as stack:
            workdir = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="bench_web-")))
            url = self.start_redis(options, workdir, stack)
            r = client.connect(url, cluster=options["cluster"])
            self.print_header(options, url)
            seeded = self.seed(r, options["followers"], options.get("pulled", 0))
            sizes = options.get("ranking_sizes", RANKING_SIZES)
            if sizes:
                self.print_ranking(
                    measure_ranking(r, sizes, rounds=options.get("ranking_rounds", 20))
                )
            if options["in_process"]:
                self.print_in_process(self.measure_in_process(r, seeded, options))
                if options.get("cold"):
                    self.print_in_process(
                        self.measure_in_process(r, seeded, options, cold=True), cold=True
                    )
                if options["spread"]:
                    self.print_spread(self.measure_spread(options), options)
                return
            for index, config in enumerate(configs):
                with self.gunicorn(config, url, options, workdir) as (process, port):
                    self.stdout.write(f"\n{config}")
                    results = self.measure_pages(r, process, port, seeded, options)
                    self.print_pages(results)
                    if index == 0 and not options["skip_posting"]:
                        self.print_posting(self.measure_posting(r, port, seeded, options), options)
            load = ", ".join(f"{value:.2f}" for value in os.getloadavg())
            self.stdout.write(f"\nLoad average after the run (1, 5, 15 min): {load}")

    # --- set-up -----------------------------------------------------------------------

    def start_redis(self, options, workdir, stack):
        if options["redis_url"]:
            return options["redis_url"]
        server = RedisServer(workdir / "redis").start()
        stack.callback(server.stop)
        return server.url

    def seed(self, r, followers, pulled=0):
        """Users, follows and statuses through the repository; return who is who.
        ``pulled``: the reader also follows that many pulled accounts (decision 0054;
        the threshold lowered to PULLED_THRESHOLD followers), each with PULLED_STATUSES
        statuses newer than the authors' (the page then shows mostly merged ones).

        Logins carry a random prefix, so seeding never collides with data already in a
        --redis-url server. Only the reader and the poster can log in.
        """
        started = time.perf_counter()
        prefix = f"bw{secrets.token_hex(3)}_"
        password = secrets.token_urlsafe(16)
        unusable = make_password(None)

        def user(login, password_hash=unusable):
            uid = users.create_user(r, prefix + login, login.title(), password_hash)
            if uid is None:
                raise CommandError(f"could not create the user {prefix + login}")
            return uid

        reader = user("reader", make_password(password))
        for i in range(HOME_AUTHORS):
            author = user(f"author{i}")
            graph.follow(r, reader, author)
            extra = {"location": "48.8566,2.3522"} if i % 3 == 0 else {}
            statuses.post_status(r, author, f"{MESSAGE} ({i})", **extra)
        fans = [user(f"fan{i}") for i in range(PULLED_THRESHOLD - 1)] if pulled else []
        for i in range(pulled):
            star = user(f"pulled{i}")
            for follower in (reader, *fans):
                graph.follow(r, follower, star)
            for n in range(PULLED_STATUSES + 1):  # the first registers the account
                statuses.post_status(r, star, f"{MESSAGE} [{n}]", pull_followers=PULLED_THRESHOLD)
        poster = user("poster", make_password(password))
        follower_uids = [user(f"f{i}") for i in range(followers)]
        for follower in follower_uids:
            graph.follow(r, follower, poster)
        self.stdout.write(
            f"Seeded in {time.perf_counter() - started:.1f} s: @{prefix}reader follows"
            f" {HOME_AUTHORS} authors (one status each) and {pulled} pulled accounts"
            f" ({PULLED_STATUSES} statuses each); @{prefix}poster has {followers} followers."
        )
        return {"reader": prefix + "reader", "poster": prefix + "poster", "poster_uid": poster,
                "followers": follower_uids, "password": password}  # fmt: skip

    @contextlib.contextmanager
    def gunicorn(self, config, redis_url, options, workdir):
        """gunicorn serving the site on a free loopback port, stopped on the way out."""
        port = free_port()
        env = {
            **os.environ,
            "DJANGO_SETTINGS_MODULE": os.environ.get(
                "DJANGO_SETTINGS_MODULE", "socialsite.settings"
            ),
            "REDIS_URL": redis_url,
            "REDIS_CLUSTER": "true" if options["cluster"] else "false",
            "DEBUG": "false",
            "ALLOWED_HOSTS": HOST,
            "SECRET_KEY": secrets.token_urlsafe(50),
            "DATA_DIR": str(workdir / "data"),
            "LOG_LEVEL": "WARNING",
            # Posting is timed with its throttle counting, as in production, with room
            # for every post sent (warm-up included).
            "THROTTLE_STATUSES": "1000000/3h",
            **self.server_env(),
        }
        log_path = workdir / f"gunicorn-{port}.log"
        argv = [sys.executable, "-m", "gunicorn", "--bind", f"{HOST}:{port}", *config.argv(),
                "--error-logfile", str(log_path), "socialsite.wsgi"]  # fmt: skip
        process = subprocess.Popen(argv, cwd=settings.BASE_DIR, env=env, start_new_session=True)
        try:
            self.wait_until_serving(process, port, log_path)
            yield process, port
        finally:
            if process.poll() is None:
                os.killpg(process.pid, signal.SIGTERM)
                try:
                    process.wait(timeout=30)
                except subprocess.TimeoutExpired:
                    os.killpg(process.pid, signal.SIGKILL)
                    process.wait()

    def server_env(self):
        """More environment for gunicorn (a subclass's throttles)."""
        return {}

    def request_headers(self, credentials):
        """The headers the load generator sends with ``credentials`` (the session's
        cookies here; a subclass's token)."""
        return [("Cookie", credentials)]

    def wait_until_serving(self, process, port, log_path, timeout=30.0):
        deadline = time.monotonic() + timeout
        while True:
            if process.poll() is not None:
                raise CommandError(f"gunicorn exited:\n{log_path.read_text()}")
            probe = http.client.HTTPConnection(HOST, port, timeout=2)
            try:
                probe.request("GET", "/healthz")
                if probe.getresponse().status == 200:
                    return
            except OSError:
                pass  # not listening yet
            finally:
                probe.close()
            if time.monotonic() > deadline:
                raise CommandError(f"gunicorn did not answer in time:\n{log_path.read_text()}")
            time.sleep(0.1)

    def log_in(self, port, login, password):
        """A Browser logged in through the real form, and a CSRF token for its forms."""
        browser = Browser(port)
        status, _, page = browser.request("GET", "/accounts/login/")
        token = CSRF_INPUT.search(page)
        if status != 200 or not token:
            raise CommandError(f"the login form did not load (HTTP {status})")
        form = {"csrfmiddlewaretoken": token.group(1), "username": login, "password": password}
        status, headers, _ = browser.request("POST", "/accounts/login/", form)
        if status != 302 or "sessionid" not in browser.cookies:
            raise CommandError(f"logging in as {login} failed (HTTP {status})")
        status, _, page = browser.request("GET", "/")
        token = CSRF_INPUT.search(page)
        if status != 200 or not token:
            raise CommandError(f"the home page did not load after login (HTTP {status})")
        return browser, token.group(1), page

    # --- the measurements -------------------------------------------------------------

    def measure_pages(self, r, process, port, seeded, options):
        browser, _, page = self.log_in(port, seeded["reader"], seeded["password"])
        browser.close()
        shown = page.count(STATUS_ARTICLE)
        if shown != HOME_AUTHORS:
            raise CommandError(f"the home page shows {shown} statuses, not {HOME_AUTHORS}")
        self.print_page_weight(page)
        cookies = browser.cookie_header()
        pages = self.PAGES
        tools = ["python", "wrk"] if options["tool"] == "both" else [options["tool"]]
        runs = {(tool, label): [] for tool in tools for _, label in pages}
        for repeat in range(options["repeat"]):
            # Alternating, so that a burst of other work on the machine hits both pages
            # (and both generators, taking turns at going first).
            for tool in tools if repeat % 2 == 0 else tools[::-1]:
                for path, label in pages:
                    runs[tool, label].append(
                        self.measure(r, process, port, path, label, cookies, options, tool)
                    )
        # On a shared machine the fastest run is the one others disturbed least. The
        # ratio of each round's pair (measured back to back) is shown too: the two
        # fastest runs may come from different moments of the host.
        results = {}
        for tool in tools:
            each_page = [runs[tool, label] for _, label in pages]
            healthz_runs, home_runs = each_page[:2]
            fastest = [max(page_runs, key=rate_of) for page_runs in each_page]
            round_ratios = [
                home.rate / healthz.rate if healthz.rate else 0.0
                for healthz, home in zip(healthz_runs, home_runs, strict=True)
            ]
            results[tool] = (fastest, round_ratios)
        return results

    def measure(self, r, process, port, path, label, cookies, options, tool):
        """Drive ``path`` with ``tool``; the CPU each party used alongside.

        CPU is read when the recorded part starts and when it ends, so warm-up is not
        in it.
        """
        pids = [process.pid, *gunicorn_workers(process.pid)]
        marks = {}

        def measurement_starts():
            marks["server"], marks["redis"] = cpu_seconds(pids), redis_cpu(r)

        owners = {}
        if tool == "wrk":
            result = run_wrk(port, path, cookies, options, measurement_starts)
        else:
            request = loadgen.build_request(
                "GET", path, f"{HOST}:{port}", headers=self.request_headers(cookies)
            )
            # Which worker holds which connection, looked up halfway through the warm-up:
            # the connections are open by then, and the recorded part is not disturbed.
            lookup = threading.Timer(
                options["warmup"] / 2, lambda: owners.update(connection_owners(port))
            )
            lookup.start()
            result = loadgen.run(
                HOST, port, request, options["connections"], options["seconds"],
                warmup=options["warmup"], on_measurement_start=measurement_starts,
            )  # fmt: skip
            lookup.join()
        server = {
            pid: used - marks["server"].get(pid, 0.0) for pid, used in cpu_seconds(pids).items()
        }
        redis_used = redis_cpu(r) - marks["redis"]
        span = result.seconds
        unexpected = {status: n for status, n in result.statuses.items() if status != 200}
        # Only while connections are kept: a server that closes them (sync workers)
        # moves the load to connections the lookup never saw.
        split = [] if result.reconnects else per_worker(result.latencies_by_port, owners, pids[1:])
        return Measurement(
            label=label,
            rate=result.rate,
            p50_ms=result.percentile(0.50) * 1000,
            p99_ms=result.percentile(0.99) * 1000,
            requests=result.requests,
            errors=result.errors,
            unexpected=unexpected,
            client_cpu=result.client_cpu_share,
            server_cpu=sum(server.values()) / span,
            worker_cpu=[server[pid] / span for pid in pids[1:] if pid in server],
            redis_cpu=redis_used / span,
            server_ms_per_request=sum(server.values()) / max(1, result.requests) * 1000,
            reconnects=result.reconnects,
            per_worker=split,
        )

    def measure_in_process(self, r, seeded, options, requests_per_round=100, cold=False):
        """{path: CPU ms per request} of /healthz and / through Django's WSGI handler.

        Only this process's CPU time counts, so other work on the machine matters little.
        Rounds alternate between the pages; the fastest round of each is kept.

        ``cold``: the CPU's caches are emptied before each request (evict_caches, not
        timed). A gunicorn worker finds them so: between two of its requests the load
        generator, Redis and the other workers run on its core. Its pages cost about
        what they cost here cold, where a loop of one page keeps everything cached.
        """
        connection.use_redis(r)
        browser = Client(HTTP_HOST=HOST)  # the real login view (the test client skips CSRF)
        form = {"username": seeded["reader"], "password": seeded["password"]}
        if browser.post("/accounts/login/", form).status_code != 302:
            raise CommandError("logging in failed")
        cookies = "; ".join(f"{name}={morsel.value}" for name, morsel in browser.cookies.items())
        wsgi_get = in_process_getter()

        def get(path):
            return wsgi_get(path, cookies)

        if get("/").decode().count(STATUS_ARTICLE) != HOME_AUTHORS:
            raise CommandError(f"the home page does not show {HOME_AUTHORS} statuses")
        best = {"/healthz": float("inf"), "/": float("inf"), "/top/": float("inf")}
        for _ in range(max(5, options["repeat"])):
            for path in best:
                get(path)
                used = 0.0
                for _ in range(requests_per_round):
                    if cold:
                        evict_caches()
                    started = time.process_time()
                    get(path)
                    used += time.process_time() - started
                best[path] = min(best[path], used / requests_per_round * 1000)
        return best

    def measure_spread(self, options, pages_per_round=500, rounds=6):
        """CPU ms per home page on a demo network: {"first visits": [ms], "one reader":
        [ms per round, ...], "spread": [...]}.

        First each of --spread readers' pages once, which this process has remembered
        nothing of (statuses, authors, their markup). Then, in alternating rounds, one
        reader's page again and again (what the figures above measure) against the same
        readers' pages in random turn, each a different timeline, as a site serves them.
        """
        network = options["spread_users"]
        started = time.perf_counter()
        # The same network as `seed_demo --users N` with its default proportions.
        call_command(
            "seed_demo", users=network, follows=20 * network, statuses=10 * network,
            flush=True, stdout=io.StringIO(),
        )  # fmt: skip
        r = connection.get_redis()
        rng = random.Random(1)
        readers = rng.sample(range(1, network + 1), options["spread"])
        cookies = [logged_in_cookies(users.get_user_id(r, f"user{n}")) for n in readers]
        seconds = time.perf_counter() - started
        self.stdout.write(
            f"\nA demo network of {network:,} users (seed_demo, {seconds:.0f} s), {len(cookies):,}"
            f" of them logged in; CPU time per home page ({rounds} rounds of {pages_per_round}"
            " pages, alternating, after the first visits):"
        )
        get = in_process_getter()
        started = time.process_time()
        for cookie in cookies:
            get("/", cookie)
        first = (time.process_time() - started) / len(cookies) * 1000
        results = {"first visits": [first], "one reader": [], "spread": []}
        for _ in range(rounds):
            batches = {
                "one reader": [cookies[0]] * pages_per_round,
                "spread": [rng.choice(cookies) for _ in range(pages_per_round)],
            }
            for name, batch in batches.items():
                started = time.process_time()
                for cookie in batch:
                    get("/", cookie)
                results[name].append((time.process_time() - started) / len(batch) * 1000)
        return results

    def measure_posting(self, r, port, seeded, options):
        """Latency of each POST /statuses/, one after the other, as the poster.

        After each post the browser follows the redirect to the home page (untimed),
        as a person's browser would; that also reads the flash message, so the session
        does not grow with every post.
        """
        browser, token, _ = self.log_in(port, seeded["poster"], seeded["password"])
        latencies, sent, posts_before = [], 0, users.get_user(r, seeded["poster_uid"])["posts"]
        deadline = time.perf_counter() + options["warmup"] + options["seconds"]
        measured_from = time.perf_counter() + options["warmup"]
        try:
            while len(latencies) < options["max_posts"] and time.perf_counter() < deadline:
                form = {"csrfmiddlewaretoken": token, "message": MESSAGE, "location": ""}
                started = time.perf_counter()
                status, headers, _ = browser.request("POST", "/statuses/", form)
                took = time.perf_counter() - started
                sent += 1
                if status != 302 or headers["Location"] != "/":
                    raise CommandError(f"posting answered HTTP {status}, not a redirect to /")
                if started >= measured_from:
                    latencies.append(took)
                browser.request("GET", "/")
        finally:
            browser.close()
        stored = users.get_user(r, seeded["poster_uid"])["posts"] - posts_before
        if stored != sent:
            raise CommandError(f"{sent} posts were sent but {stored} stored")
        newest = timelines.profile_ids(r, seeded["poster_uid"], count=1)[0]
        return {"latencies": latencies, "sent": sent,
                "delivered": delivered_to(r, seeded["followers"], newest)}  # fmt: skip

    # --- output -----------------------------------------------------------------------

    def print_page_weight(self, page):
        """What a reader's browser downloads for the home page of 30 statuses without
        images, gzipped (level 6, as nginx's default): its HTML, and each stylesheet,
        script and icon sprite it names (from the static folder)."""
        parts = [("HTML", page.encode())]
        for name in sorted(set(re.findall(rf'"{settings.STATIC_URL}([^"#?]+)', page))):
            found = finders.find(name)
            if found:
                parts.append((name, Path(found).read_bytes()))
        sizes = [(label, len(data), len(gzip.compress(data, 6))) for label, data in parts]
        listed = ", ".join(f"{label} {packed / 1024:.1f}" for label, _, packed in sizes)
        total = sum(packed for _, _, packed in sizes)
        self.stdout.write(
            f"Home page weight, gzipped (KB): {listed}; in all {total / 1024:.1f} KB"
            f" (HTML {sizes[0][1] / 1024:.1f} KB before gzip)"
        )

    def print_header(self, options, url):
        versions = ", ".join(f"{name} {version(name)}" for name in ("django", "gunicorn", "redis"))
        # What redis-py found importable (gunicorn runs with the same environment).
        versions += f", hiredis {version('hiredis') if HIREDIS_AVAILABLE else 'not used'}"
        self.stdout.write(
            f"bench_web: {os.cpu_count()} cores, Python {platform.python_version()}, {versions}"
        )
        load = ", ".join(f"{value:.2f}" for value in os.getloadavg())
        self.stdout.write(f"Load average before the run (1, 5, 15 min): {load}")
        where = "given" if options["redis_url"] else "throwaway redis-server"
        self.stdout.write(f"Redis: {url} ({where})")
        if options["in_process"]:
            return
        tool = TOOL_NAMES.get(options["tool"], "built-in asyncio client and wrk, alternating")
        self.stdout.write(
            f"Load: {options['connections']} connections (kept alive unless the server closes"
            f" them), closed loop, {tool};"
            f" each measurement {options['seconds']:g} s after {options['warmup']:g} s"
            " of warm-up, back to back"
        )
        if options["repeat"] > 1:
            self.stdout.write(
                f"  each page {options['repeat']} times, alternating; the fastest run is shown"
            )

    def print_in_process(self, best, cold=False):
        caches = ", the CPU's caches emptied before each" if cold else ""
        self.stdout.write(
            f"\nIn this process, through Django's WSGI handler (CPU time per request{caches}):"
        )
        for path, ms in best.items():
            self.stdout.write(f"  GET {path:<10} {ms:7.3f} ms")
        self.stdout.write(f"  home/healthz: {best['/healthz'] / best['/']:.1%}")
        if "/top/" in best:
            self.stdout.write(f"  top/healthz: {best['/healthz'] / best['/top/']:.1%}")

    def print_spread(self, results, options):
        readers = f"{options['spread']:,} readers"
        self.stdout.write(
            f"  {'first visits of ' + readers:<36} {results['first visits'][0]:.3f} ms"
        )
        medians = {}
        for name, label in (("one reader", "one reader's page"), ("spread", readers + " in turn")):
            times = sorted(results[name])
            medians[name] = times[len(times) // 2]
            self.stdout.write(
                f"  {label:<36} {medians[name]:.3f} ms (median; fastest round {times[0]:.3f})"
            )
        one = medians["one reader"]
        self.stdout.write(
            f"  in turn / one reader: {medians['spread'] / one:.2f}x;"
            f" first visits / one reader: {results['first visits'][0] / one:.2f}x"
        )

    def print_pages(self, results_by_tool):
        for tool, (results, round_ratios) in results_by_tool.items():
            if len(results_by_tool) > 1:
                self.stdout.write(f"  with {TOOL_NAMES[tool]}:")
            self.print_page_results(results, round_ratios)

    def print_page_results(self, results, round_ratios):
        self.stdout.write(
            f"  {'page':<14}{'req/s':>8}{'p50 ms':>9}{'p99 ms':>9}{'requests':>10}{'errors':>8}"
            f"   CPU (cores): {'client':>6}{'gunicorn':>9}{'redis':>7}   gunicorn CPU ms/req"
        )
        for m in results:
            errors = m.errors + sum(m.unexpected.values())
            self.stdout.write(
                f"  {m.label:<14}{m.rate:>8.0f}{m.p50_ms:>9.1f}{m.p99_ms:>9.1f}{m.requests:>10}"
                f"{errors:>8}   {'':>13}{m.client_cpu:>6.2f}{m.server_cpu:>9.2f}"
                f"{m.redis_cpu:>7.2f}{m.server_ms_per_request:>13.2f}"
            )
            workers = " + ".join(f"{share:.2f}" for share in m.worker_cpu)
            closed = f"; {m.reconnects} connections closed by the server" if m.reconnects else ""
            self.stdout.write(f"  {'':<14}gunicorn workers' CPU: {workers}{closed}")
            if m.per_worker:
                split = ", ".join(
                    f"{n} connections p50 {p50:.1f} p99 {p99:.1f}" for n, p50, p99 in m.per_worker
                )
                self.stdout.write(f"  {'':<14}each worker's connections (ms): {split}")
            if m.unexpected:
                self.stderr.write(f"  {m.label}: unexpected answers {m.unexpected}")
        healthz, home, *others = results
        ratio = home.rate / healthz.rate if healthz.rate else 0.0
        self.stdout.write(f"  home/healthz rate: {ratio:.1%}; home p99 {home.p99_ms:.1f} ms")
        if len(round_ratios) > 1:
            each = ", ".join(f"{share:.1%}" for share in round_ratios)
            self.stdout.write(f"  home/healthz rate in each round (back to back): {each}")
        if home.server_ms_per_request:
            # On a busy machine the rates say how much CPU the server got as much as what
            # it needs; its CPU time per request does not depend on that, hence the floor
            # is judged on it.
            cost_ratio = healthz.server_ms_per_request / home.server_ms_per_request
            verdict = "meets" if cost_ratio >= HOME_FLOOR and home.p99_ms < 50 else "MISSES"
            self.stdout.write(
                f"  home/healthz by gunicorn CPU per request: {cost_ratio:.0%}"
                f" -> {verdict} the floors (>= {HOME_FLOOR:.0%}, home p99 < 50 ms)"
            )
            if self.HOME_VARIANT:
                verdict = "meets" if cost_ratio >= HOME_FLOOR else "MISSES"
                self.stdout.write(
                    f"  {self.HOME_VARIANT}/healthz by gunicorn CPU per request:"
                    f" {cost_ratio:.0%} -> {verdict} the floor (>= {HOME_FLOOR:.0%})"
                )
        for other, (name, floor) in zip(others, self.FLOORS, strict=False):
            if not other.server_ms_per_request:
                continue
            ratio = healthz.server_ms_per_request / other.server_ms_per_request
            verdict = "meets" if ratio >= floor else "MISSES"
            self.stdout.write(
                f"  {name}/healthz by gunicorn CPU per request: {ratio:.0%}"
                f" -> {verdict} the floor (>= {floor:.0%}); {name} p99 {other.p99_ms:.1f} ms"
            )

    def print_ranking(self, results):
        self.stdout.write(
            "\nThe Top timeline's ranking, one first page (ranking.rank), in this process:"
        )
        self.stdout.write(
            f"  {'candidates':>10}{'scored':>8}{'round trips':>13}{'wall ms':>9}"
            f"{'redis CPU ms':>14}"
        )
        for row in results:
            self.stdout.write(
                f"  {row.candidates:>10}{row.scored:>8}{row.round_trips:>13.1f}"
                f"{row.wall_ms:>9.2f}{row.redis_ms:>14.3f}"
            )

    # What the posting measurement posts to, and its floor (None: no floor).
    POSTING_REQUEST = "POST /statuses/"
    POSTING_FLOOR_MS = 25

    def print_posting(self, posting, options):
        latencies = loadgen.Result(latencies=posting["latencies"])
        self.stdout.write(
            f"\nPosting: {self.POSTING_REQUEST} as the poster ({options['followers']} followers,"
            f" inline fan-out), one request at a time for {options['seconds']:g} s after"
            f" {options['warmup']:g} s of warm-up"
        )
        if not latencies.requests:
            self.stdout.write("  no post measured (raise --seconds)")
            return
        self.stdout.write(
            f"  {latencies.requests} posts measured: p50 {latencies.percentile(0.5) * 1000:.1f} ms,"
            f" p99 {latencies.percentile(0.99) * 1000:.1f} ms; all {posting['sent']} stored, the"
            f" last one in {posting['delivered']}/{options['followers']} followers' home timelines"
        )
        if self.POSTING_FLOOR_MS is not None:
            p99_ms = latencies.percentile(0.99) * 1000
            verdict = "meets" if p99_ms < self.POSTING_FLOOR_MS else "MISSES"
            self.stdout.write(
                f"  -> {verdict} the floor (posting p99 < {self.POSTING_FLOOR_MS} ms)"
            )


# --- helpers ------------------------------------------------------------------------------


def version(package):
    try:
        return importlib.metadata.version(package)
    except importlib.metadata.PackageNotFoundError:
        return "not installed"


def in_process_getter():
    """get(path, cookies): the body of a GET through a WSGIHandler of this process,
    which must answer 200."""
    handler = WSGIHandler()

    def get(path, cookies):
        environ = {
            "REQUEST_METHOD": "GET", "PATH_INFO": path, "QUERY_STRING": "",
            "SERVER_NAME": HOST, "SERVER_PORT": "80", "HTTP_HOST": HOST,
            "HTTP_COOKIE": cookies, "SERVER_PROTOCOL": "HTTP/1.1",
            "wsgi.input": io.BytesIO(), "wsgi.url_scheme": "http",
        }  # fmt: skip
        answer = []
        response = handler(environ, lambda status, headers, exc_info=None: answer.append(status))
        body = b"".join(response)
        response.close()
        if not answer[0].startswith("200"):
            raise CommandError(f"GET {path} answered {answer[0]}")
        return body

    return get


# Many times what a core's own caches (L1, L2) hold, and a good part of a shared L3.
_EVICTION_BUFFER = bytearray(16 * 1024 * 1024)


def evict_caches():
    """Write over a buffer larger than a core's caches, so that what a request touches
    next comes from memory or the shared cache (measure_in_process's ``cold``)."""
    _EVICTION_BUFFER[:] = bytes(len(_EVICTION_BUFFER))


def logged_in_cookies(uid):
    """The Cookie header of a browser logged in as ``uid``: a session made as the login
    view makes one (accounts.auth.login), without a password, and its CSRF cookie."""
    request = RequestFactory().get("/")
    request.session = SessionStore()
    auth.login(request, auth.load_user(uid))
    request.session.save()
    return (
        f"{settings.SESSION_COOKIE_NAME}={request.session.session_key};"
        f" {settings.CSRF_COOKIE_NAME}={request.META['CSRF_COOKIE']}"
    )


def rate_of(measurement):
    return measurement.rate


def gunicorn_workers(master_pid):
    """The pids of the gunicorn master's children: its workers."""
    workers = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue  # gone meanwhile
            if int(fields[1]) == master_pid:  # after the name: state, ppid, ...
                workers.append(int(entry.name))
    return sorted(workers)


def cpu_seconds(pids):
    """{pid: CPU seconds (user + system) used so far} for those of ``pids`` alive."""
    tick = os.sysconf("SC_CLK_TCK")
    used = {}
    for pid in pids:
        try:
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        # After the name: utime and stime are the 12th and 13th fields (14, 15 in all).
        used[pid] = (int(fields[11]) + int(fields[12])) / tick
    return used


def connection_owners(port):
    """{client port: pid of the process holding the connection} for the connections
    to ``port`` on 127.0.0.1, from ``ss`` (iproute2); {} where ss is missing."""
    try:
        listing = subprocess.run(
            ["ss", "-tnpH", "state", "established", f"sport = :{port}"],
            capture_output=True, text=True, timeout=10, check=True,
        ).stdout  # fmt: skip
    except (OSError, subprocess.SubprocessError):
        return {}
    pattern = re.compile(rf"{re.escape(HOST)}:{port}\s+{re.escape(HOST)}:(\d+)\s.*?pid=(\d+)")
    return {
        int(match.group(1)): int(match.group(2))
        for match in map(pattern.search, listing.splitlines())
        if match
    }


def per_worker(latencies_by_port, owners, worker_pids):
    """[(connections, p50 ms, p99 ms)] for each of ``worker_pids``, from the latencies
    of each client port and the worker each port's connection is held by. With
    --reuse-port the kernel spreads the connections by a hash, not evenly, and a kept-
    alive connection stays with its worker: this shows the split and what it costs."""
    split = []
    for pid in worker_pids:
        ports = [port for port, owner in owners.items() if owner == pid]
        latencies = [t for port in ports for t in latencies_by_port.get(port, ())]
        if not latencies:
            continue
        result = loadgen.Result(latencies=latencies)
        split.append((len(ports), result.percentile(0.5) * 1000, result.percentile(0.99) * 1000))
    return split


def redis_cpu(r):
    """CPU seconds the Redis server (every node of a cluster) has used so far."""
    if client.is_cluster(r):
        nodes = r.info("cpu", target_nodes=RedisCluster.ALL_NODES).values()
    else:
        nodes = [r.info("cpu")]
    return sum(float(node["used_cpu_user"]) + float(node["used_cpu_sys"]) for node in nodes)


def delivered_to(r, follower_uids, sid):
    """How many of ``follower_uids`` have status ``sid`` in their home timeline."""
    return sum(timelines.in_home(r, uid, sid) for uid in follower_uids)


# --- wrk ----------------------------------------------------------------------------------

WRK_UNITS = {"us": 1e-6, "ms": 1e-3, "s": 1.0, "m": 60.0}


def run_wrk(port, path, cookies, options, on_measurement_start):
    """The same measurement with wrk (2 threads): a warm-up run, then the recorded one."""
    url = f"http://{HOST}:{port}{path}"

    def wrk(seconds):
        argv = ["wrk", "--threads", "2", "--connections", str(options["connections"]),
                "--duration", f"{max(1, round(seconds))}s", "--latency", "--timeout", "10s",
                "--header", f"Cookie: {cookies}", url]  # fmt: skip
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        output = subprocess.run(argv, capture_output=True, text=True, check=True).stdout
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
        return output, cpu

    if options["warmup"] > 0:
        wrk(options["warmup"])
    on_measurement_start()
    output, cpu = wrk(options["seconds"])
    return parse_wrk(output, cpu)


def parse_wrk(output, cpu):
    result = loadgen.Result()
    total = re.search(r"(\d+) requests in ([\d.]+)(\w+)", output)
    result.seconds = float(total.group(2)) * WRK_UNITS[total.group(3)]
    requests = int(total.group(1))
    non_2xx = re.search(r"Non-2xx or 3xx responses: (\d+)", output)
    errors = re.search(
        r"Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)", output
    )
    result.errors = sum(map(int, errors.groups())) if errors else 0
    if non_2xx:
        result.statuses["non-2xx/3xx"] = int(non_2xx.group(1))
    result.statuses[200] = requests - int(non_2xx.group(1) if non_2xx else 0)
    for share, value, unit in re.findall(r"^\s+(\d+)%\s+([\d.]+)(us|ms|s|m)\s*$", output, re.M):
        result.reported[int(share) / 100] = float(value) * WRK_UNITS[unit]
    result.count = requests
    result.cpu_seconds = cpu
    return result


# --- the Top timeline's ranking (--ranking-sizes) ------------------------------------------


@dataclass(frozen=True)
class RankingCost:
    candidates: int  # TOP_CANDIDATES
    scored: int  # statuses scored (in the window)
    round_trips: float  # per ranked page
    wall_ms: float  # per ranked page, this process's wait included
    redis_ms: float  # Redis server CPU per ranked page (every node of a cluster)


def seed_ranking_home(r, size, authors=RANKING_AUTHORS):
    """A reader whose home holds ``size`` statuses by ``authors`` accounts they follow,
    one in three liked by three of those accounts (likes by people the reader follows:
    the likers read and intersected); the reader's uid."""
    prefix = f"rk{secrets.token_hex(3)}_"
    unusable = make_password(None)
    reader = users.create_user(r, prefix + "reader", "Reader", unusable)
    writers = [users.create_user(r, f"{prefix}a{i}", f"A{i}", unusable) for i in range(authors)]
    for writer in writers:
        graph.follow(r, reader, writer)
    for n in range(size):
        sid = statuses.post_status(r, writers[n % authors], f"{MESSAGE} <{n}>")
        if n % 3 == 0:
            for k in range(1, 4):
                likes.like(r, writers[(n + k) % authors], sid)
    return reader


def measure_ranking(r, sizes, rounds=20):
    """RankingCost of a first page of Top for each of ``sizes`` candidates, on a home of
    the largest size: the fastest of ``rounds`` for the wall time, Redis's CPU over all
    of them. The statuses are in this process's memory after the first (as in a worker
    that has shown them): what is left is Redis's part of the ranking."""
    reader = seed_ranking_home(r, max(sizes))
    found = []
    for size in sizes:
        ranked, _ = ranking.rank(r, reader, ranking.Weights(), candidates=size, window=86_400)
        best = float("inf")
        cpu = redis_cpu(r)
        trips = client.round_trips()
        for _ in range(rounds):
            started = time.perf_counter()
            ranking.rank(r, reader, ranking.Weights(), candidates=size, window=86_400)
            best = min(best, time.perf_counter() - started)
        redis_ms = (redis_cpu(r) - cpu) / rounds * 1000
        # The INFO read after the rounds is one round trip, not the ranking's.
        per_page = (client.round_trips() - trips - 1) / rounds
        found.append(RankingCost(size, len(ranked), per_page, best * 1000, redis_ms))
    return found

"""``manage.py bench_search``: search and autocomplete latency on the demo network, and
the search index's memory.

On the demo network of ``seed_demo`` (100,000 users by default, 20 follows and 10
statuses each; logins user1..userN, display names of 30 first and 29 last names, so
"ada" alone matches about 3,300 people), a fixed mix of queries, in-process:

- the repository call (search.search for a page of 20, search.complete for 8), and
- the views through Django's WSGI handler of this process, logged in (the search page
  with its follow buttons, complete.json), throttles off,

each query timed alone (wall clock: the Redis server runs on the same machine), p50 and
p99 per kind of prefix (1, 2, 3 letters, longer). Then MEMORY USAGE of every index key,
per user. It seeds a throwaway Redis itself, or measures the network of ``--redis-url``
(seed_demo run first; nothing is written there).

Full-text search of statuses (status_search.py): on the same network (10 statuses a
user: 1,000,000 for the default 100,000 users), every account made indexable and the
status index rebuilt (``search_index rebuild``; on ``--redis-url`` only with
``--index-statuses``, which writes), two-word queries of the demo's words, timed as
the repository call and the search page (``type=statuses``), p50 and p99; then the
status index's MEMORY USAGE per status.
"""

import contextlib
import io
import random
import statistics
import tempfile
import time
from pathlib import Path
from urllib.parse import quote

from django.conf import settings
from django.core.handlers.wsgi import WSGIHandler
from django.core.management import call_command
from django.core.management.base import CommandError

from benchmarks.web import HOST, logged_in_cookies
from socialsite import connection
from socialsite.repository import client, keys, search, status_search, users
from socialsite.repository.limits import SEARCH_PAGE_SIZE
from socialsite_dev.redis_servers import RedisServer

# The demo network's names (timeline/management/commands/seed_demo.py).
from timeline.management.commands.seed_demo import FIRST_NAMES, LAST_NAMES, TAGS, WORDS

# The mix: (share of queries, what they are).
LENGTHS = {"1 letter": 0.15, "2 letters": 0.25, "3 letters": 0.30, "4+ letters": 0.30}


def make_queries(rng, count, user_count):
    """``count`` queries: by length as LENGTHS, each a prefix of a first name, a last
    name, a login (user<N>) or a tag; about one in ten with "@" or "#"."""
    words = [w.lower() for w in FIRST_NAMES + LAST_NAMES]
    tags = [tag.lstrip("#") for tag in TAGS]
    queries = []
    for kind, share in LENGTHS.items():
        for _ in range(round(count * share)):
            source = rng.random()
            if source < 0.1:
                word, sigil = rng.choice(tags), "#"
            elif source < 0.2:
                word, sigil = f"user{rng.randint(1, user_count)}", "@"
            else:
                word, sigil = rng.choice(words), rng.choice(["", "", "", "@"])
            length = {"1 letter": 1, "2 letters": 2, "3 letters": 3}.get(kind)
            if length is None:
                length = rng.randint(4, max(4, len(word)))
            queries.append((kind, sigil + word[:length]))
    rng.shuffle(queries)
    return queries


def percentiles(values):
    ordered = sorted(values)
    p99 = ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))]
    return statistics.median(ordered) * 1000, p99 * 1000


def wsgi_getter():
    """get(path, query, cookies) -> status line, through a WSGIHandler of this process."""
    handler = WSGIHandler()

    def get(path, query, cookies):
        environ = {
            "REQUEST_METHOD": "GET", "PATH_INFO": path, "QUERY_STRING": query,
            "SERVER_NAME": HOST, "SERVER_PORT": "80", "HTTP_HOST": HOST,
            "HTTP_COOKIE": cookies, "SERVER_PROTOCOL": "HTTP/1.1",
            "wsgi.input": io.BytesIO(), "wsgi.url_scheme": "http",
        }  # fmt: skip
        answer = []
        response = handler(environ, lambda status, headers, exc_info=None: answer.append(status))
        b"".join(response)
        response.close()
        return answer[0]

    return get


class SearchBenchmark:
    def __init__(self, stdout):
        self.stdout = stdout

    def run(self, options):
        if not (1 <= options["queries"] <= 100_000):
            raise CommandError("--queries must be in [1, 100000]")
        settings.THROTTLES = {**settings.THROTTLES, "search": None, "autocomplete": None}
        with contextlib.ExitStack() as stack:
            if options["redis_url"]:
                url = options["redis_url"]
            else:
                workdir = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="bsearch-")))
                server = RedisServer(workdir / "redis").start()
                stack.callback(server.stop)
                url = server.url
            settings.REDIS_URL = url
            settings.REDIS_CLUSTER = options["cluster"]
            r = client.connect(url, cluster=options["cluster"])
            connection.use_redis(r)
            if not options["redis_url"]:
                self.seed(options)
            user_count = int(r.get(keys.USER_IDS) or 0)
            if user_count < 2:
                raise CommandError("no demo network there: run seed_demo first")
            self.stdout.write(f"bench_search: {user_count:,} users, Redis at {url}")
            self.measure(r, options, user_count)
            self.memory(r, user_count)
            if not options["redis_url"] or options.get("index_statuses"):
                self.index_statuses(r, user_count)
            self.measure_statuses(r, options)
            self.status_memory(r)

    def seed(self, options):
        users_wanted = options["users"]
        started = time.perf_counter()
        call_command(
            "seed_demo", users=users_wanted, follows=20 * users_wanted,
            statuses=10 * users_wanted, flush=True, stdout=io.StringIO(),
        )  # fmt: skip
        self.stdout.write(
            f"Seeded the demo network (seed_demo --users {users_wanted:,}) in "
            f"{time.perf_counter() - started:.0f} s."
        )

    def measure(self, r, options, user_count):
        rng = random.Random(options["seed"])
        queries = make_queries(rng, options["queries"], user_count)
        viewer = users.get_user_id(r, "user2")
        cookies = logged_in_cookies(viewer)
        get = wsgi_getter()
        timings = {}  # (what, kind) -> [seconds]

        def timed(what, kind, call):
            started = time.perf_counter()
            result = call()
            timings.setdefault((what, kind), []).append(time.perf_counter() - started)
            return result

        # Warm up: connections, scripts, templates.
        for _, text in queries[:20]:
            search.search(r, search.parse_query(text), viewer, 0, SEARCH_PAGE_SIZE)
            get("/search/", f"q={text}", cookies)
        found_people = capped = 0
        for kind, text in queries:
            query = search.parse_query(text)
            results = timed(
                "search (repository)",
                kind,
                lambda q=query: search.search(r, q, viewer, 0, SEARCH_PAGE_SIZE),
            )
            found_people += bool(results.people)
            capped += results.capped
            timed("complete (repository)", kind, lambda t=text: search.complete(r, t, viewer))
            encoded = "q=" + _quote(text)
            status = timed("/search/ (view)", kind, lambda e=encoded: get("/search/", e, cookies))
            if not status.startswith("200"):
                raise CommandError(f"/search/?{encoded} answered {status}")
            completion = "@" + text.lstrip("@#") if not text.startswith("#") else text
            encoded = "q=" + _quote(completion)
            status = timed(
                "/search/complete.json (view)",
                kind,
                lambda e=encoded: get("/search/complete.json", e, cookies),
            )
            if not status.startswith("200"):
                raise CommandError(f"complete.json answered {status}")
        self.stdout.write(
            f"{len(queries):,} queries ({', '.join(f'{k} {v:.0%}' for k, v in LENGTHS.items())};"
            f" prefixes of demo names, logins and tags); {found_people:,} found people,"
            f" {capped:,} with more matches than the candidates read (ranked through the tiers)."
        )
        self.stdout.write(f"{'':32} {'':10}   p50 ms   p99 ms")
        for what in dict.fromkeys(what for what, _ in timings):
            every = []
            for kind in LENGTHS:
                values = timings.get((what, kind), [])
                every += values
                if values:
                    p50, p99 = percentiles(values)
                    self.stdout.write(f"{what:32} {kind:10} {p50:8.2f} {p99:8.2f}")
            p50, p99 = percentiles(every)
            self.stdout.write(f"{what:32} {'all':10} {p50:8.2f} {p99:8.2f}")

    def memory(self, r, user_count):
        total = entries = count = 0
        for key in r.scan_iter(match=keys.ALL_PEOPLE_INDEX_PATTERN, count=1000):
            total += r.memory_usage(key, samples=0) or 0
            entries += r.zcard(key)
            count += 1
        tags = sum(r.memory_usage(key, samples=0) or 0 for key in (keys.TAG_NAMES, keys.TAG_USES))
        self.stdout.write(
            f"People index: {count:,} keys, {entries:,} entries, {total / 2**20:.1f} MiB:"
            f" {total / user_count:.0f} bytes per user. Tag index: {tags / 1024:.1f} KiB."
        )

    def index_statuses(self, r, user_count, batch=10_000):
        """Let every demo account's public statuses be found, and build the index."""
        started = time.perf_counter()
        for start in range(1, user_count + 1, batch):
            pipe = r.pipeline(transaction=False)
            for uid in range(start, min(start + batch, user_count + 1)):
                pipe.hset(keys.user(uid), keys.INDEXABLE_FIELD, "1")
            pipe.execute()
        report = status_search.rebuild(r, batch=1000)
        self.stdout.write(
            f"Status index: {report.statuses_indexed:,} statuses indexed in "
            f"{time.perf_counter() - started:.0f} s."
        )

    def measure_statuses(self, r, options):
        rng = random.Random(options["seed"])
        viewer = users.get_user_id(r, "user2")
        cookies = logged_in_cookies(viewer)
        get = wsgi_getter()
        queries = [" ".join(rng.sample(WORDS, 2)) for _ in range(options["queries"])]
        for text in queries[:20]:  # warm up
            status_search.search_statuses(r, viewer, status_search.parse_status_query(text))
        timings = {"statuses (repository)": [], "/search/?type=statuses (view)": []}
        found = 0
        for text in queries:
            query = status_search.parse_status_query(text)
            started = time.perf_counter()
            page = status_search.search_statuses(r, viewer, query)
            timings["statuses (repository)"].append(time.perf_counter() - started)
            found += len(page.items)
            encoded = "q=" + _quote(text) + "&type=statuses"
            started = time.perf_counter()
            status = get("/search/", encoded, cookies)
            timings["/search/?type=statuses (view)"].append(time.perf_counter() - started)
            if not status.startswith("200"):
                raise CommandError(f"/search/?{encoded} answered {status}")
        self.stdout.write(
            f"{len(queries):,} two-word status queries of the demo's words; "
            f"{found / max(len(queries), 1):.1f} statuses found a page on average."
        )
        for what, values in timings.items():
            p50, p99 = percentiles(values)
            self.stdout.write(f"{what:32} {'two words':10} {p50:8.2f} {p99:8.2f}")

    def status_memory(self, r):
        statuses_there = int(r.get(keys.STATUS_IDS) or 0)
        total = status_search.index_bytes(r)
        self.stdout.write(
            f"Status index: {total / 2**20:.1f} MiB for {statuses_there:,} statuses:"
            f" {total / max(statuses_there, 1):.0f} bytes per status."
        )


def _quote(text):
    return quote(text, safe="")

"""``manage.py bench_api``: how fast gunicorn serves the client API, measured in one run
with bench_web's machinery (benchmarks/web.py: the throwaway Redis, gunicorn, the load
generator, the CPU accounting).

1. Seeds as bench_web does, and 10 authors more: the reader's home timeline holds 40
   statuses, the API's largest page. The reader and the poster get access tokens
   (oauth.issue_token, as an app's authorization would give them).
2. Drives GET /healthz and GET /api/v1/timelines/home?limit=40 (the reader's token)
   back to back; the floor is judged on gunicorn's CPU time per request (the API page
   >= 30% of /healthz), which depends little on the machine's other load.
3. Posts as the poster through POST /api/v1/statuses (inline fan-out to every follower),
   one request at a time, and gives the p50 and p99.
"""

import json
import time

from django.contrib.auth.hashers import make_password
from django.core.management.base import CommandError

from benchmarks.web import (
    HOME_AUTHORS,
    MESSAGE,
    Browser,
    WebBenchmark,
    delivered_to,
    rate_of,
)
from socialsite.repository import graph, oauth, statuses, timelines, users

API_PAGE = 40  # the most a Mastodon timeline call gives (limit=40)
HOME_PATH = f"/api/v1/timelines/home?limit={API_PAGE}"
SCOPES = ["read", "write"]


class ApiBenchmark(WebBenchmark):
    """One run of ``manage.py bench_api``."""

    POSTING_REQUEST = "POST /api/v1/statuses"
    POSTING_FLOOR_MS = None  # the pages' posting floor is bench_web's

    def run(self, options):
        if options["tool"] != "python" or options["also"] or options["in_process"]:
            raise CommandError("bench_api measures with the built-in client, one configuration")
        options["spread"] = 0
        super().run(options)

    def server_env(self):
        # Every request counted by THROTTLE_API, as in production, with room for all.
        return {"THROTTLE_API": "100000000/5m"}

    def request_headers(self, credentials):
        return [("Authorization", f"Bearer {credentials}")]

    def seed(self, r, followers, pulled=0):
        seeded = super().seed(r, followers, pulled)
        reader = users.get_user_id(r, seeded["reader"])
        prefix = seeded["reader"].removesuffix("reader")
        for i in range(HOME_AUTHORS, API_PAGE):
            author = users.create_user(r, f"{prefix}author{i}", f"Author{i}", make_password(None))
            graph.follow(r, reader, author)
            statuses.post_status(r, author, f"{MESSAGE} ({i})")
        client_id, _ = oauth.create_app(r, "bench_api", ["urn:ietf:wg:oauth:2.0:oob"], SCOPES)
        seeded["reader_token"] = oauth.issue_token(r, client_id, SCOPES, uid=reader)
        seeded["poster_token"] = oauth.issue_token(r, client_id, SCOPES, uid=seeded["poster_uid"])
        self.stdout.write(f"  and {API_PAGE - HOME_AUTHORS} authors more: {API_PAGE} statuses")
        return seeded

    def measure_pages(self, r, process, port, seeded, options):
        token = seeded["reader_token"]
        browser = Browser(port)
        try:
            status, _, body = browser.request("GET", HOME_PATH, headers=self._auth(token))
        finally:
            browser.close()
        if status != 200 or len(json.loads(body)) != API_PAGE:
            raise CommandError(f"the API's home timeline answered {status}, not {API_PAGE}")
        pages = [("/healthz", "/healthz"), (HOME_PATH, "API home (40)")]
        runs = {label: [] for _, label in pages}
        for _ in range(options["repeat"]):
            for path, label in pages:
                runs[label].append(
                    self.measure(r, process, port, path, label, token, options, "python")
                )
        healthz_runs, home_runs = runs.values()
        fastest = [max(healthz_runs, key=rate_of), max(home_runs, key=rate_of)]
        ratios = [
            home.rate / healthz.rate if healthz.rate else 0.0
            for healthz, home in zip(healthz_runs, home_runs, strict=True)
        ]
        return {"python": (fastest, ratios)}

    @staticmethod
    def _auth(token):
        return {"Authorization": f"Bearer {token}"}

    def measure_posting(self, r, port, seeded, options):
        """Latency of each POST /api/v1/statuses, one after the other, as the poster."""
        browser = Browser(port)
        headers = {**self._auth(seeded["poster_token"])}
        latencies, sent, posts_before = [], 0, users.get_user(r, seeded["poster_uid"])["posts"]
        deadline = time.perf_counter() + options["warmup"] + options["seconds"]
        measured_from = time.perf_counter() + options["warmup"]
        try:
            while len(latencies) < options["max_posts"] and time.perf_counter() < deadline:
                started = time.perf_counter()
                status, _, _ = browser.request(
                    "POST", "/api/v1/statuses", {"status": MESSAGE}, headers=headers
                )
                took = time.perf_counter() - started
                sent += 1
                if status != 200:
                    raise CommandError(f"posting answered HTTP {status}, not 200")
                if started >= measured_from:
                    latencies.append(took)
        finally:
            browser.close()
        stored = users.get_user(r, seeded["poster_uid"])["posts"] - posts_before
        if stored != sent:
            raise CommandError(f"{sent} posts were sent but {stored} stored")
        newest = timelines.profile_ids(r, seeded["poster_uid"], count=1)[0]
        return {"latencies": latencies, "sent": sent,
                "delivered": delivered_to(r, seeded["followers"], newest)}  # fmt: skip

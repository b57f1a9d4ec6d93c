"""What the web processes count as they serve: requests by view and status class and
their latency, Redis round trips, requests that met a Redis outage, throttle refusals
(docs/operating.md, "Metrics"; GET /metrics is socialsite/metrics_page.py).

prometheus-client's multiprocess mode: each process writes its own file under
settings.METRICS_DIR/web, so that whichever gunicorn worker answers a scrape reports the
sum over all of them. Serving a request costs two or three additions to memory-mapped
files (RequestLogMiddleware calls ``request_served``); nothing touches Redis for it.
"""

import os

from prometheus_client import Counter, Histogram

# The metrics' files go where settings put PROMETHEUS_MULTIPROC_DIR; made if missing
# (a process started without gunicorn_conf.py's on_starting, such as runserver).
os.makedirs(os.environ["PROMETHEUS_MULTIPROC_DIR"], exist_ok=True)

REQUEST_SECONDS = Histogram(
    "socialsite_http_request_duration_seconds",
    "Requests answered, by view name and status class, and how long each took (seconds, "
    "from the first middleware's start to its end).",
    ["view", "status"],
    buckets=(0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10),
    registry=None,
)
REDIS_ROUND_TRIPS = Counter(
    "socialsite_redis_round_trips",
    "Redis round trips made for requests, by view name (one per command, or per "
    "pipeline per server).",
    ["view"],
    registry=None,
)
REDIS_ERRORS = Counter(
    "socialsite_redis_errors",
    "Requests that met Redis unreachable (down, frozen, a cluster slot without a "
    "master) and were answered 503.",
    registry=None,
)
THROTTLE_REFUSALS = Counter(
    "socialsite_throttle_refusals",
    "Uses refused by a throttle (answered 429), by throttle.",
    ["throttle"],
    registry=None,
)

# (view, status class) -> (its histogram, its round trip counter): the label lookups
# done once per pair rather than on every request.
_children = {}
_STATUS_CLASSES = {1: "1xx", 2: "2xx", 3: "3xx", 4: "4xx", 5: "5xx"}


def request_served(view, status, seconds, round_trips):
    """Count one request answered by ``view`` (its name) with ``status`` in
    ``seconds``, having made ``round_trips`` Redis round trips."""
    key = (view, status // 100)
    children = _children.get(key)
    if children is None:
        status_class = _STATUS_CLASSES.get(status // 100, "other")
        children = _children[key] = (
            REQUEST_SECONDS.labels(view, status_class),
            REDIS_ROUND_TRIPS.labels(view),
        )
    children[0].observe(seconds)
    if round_trips:
        children[1].inc(round_trips)


def redis_error():
    REDIS_ERRORS.inc()


def throttle_refused(name):
    THROTTLE_REFUSALS.labels(name).inc()

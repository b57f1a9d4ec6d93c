"""What the web processes count as they serve: requests by view and status class and
their latency, Redis round trips, requests that met a Redis outage, throttle refusals
(docs/operating.md, "Metrics"; GET /metrics is socialsite/metrics_page.py).

prometheus-client's multiprocess mode: each process writes its own file under
settings.METRICS_DIR/web, so that whichever gunicorn worker answers a scrape reports the
sum over all of them. Serving a request costs a few additions in memory
(RequestLogMiddleware calls ``request_served``), written to the file once a second;
nothing touches Redis for it.
"""

import atexit
import bisect
import os
import threading
import time

from prometheus_client import Counter, Histogram


def ensure_directory():
    """Make the directory settings put in PROMETHEUS_MULTIPROC_DIR if missing (a process
    started without gunicorn_conf.py's on_starting): before a metric's first value is
    made, which is when its file is opened. Every metric here has labels, so none is
    made, and no directory, by a process that only imports this module."""
    os.makedirs(os.environ["PROMETHEUS_MULTIPROC_DIR"], exist_ok=True)


REQUEST_BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10)
REQUEST_SECONDS = Histogram(
    "socialsite_http_request_duration_seconds",
    "Requests answered, by view name and status class, and how long each took (seconds, "
    "from the first middleware's start to its end).",
    ["view", "status"],
    buckets=REQUEST_BUCKETS,
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
    "master) and were answered 503, by the error's class (ConnectionError, TimeoutError, "
    "...).",
    ["error"],
    registry=None,
)
THROTTLE_REFUSALS = Counter(
    "socialsite_throttle_refusals",
    "Uses refused by a throttle (answered 429), by throttle.",
    ["throttle"],
    registry=None,
)
MODERATION_ACTS = Counter(
    "socialsite_moderation_acts",
    "Reports filed and moderators' acts done (socialsite/actions/moderation.py), by act: "
    "each act done is one entry of the audit log, a report one entry of the queue.",
    ["act"],
    registry=None,
)

# What this process served since it last wrote its file: {(view, status class):
# [requests per bucket of REQUEST_BUCKETS and +Inf ..., seconds, round trips]}, written
# every FLUSH_SECONDS by a thread of the process's own (also when it serves nothing
# more), before this process answers a scrape, and at exit. Writing each request's
# figures at once cost about 15 microseconds, a tenth of the cheapest request (four
# locked writes to memory-mapped files); adding them up here costs about two.
FLUSH_SECONDS = 1.0
_pending = {}
_lock = threading.Lock()
_flusher = {"pid": None}
_STATUS_CLASSES = {1: "1xx", 2: "2xx", 3: "3xx", 4: "4xx", 5: "5xx"}


def request_served(view, status, seconds, round_trips):
    """Count one request answered by ``view`` (its name) with ``status`` in
    ``seconds``, having made ``round_trips`` Redis round trips."""
    key = (view, status // 100)
    with _lock:
        counts = _pending.get(key)
        if counts is None:
            counts = _pending[key] = [0] * (len(REQUEST_BUCKETS) + 3)
        counts[bisect.bisect_left(REQUEST_BUCKETS, seconds)] += 1
        counts[-2] += seconds
        counts[-1] += round_trips
    if _flusher["pid"] != os.getpid():
        _start_flusher()


def _start_flusher():
    """The thread that writes this process's counts (one per process: a worker forked
    from a process that had one has none)."""
    with _lock:
        if _flusher["pid"] == os.getpid():
            return
        _flusher["pid"] = os.getpid()
    ensure_directory()
    threading.Thread(target=_keep_flushing, name="metrics-flush", daemon=True).start()


def _keep_flushing():
    while True:
        time.sleep(FLUSH_SECONDS)
        flush()


def flush():
    """Write what this process counted since it last did to its file."""
    with _lock:
        pending = list(_pending.items())
        _pending.clear()
    for (view, status), counts in pending:
        histogram = REQUEST_SECONDS.labels(view, _STATUS_CLASSES.get(status, "other"))
        # Histogram.observe one request at a time does the same to the same values
        # (tests/test_library_internals.py holds these names).
        for bucket, requests in zip(histogram._buckets, counts[:-2], strict=True):
            if requests:
                bucket.inc(requests)
        histogram._sum.inc(counts[-2])
        if counts[-1]:
            REDIS_ROUND_TRIPS.labels(view).inc(counts[-1])


atexit.register(flush)


def redis_error(error):
    ensure_directory()
    REDIS_ERRORS.labels(type(error).__name__).inc()


def throttle_refused(name):
    ensure_directory()
    THROTTLE_REFUSALS.labels(name).inc()


def moderation_act(act: str) -> None:
    """Count one act done of moderation ``act`` (socialsite/actions/moderation.py)."""
    ensure_directory()
    MODERATION_ACTS.labels(act).inc()

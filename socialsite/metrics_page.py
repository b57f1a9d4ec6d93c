"""GET /metrics: the site's metrics in the Prometheus text format (docs/operating.md,
"Metrics"): those the web processes count as they serve (socialsite/metrics.py, summed
over every process of the host) and those read from Redis when scraped.

What is read from Redis (its INFO, the fan-out queue, the mail queue) is the same
whoever reads it, so the process that answers reads it, at most every
READ_EVERY_SECONDS: a scrape every few seconds, or several scrapers, cost Redis a few
commands, not a few per scrape.
"""

import threading
import time

from django.http import Http404, HttpResponse
from prometheus_client import CONTENT_TYPE_LATEST, CollectorRegistry, generate_latest, multiprocess
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily
from redis.cluster import RedisCluster

from socialsite.connection import get_redis
from socialsite.metrics import ensure_directory
from socialsite.metrics import flush as flush_counts
from socialsite.metrics_setup import may_read
from socialsite.repository import eviction, fanout, jobs, mail, server_checks
from socialsite.repository.client import OUTAGE_ERRORS, is_cluster
from socialsite.throttling import client_address

# How long what is read from Redis for a scrape is reused.
READ_EVERY_SECONDS = 5


class _Reading:
    """What a scrape reports from Redis, read at most every READ_EVERY_SECONDS."""

    def __init__(self):
        self._lock = threading.Lock()
        self._read_at = None
        self._families = []

    def families(self):
        with self._lock:
            now = time.monotonic()
            if self._read_at is None or now - self._read_at >= READ_EVERY_SECONDS:
                self._families = list(_read_redis(get_redis()))
                self._read_at = now
            return self._families

    def forget(self):
        with self._lock:
            self._read_at = None


_reading = _Reading()


def _gauge(name, documentation, value, labels=None):
    family = GaugeMetricFamily(name, documentation, labels=sorted(labels or {}))
    family.add_metric([labels[key] for key in sorted(labels or {})], value)
    return family


def _read_redis(r):
    try:
        nodes = _server_info(r)
        queue, completed = jobs.status(r), jobs.completed_count(r)
        mail_waiting, mail_dead, mail_sent = mail.backlog(r), mail.dead_count(r), mail.sent_count(r)
        workers = len(jobs.alive_workers(r, server_checks.WORKER_ALIVE_MS))
        senders = len(mail.alive_senders(r, server_checks.WORKER_ALIVE_MS))
        pulled = fanout.pulled_counts(r)
        evicted = eviction.evicted_count(r)
    except OUTAGE_ERRORS:
        yield _gauge("socialsite_redis_up", "1 if Redis answered the last read, else 0.", 0)
        return
    yield _gauge("socialsite_redis_up", "1 if Redis answered the last read, else 0.", 1)
    server_gauges = (
        ("used_memory_bytes", "Memory Redis uses for its data (INFO used_memory).",
         lambda info: info["used_memory"]),
        ("maxmemory_bytes", "Redis's memory limit (INFO maxmemory); 0: none.",
         lambda info: info["maxmemory"]),
        ("connected_clients", "Client connections Redis holds (INFO connected_clients).",
         lambda info: info["connected_clients"]),
        ("aof_enabled", "1 if Redis keeps an append-only file (INFO aof_enabled).",
         lambda info: info["aof_enabled"]),
        ("aof_last_write_ok", "1 if Redis's last write to its append-only file succeeded.",
         lambda info: int(info.get("aof_last_write_status", "ok") == "ok")),
        ("rdb_last_save_ok", "1 if Redis's last snapshot (RDB) succeeded.",
         lambda info: int(info.get("rdb_last_bgsave_status", "ok") == "ok")),
    )  # fmt: skip
    for name, documentation, read in server_gauges:
        family = GaugeMetricFamily(f"socialsite_redis_{name}", documentation, labels=["node"])
        for node, info in nodes.items():
            family.add_metric([node], read(info))
        yield family
    oldest = max(queue["oldest_waiting_seconds"] or 0, queue["oldest_in_flight_seconds"] or 0)
    yield from (
        _gauge("socialsite_fanout_jobs_waiting", "Fan-out jobs queued, not yet read by a "
               "worker.", queue["waiting"]),
        _gauge("socialsite_fanout_jobs_in_flight", "Fan-out jobs read by a worker and not "
               "completed (a worker that died leaves its jobs here until claimed).",
               queue["in_flight"]),
        _gauge("socialsite_fanout_lag_seconds", "Age of the oldest fan-out job waiting or in "
               "flight (seconds since it was queued); 0 when there is none.", oldest),
        _gauge("socialsite_fanout_dead_letters", "Fan-out jobs given up after their last "
               "failed attempt (manage.py fanout --dead).", queue["dead"]),
        _gauge("socialsite_fanout_workers", "Fan-out workers seen alive (their heartbeat) in "
               f"the last {server_checks.WORKER_ALIVE_MS // 1000} seconds.", workers),
        _gauge("socialsite_mail_senders", "Fan-out workers' mail threads seen alive in the "
               f"last {server_checks.WORKER_ALIVE_MS // 1000} seconds.", senders),
        _gauge("socialsite_mail_waiting", "Mail queued and not yet sent (waiting or being "
               "retried).", mail_waiting),
        _gauge("socialsite_mail_dead_letters", "Mail given up after its last failed send.",
               mail_dead),
        _gauge("socialsite_timelines_pulled_accounts", "Accounts pulled now: their statuses "
               "are merged into their followers' pages when read, not delivered (docs/"
               "scale.md).", pulled["pulled_accounts"]),
        _gauge("socialsite_timelines_registered_accounts", "Accounts pulled now or once: "
               "what they posted while pulled is still merged.", pulled["registered_accounts"]),
        _gauge("socialsite_timelines_pulled_statuses", "Statuses the registered accounts "
               "hold as pulled (each account's newest 1000).", pulled["pulled_statuses"]),
        _gauge("socialsite_timelines_evicted_homes", "Homes of people not seen for "
               "HOME_EVICT_AFTER, evicted: deliveries skip them, their first page back "
               "rebuilds them (docs/scale.md).", evicted),
    )  # fmt: skip
    for name, documentation, count in (
        ("socialsite_fanout_jobs_completed", "Fan-out jobs completed since the queue was "
         "made (each delivers a status to up to about 1000 followers, or plans, removes or "
         "refills): its rate is the fan-out's throughput.", completed),
        ("socialsite_mail_sent", "Mail sent since the queue was made.", mail_sent),
    ):  # fmt: skip
        family = CounterMetricFamily(name, documentation)
        family.add_metric([], count)
        yield family


def _server_info(r):
    """{node "host:port": its INFO}, the one server or every cluster master."""
    if is_cluster(r):
        return r.info(target_nodes=RedisCluster.PRIMARIES)
    kwargs = r.connection_pool.connection_kwargs
    node = f"{kwargs.get('host', 'localhost')}:{kwargs.get('port', 6379)}"
    if "path" in kwargs:
        node = kwargs["path"]
    return {node: r.info()}


class _FromRedis:
    def collect(self):
        return _reading.families()


# --- the view ----------------------------------------------------------------------------


def metrics(request):
    """GET /metrics: every metric of the site in the Prometheus text format; 404 to
    whoever may not read them (the page does not say it exists)."""
    if request.method not in ("GET", "HEAD") or not may_read(
        client_address(request), request.META.get("HTTP_AUTHORIZATION")
    ):
        raise Http404("There is nothing here.")
    ensure_directory()
    flush_counts()
    registry = CollectorRegistry()
    multiprocess.MultiProcessCollector(registry)
    registry.register(_FromRedis())
    response = HttpResponse(generate_latest(registry), content_type=CONTENT_TYPE_LATEST)
    response["Cache-Control"] = "no-store"
    return response

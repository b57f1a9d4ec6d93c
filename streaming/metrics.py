"""A stream server's metrics: ``GET /metrics`` on its own port (docs/operating.md,
"Metrics"), guarded as the pages' (METRICS_ALLOWED or METRICS_TOKEN, else 404).

The processes of one server (``manage.py stream --processes N``) share its port, so a
scrape reaches any one of them: each copies its hub's figures (hub.stats, kept for
/health) into prometheus-client's multiprocess files under
settings.METRICS_DIR/stream-PORT every SYNC_SECONDS and before it answers a scrape, and
the one that answers reports them all. Nothing is counted on the streams' own path:
the copy is a few additions a second.
"""

import asyncio
import os

from prometheus_client import (
    CONTENT_TYPE_LATEST,
    CollectorRegistry,
    Counter,
    Gauge,
    generate_latest,
    multiprocess,
)

from socialsite.metrics_setup import prepare_directory

# How often each process copies its figures to its file.
SYNC_SECONDS = 1.0

# Metric -> (hub.stats key, documentation); all summed over the server's processes.
HUB_COUNTERS = {
    "socialsite_stream_events_received": (
        "events",
        "Statuses and other events received from Redis (every process receives each).",
    ),
    "socialsite_stream_deliveries": (
        "deliveries",
        "Events sent out to clients (one per client an event is for).",
    ),
    "socialsite_stream_writes": ("writes", "Writes to client sockets (events batched)."),
    "socialsite_stream_clients_dropped": (
        "clients_dropped",
        "Clients disconnected for falling too far behind (STREAM_CLIENT_BUFFER).",
    ),
    "socialsite_stream_resubscribed": (
        "resubscribed",
        "Times a process subscribed to Redis again after losing its subscription.",
    ),
}
REFUSAL_REASONS = ("server_full", "address_full")


def directory_for(port):
    from django.conf import settings

    return settings.METRICS_DIR / f"stream-{port}"


def prepare(port):
    """Point this process (and the processes it starts) at the metrics directory of
    the server on ``port``, emptied: before the first metric is made."""
    path = prepare_directory(directory_for(port))
    os.environ["PROMETHEUS_MULTIPROC_DIR"] = str(path)
    return path


def forget_process(pid):
    """A process of the server ended: its gauges (clients, subscribed) no longer count."""
    multiprocess.mark_process_dead(pid)


class StreamMetrics:
    """The figures of one process's ``hub`` and ``app`` (its 429s), copied to its file."""

    def __init__(self, hub, app):
        self.hub = hub
        self.app = app
        self.directory = os.environ["PROMETHEUS_MULTIPROC_DIR"]
        os.makedirs(self.directory, exist_ok=True)
        self.counters = {
            stat: Counter(name, documentation, registry=None)
            for name, (stat, documentation) in HUB_COUNTERS.items()
        }
        self.refusals = Counter(
            "socialsite_stream_refusals",
            "Streams refused with 429: server_full (STREAM_MAX_CLIENTS streams in the "
            "process), address_full (STREAM_MAX_PER_ADDRESS streams of the address).",
            ["reason"],
            registry=None,
        )
        self.refusal_children = {reason: self.refusals.labels(reason) for reason in REFUSAL_REASONS}
        self.clients = Gauge(
            "socialsite_stream_clients",
            "Streams open now (API clients and live pages), over the server's processes.",
            registry=None,
            multiprocess_mode="livesum",
        )
        self.subscribed = Gauge(
            "socialsite_stream_subscribed",
            "1 if every process of the server is subscribed to Redis, else 0.",
            registry=None,
            multiprocess_mode="livemin",
        )
        self.gc_pause = Gauge(
            "socialsite_stream_gc_longest_pause_seconds",
            "The longest pause of a full garbage collection in any process so far.",
            registry=None,
            multiprocess_mode="livemax",
        )
        self.copied = {}
        self.task = None
        self.sync()

    def sync(self):
        """Copy what changed since the last copy."""
        stats = self.hub.stats
        for stat, counter in self.counters.items():
            self._add(stat, counter, stats[stat])
        for reason, child in self.refusal_children.items():
            self._add(("refusal", reason), child, self.app.refusals[reason])
        self.clients.set(len(self.hub.clients))
        self.subscribed.set(1 if self.hub.subscribed else 0)
        self.gc_pause.set(self.hub.collector_pauses.longest)

    def _add(self, key, counter, now):
        change = now - self.copied.get(key, 0)
        if change:
            counter.inc(change)
            self.copied[key] = now

    def start(self):
        self.task = asyncio.get_running_loop().create_task(self._keep_copying())

    async def stop(self):
        if self.task is not None:
            self.task.cancel()
            await asyncio.gather(self.task, return_exceptions=True)
        self.sync()

    async def _keep_copying(self):
        while True:
            await asyncio.sleep(SYNC_SECONDS)
            self.sync()

    def render(self):
        """The server's metrics in the Prometheus text format: (body, content type)."""
        self.sync()
        registry = CollectorRegistry()
        multiprocess.MultiProcessCollector(registry, path=self.directory)
        return generate_latest(registry), CONTENT_TYPE_LATEST.encode()

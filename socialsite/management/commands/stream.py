"""``manage.py stream``: run a streaming server (the API of section 8.5, live pages).

One process holds one Redis subscription for all its clients. ``--processes N``
(default: one per core) runs N such processes on the same port: this command then
supervises N copies of itself started with ``--processes 1``, each binding the port
with SO_REUSEPORT (the kernel spreads new connections evenly over them: decision
0038). SIGTERM or Ctrl-C ends every stream cleanly (the last chunk is sent), then the
process(es), with exit code 0.
"""

import argparse
import functools
import gc
import logging
import os
import secrets
import signal
import socket
import subprocess
import sys
import threading
import time

import uvicorn
from django.conf import settings
from django.core.management.base import BaseCommand, CommandError

from api.streaming import MastodonStreams
from socialsite.connection import get_redis, redis_url
from socialsite.repository import client as redis_client
from socialsite.repository import moderation
from streaming import metrics as stream_metrics
from streaming.hub import Hub, redacted
from streaming.limits import ConnectionLimits, StreamsPerAddress
from streaming.server import QuietIncompleteResponses, RedactedTokens, StreamingApp
from streaming.twitter import TwitterStreams
from timeline.live import REFRESH_SECONDS, LiveHome

# Streams that have not ended this long after the stop signal (their clients stopped
# reading, so the last chunk cannot go out) are cut.
GRACEFUL_STOP_SECONDS = 5
# A child process that dies sooner than this after it started is taken for a setting
# that cannot work (the port taken, Redis unreachable at start): everything stops,
# rather than restarting it in a loop. One that dies later is started again.
CHILD_MIN_LIFETIME_SECONDS = 10
# The largest WebSocket message a client may send (a subscription is a few dozen bytes).
WEBSOCKET_MAX_MESSAGE_BYTES = 16 * 1024
# Connections waiting to be accepted, per process (the kernel caps it at somaxconn).
LISTEN_BACKLOG = 4096
# The options a supervisor passes on to its children, as they were given.
CHILD_OPTIONS = (
    "host",
    "port",
    "site_port",
    "keepalive",
    "client_buffer",
    "live_refresh",
    "max_clients",
    "max_per_address",
    "request_timeout",
    "matching",
)


class StreamServer(uvicorn.Server):
    """uvicorn's server, ending the app's streams before it waits for connections
    to finish: a streaming response never finishes by itself."""

    def __init__(self, config, app):
        super().__init__(config)
        self.streaming_app = app

    async def shutdown(self, sockets=None):
        self.streaming_app.close_streams()
        await super().shutdown(sockets)


class Command(BaseCommand):
    help = (
        "Run a streaming API server (statuses/sample.json, statuses/filter.json, live/home, "
        "Mastodon's /api/v1/streaming)."
    )

    # The hub that hands the events out to the clients: a subclass of this command can
    # run the same server with another one.
    hub_class = Hub

    def add_arguments(self, parser):
        parser.add_argument("--host", default="127.0.0.1", help="address to listen on")
        parser.add_argument(
            "--port", type=int, default=settings.STREAM_PORT, help="port to listen on"
        )
        parser.add_argument(
            "--site-port",
            type=int,
            default=8000,
            help="port the site's pages are served on: pages of the ALLOWED_HOSTS on it "
            "may read /live/home across ports (development)",
        )
        parser.add_argument(
            "--keepalive",
            type=float,
            default=settings.STREAM_KEEPALIVE,
            help="seconds of silence before a stream is sent a keep-alive",
        )
        parser.add_argument(
            "--client-buffer",
            type=int,
            default=settings.STREAM_CLIENT_BUFFER,
            help="events a client may fall behind by before it is disconnected",
        )
        parser.add_argument(
            "--live-refresh",
            type=float,
            default=REFRESH_SECONDS,
            help="seconds between two checks of a live page's session and follows",
        )
        parser.add_argument(
            "--max-clients",
            type=int,
            default=settings.STREAM_MAX_CLIENTS,
            help="streams at a time; new ones past it are answered 429",
        )
        parser.add_argument(
            "--max-per-address",
            type=int,
            default=settings.STREAM_MAX_PER_ADDRESS,
            help="streams one client address may hold over all the server's processes",
        )
        parser.add_argument(
            "--request-timeout",
            type=float,
            default=settings.STREAM_REQUEST_TIMEOUT,
            help="seconds a new connection has to send its request before it is closed",
        )
        parser.add_argument("--access-log", action="store_true", help="log every request")
        parser.add_argument(
            "--processes",
            type=int,
            default=os.cpu_count() or 1,
            help="server processes sharing the port, each with its own Redis subscription "
            "(default: one per core)",
        )
        parser.add_argument(
            "--matching",
            choices=["index", "scan"],
            default="index",
            help="how events find their clients: through indexes (the product), or every "
            "client's filter on every event (the reference, for bench_stream --design scan)",
        )
        # A child of a supervisor (--processes N): bind the port with SO_REUSEPORT.
        parser.add_argument("--reuse-port", action="store_true", help=argparse.SUPPRESS)
        # A child of a supervisor: the server's name, this process's number and the
        # number of processes, under which the streams per address are counted.
        parser.add_argument("--server-id", default=None, help=argparse.SUPPRESS)
        parser.add_argument("--process-index", type=int, default=0, help=argparse.SUPPRESS)
        parser.add_argument("--process-count", type=int, default=1, help=argparse.SUPPRESS)

    def build_app(self, options):
        """The StreamingApp for these options, on the site's Redis and settings."""
        redis = get_redis()
        url = redis_url()
        live = LiveHome(
            redis,
            cookie_name=settings.SESSION_COOKIE_NAME,
            allowed_hosts=settings.ALLOWED_HOSTS,
            trusted_origins=settings.CSRF_TRUSTED_ORIGINS,
            site_port=options["site_port"],
            refresh_seconds=options["live_refresh"],
        )
        hub = self.hub_class(
            redis_client.pubsub_urls(redis, url),
            client_buffer=options["client_buffer"],
            keepalive=options["keepalive"],
            prepare=live.prepare,
            hidden_authors=functools.partial(moderation.suspended_ids, redis),
            matching=options["matching"],
        )
        per_address = StreamsPerAddress(
            redis,
            options["max_per_address"],
            server=options["server_id"],
            process=options["process_index"],
            processes=options["process_count"],
        )
        app = StreamingApp(hub, redis, max_streams=options["max_clients"], per_address=per_address)
        app.metrics = stream_metrics.StreamMetrics(hub, app)
        # The three products on one server, sharing its hub and limits.
        TwitterStreams(app)
        live.serve_on(app)
        MastodonStreams(app, live.homes, live.refresh_seconds)
        return app, url

    def handle(self, *args, **options):
        if options["processes"] < 1:
            raise CommandError("--processes must be at least 1")
        if options["server_id"] is None:
            # Not a supervisor's child: this server's metrics start afresh, in a
            # directory its processes (started with this environment) share.
            stream_metrics.prepare(options["port"])
        if options["processes"] > 1:
            code = Supervisor(self, options).run()
            if code:
                raise CommandError(f"stream processes failed (exit code {code})", returncode=code)
            return
        self.serve(options)

    def serve(self, options):
        """Run one server process in this process until SIGTERM or Ctrl-C."""
        app, url = self.build_app(options)
        limits = ConnectionLimits(
            max_streams=options["max_clients"], request_timeout=options["request_timeout"]
        )
        limits.raise_open_files_limit()
        config = uvicorn.Config(
            app,
            host=options["host"],
            port=options["port"],
            http=limits.protocol_class(),
            # Mastodon's WebSocket (/api/v1/streaming): websockets' sans-I/O protocol;
            # no compression (a zlib context per connection costs more memory than a
            # stream's events save), messages from clients are small subscriptions.
            ws=limits.websocket_protocol_class(),
            ws_per_message_deflate=False,
            ws_max_size=WEBSOCKET_MAX_MESSAGE_BYTES,
            lifespan="on",
            access_log=options["access_log"],
            # Django's LOGGING configures the loggers (uvicorn's included).
            log_config=None,
            timeout_graceful_shutdown=GRACEFUL_STOP_SECONDS,
        )
        logging.getLogger("uvicorn.error").addFilter(QuietIncompleteResponses())
        for name in ("uvicorn.error", "uvicorn.access"):
            logging.getLogger(name).addFilter(RedactedTokens())
        server = StreamServer(config, app)

        # uvicorn handles SIGINT/SIGTERM while it runs, and once stopped raises the
        # signal again for the handler found before it. The stop is complete by then:
        # that handler only needs to let the command return normally (exit code 0).
        for signum in (signal.SIGINT, signal.SIGTERM):
            signal.signal(signum, lambda signum, frame: None)

        sockets = (
            [reuse_port_socket(options["host"], options["port"])] if options["reuse_port"] else None
        )
        self.stdout.write(
            f"Streaming server on http://{options['host']}:{options['port']}/ "
            f"(process {os.getpid()}, Redis {redacted(url)}; Ctrl-C stops it)"
        )
        # What is loaded by now (Django, the templates, the libraries) lives as long as
        # the process: kept out of the garbage collector's full passes, each of which
        # walks every object tracked, and holds up every stream while it does.
        gc.collect()
        gc.freeze()
        server.run(sockets=sockets)
        self.stdout.write("Streaming server stopped.")


def reuse_port_socket(host, port):
    """A listening socket on ``host``:``port`` that other processes may bind too
    (SO_REUSEPORT): the kernel hands each new connection to one of them."""
    family, kind, proto, _, address = socket.getaddrinfo(
        host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE
    )[0]
    sock = socket.socket(family, kind, proto)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
    sock.bind(address)
    sock.listen(LISTEN_BACKLOG)
    sock.setblocking(False)
    return sock


class Supervisor:
    """``--processes N``: N copies of the command with ``--processes 1 --reuse-port``,
    started as fresh processes (nothing of this one, no Redis connection, is shared),
    stopped together by SIGTERM or Ctrl-C.

    A child that dies is reported; started again if it had run a while (the others
    served its share meanwhile, and its clients reconnect to them), or, if it died
    right after starting, taken as a setting that cannot work: all stop, exit 1.

    The children count the streams per client address together, under a name of this
    server (``--server-id``), each as its number (``--process-index``): a child started
    again in a dead one's place takes its number, and clears what it counted.
    """

    def __init__(self, command, options):
        self.command = command
        self.options = options
        self.children = {}  # Popen -> (the time.monotonic() it was started, its number)
        self.stop = threading.Event()
        self.server_id = secrets.token_hex(8)

    def argv(self, index):
        name = type(self.command).__module__.rpartition(".")[2]
        argv = [sys.executable, str(settings.BASE_DIR / "manage.py"), name]
        for option in CHILD_OPTIONS:
            argv += [f"--{option.replace('_', '-')}", str(self.options[option])]
        if self.options["access_log"]:
            argv.append("--access-log")
        if self.options.get("settings"):
            argv += ["--settings", self.options["settings"]]
        argv += ["--server-id", self.server_id, "--process-index", str(index)]
        argv += ["--process-count", str(self.options["processes"])]
        return [*argv, "--processes", "1", "--reuse-port"]

    def start_child(self, index):
        child = subprocess.Popen(self.argv(index))
        self.children[child] = (time.monotonic(), index)
        return child

    def run(self):
        """Start the children, watch them until a stop signal, stop them: the exit code."""
        for signum in (signal.SIGINT, signal.SIGTERM):
            signal.signal(signum, lambda signum, frame: self.stop.set())
        count = self.options["processes"]
        for index in range(count):
            self.start_child(index)
        pids = ", ".join(str(child.pid) for child in self.children)
        self.command.stdout.write(
            f"Streaming server: {count} processes ({pids}) on "
            f"http://{self.options['host']}:{self.options['port']}/; Ctrl-C stops them"
        )
        failed = 0
        while not self.stop.wait(0.2):
            for child, (started, index) in list(self.children.items()):
                code = child.poll()
                if code is None:
                    continue
                del self.children[child]
                stream_metrics.forget_process(child.pid)
                lived = time.monotonic() - started
                self.command.stderr.write(
                    f"Stream process {child.pid} exited with code {code} after {lived:.0f} s."
                )
                if lived < CHILD_MIN_LIFETIME_SECONDS:
                    self.command.stderr.write("It died at start: stopping all the processes.")
                    failed = code or 1
                    self.stop.set()
                    break
                replacement = self.start_child(index)
                self.command.stderr.write(f"Started stream process {replacement.pid} instead.")
        return self.stop_children() or failed

    def stop_children(self):
        """SIGTERM to every child, SIGKILL to those still there after the graceful
        stop's time: 0 when all of them stopped cleanly."""
        for child in self.children:
            if child.poll() is None:
                child.send_signal(signal.SIGTERM)
        deadline = time.monotonic() + GRACEFUL_STOP_SECONDS + 10
        code = 0
        for child in self.children:
            try:
                child.wait(max(0.1, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                self.command.stderr.write(f"Stream process {child.pid} did not stop: killed.")
                child.kill()
                child.wait()
            code = code or (1 if child.returncode else 0)
        self.command.stdout.write("Streaming server stopped.")
        return code

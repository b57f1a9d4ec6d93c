"""``manage.py stream``: run a streaming server (the API of section 8.5, live pages).

One process holds one Redis subscription for all its clients; run several behind a
load balancer for more clients or more cores (see docs/streaming.md). SIGTERM or
Ctrl-C ends every stream cleanly (the last chunk is sent), then the process.
"""

import functools
import logging
import signal

import uvicorn
from django.conf import settings
from django.core.management.base import BaseCommand

from socialsite.connection import get_redis, redis_url
from socialsite.repository import client as redis_client
from socialsite.repository import moderation
from timeline.streaming.app import QuietIncompleteResponses, StreamingApp
from timeline.streaming.hub import Hub, redacted
from timeline.streaming.limits import ConnectionLimits
from timeline.streaming.live import REFRESH_SECONDS, LiveHome

# Streams that have not ended this long after the stop signal (their clients stopped
# reading, so the last chunk cannot go out) are cut.
GRACEFUL_STOP_SECONDS = 5


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
    help = "Run a streaming API server (statuses/sample.json, statuses/filter.json, live/home)."

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
            help="connections one client address may hold",
        )
        parser.add_argument(
            "--request-timeout",
            type=float,
            default=settings.STREAM_REQUEST_TIMEOUT,
            help="seconds a new connection has to send its request before it is closed",
        )
        parser.add_argument("--access-log", action="store_true", help="log every request")

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
        )
        return StreamingApp(hub, redis, live, max_streams=options["max_clients"]), url

    def handle(self, *args, **options):
        app, url = self.build_app(options)
        limits = ConnectionLimits(
            max_streams=options["max_clients"],
            per_address=options["max_per_address"],
            request_timeout=options["request_timeout"],
        )
        limits.raise_open_files_limit()
        config = uvicorn.Config(
            app,
            host=options["host"],
            port=options["port"],
            http=limits.protocol_class(),
            lifespan="on",
            access_log=options["access_log"],
            # Django's LOGGING configures the loggers (uvicorn's included).
            log_config=None,
            timeout_graceful_shutdown=GRACEFUL_STOP_SECONDS,
        )
        logging.getLogger("uvicorn.error").addFilter(QuietIncompleteResponses())
        server = StreamServer(config, app)

        # uvicorn handles SIGINT/SIGTERM while it runs, and once stopped raises the
        # signal again for the handler found before it. The stop is complete by then:
        # that handler only needs to let the command return normally (exit code 0).
        for signum in (signal.SIGINT, signal.SIGTERM):
            signal.signal(signum, lambda signum, frame: None)

        self.stdout.write(
            f"Streaming server on http://{options['host']}:{options['port']}/ "
            f"(Redis {redacted(url)}; Ctrl-C stops it)"
        )
        server.run()
        self.stdout.write("Streaming server stopped.")

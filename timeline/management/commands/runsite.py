"""``manage.py runsite``: the whole site on one machine, for development.

Starts (or joins) the embedded Redis unless REDIS_URL is set, then runs each of the
site's processes as a child and stops them all on Ctrl-C or SIGTERM.
"""

import os
import signal
import subprocess
import sys
import time

from django.conf import settings
from django.core.management.base import BaseCommand

from socialsite import embedded_redis
from socialsite.connection import redis_url
from socialsite.metrics_setup import prepare_directory


class Command(BaseCommand):
    help = "Run the site for development: Redis (embedded), the web server and its workers."

    def add_arguments(self, parser):
        parser.add_argument("--host", default="127.0.0.1", help="address to serve pages on")
        parser.add_argument("--port", type=int, default=8000, help="port to serve pages on")
        parser.add_argument(
            "--stream-port",
            type=int,
            default=settings.STREAM_PORT,
            help="port of the streaming server (the API and the live pages)",
        )

    def processes(self, options):
        """(name, argv) of every process the site runs, besides Redis."""
        manage = [sys.executable, str(settings.BASE_DIR / "manage.py")]
        address = f"{options['host']}:{options['port']}"
        stream_port = str(options["stream_port"])
        # The children inherit the environment: this tells the pages where the live
        # updates come from when --stream-port is not the configured STREAM_PORT.
        os.environ["STREAM_PORT"] = stream_port
        # Links in mail lead to this server unless SITE_URL names another address.
        os.environ.setdefault("SITE_URL", f"http://{address}")
        stream_options = ["--host", options["host"], "--port", stream_port]
        return [
            ("web", [*manage, "runserver", address]),
            ("fanout", [*manage, "fanout"]),
            ("stream", [*manage, "stream", *stream_options, "--site-port", str(options["port"])]),
        ]

    def handle(self, *args, **options):
        started_redis = False
        if not settings.REDIS_URL:
            started_redis = not self.embedded_redis_running()
        url = redis_url()
        # The web processes' metrics start afresh (the stream server empties its own).
        prepare_directory(os.environ["PROMETHEUS_MULTIPROC_DIR"])
        self.stdout.write(f"Redis: {url}" + (" (embedded, started now)" if started_redis else ""))
        # Each child leads its own process group, so stopping it also stops whatever it
        # started (runserver's autoreloader runs the server in a grandchild).
        children = [
            (name, subprocess.Popen(argv, start_new_session=True))
            for name, argv in self.processes(options)
        ]
        self.stdout.write(
            self.style.SUCCESS(
                f"socialsite is running at http://{options['host']}:{options['port']}/"
                " (Ctrl-C stops it)"
            )
        )
        stopping = []

        def stop(signum, frame):
            stopping.append(signum)

        signal.signal(signal.SIGINT, stop)
        signal.signal(signal.SIGTERM, stop)
        try:
            while not stopping:
                for name, child in children:
                    if child.poll() is not None:
                        self.stderr.write(f"{name} exited with code {child.returncode}")
                        stopping.append(name)
                time.sleep(0.2)
        finally:
            for _, child in children:
                if child.poll() is None:
                    os.killpg(child.pid, signal.SIGTERM)
            for _, child in children:
                try:
                    child.wait(timeout=10)
                except subprocess.TimeoutExpired:
                    os.killpg(child.pid, signal.SIGKILL)
            if started_redis:
                # We started it, so we stop it: Redis writes its append-only file first.
                embedded_redis.stop(settings.EMBEDDED_REDIS_DIR)
            self.stdout.write("Stopped.")

    def embedded_redis_running(self):
        return embedded_redis.is_running(settings.EMBEDDED_REDIS_DIR)

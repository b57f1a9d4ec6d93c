"""``manage.py stream --processes N``: several server processes on one port (real
processes, real sockets, the tests' Redis)."""

import os
import signal
import socket
import subprocess
import sys
import time

from socialsite.management.commands.stream import CHILD_MIN_LIFETIME_SECONDS
from socialsite_dev.streams import MANAGE_PY, StreamConnection, StreamServerProcess
from tests.support.helpers import make_user, post


def test_two_processes_both_serve_and_both_stop_on_sigterm(redis_backend, tmp_path, r):
    server = StreamServerProcess(
        redis_backend.url, redis_backend.cluster, log_path=tmp_path / "stream.log", processes=2
    ).start()
    streams = []
    try:
        # Each /health request is a new connection: the kernel spreads them over both
        # processes (SO_REUSEPORT), each answering with its own pid.
        answered = set()
        deadline = time.monotonic() + 30
        while len(answered) < 2 and time.monotonic() < deadline:
            health = server.health()
            if health and health["subscribed"]:
                answered.add(health["pid"])
        children = set(server.pids()) - {server.process.pid}
        assert len(children) == 2
        assert answered == children

        streams = [
            StreamConnection(
                server.port, "GET", f"/statuses/sample.json?identifier=s{n}&percent=100"
            )
            for n in range(20)
        ]
        assert all(stream.status == 200 for stream in streams)
        alice = make_user(r, "alice")
        sid = post(r, alice, "to every process's clients")
        assert [stream.read_json()["id"] for stream in streams] == [sid] * 20
    finally:
        code = server.stop()
    assert code == 0
    # Every stream ended with its last chunk: both processes stopped cleanly.
    for stream in streams:
        assert stream.read_json() is None and stream.ended
        stream.close()
    for pid in children:
        assert not os.path.exists(f"/proc/{pid}")  # reaped by the command


def test_processes_that_cannot_start_stop_everything(redis_backend, tmp_path):
    """A port held by another program: the children die at start, the command exits 1
    instead of restarting them for ever."""
    taken = socket.socket()
    taken.bind(("127.0.0.1", 0))
    taken.listen()
    port = taken.getsockname()[1]
    env = {
        **os.environ,
        "REDIS_URL": redis_backend.url,
        "REDIS_CLUSTER": "true" if redis_backend.cluster else "false",
    }
    try:
        with open(tmp_path / "stream.log", "wb") as log:
            done = subprocess.run(
                [sys.executable, str(MANAGE_PY), "stream", "--port", str(port), "--processes", "2"],
                env=env,
                stdout=log,
                stderr=log,
                timeout=60,
            )
    finally:
        taken.close()
    assert done.returncode == 1
    assert b"died at start" in (tmp_path / "stream.log").read_bytes()


def test_a_burst_arrives_whole_and_in_order(stream_server, r):
    """Events queued while the writer was busy go out joined, in their order."""
    alice = make_user(r, "alice")
    with StreamConnection(
        stream_server.port, "GET", "/statuses/sample.json?identifier=burst&percent=100"
    ) as stream:
        sids = [post(r, alice, f"burst {n}") for n in range(60)]
        assert [stream.read_json()["id"] for _ in sids] == sids


def test_a_process_that_dies_after_running_is_started_again(redis_backend, tmp_path):
    server = StreamServerProcess(
        redis_backend.url, redis_backend.cluster, log_path=tmp_path / "stream.log", processes=2
    ).start()
    try:
        first = set(server.pids()) - {server.process.pid}
        # Past the first seconds, when a death means a setting that cannot work.
        time.sleep(CHILD_MIN_LIFETIME_SECONDS + 0.5)
        victim = min(first)
        os.kill(victim, signal.SIGKILL)
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            now = set(server.pids()) - {server.process.pid}
            if len(now) == 2 and victim not in now:
                break
            time.sleep(0.1)
        assert len(now) == 2 and victim not in now and (first - {victim}) <= now
        replacement = (now - first).pop()
        answered = set()
        while replacement not in answered and time.monotonic() < deadline:
            health = server.health()
            if health and health["subscribed"]:
                answered.add(health["pid"])
        assert replacement in answered
    finally:
        code = server.stop()
    assert code == 0
    log = (tmp_path / "stream.log").read_text()
    assert f"Stream process {victim} exited with code -9" in log
    assert f"Started stream process {replacement} instead." in log

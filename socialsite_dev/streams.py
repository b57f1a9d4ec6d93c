"""Running a stream server process and reading its streams over real sockets.

For the tests and the benchmark (manage.py bench_stream), which both drive the real
``manage.py stream`` in a process of its own, as production runs it (the benchmark
also ``manage.py bench_stream_server``, the same server with the book's design). No
Django here: the server's configuration goes through its environment and options.
"""

import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

from .ports import free_port

MANAGE_PY = Path(__file__).resolve().parents[1] / "manage.py"


class StreamServerProcess:
    """``manage.py stream`` in a child process, on a loopback port of its own.

    ``options`` become command-line options (``client_buffer=10`` gives
    ``--client-buffer 10``, ``access_log=True`` gives ``--access-log``); ``env`` is
    added to this process's environment.
    ``command`` names another command that takes the same options (the benchmark's
    ``bench_stream_server``).
    """

    def __init__(
        self, redis_url, cluster=False, log_path=None, env=None, command="stream", **options
    ):
        self.redis_url = redis_url
        self.command = command
        self.cluster = cluster
        self.port = options.pop("port", None) or free_port()
        # One process, as before --processes: a test or benchmark asks for more.
        options.setdefault("processes", 1)
        self.options = options
        self.env = env or {}
        self.log_path = log_path
        self.process = None
        self._log = None

    @property
    def url(self):
        return f"http://127.0.0.1:{self.port}"

    def start(self, timeout=30.0):
        """Start the server and wait until each of its processes is subscribed to Redis."""
        argv = [sys.executable, str(MANAGE_PY), self.command, "--port", str(self.port)]
        for name, value in self.options.items():
            flag = f"--{name.replace('_', '-')}"
            argv += [flag] if value is True else [flag, str(value)]  # True: a switch
        env = {
            **os.environ,
            "REDIS_URL": self.redis_url,
            "REDIS_CLUSTER": "true" if self.cluster else "false",
            **self.env,
        }
        self._log = open(self.log_path, "ab") if self.log_path else subprocess.DEVNULL
        self.process = subprocess.Popen(argv, env=env, stdout=self._log, stderr=self._log)
        # With --processes N, each process subscribes on its own and /health answers from
        # whichever took the connection: wait until every one has said it is subscribed,
        # else a status posted now may reach one process and not another.
        subscribed = set()

        def every_process_subscribed(health):
            if health["subscribed"]:
                subscribed.add(health["pid"])
            return len(subscribed) >= int(self.options["processes"])

        self.wait_until(every_process_subscribed, timeout, "to subscribe to Redis")
        return self

    def health(self):
        """The /health answer as a dict, or None if the server does not answer."""
        try:
            with urllib.request.urlopen(f"{self.url}/health", timeout=2) as response:  # noqa: S310
                return json.load(response)
        except urllib.error.HTTPError as error:
            return json.load(error)
        except OSError:
            return None

    def wait_until(self, condition, timeout=10.0, what="to get there"):
        """Poll /health until ``condition(health)`` holds; return that health."""
        deadline = time.monotonic() + timeout
        while True:
            if self.process.poll() is not None:
                raise RuntimeError(f"the stream server exited with code {self.process.returncode}")
            health = self.health()
            if health is not None and condition(health):
                return health
            if time.monotonic() > deadline:
                raise TimeoutError(f"the stream server took over {timeout} s {what}: {health}")
            time.sleep(0.05)

    def pids(self):
        """The server's process ids: the process started, and its children (the
        server processes of ``--processes N``; Linux)."""
        pid = self.process.pid
        try:
            children = Path(f"/proc/{pid}/task/{pid}/children").read_text().split()
        except OSError:
            children = []
        return [pid, *(int(child) for child in children)]

    def rss_bytes(self):
        """The server's resident memory, its children's included (Linux), or None."""
        total = None
        for pid in self.pids():
            try:
                for line in Path(f"/proc/{pid}/status").read_text().splitlines():
                    if line.startswith("VmRSS:"):
                        total = (total or 0) + int(line.split()[1]) * 1024
            except OSError:
                continue
        return total

    def cpu_seconds(self):
        """CPU time (user + system) the server has used so far, its live children's
        included (Linux), or None."""
        total = None
        for pid in self.pids():
            try:
                fields = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()
            except OSError:
                continue
            # utime and stime are fields 14 and 15 of proc(5), counted from the pid.
            total = (total or 0) + (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
        return total

    def stop(self, timeout=15.0):
        """SIGTERM, as a supervisor would; SIGKILL if it will not stop. The exit code."""
        if self.process is None:
            return None
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        if self._log not in (None, subprocess.DEVNULL):
            self._log.close()
        return self.process.returncode


class StreamClosed(Exception):
    """The server closed the connection without ending the response (a dropped client)."""


class StreamConnection:
    """One HTTP/1.1 request on a raw socket, its response read as the bytes arrive.

    Decodes chunked transfer encoding by hand, so that tests see what a client sees:
    the status line, the headers, each line of the body as it comes, the final chunk
    (``ended``) or a connection cut without it (StreamClosed). ``source`` is the local
    address to connect from; ``tls`` an ssl.SSLContext to speak HTTPS with (a proxy's port).
    """

    def __init__(
        self,
        port,
        method,
        path,
        body=None,
        headers=None,
        host="127.0.0.1",
        timeout=10.0,
        receive_buffer=None,
        source=None,
        tls=None,
    ):
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        if source is not None:
            # Another loopback address (127.0.0.2, ...): another client, to the server.
            self.sock.bind((source, 0))
        if receive_buffer is not None:
            # Set before connecting, so that the TCP window is small from the start.
            self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, receive_buffer)
        self.sock.settimeout(timeout)
        self.sock.connect((host, port))
        if tls is not None:
            self.sock = tls.wrap_socket(self.sock, server_hostname=host)
        self.raw = bytearray()
        self.data = bytearray()
        self.eof = False
        self.ended = False
        self.chunked = False
        self.length = None
        body = body.encode() if isinstance(body, str) else body
        lines = [f"{method} {path} HTTP/1.1", f"Host: {host}:{port}"]
        for name, value in (headers or {}).items():
            lines.append(f"{name}: {value}")
        if body is not None:
            lines.append(f"Content-Length: {len(body)}")
        request = ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1") + (body or b"")
        self.sock.sendall(request)
        self.status, self.headers = self._read_head(timeout)

    def _receive(self, deadline):
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            raise TimeoutError("nothing more arrived in time")
        self.sock.settimeout(remaining)
        try:
            data = self.sock.recv(65536)
        except ConnectionResetError:
            data = b""
        except TimeoutError:
            raise TimeoutError("nothing more arrived in time") from None
        if not data:
            self.eof = True
        self.raw += data

    def _read_head(self, timeout):
        deadline = time.monotonic() + timeout
        while b"\r\n\r\n" not in self.raw:
            if self.eof:
                raise StreamClosed("closed before the response headers")
            self._receive(deadline)
        head, _, rest = bytes(self.raw).partition(b"\r\n\r\n")
        self.raw = bytearray(rest)
        status_line, *header_lines = head.decode("latin-1").split("\r\n")
        headers = {}
        for line in header_lines:
            name, _, value = line.partition(":")
            headers[name.strip().lower()] = value.strip()
        self.chunked = headers.get("transfer-encoding", "").lower() == "chunked"
        if "content-length" in headers:
            self.length = int(headers["content-length"])
        return int(status_line.split()[1]), headers

    def _decode(self):
        """Move what has arrived from ``raw`` to ``data``, undoing the chunking."""
        if not self.chunked:
            self.data += self.raw
            self.raw.clear()
            if self.length is not None and len(self.data) >= self.length:
                self.ended = True
            return
        while not self.ended:
            size_end = self.raw.find(b"\r\n")
            if size_end < 0:
                return
            size = int(bytes(self.raw[:size_end]).split(b";")[0], 16)
            if size == 0:
                if len(self.raw) < size_end + 4:
                    return
                self.ended = True
                del self.raw[: size_end + 4]
                return
            if len(self.raw) < size_end + 2 + size + 2:
                return
            self.data += self.raw[size_end + 2 : size_end + 2 + size]
            del self.raw[: size_end + 2 + size + 2]

    def read_line(self, timeout=10.0):
        """The next line of the body ('' for a blank one), or None at its end.

        Raises TimeoutError when none comes in time, StreamClosed when the server
        closed the connection without ending the response.
        """
        deadline = time.monotonic() + timeout
        while True:
            self._decode()
            newline = self.data.find(b"\n")
            if newline >= 0:
                line = bytes(self.data[:newline]).decode()
                del self.data[: newline + 1]
                return line
            if self.ended:
                return None
            if self.eof:
                raise StreamClosed("the server closed the connection mid-response")
            self._receive(deadline)

    def read_json(self, timeout=10.0):
        """The next JSON line, skipping keep-alives; None at the end of the stream."""
        deadline = time.monotonic() + timeout
        while True:
            line = self.read_line(max(0.0, deadline - time.monotonic()))
            if line is None:
                return None
            if line.strip():
                return json.loads(line)

    def read_body(self, timeout=10.0):
        """The whole body of a response that ends (an error's text)."""
        deadline = time.monotonic() + timeout
        while True:
            self._decode()
            if self.ended or self.eof:
                return bytes(self.data).decode()
            self._receive(deadline)

    def read_event(self, timeout=10.0):
        """The next Server-Sent Event as (event, data), skipping comments and fields
        other than event and data; None at the end of the stream."""
        deadline = time.monotonic() + timeout
        kind, data = "message", []
        while True:
            line = self.read_line(max(0.0, deadline - time.monotonic()))
            if line is None:
                return None
            if line == "":
                if data:
                    return kind, "\n".join(data)
                kind = "message"
                continue
            field, _, value = line.partition(":")
            value = value.removeprefix(" ")
            if field == "event":
                kind = value
            elif field == "data":
                data.append(value)

    def read_identified_event(self, timeout=10.0):
        """The next Server-Sent Event as (event, data, id), comments and keep-alives
        read past (id: the event's ``id`` field, None without one); None at the end."""
        deadline = time.monotonic() + timeout
        kind, data, event_id = "message", [], None
        while True:
            line = self.read_line(max(0.0, deadline - time.monotonic()))
            if line is None:
                return None
            if line == "":
                if data:
                    return kind, "\n".join(data), event_id
                kind, event_id = "message", None
                continue
            field, _, value = line.partition(":")
            value = value.removeprefix(" ")
            if field == "event":
                kind = value
            elif field == "data":
                data.append(value)
            elif field == "id":
                event_id = value

    def close(self):
        self.sock.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc_info):
        self.close()

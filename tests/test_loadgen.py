"""The benchmarks' load generator against a real HTTP server on a real socket, and how
bench_web splits its latencies by gunicorn worker."""

import http.server
import os
import shutil
import socket
import threading

import pytest

from socialsite.benchmarks import loadgen
from timeline.management.commands.bench_web import connection_owners, per_worker


class _KeepAliveHandler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"  # keep-alive
    disable_nagle_algorithm = True  # the body is a write of its own

    def do_GET(self):
        body = b"ok"
        self.send_response(200)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


@pytest.fixture
def server():
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _KeepAliveHandler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield httpd.server_address[1]
    httpd.shutdown()
    httpd.server_close()


def test_every_latency_is_kept_by_the_connection_that_waited_for_it(server):
    request = loadgen.build_request("GET", "/", f"127.0.0.1:{server}")
    result = loadgen.run("127.0.0.1", server, request, connections=3, seconds=3, max_requests=300)
    assert result.errors == 0 and result.statuses[200] == result.requests > 0
    assert len(result.latencies_by_port) == 3  # three kept-alive connections
    by_port = sorted(t for latencies in result.latencies_by_port.values() for t in latencies)
    assert by_port == sorted(result.latencies)


def test_latencies_split_by_the_worker_holding_each_connection():
    latencies = {5001: [0.010, 0.030], 5002: [0.020], 5003: [0.100, 0.300]}
    owners = {5001: 11, 5002: 11, 5003: 22, 5004: 33}  # 5004 answered nothing
    assert per_worker(latencies, owners, [11, 22, 33]) == [
        (2, 20.0, 30.0),  # nearest rank: p50 of 10, 20, 30 ms is 20
        (1, 100.0, 300.0),
    ]


@pytest.mark.skipif(not shutil.which("ss"), reason="ss (Debian: iproute2) is not installed")
def test_the_connections_of_a_port_are_found_with_their_process(server):
    with socket.create_connection(("127.0.0.1", server)) as sock:
        client_port = sock.getsockname()[1]
        sock.sendall(loadgen.build_request("GET", "/", f"127.0.0.1:{server}"))
        assert sock.recv(1024).startswith(b"HTTP/1.1 200")  # accepted by now
        owners = connection_owners(server)
    assert owners == {client_port: os.getpid()}  # the server's threads are this process

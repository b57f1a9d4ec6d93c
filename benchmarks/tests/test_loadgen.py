"""The benchmarks' load generator against a real HTTP server on a real socket, how
bench_web splits its latencies by gunicorn worker, how it reads wrk's output, and the
logged-in readers of its --in-process --spread measurement."""

import gc
import http.server
import os
import shutil
import socket
import threading

import pytest
from django.core.management import CommandError, call_command

from benchmarks import loadgen
from benchmarks.web import (
    connection_owners,
    in_process_getter,
    logged_in_cookies,
    parse_wrk,
    per_worker,
)
from socialsite.repository import graph, statuses


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


def test_objects_alive_before_the_run_are_left_out_of_full_collections_during_it(server):
    # A full collection over all of Django paused the generator for 33 to 47 ms, holding
    # up every connection's answer at once: the objects alive at the start are frozen.
    request = loadgen.build_request("GET", "/", f"127.0.0.1:{server}")

    def run():
        frozen_during_run = []
        loadgen.run(
            "127.0.0.1", server, request, connections=2, seconds=0.5, warmup=0.1,
            on_measurement_start=lambda: frozen_during_run.append(gc.get_freeze_count()),
        )  # fmt: skip
        return frozen_during_run[0]

    # (Whatever an earlier test froze, importing socialsite.wsgi for one, is let go
    # first: what is asserted is what the run does.)
    gc.unfreeze()
    assert run() > 0
    assert gc.get_freeze_count() == 0  # given back to the collector afterwards
    # A caller's freeze from before the run stays (frozen objects may be freed meanwhile:
    # the count is not compared, only that nothing was unfrozen).
    gc.freeze()
    try:
        assert run() > 0
        assert gc.get_freeze_count() > 0
    finally:
        gc.unfreeze()


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


# Two outputs of wrk 4.1 (Debian's), as bench_web runs it (--latency), against Python's
# http.server: the second asked for a page that is not there. Its "Socket errors" line
# is added here, worded and placed as wrk prints it when a connection fails (src/wrk.c).
WRK_OUTPUT = """Running 1s test @ http://127.0.0.1:18765/
  2 threads and 4 connections
  Thread Stats   Avg      Stdev     Max   +/- Stdev
    Latency     6.89ms    2.87ms  16.56ms   68.38%
    Req/Sec   287.33    135.10     0.87k    95.24%
  Latency Distribution
     50%    7.10ms
     75%    8.69ms
     90%   10.23ms
     99%   13.52ms
  601 requests in 1.10s, 840.46KB read
Requests/sec:    546.79
Transfer/sec:    764.65KB
"""
WRK_OUTPUT_NOT_FOUND = """Running 1s test @ http://127.0.0.1:18765/nothing-here
  1 threads and 2 connections
  Thread Stats   Avg      Stdev     Max   +/- Stdev
    Latency     1.57ms    0.95ms  13.48ms   88.79%
    Req/Sec     1.26k    98.09     1.37k    70.00%
  Latency Distribution
     50%    1.42ms
     75%    1.80ms
     90%    2.28ms
     99%    5.70ms
  1256 requests in 1.00s, 637.99KB read
  Socket errors: connect 0, read 3, write 0, timeout 1
  Non-2xx or 3xx responses: 1256
Requests/sec:   1253.39
Transfer/sec:    636.67KB
"""


def test_wrk_output_gives_the_rate_and_percentiles():
    result = parse_wrk(WRK_OUTPUT, cpu=0.25)
    assert result.requests == 601
    assert result.rate == pytest.approx(601 / 1.10)
    assert result.percentile(0.50) == pytest.approx(0.00710)
    assert result.percentile(0.99) == pytest.approx(0.01352)
    assert result.errors == 0
    assert result.statuses == {200: 601}
    assert result.client_cpu_share == pytest.approx(0.25 / 1.10)


def test_wrk_output_counts_error_answers_and_socket_errors():
    result = parse_wrk(WRK_OUTPUT_NOT_FOUND, cpu=0.1)
    assert result.statuses == {"non-2xx/3xx": 1256, 200: 0}
    assert result.errors == 4  # 3 read errors and a timeout


def test_a_spread_reader_is_logged_in_as_the_login_view_logs_people_in(r, alice, bob):
    graph.follow(r, alice["id"], bob["id"])
    statuses.post_status(r, bob["id"], "hello from bob")
    cookies = logged_in_cookies(alice["id"])
    assert f"sessionid={alice['id']}." in cookies and "csrftoken=" in cookies
    page = in_process_getter()("/", cookies).decode()
    assert 'aria-label="Account menu of @alice"' in page and "hello from bob" in page


@pytest.mark.parametrize(
    "options",
    [
        {"spread": 5},  # not --in-process
        {"spread": 5, "in_process": True, "redis_url": "redis://127.0.0.1:1/0"},
        {"spread": 50, "in_process": True, "spread_users": 20},
    ],
)
def test_spread_needs_in_process_a_throwaway_redis_and_enough_users(options):
    # Refused before anything starts: the demo network would replace a given server's data.
    with pytest.raises(CommandError, match="--spread needs --in-process"):
        call_command("bench_web", **options)

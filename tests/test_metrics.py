"""GET /metrics (socialsite/metrics_page.py), what the web processes count
(socialsite/metrics.py), the request log and the request id (socialsite/request_log.py)."""

import contextlib
import io
import json
import logging
import time

import pytest
from django.test import Client
from prometheus_client.parser import text_string_to_metric_families

from socialsite import metrics_page
from socialsite.repository import client as repository_client
from socialsite.repository import eviction, graph, jobs, keys, mail, statuses
from socialsite.request_log import JsonFormatter
from tests.support.helpers import log_in, make_user

OUTSIDE = "203.0.113.7"


@pytest.fixture(autouse=True)
def fresh_reading():
    """What the page read from Redis is kept a few seconds: each test reads anew."""
    metrics_page._reading.forget()
    yield
    metrics_page._reading.forget()


@contextlib.contextmanager
def redis_down():
    """Django code meets a Redis that does not answer (nothing listens on port 1)."""
    from socialsite import connection

    working = connection.get_redis()
    connection.use_redis(repository_client.connect("redis://127.0.0.1:1/0", timeout=0.2))
    try:
        yield
    finally:
        connection.use_redis(working)


def scrape(client=None, **headers):
    response = (client or Client()).get("/metrics", **headers)
    assert response.status_code == 200, response.status_code
    assert response["Content-Type"].startswith("text/plain; version=")
    return {
        (sample.name, tuple(sorted(sample.labels.items()))): sample.value
        for family in text_string_to_metric_families(response.content.decode())
        for sample in family.samples
    }


def value(samples, name, **labels):
    return samples.get((name, tuple(sorted(labels.items()))), 0)


# --- who may read them ------------------------------------------------------------------


def test_loopback_reads_the_metrics():
    scrape()


def test_another_address_gets_404_with_no_sign_of_them():
    response = Client(REMOTE_ADDR=OUTSIDE).get("/metrics")
    assert response.status_code == 404
    assert b"socialsite_" not in response.content


def test_the_token_opens_them_from_anywhere(settings):
    settings.METRICS_TOKEN = "s3cret-token"
    outside = Client(REMOTE_ADDR=OUTSIDE)
    assert outside.get("/metrics", HTTP_AUTHORIZATION="Bearer s3cret-token").status_code == 200
    assert outside.get("/metrics", HTTP_AUTHORIZATION="Bearer wrong").status_code == 404
    assert outside.get("/metrics", HTTP_AUTHORIZATION="s3cret-token").status_code == 404


def test_no_token_set_means_no_token_opens_them(settings):
    settings.METRICS_TOKEN = ""
    response = Client(REMOTE_ADDR=OUTSIDE).get("/metrics", HTTP_AUTHORIZATION="Bearer ")
    assert response.status_code == 404


def test_allowed_networks_are_a_setting(settings):
    import ipaddress

    settings.METRICS_ALLOWED = [ipaddress.ip_network("203.0.113.0/24")]
    assert Client(REMOTE_ADDR=OUTSIDE).get("/metrics").status_code == 200
    assert Client().get("/metrics").status_code == 404  # loopback no longer listed


def test_behind_a_proxy_the_forwarded_address_counts_as_the_throttles_read_it(settings):
    settings.BEHIND_PROXY = True
    # The proxy is on loopback; the client it names is not.
    forwarded = Client(HTTP_X_FORWARDED_FOR=f"127.0.0.1, {OUTSIDE}")
    assert forwarded.get("/metrics").status_code == 404
    assert Client(HTTP_X_FORWARDED_FOR="127.0.0.1").get("/metrics").status_code == 200


def test_a_bad_allowed_network_stops_start_up(monkeypatch):
    import subprocess
    import sys

    from django.conf import settings

    monkeypatch.setenv("METRICS_ALLOWED", "127.0.0.1,not-a-network")
    monkeypatch.setenv("DJANGO_SETTINGS_MODULE", "tests.settings")
    result = subprocess.run(
        [sys.executable, "-c", "import django; django.setup()"],
        cwd=settings.BASE_DIR, capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert result.returncode != 0
    assert "METRICS_ALLOWED must list addresses or networks" in result.stderr


# --- what the web processes count -------------------------------------------------------


def test_requests_are_counted_by_view_and_status_class_with_their_latency():
    before = scrape()
    client = Client()
    for _ in range(3):
        client.get("/healthz")
    client.get("/no-such-page/")
    after = scrape()
    count = "socialsite_http_request_duration_seconds_count"
    assert (
        value(after, count, view="healthz", status="2xx")
        - value(before, count, view="healthz", status="2xx")
        == 3
    )
    assert (
        value(after, count, view="unmatched", status="4xx")
        - value(before, count, view="unmatched", status="4xx")
        == 1
    )
    bucket = "socialsite_http_request_duration_seconds_bucket"
    assert value(after, bucket, view="healthz", status="2xx", le="+Inf") == value(
        after, count, view="healthz", status="2xx"
    )


def test_redis_round_trips_are_counted_per_view(r, client, round_trips):
    make_user(r, "reader")
    log_in(client, "reader")
    client.get("/")
    before = scrape()
    round_trips["n"] = 0
    client.get("/")
    made = round_trips["n"]
    assert made >= 1
    after = scrape()
    name = "socialsite_redis_round_trips_total"
    assert value(after, name, view="home") - value(before, name, view="home") == made


def test_a_redis_outage_is_counted(r):
    name, error = "socialsite_redis_errors_total", {"error": "ConnectionError"}
    before = value(scrape(), name, **error)
    with redis_down():
        assert Client().get("/explore/").status_code == 503
    assert value(scrape(), name, **error) == before + 1


@pytest.mark.urls("tests.support.throttled_urls")
def test_throttle_refusals_are_counted_by_throttle(settings):
    settings.THROTTLES = {**settings.THROTTLES, "search": (1, 60)}
    before = value(scrape(), "socialsite_throttle_refusals_total", throttle="search")
    outside = Client(REMOTE_ADDR=OUTSIDE)
    assert outside.get("/_test/search/?q=a").status_code == 200
    assert outside.get("/_test/search/?q=a").status_code == 429
    assert outside.get("/_test/search/?q=a").status_code == 429
    after = value(scrape(), "socialsite_throttle_refusals_total", throttle="search")
    assert after == before + 2


# --- read from Redis when scraped -------------------------------------------------------


def test_redis_memory_clients_and_persistence_are_read_from_info(r, redis_backend):
    samples = scrape()
    assert value(samples, "socialsite_redis_up") == 1
    nodes = {
        dict(labels)["node"]
        for (name, labels) in samples
        if name == "socialsite_redis_used_memory_bytes"
    }
    assert len(nodes) == (len(redis_backend.nodes) if redis_backend.cluster else 1)
    node = sorted(nodes)[0]
    assert value(samples, "socialsite_redis_used_memory_bytes", node=node) > 0
    assert value(samples, "socialsite_redis_connected_clients", node=node) >= 1
    info = r.info() if not redis_backend.cluster else None
    if info is not None:
        assert value(samples, "socialsite_redis_maxmemory_bytes", node=node) == info["maxmemory"]
        assert value(samples, "socialsite_redis_aof_enabled", node=node) == info["aof_enabled"]
    assert value(samples, "socialsite_redis_aof_last_write_ok", node=node) == 1


def test_what_redis_says_is_kept_a_few_seconds(r):
    jobs.ensure_group(r)
    assert value(scrape(), "socialsite_fanout_jobs_waiting") == 0
    jobs.enqueue(r, {"kind": "refill", "uid": 1})
    assert value(scrape(), "socialsite_fanout_jobs_waiting") == 0  # read a moment ago
    metrics_page._reading.forget()
    assert value(scrape(), "socialsite_fanout_jobs_waiting") == 1


def test_fanout_backlog_lag_throughput_and_dead_letters(r):
    jobs.ensure_group(r)
    queued_ms = int(time.time() * 1000) - 90_000
    r.xadd(keys.JOBS, {"job": json.dumps({"kind": "refill", "uid": 1})}, id=f"{queued_ms}-0")
    jobs.enqueue(r, {"kind": "refill", "uid": 2}, {"kind": "refill", "uid": 3})
    taken = jobs.read(r, "worker-a", count=2, block_ms=None)
    jobs.complete(r, taken[1])
    jobs.complete(r, taken[1])  # as a worker that claimed it from a slow one would
    r.xadd(keys.DEAD_JOBS, {"job": json.dumps({"kind": "refill", "uid": 4}), "error": "x"})
    jobs.note_alive(r, "worker-a")
    jobs.note_alive(r, "worker-b", now=time.time() - 61)  # stopped a minute ago
    mail.note_alive(r, "worker-a")
    samples = scrape()
    assert value(samples, "socialsite_fanout_jobs_waiting") == 1
    assert value(samples, "socialsite_fanout_jobs_in_flight") == 1
    assert 90 <= value(samples, "socialsite_fanout_lag_seconds") < 120
    assert value(samples, "socialsite_fanout_dead_letters") == 1
    assert value(samples, "socialsite_fanout_workers") == 1
    assert value(samples, "socialsite_mail_senders") == 1
    assert value(samples, "socialsite_fanout_jobs_completed_total") == 1


def test_the_mail_queue(r):
    mail.queue(r, {"kind": "verify", "uid": 1})
    mail.queue(r, {"kind": "verify", "uid": 2})
    r.xadd(keys.DEAD_MAIL, {"job": json.dumps({"kind": "verify", "uid": 3}), "error": "x"})
    samples = scrape()
    assert value(samples, "socialsite_mail_waiting") == 2
    assert value(samples, "socialsite_mail_dead_letters") == 1
    assert mail.send_waiting(r, "sender", send=lambda message: None, count=1) == 1
    metrics_page._reading.forget()
    samples = scrape()
    assert value(samples, "socialsite_mail_waiting") == 1
    assert value(samples, "socialsite_mail_sent_total") == 1


def test_redis_unreachable_is_reported_not_a_500(r):
    with redis_down():
        samples = scrape()
    assert value(samples, "socialsite_redis_up") == 0
    assert value(samples, "socialsite_redis_used_memory_bytes") == 0


# --- the request log and the request id -------------------------------------------------


def test_every_response_has_a_request_id():
    first, second = Client().get("/healthz"), Client().get("/healthz")
    assert len(first["X-Request-Id"]) == 16
    assert first["X-Request-Id"] != second["X-Request-Id"]


def test_a_proxys_request_id_is_kept_only_behind_a_proxy(settings):
    given = "0123456789abcdef0123456789abcdef"
    assert Client().get("/healthz", HTTP_X_REQUEST_ID=given)["X-Request-Id"] != given
    settings.BEHIND_PROXY = True
    assert Client().get("/healthz", HTTP_X_REQUEST_ID=given)["X-Request-Id"] == given
    hostile = Client().get("/healthz", HTTP_X_REQUEST_ID="<script>")["X-Request-Id"]
    assert hostile != "<script>" and len(hostile) == 16


def test_a_404_page_shows_the_request_id():
    response = Client().get("/no-such-page/")
    assert response.status_code == 404
    assert response["X-Request-Id"] in response.content.decode()


def test_a_500_page_shows_the_request_id(settings):
    settings.ROOT_URLCONF = "tests.support.failing_urls"
    response = Client(raise_request_exception=False).get("/_test/fail/")
    assert response.status_code == 500
    assert response["X-Request-Id"] in response.content.decode()


def test_a_400_and_a_403_page_show_the_request_id(r):
    # A CSRF failure (403) and a bad request (400): a form posted without its token,
    # and a Host header the site does not answer to.
    csrf = Client(enforce_csrf_checks=True).post("/accounts/login/", {"username": "x"})
    assert csrf.status_code == 403
    assert csrf["X-Request-Id"] in csrf.content.decode()
    bad = Client(raise_request_exception=False).get("/", HTTP_HOST="evil.example")
    assert bad.status_code == 400
    assert bad["X-Request-Id"] in bad.content.decode()


def test_one_log_line_per_request_with_its_figures(r, client, caplog, round_trips):
    make_user(r, "reader")
    log_in(client, "reader")
    client.get("/")
    caplog.clear()
    round_trips["n"] = 0
    with caplog.at_level(logging.INFO, logger="socialsite.requests"):
        response = client.get("/")
    made = round_trips["n"]
    (line,) = [record for record in caplog.records if record.name == "socialsite.requests"]
    assert line.request_id == response["X-Request-Id"]
    assert (line.method, line.path, line.view, line.status) == ("GET", "/", "home", 200)
    assert line.redis_round_trips == made
    assert line.duration_ms >= 0
    text = line.getMessage()
    assert text.startswith("GET / home 200 ")
    assert f"redis={made} id={response['X-Request-Id']}" in text


def test_json_logs_carry_the_request_and_the_lines_logged_while_serving_it(settings):
    settings.ROOT_URLCONF = "tests.support.failing_urls"
    written = io.StringIO()
    handler = logging.StreamHandler(written)
    handler.setFormatter(JsonFormatter())
    root = logging.getLogger()
    root.addHandler(handler)
    try:
        response = Client(raise_request_exception=False).get("/_test/fail/")
    finally:
        root.removeHandler(handler)
    entries = [json.loads(line) for line in written.getvalue().splitlines()]
    request_line = next(e for e in entries if e["logger"] == "socialsite.requests")
    assert request_line["request_id"] == response["X-Request-Id"]
    assert request_line["status"] == 500 and request_line["view"] == "failing"
    assert {"time", "level", "message", "duration_ms", "redis_round_trips", "path"} <= set(
        request_line
    )
    traceback = next(e for e in entries if e["logger"] == "django.request")
    assert traceback["request_id"] == response["X-Request-Id"]
    assert "RuntimeError: on purpose" in traceback["exception"]


# --- gunicorn's workers, counted together -----------------------------------------------


def test_gunicorn_workers_are_counted_together_and_a_new_start_empties_the_directory(
    redis_backend, tmp_path
):
    """Two sync workers with socialsite/gunicorn_conf.py: whichever answers the scrape
    reports the requests both served; files of an earlier run are gone."""
    import http.client
    import os
    import signal
    import subprocess
    import sys

    from django.conf import settings

    from socialsite_dev.ports import free_port

    metrics_dir = tmp_path / "metrics"
    stale = metrics_dir / "web" / "counter_999999.db"
    stale.parent.mkdir(parents=True)
    stale.write_bytes(b"an earlier run's")
    port = free_port()
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "tests.settings",
        "REDIS_URL": redis_backend.url,
        "REDIS_CLUSTER": "true" if redis_backend.cluster else "false",
        "METRICS_DIR": str(metrics_dir),
    }
    env.pop("PROMETHEUS_MULTIPROC_DIR", None)  # the settings derive it from METRICS_DIR
    server = subprocess.Popen(
        [sys.executable, "-m", "gunicorn", "-c", "python:socialsite.gunicorn_conf",
         "--bind", f"127.0.0.1:{port}", "--workers", "2", "socialsite.wsgi"],
        cwd=settings.BASE_DIR, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip

    def get(path):
        connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
        try:
            connection.request("GET", path)
            response = connection.getresponse()
            return response.status, response.read().decode()
        finally:
            connection.close()

    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                assert get("/healthz")[0] == 200
                break
            except OSError:
                assert time.monotonic() < deadline, "gunicorn did not start"
                time.sleep(0.2)
        assert not stale.exists()
        import socket

        served, files = 1, set()
        for _ in range(10):
            # A connection that sends nothing keeps one sync worker waiting on it: the
            # requests meanwhile go to the other.
            with socket.create_connection(("127.0.0.1", port)):
                time.sleep(0.2)
                for _ in range(5):
                    assert get("/healthz")[0] == 200
                    served += 1
            time.sleep(1.2)  # each worker writes its counts every second
            files = {f.name for f in (metrics_dir / "web").glob("histogram_*.db")}
            if len(files) == 2:
                break
        assert len(files) == 2, "both workers served requests"
        count = 'socialsite_http_request_duration_seconds_count{status="2xx",view="healthz"}'
        status, body = get("/metrics")
        assert status == 200
        assert f"{count} {float(served)}" in body
        # Another scrape, whichever worker answers, reports the same.
        assert f"{count} {float(served)}" in get("/metrics")[1]
    finally:
        server.send_signal(signal.SIGTERM)
        server.wait(timeout=30)


@pytest.mark.parametrize("log_format", ["json", "text"])
def test_log_format_chooses_the_lines_of_every_process(log_format, monkeypatch):
    import subprocess
    import sys

    from django.conf import settings

    monkeypatch.setenv("LOG_FORMAT", log_format)
    monkeypatch.setenv("DJANGO_SETTINGS_MODULE", "tests.settings")
    script = "import django, logging; django.setup(); logging.getLogger('x').warning('hi %s', 1)"
    result = subprocess.run(
        [sys.executable, "-c", script], cwd=settings.BASE_DIR, capture_output=True, text=True,
        timeout=60, check=True,
    )  # fmt: skip
    line = result.stderr.strip().splitlines()[-1]
    if log_format == "json":
        entry = json.loads(line)
        assert (entry["level"], entry["logger"], entry["message"]) == ("WARNING", "x", "hi 1")
    else:
        assert line == "hi 1"


def test_the_pulled_accounts(r):
    samples = scrape()
    assert value(samples, "socialsite_timelines_pulled_accounts") == 0
    star = make_user(r, "star")["id"]
    for n in range(3):
        graph.follow(r, make_user(r, f"fan{n}")["id"], star)
    statuses.post_status(r, star, "registers the account", pull_followers=3)
    statuses.post_status(r, star, "pulled", pull_followers=3)
    metrics_page._reading.forget()
    samples = scrape()
    assert value(samples, "socialsite_timelines_pulled_accounts") == 1
    assert value(samples, "socialsite_timelines_registered_accounts") == 1
    assert value(samples, "socialsite_timelines_pulled_statuses") == 1


def test_the_evicted_homes(r):
    samples = scrape()
    assert value(samples, "socialsite_timelines_evicted_homes") == 0
    away = make_user(r, "away")["id"]
    eviction.note_seen(r, away, time.time() - 60 * 86400)
    assert eviction.sweep(r, 30 * 86400) == 1
    metrics_page._reading.forget()
    assert value(scrape(), "socialsite_timelines_evicted_homes") == 1


@pytest.mark.parametrize("formatter", ["text", "json"])
def test_no_mailed_links_secret_nor_token_reaches_the_log(r, formatter):
    # The console handler as settings.LOGGING makes it, writing here for the test.
    (handler,) = [h for h in logging.getLogger().handlers if h.name == "console"]
    written = io.StringIO()
    old_stream, old_formatter = handler.setStream(written), handler.formatter
    if formatter == "json":
        handler.setFormatter(JsonFormatter())
    secrets = ["eyJ1aWQiOjF9SECRETVERIFY", "c1x2y3-SECRETRESET", "SECRETACCESSTOKEN"]
    try:
        client = Client(raise_request_exception=False)
        client.get(f"/accounts/verify/{secrets[0]}/")
        client.get(f"/accounts/reset/MQ/{secrets[1]}/")
        client.get(f"/api/v1/accounts/verify_credentials?access_token={secrets[2]}")
    finally:
        handler.setStream(old_stream)
        handler.setFormatter(old_formatter)
    logged = written.getvalue()
    assert "/accounts/verify/[redacted]/" in logged and "/accounts/reset/MQ/[redacted]/" in logged
    for secret in secrets:
        assert secret not in logged

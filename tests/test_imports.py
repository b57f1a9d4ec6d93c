"""Imports point one way: the contracts of pyproject.toml's [tool.importlinter], checked
by import-linter (``lint-imports`` from the project's root does the same)."""

import subprocess
import sys
from pathlib import Path

import pytest

PYPROJECT = Path(__file__).resolve().parent.parent / "pyproject.toml"


def test_the_import_contracts_are_kept():
    pytest.importorskip("importlinter.cli", reason="import-linter is not installed")
    # In a process of its own: import-linter configures logging, which would silence the
    # site's loggers for the tests run after it in this one.
    done = subprocess.run(
        [sys.executable, "-c", "import sys; from importlinter.cli import lint_imports_command;"
         " sys.exit(lint_imports_command())", "--config", str(PYPROJECT), "--no-cache"],
        cwd=PYPROJECT.parent, capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr

"""Imports point one way: the contracts of pyproject.toml's [tool.importlinter], checked
by import-linter (``lint-imports`` from the project's root does the same)."""

from pathlib import Path

import pytest

PYPROJECT = Path(__file__).resolve().parent.parent / "pyproject.toml"


def test_the_import_contracts_are_kept(monkeypatch, capsys):
    cli = pytest.importorskip("importlinter.cli", reason="import-linter is not installed")
    monkeypatch.chdir(PYPROJECT.parent)
    status = cli.lint_imports(config_filename=str(PYPROJECT), no_cache=True, no_logo=True)
    assert status == 0, capsys.readouterr().out

"""Client libraries nobody here wrote, run by Node against a live server (masto.js,
megalodon): each pinned by a package-lock.json under tests/<name>/ and installed with
``npm ci`` into var/<name>/ (ignored by git), npm's cache in var/npm-cache/. The first
run downloads the packages from the npm registry, later runs reuse them (again only
when the lock file changed). Without Node or npm, or when ``npm ci`` cannot fetch the
packages, the test is skipped with the reason (./run-tests installs no Node: Node 20 is
the machine's)."""

import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
NPM_CACHE = ROOT / "var" / "npm-cache"


def installed(name, label, scripts):
    """Node's path, once var/``name``/ holds the packages of tests/``name``/ and its
    ``scripts`` (copied afresh each time); a skip saying why ``label`` cannot run
    otherwise."""
    source, work = ROOT / "tests" / name, ROOT / "var" / name
    node, npm = shutil.which("node"), shutil.which("npm")
    if node is None or npm is None:
        pytest.skip(f"{label} cannot run: Node.js and npm are not installed (Node 20: apt)")
    work.mkdir(parents=True, exist_ok=True)
    lock = (source / "package-lock.json").read_text()
    stamp = work / "installed-lock.json"
    if not (work / "node_modules").is_dir() or not stamp.exists() or stamp.read_text() != lock:
        for file in ("package.json", "package-lock.json"):
            shutil.copyfile(source / file, work / file)
        done = subprocess.run(
            [npm, "ci", "--no-audit", "--no-fund", "--prefer-offline", "--cache", str(NPM_CACHE)],
            cwd=work, capture_output=True, text=True, timeout=600, check=False,
        )  # fmt: skip
        if done.returncode != 0:
            pytest.skip(f"{label} cannot run: npm ci failed (no network, and no cache yet?): "
                        f"{done.stderr[-800:]}")  # fmt: skip
        stamp.write_text(lock)
    for script in scripts:
        shutil.copyfile(source / script, work / script)
    return node

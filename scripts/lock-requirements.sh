#!/usr/bin/env bash
# Pin every dependency, with hashes, into requirements.lock and requirements-dev.lock,
# from requirements.txt and requirements-dev.txt. Run after changing either; ./run and
# ./run-tests install from the lock files.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/setup-venv.sh
setup_venv requirements-dev.lock
.venv/bin/python -m pip install --quiet --disable-pip-version-check "pip-tools~=7.6"
for name in requirements requirements-dev; do
    .venv/bin/pip-compile --quiet --generate-hashes --allow-unsafe --strip-extras \
        --no-emit-index-url --no-emit-find-links \
        --output-file "$name.lock" "$name.txt"
done

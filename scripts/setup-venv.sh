# Sourced by ./run and ./run-tests: make .venv with Python 3.11+ and install the
# pinned requirements (a lock file: exact versions and their hashes) into it, again
# only when a lock file changed.
# Usage: setup_venv requirements.lock
setup_venv() {
    local requirements="$1"
    local python="${PYTHON:-}"
    if [ -z "$python" ]; then
        for candidate in python3.11 python3.12 python3.13 python3; do
            if command -v "$candidate" >/dev/null 2>&1 &&
                "$candidate" -c 'import sys; sys.exit(sys.version_info < (3, 11))'; then
                python="$candidate"
                break
            fi
        done
    fi
    if [ -z "$python" ]; then
        echo "socialsite needs Python 3.11 or newer (set PYTHON=/path/to/python3.11)." >&2
        return 1
    fi
    if [ ! -x .venv/bin/python ]; then
        echo "Creating .venv with $python ..."
        "$python" -m venv .venv
    fi
    local stamp=".venv/.installed-$(cat requirements*.lock | sha256sum | cut -c1-16)-$(basename "$requirements")"
    if [ ! -f "$stamp" ]; then
        echo "Installing $requirements into .venv ..."
        .venv/bin/python -m pip install --quiet --disable-pip-version-check --upgrade pip
        .venv/bin/python -m pip install --quiet --disable-pip-version-check --require-hashes -r "$requirements"
        touch "$stamp"
    fi
}

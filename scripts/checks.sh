#!/usr/bin/env bash
# The static checks CI runs besides the tests: lint, formatting, the import contracts
# (pyproject.toml, [tool.importlinter]), the types of the actions and the repository
# (pyproject.toml, [tool.mypy]) and Django's deployment checklist with a production-like
# environment.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/setup-venv.sh
setup_venv requirements-dev.lock

echo "== ruff check"
.venv/bin/ruff check .
echo "== ruff format --check"
.venv/bin/ruff format --check .
echo "== lint-imports"
.venv/bin/lint-imports
echo "== mypy"
.venv/bin/python -m mypy
echo "== manage.py check --deploy (docs/operating.md's production settings)"
# No Redis is reached: the checks read settings only. The secret is made for this run.
# Clean means clean: any warning fails, and nothing may be silenced.
output=$(
    SECRET_KEY="$(.venv/bin/python -c 'import secrets; print(secrets.token_urlsafe(50))')" \
    DEBUG=false ALLOWED_HOSTS=social.example.org HTTPS=true HSTS_PRELOAD=true BEHIND_PROXY=true \
    CSRF_TRUSTED_ORIGINS=https://social.example.org REDIS_URL=redis://127.0.0.1:6379/0 \
    STREAM_PUBLIC_URL=/stream SITE_URL=https://social.example.org \
    EMAIL_URL=smtp+tls://socialsite:password@mail.example.org:587 \
    .venv/bin/python manage.py check --deploy --fail-level WARNING 2>&1
) || { echo "$output"; exit 1; }
echo "$output"
if ! grep -q '(0 silenced)' <<<"$output"; then
    echo "check --deploy: checks are silenced (SILENCED_SYSTEM_CHECKS)" >&2
    exit 1
fi

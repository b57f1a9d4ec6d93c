"""deploy/'s example environment file, read as systemd reads it (the units' EnvironmentFile)
and as the backup's cron line reads it (a shell's ``set -a; . file``): both give the same
settings, and ``check --deploy`` is clean with them. The layout itself runs in
tests/test_deploy_nginx.py."""

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.test_production_settings import run

DEPLOY = Path(__file__).resolve().parents[1] / "deploy"
ENV_FILE = DEPLOY / "socialsite.env.example"


def systemd_environment(path):
    """KEY=VALUE lines as systemd's EnvironmentFile reads them: comments and blank lines
    skipped, one pair of surrounding double quotes removed."""
    env = {}
    for line in path.read_text().splitlines():
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        name, _, value = line.partition("=")
        if len(value) >= 2 and value[0] == value[-1] == '"':
            value = value[1:-1]
        env[name] = value
    return env


def shell_environment(path, names):
    script = f"set -a; . {path}; " + "; ".join(f'printf "%s\\0" "${name}"' for name in names)
    output = subprocess.run(
        ["bash", "-c", script], capture_output=True, text=True, check=True, env={}
    ).stdout
    return dict(zip(names, output.split("\0")[:-1], strict=True))


def test_the_example_environment_reads_the_same_in_systemd_and_in_a_shell():
    env = systemd_environment(ENV_FILE)
    assert {"SECRET_KEY", "REDIS_URL", "EMAIL_URL", "SITE_URL", "BEHIND_PROXY"} <= env.keys()
    assert shell_environment(ENV_FILE, list(env)) == env


def test_check_deploy_is_clean_with_the_example_environment(tmp_path):
    env = systemd_environment(ENV_FILE)
    env["DATA_DIR"] = str(tmp_path / "data")
    env["STATIC_ROOT"] = str(tmp_path / "static")
    result = run(["manage.py", "check", "--deploy", "--fail-level", "DEBUG"], env, tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "System check identified no issues (0 silenced)." in result.stdout


def test_every_unit_reads_the_environment_file_and_runs_from_the_checkout():
    for unit in sorted((DEPLOY / "systemd").glob("*.service")):
        text = unit.read_text()
        assert "EnvironmentFile=/etc/socialsite/socialsite.env\n" in text, unit.name
        assert "WorkingDirectory=/srv/socialsite\n" in text, unit.name
        assert "ExecStart=/srv/socialsite/.venv/bin/" in text, unit.name


def test_systemd_reads_every_unit_without_a_complaint(tmp_path):
    """``systemd-analyze verify`` (offline) on the units, their programs and environment
    file made this checkout's: an unknown key or a bad value is a complaint."""
    analyze = shutil.which("systemd-analyze")
    if analyze is None:
        pytest.skip("systemd-analyze is not installed (Debian's systemd package)")
    venv = Path(sys.executable).parent.parent
    names = []
    for unit in sorted((DEPLOY / "systemd").glob("*.service")):
        text = unit.read_text().replace("/srv/socialsite/.venv", str(venv))
        text = text.replace("/etc/socialsite/socialsite.env", str(ENV_FILE))
        name = unit.name.replace("@.", "@1.")  # an instance of the template
        (tmp_path / name).write_text(text)
        names.append(f"./{name}")
    result = subprocess.run(
        [analyze, "verify", "--man=no", *names],
        cwd=tmp_path, capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert (result.returncode, result.stdout + result.stderr) == (0, "")


NGINX_SITE = DEPLOY / "nginx" / "socialsite.conf"
# What would write a request's query string (an access token, an OAuth code or state).
WHOLE_REQUEST_VARIABLES = {"$request", "$request_uri", "$args", "$query_string", "$is_args"}


def nginx_directives(text, name):
    """The arguments of each ``name`` directive of nginx config ``text``, comments left
    out (a directive runs to its semicolon, over several lines)."""
    code = "\n".join(line.split("#", 1)[0] for line in text.splitlines())
    return [
        found.group(1).split()
        for found in re.finditer(rf"(?:^|[;{{}}\s]){name}\s+([^;]*);", code, re.MULTILINE)
    ]


def test_every_nginx_log_leaves_query_strings_and_mailed_links_secrets_out():
    text = NGINX_SITE.read_text()
    formats = {args[0]: " ".join(args[1:]) for args in nginx_directives(text, "log_format")}
    assert formats, "the site names its own log format"
    for name, fields in formats.items():
        written = re.findall(r"\$\w+", fields)
        leaks = [v for v in written if v in WHOLE_REQUEST_VARIABLES or v.startswith("$arg_")]
        assert not leaks, (name, fields)
        assert "$socialsite_logged_path" in written, name  # the map that hides links' tokens
    # Every server logs in one of them (a location without its own access_log inherits
    # its server's): none falls back to nginx's "combined".
    servers = text.count("server {")
    access_logs = nginx_directives(text, "access_log")
    assert len([a for a in access_logs if a[0] != "off"]) >= servers
    assert all(len(args) >= 2 and args[1] in formats for args in access_logs), access_logs
    assert all(args[1] == "crit" for args in nginx_directives(text, "error_log"))
    assert len(nginx_directives(text, "error_log")) == servers

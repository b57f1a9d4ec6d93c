"""Settings read from the environment, in processes of their own started as an operator
starts the site: with DEBUG off it refuses to start without SECRET_KEY or REDIS_URL,
HTTPS=true turns on what HTTPS needs, and `check --deploy` is clean with docs/operating.md's
production settings."""

import os
import subprocess
import sys

import pytest
from django.conf import settings

SECRET = "a-secret-key-made-for-this-test-only-0123456789-abcdefghijklmnopqrstuvwxyz"

# The README's production settings ("Running it in public").
PRODUCTION = {
    "SECRET_KEY": SECRET,
    "REDIS_URL": "redis://127.0.0.1:6379/0",
    "ALLOWED_HOSTS": "social.example.org",
    "CSRF_TRUSTED_ORIGINS": "https://social.example.org",
    "HTTPS": "true",
    "HSTS_PRELOAD": "true",
    "BEHIND_PROXY": "true",
    "STREAM_PUBLIC_URL": "/stream",
    "SITE_URL": "https://social.example.org",
    "EMAIL_URL": "smtp+tls://socialsite:pass%40word@mail.example.org:587",
}
MAIL = {"SITE_URL": PRODUCTION["SITE_URL"], "EMAIL_URL": PRODUCTION["EMAIL_URL"]}


def run(argv, env, tmp_path):
    """``python argv`` in the project with ``env`` and nothing else of this process's
    environment (the tests' own SECRET_KEY and REDIS_URL stay out)."""
    clean = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "DJANGO_SETTINGS_MODULE": "socialsite.settings",
        "DATA_DIR": str(tmp_path / "data"),
        **env,
    }
    return subprocess.run(
        [sys.executable, *argv], cwd=settings.BASE_DIR, env=clean,
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip


def import_settings(env, tmp_path, show="SECRET_KEY"):
    return run(["-c", f"import socialsite.settings as s; print(s.{show})"], env, tmp_path)


@pytest.mark.parametrize(
    ("env", "missing", "given"),
    [
        ({**MAIL}, ["SECRET_KEY", "REDIS_URL"], ["SITE_URL", "EMAIL_URL"]),
        ({"SECRET_KEY": SECRET, **MAIL}, ["REDIS_URL"], ["SECRET_KEY"]),
        ({"REDIS_URL": "redis://127.0.0.1:6379/0", **MAIL}, ["SECRET_KEY"], ["REDIS_URL"]),
        (
            {"DEBUG": "false", "SECRET_KEY": "", "REDIS_URL": "", **MAIL},
            ["SECRET_KEY", "REDIS_URL"],
            [],
        ),
        (
            {"SECRET_KEY": SECRET, "REDIS_URL": "redis://127.0.0.1:6379/0"},
            ["EMAIL_URL", "SITE_URL"],
            ["SECRET_KEY", "REDIS_URL"],
        ),
        (
            {
                "SECRET_KEY": SECRET,
                "REDIS_URL": "redis://127.0.0.1:6379/0",
                "SITE_URL": "https://a.example",
            },
            ["EMAIL_URL"],
            ["SITE_URL"],
        ),
    ],
)
def test_without_debug_the_site_refuses_to_start_naming_what_is_missing(
    env, missing, given, tmp_path
):
    result = import_settings(env, tmp_path)
    assert result.returncode != 0
    message = result.stderr.strip().splitlines()[-1]
    assert message.startswith("django.core.exceptions.ImproperlyConfigured: DEBUG is off")
    assert f"set {' and '.join(missing)}:" in message
    for name in given:
        assert f"{name} to" not in message
    assert "DEBUG=true" in message  # and how to run it for development
    # Nothing was generated in the meantime.
    assert not (tmp_path / "data" / "secret_key").exists()


def test_the_web_server_and_the_commands_refuse_to_start_too(tmp_path):
    for argv in (["manage.py", "check"], ["-c", "import socialsite.wsgi"]):
        result = run(argv, {"SECRET_KEY": SECRET, **MAIL}, tmp_path)
        assert result.returncode != 0
        assert "DEBUG is off (production), so set REDIS_URL:" in result.stderr


def test_in_development_a_key_is_made_and_kept_and_the_embedded_redis_is_used(tmp_path):
    first = import_settings({"DEBUG": "true"}, tmp_path)
    assert first.returncode == 0, first.stderr
    kept = (tmp_path / "data" / "secret_key").read_text().strip()
    assert first.stdout.strip() == kept and len(kept) >= 50
    assert import_settings({"DEBUG": "true"}, tmp_path).stdout.strip() == kept
    embedded = import_settings({"DEBUG": "true"}, tmp_path, show="REDIS_URL")
    assert embedded.returncode == 0 and embedded.stdout.strip() == ""


def test_https_turns_on_secure_cookies_hsts_and_the_redirect(tmp_path):
    names = [
        "SESSION_COOKIE_SECURE", "CSRF_COOKIE_SECURE", "SECURE_SSL_REDIRECT",
        "SECURE_HSTS_SECONDS", "SECURE_HSTS_INCLUDE_SUBDOMAINS", "SECURE_HSTS_PRELOAD",
    ]  # fmt: skip
    script = f"import socialsite.settings as s; print(*(getattr(s, n) for n in {names!r}))"
    with_https = run(["-c", script], PRODUCTION, tmp_path)
    assert with_https.stdout.split() == ["True", "True", "True", "31536000", "True", "True"]
    without = run(["-c", script], {**PRODUCTION, "HTTPS": "false"}, tmp_path)
    assert without.stdout.split() == ["False", "False", "False", "0", "False", "False"]
    not_asked = run(["-c", script], {**PRODUCTION, "HSTS_PRELOAD": ""}, tmp_path)
    assert not_asked.stdout.split()[-1] == "False"


def test_check_deploy_is_clean_with_the_readmes_production_settings(tmp_path):
    result = run(["manage.py", "check", "--deploy", "--fail-level", "DEBUG"], PRODUCTION, tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "System check identified no issues (0 silenced)." in result.stdout


def test_check_deploy_says_what_a_weaker_setting_costs(tmp_path):
    # The check above can fail: without preloading, Django warns, and so does CI.
    result = run(
        ["manage.py", "check", "--deploy", "--fail-level", "WARNING"],
        {**PRODUCTION, "HSTS_PRELOAD": "false"},
        tmp_path,
    )
    assert result.returncode != 0
    assert "security.W021" in result.stderr + result.stdout


def email_settings(env, tmp_path):
    names = "EMAIL_BACKEND EMAIL_HOST EMAIL_PORT EMAIL_HOST_USER EMAIL_HOST_PASSWORD"
    names += " EMAIL_USE_TLS EMAIL_USE_SSL EMAIL_FILE_PATH EMAIL_VERIFICATION SITE_URL"
    script = (
        "import socialsite.settings as s;"
        f"print(*(repr(getattr(s, n, None)) for n in {names.split()!r}), sep='|')"
    )
    result = run(["-c", script], env, tmp_path)
    assert result.returncode == 0, result.stderr
    return dict(zip(names.split(), result.stdout.strip().split("|"), strict=True))


@pytest.mark.parametrize(
    ("url", "expected"),
    [
        (
            "smtp+tls://socialsite:pass%40word@mail.example.org:587",
            {"EMAIL_BACKEND": "'django.core.mail.backends.smtp.EmailBackend'",
             "EMAIL_HOST": "'mail.example.org'", "EMAIL_PORT": "587",
             "EMAIL_HOST_USER": "'socialsite'", "EMAIL_HOST_PASSWORD": "'pass@word'",
             "EMAIL_USE_TLS": "True", "EMAIL_USE_SSL": "False"},
        ),
        (
            "smtps://u:p@mail.example.org",
            {"EMAIL_PORT": "465", "EMAIL_USE_TLS": "False", "EMAIL_USE_SSL": "True"},
        ),
        (
            "smtp://127.0.0.1:2525",
            {"EMAIL_HOST": "'127.0.0.1'", "EMAIL_PORT": "2525", "EMAIL_HOST_USER": "''",
             "EMAIL_USE_TLS": "False", "EMAIL_USE_SSL": "False"},
        ),
        ("console:", {"EMAIL_BACKEND": "'django.core.mail.backends.console.EmailBackend'"}),
        (
            "file:///var/mail/socialsite",
            {"EMAIL_BACKEND": "'django.core.mail.backends.filebased.EmailBackend'",
             "EMAIL_FILE_PATH": "'/var/mail/socialsite'"},
        ),
    ],
)  # fmt: skip
def test_email_url_gives_djangos_mail_settings(url, expected, tmp_path):
    found = email_settings({**PRODUCTION, "EMAIL_URL": url}, tmp_path)
    assert {name: found[name] for name in expected} == expected
    assert found["EMAIL_VERIFICATION"] == "'required'"  # DEBUG off
    assert found["SITE_URL"] == "'https://social.example.org'"


@pytest.mark.parametrize(
    ("env", "complaint"),
    [
        ({"EMAIL_URL": "mailto:someone@example.org"}, "EMAIL_URL must start with smtp+tls://"),
        ({"EMAIL_URL": "smtp://:25"}, "EMAIL_URL names no host"),
        ({"EMAIL_URL": "smtp://host:port"}, "EMAIL_URL has a port that is not a number"),
        ({"EMAIL_URL": "file:relative"}, "file:///path needs an absolute path"),
        ({"SITE_URL": "social.example.org"}, "SITE_URL must be an http(s) URL"),
        ({"EMAIL_VERIFICATION": "sometimes"}, "EMAIL_VERIFICATION must be one of"),
    ],
)
def test_bad_mail_settings_stop_the_site_saying_why(env, complaint, tmp_path):
    result = import_settings({**PRODUCTION, **env}, tmp_path)
    assert result.returncode != 0
    assert "ImproperlyConfigured" in result.stderr and complaint in result.stderr


def test_in_development_mail_is_kept_under_the_data_dir_and_verification_is_optional(tmp_path):
    found = email_settings({"DEBUG": "true"}, tmp_path)
    assert found["EMAIL_BACKEND"] == "'accounts.mail.DevelopmentMailBackend'"
    assert found["EMAIL_FILE_PATH"] == repr(str((tmp_path / "data" / "mail").resolve()))
    assert found["EMAIL_VERIFICATION"] == "'optional'"

"""Mail sent by the workers through a real SMTP server (aiosmtpd): what a message holds,
that the fan-out worker sends the queue, and that a mail server down delays mail without
losing it."""

import os
import signal
import socket
import subprocess
import sys
import time

from django.conf import settings

from accounts import mail as account_mail
from socialsite.repository import emails, graph, mail, statuses, timelines
from tests.support.helpers import make_user


def send_all(r, **options):
    """What a worker does between its steps: send the mail that is due."""
    return mail.send_waiting(r, "test-worker", account_mail.send, **options)


def test_a_reset_mail_has_text_and_html_parts_and_a_link_on_site_url(r, smtp_server, settings):
    settings.SITE_URL = "https://social.example.org"
    alice = make_user(r, "alice")
    emails.set_address(r, alice["id"], "Alice@Example.org", verified=True)
    account_mail.queue_password_reset(alice["id"], "Alice@Example.org")
    assert smtp_server.received() == []  # queued, not sent by the page
    assert send_all(r) == 1
    [message] = smtp_server.received()
    assert message["To"] == "Alice@Example.org"
    assert message["Subject"] == "[socialsite] Reset your password"
    assert message["Auto-Submitted"] == "auto-generated"
    assert "List-Unsubscribe" not in message
    text = message.get_body(("plain",)).get_content()
    html = message.get_body(("html",)).get_content()
    assert "https://social.example.org/accounts/reset/" in text
    assert 'href="https://social.example.org/accounts/reset/' in html
    assert mail.backlog(r) == 0


def worker_env(redis_backend, email_url):
    return {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "socialsite.settings",
        "REDIS_URL": redis_backend.url,
        "REDIS_CLUSTER": "true" if redis_backend.cluster else "false",
        "EMAIL_URL": email_url,
        "SITE_URL": "https://social.example.org",
    }


def test_the_fanout_worker_sends_the_queued_mail(r, smtp_server, redis_backend):
    alice = make_user(r, "alice")
    emails.set_address(r, alice["id"], "alice@example.org")
    account_mail.queue_verification(alice["id"], "alice@example.org")
    env = worker_env(redis_backend, f"smtp://127.0.0.1:{smtp_server.port}")
    worker = subprocess.run(
        [sys.executable, str(settings.BASE_DIR / "manage.py"), "fanout", "--exit-when-idle"],
        env=env, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert worker.returncode == 0, worker.stdout + worker.stderr
    [message] = smtp_server.received()
    assert message["To"] == "alice@example.org"
    assert (
        "https://social.example.org/accounts/verify/" in message.get_body(("plain",)).get_content()
    )


def test_with_the_mail_server_down_mail_waits_and_goes_out_when_it_is_back(r, smtp_server):
    alice = make_user(r, "alice")
    emails.set_address(r, alice["id"], "alice@example.org")
    smtp_server.stop()
    account_mail.queue_verification(alice["id"], "alice@example.org")
    started = time.monotonic()
    assert send_all(r, retry_delays_ms=(100,)) == 0  # refused: kept for a retry
    assert time.monotonic() - started < 5
    assert mail.backlog(r) == 1
    smtp_server.start()
    time.sleep(0.15)
    assert send_all(r, retry_delays_ms=(100,)) == 1
    [message] = smtp_server.received()
    assert message["To"] == "alice@example.org"
    assert mail.backlog(r) == 0 and mail.dead_letters(r) == []


def test_mail_about_a_state_that_changed_since_is_dropped(r, smtp_server):
    alice = make_user(r, "alice")
    emails.set_address(r, alice["id"], "old@example.org")
    account_mail.queue_verification(alice["id"], "old@example.org")
    emails.set_address(r, alice["id"], "new@example.org")
    assert send_all(r) == 1  # done with: nothing to verify at that address any more
    assert smtp_server.received() == []


def test_the_embedded_runs_mail_is_kept_in_files_and_its_links_printed(
    r, settings, tmp_path, capsys
):
    settings.EMAIL_BACKEND = "accounts.mail.DevelopmentMailBackend"
    settings.EMAIL_FILE_PATH = str(tmp_path / "mail")
    settings.SITE_URL = "http://127.0.0.1:8000"
    alice = make_user(r, "alice")
    emails.set_address(r, alice["id"], "alice@example.org")
    account_mail.queue_verification(alice["id"], "alice@example.org")
    assert send_all(r) == 1
    printed = capsys.readouterr().err
    assert "Mail to alice@example.org: [socialsite] Verify your email address" in printed
    assert "    http://127.0.0.1:8000/accounts/verify/" in printed
    assert "    http://127.0.0.1:8000\n" not in printed  # the signature's link is not one
    [kept] = (tmp_path / "mail").iterdir()
    assert "http://127.0.0.1:8000/accounts/verify/" in kept.read_text()


def test_a_mail_server_that_never_answers_holds_up_no_fan_out(r, smtp_server, redis_backend):
    """A server that takes the connection and says nothing (each attempt waits out
    EMAIL_TIMEOUT): the worker's fan-out goes on meanwhile."""
    silent = socket.socket()
    silent.bind(("127.0.0.1", 0))
    silent.listen(16)  # never accepted: connections complete, no greeting ever comes
    alice, bob = make_user(r, "alice"), make_user(r, "bob")
    graph.follow(r, bob["id"], alice["id"])
    emails.set_address(r, alice["id"], "alice@example.org")
    for _ in range(3):
        account_mail.queue_verification(alice["id"], "alice@example.org")
    env = worker_env(redis_backend, f"smtp://127.0.0.1:{silent.getsockname()[1]}")
    worker = subprocess.Popen(
        [sys.executable, str(settings.BASE_DIR / "manage.py"), "fanout"],
        env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
    )  # fmt: skip
    try:
        time.sleep(2)  # the mail thread is stuck on the first message by now
        sid = statuses.post_status(r, alice["id"], "fan me out", inline_limit=0)
        deadline = time.monotonic() + 5
        while sid not in timelines.home_ids(r, bob["id"]) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert sid in timelines.home_ids(r, bob["id"])
        assert mail.backlog(r) == 3  # none sent
    finally:
        worker.send_signal(signal.SIGKILL)
        worker.communicate(timeout=30)
        silent.close()

"""The mail queue (repository/mail.py): sent once, retried after its delay when sending
fails, dead-lettered after the last attempt; completed mail leaves the stream."""

import json
import time
from io import StringIO

from django.core.management import call_command

from socialsite.repository import keys, mail

# Delays short enough for a test: the first retry after 50 ms, then 100 ms.
DELAYS = (50, 100)


def test_a_queued_message_is_sent_once_and_leaves_the_queue(r):
    sent = []
    mail.queue(r, {"kind": "verify", "uid": 1, "address": "a@example.org"})
    assert mail.backlog(r) == 1
    assert mail.send_waiting(r, "w1", sent.append) == 1
    assert sent == [{"kind": "verify", "uid": 1, "address": "a@example.org"}]
    assert mail.backlog(r) == 0
    assert mail.send_waiting(r, "w1", sent.append) == 0
    assert len(sent) == 1


def test_a_failed_send_is_retried_after_its_delay_and_not_before(r):
    attempts = []

    def flaky(message):
        attempts.append(message)
        if len(attempts) < 3:
            raise ConnectionRefusedError("mail server down")

    mail.queue(r, {"kind": "verify", "uid": 1, "address": "a@example.org"})
    assert mail.send_waiting(r, "w1", flaky, retry_delays_ms=DELAYS) == 0
    # Not yet due: nothing is tried.
    assert mail.send_waiting(r, "w2", flaky, retry_delays_ms=DELAYS) == 0
    assert len(attempts) == 1
    time.sleep(0.08)
    assert mail.send_waiting(r, "w2", flaky, retry_delays_ms=DELAYS) == 0
    assert len(attempts) == 2
    time.sleep(0.06)  # the second delay (100 ms) is not over
    assert mail.send_waiting(r, "w1", flaky, retry_delays_ms=DELAYS) == 0
    assert len(attempts) == 2
    time.sleep(0.06)
    assert mail.send_waiting(r, "w1", flaky, retry_delays_ms=DELAYS) == 1
    assert len(attempts) == 3 and mail.backlog(r) == 0
    assert r.hlen(keys.MAIL_FAILURES) == 0 and mail.dead_letters(r) == []


def test_the_default_first_retries_come_within_a_minute():
    assert mail.retry_delay_ms(1) + mail.retry_delay_ms(2) <= 90_000
    assert mail.retry_delay_ms(1) <= 60_000


def test_a_message_failing_every_time_is_dead_lettered_with_its_error(r):
    def broken(message):
        raise OSError("550 no such mailbox")

    mail.queue(r, {"kind": "password_reset", "uid": 7, "address": "b@example.org"})
    for _ in range(3):
        mail.send_waiting(r, "w1", broken, max_attempts=3, retry_delays_ms=(1,))
        time.sleep(0.01)
    assert mail.backlog(r) == 0
    [letter] = mail.dead_letters(r)
    assert letter["job"]["kind"] == "password_reset"
    assert letter["attempts"] == "3" and "550 no such mailbox" in letter["reason"]


def test_dead_mail_is_listed_and_queued_again_by_the_fanout_command(r):
    def broken(message):
        raise OSError("421 try later")

    mail.queue(r, {"kind": "verify", "uid": 3, "address": "c@example.org"})
    mail.send_waiting(r, "w1", broken, max_attempts=1)
    out = StringIO()
    call_command("fanout", "--dead-mail", stdout=out)
    [line] = out.getvalue().splitlines()
    assert json.loads(line)["job"] == {"kind": "verify", "uid": 3, "address": "c@example.org"}
    call_command("fanout", "--replay-dead-mail", stdout=StringIO())
    assert mail.dead_letters(r) == [] and mail.backlog(r) == 1
    sent = []
    assert mail.send_waiting(r, "w1", sent.append) == 1
    assert sent == [{"kind": "verify", "uid": 3, "address": "c@example.org"}]

"""jinja_helpers.chat_rows: a conversation's messages as a chat draws them, grouped by
sender and time, with day separators, in the reader's time zone."""

import datetime

from timeline.jinja_helpers import CHAT_GROUP_SECONDS, chat_rows

NOW = datetime.datetime(2026, 11, 29, 10, 0, tzinfo=datetime.UTC)
T = NOW.timestamp()


def message(mid, sender, at):
    return {"id": mid, "from": sender, "at": at, "message": f"m{mid}"}


def test_groups_days_and_the_readers_side():
    messages = [
        message(1, 2, T - 86_400 * 3),  # Thursday
        message(2, 2, T - 86_400 - 60),  # yesterday
        message(3, 2, T - 86_400),
        message(4, 1, T - 86_400 + 30),
        message(5, 1, T - 86_400 + 30 + CHAT_GROUP_SECONDS + 1),  # too late to continue
        message(6, 1, T - 10),  # today
    ]
    senders = {1: {"id": 1, "login": "alice"}, 2: {"id": 2, "login": "bob"}}
    rows = chat_rows(messages, senders, 1, now=NOW)
    assert [row.day for row in rows] == ["Thursday, November 26", "Yesterday", "", "", "", "Today"]
    assert [row.continued for row in rows] == [False, False, True, False, False, False]
    assert [row.own for row in rows] == [False, False, False, True, True, True]
    assert rows[0].sender["login"] == "bob"
    assert rows[-1].clock == "09:59" and rows[-1].full == "Sunday, November 29, 2026, 09:59 (UTC)"


def test_days_and_times_in_the_readers_zone():
    # 23:30 UTC on the 28th is already the 29th in Tokyo: one day, one group.
    late = datetime.datetime(2026, 11, 28, 23, 30, tzinfo=datetime.UTC).timestamp()
    messages = [message(1, 2, late), message(2, 2, late + 60 * 60 + 60)]
    rows = chat_rows(messages, {}, 1, "UTC", now=NOW)
    assert [row.day for row in rows] == ["Yesterday", "Today"]
    rows = chat_rows(messages, {}, 1, "Asia/Tokyo", now=NOW)
    assert [row.day for row in rows] == ["Today", ""]
    assert rows[0].clock == "08:30" and rows[0].full.endswith("(Asia/Tokyo)")
    assert rows[0].sender is None
    # An unknown zone is UTC.
    assert chat_rows(messages, {}, 1, "Mars/Olympus", now=NOW)[0].clock == "23:30"
    assert chat_rows([], {}, 1, now=NOW) == []

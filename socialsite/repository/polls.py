"""Polls: a status may carry one (2 to limits.POLL_MAX_OPTIONS options, single or
multiple choice, an end, its totals hidden until then if asked).

The poll itself is written with its status, in the status hash, which never changes:
``poll`` (JSON: options, multiple, hide_totals) and ``poll_expires`` (the end, ms;
poll_fields). The votes are in the status's own slot: keys.poll_votes (voter → their
choices) and the tally, the ``poll`` field of keys.status_counts, read with every page
along with the like and repost counts (statuses._read_or_confirm gives it as the
status's ``poll_tally``). poll_vote.lua changes both in one step: one vote per account,
the tally exact under any concurrency.

The end: keys.poll_endings (in the author's shard) holds each poll by its end; the
fan-out workers' sweep (end_due) notifies the author and the voters of each ended poll
(``member("poll", author, sid, sid)``, the same member on every run: a sweep that dies
midway and runs again notifies nobody twice), then takes it off the list. A deleted
account's votes stay in the tally (they are anonymous, as Mastodon keeps them), and the
end notifies only the accounts still there.
"""

import json
import time
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from . import events, keys, notifications, scripts
from .client import Client
from .limits import NOTIFICATIONS_KEPT

# How many ended polls one sweep takes from a shard's list.
ENDINGS_PER_SWEEP = 100
# How many voters one round trip notifies.
VOTERS_PER_BATCH = 500


@dataclass(frozen=True)
class Poll:
    """A status's poll as read: its options, whether several may be chosen, whether the
    totals are hidden until the end, its end (ms), and the tally (voters, votes per
    option)."""

    options: tuple[str, ...]
    multiple: bool
    hide_totals: bool
    expires_ms: int
    voters: int
    votes: tuple[int, ...]

    def expired(self, now_ms: int | None = None) -> bool:
        now = int(time.time() * 1000) if now_ms is None else now_ms
        return now >= self.expires_ms

    @property
    def votes_count(self) -> int:
        return sum(self.votes)


def poll_fields(
    options: Sequence[str], multiple: bool, hide_totals: bool, expires_ms: int
) -> dict[str, str]:
    """The status hash's fields of a poll (statuses.post_status's ``**data``)."""
    poll = {"options": list(options), "multiple": bool(multiple), "hide_totals": bool(hide_totals)}
    return {
        keys.STATUS_POLL_FIELD: json.dumps(poll, ensure_ascii=False, separators=(",", ":")),
        keys.STATUS_POLL_EXPIRES_FIELD: str(int(expires_ms)),
    }


def poll_of(status: Mapping[str, Any]) -> Poll | None:
    """The poll of ``status`` (a status dict as read, with its ``poll_tally`` if anyone
    voted), or None if it has none."""
    raw = status.get(keys.STATUS_POLL_FIELD)
    if not raw:
        return None
    try:
        data = json.loads(raw)
        options = tuple(str(option) for option in data["options"])
        expires = int(status[keys.STATUS_POLL_EXPIRES_FIELD])
    except (ValueError, KeyError, TypeError):
        return None
    numbers = [int(n) for n in str(status.get("poll_tally") or "").split(",") if n.isdigit()]
    numbers += [0] * (len(options) + 1 - len(numbers))
    return Poll(
        options=options,
        multiple=bool(data.get("multiple")),
        hide_totals=bool(data.get("hide_totals")),
        expires_ms=expires,
        voters=numbers[0],
        votes=tuple(numbers[1 : len(options) + 1]),
    )


def note_end(r: Client, author: int, sid: int, expires_ms: int) -> None:
    """List status ``sid``'s poll for the sweep at its end (again: nothing changes)."""
    r.zadd(keys.poll_endings(author), {str(int(sid)): int(expires_ms)}, nx=True)


def vote(
    r: Client, uid: int, sid: int, choices: Sequence[int], options: int, now_ms: int | None = None
) -> int:
    """Count ``uid``'s vote ``choices`` in status ``sid``'s poll of ``options`` options
    (poll_vote.lua): 1 counted, 0 voted already, -1 no such poll, -2 ended. The caller
    checks the choices."""
    now = int(time.time() * 1000) if now_ms is None else int(now_ms)
    return int(
        scripts.poll_vote(r, sid=sid, uid=uid, choices=list(choices), options=options, now_ms=now)
    )


def own_votes(r: Client, uid: int, sids: Iterable[int]) -> dict[int, tuple[int, ...]]:
    """{status id: the options ``uid`` chose} for those of ``sids`` whose polls they
    voted in; one round trip (an HGET in each status's slot)."""
    sids = [int(sid) for sid in dict.fromkeys(sids)]
    if not sids:
        return {}
    pipe = r.pipeline(transaction=False)
    for sid in sids:
        pipe.hget(keys.poll_votes(sid), str(int(uid)))
    found = {}
    for sid, chosen in zip(sids, pipe.execute(), strict=True):
        if chosen is not None:
            found[sid] = tuple(int(c) for c in str(chosen).split(",") if c.isdigit())
    return found


def end_due(r: Client, now_ms: int | None = None, keep: int = NOTIFICATIONS_KEPT) -> list[int]:
    """Notify the author and the voters of every poll whose end has come, once; the ids
    of the statuses whose polls ended. The fan-out workers call it every few seconds.

    A poll is taken off keys.poll_endings only after its notifications are written,
    and they are written as the same members each time: a worker that dies midway
    leaves the poll listed, and the next sweep (of any worker) notifies those it had
    not, nobody twice. A deleted status's poll is simply taken off."""
    now = int(time.time() * 1000) if now_ms is None else int(now_ms)
    pipe = r.pipeline(transaction=False)
    shard_keys = keys.all_poll_endings()
    for key in shard_keys:
        pipe.zrangebyscore(key, "-inf", now, start=0, num=ENDINGS_PER_SWEEP, withscores=True)
    ended = []
    for key, due in zip(shard_keys, pipe.execute(), strict=True):
        for member, score in due:
            sid = int(member)
            read = r.pipeline(transaction=False)  # one slot: the status's
            read.hgetall(keys.status(sid))
            read.hget(keys.status_counts(sid), keys.POLL_TALLY_FIELD)
            status, tally = read.execute()
            if status and status.get("uid") is not None:
                _notify_ended(r, int(status["uid"]), sid, int(score), keep)
                ended.append(sid)
                # Live pages and Mastodon's streams show the results (status.update);
                # at most once more if a sweep dies after this: a redraw, no harm.
                events.publish_changed(r, {**status, "poll_tally": tally or ""})
            r.zrem(key, member)
    return ended


def _existing(r: Client, uids: list[int]) -> list[bool]:
    """Whether each of ``uids`` still has an account (one round trip)."""

    def queue(pipe: Any) -> None:
        for uid in uids:
            pipe.exists(keys.user(uid))

    return [bool(n) for n in scripts.run_pipeline(r, queue)]


def _notify_ended(r: Client, author: int, sid: int, end_ms: int, keep: int) -> None:
    event = notifications.member("poll", author, sid, sid)
    voters = [int(v) for v in r.hkeys(keys.poll_votes(sid))]
    everyone = [author, *(v for v in voters if v != author)]
    for start in range(0, len(everyone), VOTERS_PER_BATCH):
        batch = everyone[start : start + VOTERS_PER_BATCH]
        # A deleted account's vote stays in the tally (votes are anonymous), but the
        # account is not notified: no key is written for someone who is gone.
        batch = [uid for uid, there in zip(batch, _existing(r, batch), strict=True) if there]

        def queue(pipe: Any, batch: list[int] = batch) -> None:
            for uid in batch:
                notifications.queue_notify(pipe, uid, event, end_ms, keep)

        scripts.run_pipeline(r, queue)

"""The status index's words and writes (status_search.py reads it): what a status is
indexed under, the ONE rule of which statuses go in (``indexable``), and the writes
posting and deleting queue in their own round trips. Apart from status_search so that
statuses.py, which queues them, need not import the module that reads statuses.
"""

import json
import re
from typing import Any

from . import keys, search
from .limits import SEARCH_TERM_MAX_LENGTH

# The book's stop words (listing 7.1), and the parts of a link every link has.
STOP_WORDS = frozenset(
    """able about across after all almost also am among an and any are as at be because
    been but by can cannot could dear did do does either else ever every for from get got
    had has have he her hers him his how however if in into is it its just least let like
    likely may me might most must my neither no nor not of off often on only or other our
    own rather said say says she should since so some than that the their them then there
    these they this tis to too twas us wants was we were what when where which while who
    whom why will with would yet you your http https www com""".split()
)
_WORD = re.compile(r"\w+")
MEDIA_WORD = "has:media"
_MIN_LENGTH = 2


def folded_words(text: str) -> list[str]:
    """Every folded word of ``text`` in order, stop words included (phrases)."""
    return [word[:SEARCH_TERM_MAX_LENGTH] for word in _WORD.findall(search.fold(text))]


def words(text: str) -> list[str]:
    """The distinct index words of ``text``: folded, at least 2 characters, no stop word."""
    return list(
        dict.fromkeys(
            word
            for word in folded_words(text)
            if len(word) >= _MIN_LENGTH and word not in STOP_WORDS
        )
    )


def text_of(status: Any) -> str:
    """What a status is found by: its text, its content warning, its poll's options."""
    text = f"{status.get('message') or ''} {status.get(keys.STATUS_SPOILER_FIELD) or ''}"
    return (
        f"{text} {' '.join(_poll_options(status))}" if status.get(keys.STATUS_POLL_FIELD) else text
    )


def _poll_options(status: Any) -> list[str]:
    """Polls: the options of ``status``'s poll (its JSON ``poll`` field), none if bad."""
    try:
        options = json.loads(status[keys.STATUS_POLL_FIELD]).get("options")
    except (ValueError, TypeError, AttributeError):
        return []
    return [str(option) for option in options] if isinstance(options, list) else []


def status_words(status: Any) -> list[str]:
    """The index words of ``status`` (a status dict): its text's, and has:media if it
    has pictures (from: reads the author's profile, not the index)."""
    found = words(text_of(status))
    if status.get(keys.STATUS_MEDIA_FIELD):
        found.append(MEDIA_WORD)
    return found


def indexable(status: Any, author: Any) -> bool:
    """Whether ``status`` (a status dict) goes in the shared index, given ``author``
    (the fields of its author's hash: ``private``, keys.INDEXABLE_FIELD, and the
    suspended and leaving flags when known): the ONE rule of what anyone may find by
    search. Public (not posted while private, nor in a private group; the author not
    private now), not a repost, by an author who lets their statuses be found and is shown."""
    return (
        not status.get("private")
        # A private group's status (members only) is also marked private; said here too.
        and not status.get(keys.STATUS_MEMBERS_ONLY_FIELD)
        and not status.get("repost_of")
        and author.get("private") != "1"
        and author.get(keys.INDEXABLE_FIELD) == "1"
        and not author.get(keys.SUSPENDED_FIELD)
        and not author.get(keys.LEAVING_FIELD)
    )


# The author fields indexable reads.
AUTHOR_FIELDS = ("private", keys.INDEXABLE_FIELD, keys.SUSPENDED_FIELD, keys.LEAVING_FIELD)


def queue_index(pipe: Any, status: Any) -> None:
    """Queue on ``pipe`` adding ``status`` under each of its words (one slot: its
    shard's; its block's keys). SADD: safe to repeat."""
    for word in status_words(status):
        pipe.sadd(keys.status_words_of(status["id"], word), int(status["id"]))


def queue_unindex(pipe: Any, status: Any) -> None:
    """Queue on ``pipe`` taking ``status`` off each of its words. SREM: safe to repeat,
    and to run for a status that was never indexed."""
    for word in status_words(status):
        pipe.srem(keys.status_words_of(status["id"], word), int(status["id"]))

"""Acts on polls: voting in one, reading one. A poll is posted with its status
(actions.statuses.post, its ``poll``: checked_poll states the limits).

Who may see the status decides first: a poll on a status the actor may not see is
NotFound, exactly as one that is not there; the author of a status they block is
NotAllowed (as a like). One vote per account, whatever the door: the repository
counts the first and refuses the others (poll_vote.lua)."""

from collections.abc import Sequence
from dataclasses import dataclass

from socialsite.connection import get_redis
from socialsite.repository import likes, polls

from .core import Actor, Invalid, NotAllowed, NotFound, require

# The limits of a poll (docs/features.md states them).
MIN_OPTIONS = 2
MAX_OPTIONS = 4
OPTION_MAX_LENGTH = 50
MIN_SECONDS = 5 * 60
MAX_SECONDS = 7 * 24 * 3600

NO_SUCH_POLL = "There is no such poll."


@dataclass(frozen=True)
class NewPoll:
    """A poll as written: its options, how long it is open (seconds), whether several
    options may be chosen, whether its totals stay hidden until it ends."""

    options: tuple[str, ...]
    expires_in: int
    multiple: bool = False
    hide_totals: bool = False


@dataclass(frozen=True)
class PollShown:
    """A status's poll as the actor sees it: the poll (its tally), the status's id and
    author, the options the actor chose (empty: not voted; the author sees their own
    poll as voted, since they may not vote in it)."""

    sid: int
    author: int
    poll: polls.Poll
    own_votes: tuple[int, ...]
    voted: bool


def checked_poll(new: NewPoll) -> NewPoll:
    """``new`` as kept (options without the spaces around them), or Invalid (field
    ``poll``): MIN_OPTIONS to MAX_OPTIONS distinct options, none empty nor longer than
    OPTION_MAX_LENGTH, open MIN_SECONDS to MAX_SECONDS."""
    options = tuple(option.strip() for option in new.options)
    if not MIN_OPTIONS <= len(options) <= MAX_OPTIONS:
        raise Invalid(
            f"A poll has {MIN_OPTIONS} to {MAX_OPTIONS} options; this one has {len(options)}.",
            field="poll",
        )
    if any(not option for option in options):
        raise Invalid("A poll's options cannot be empty.", field="poll")
    for option in options:
        if len(option) > OPTION_MAX_LENGTH:
            raise Invalid(
                f"A poll's option is at most {OPTION_MAX_LENGTH} characters;"
                f" one has {len(option)}.",
                field="poll",
            )
    if len(set(options)) != len(options):
        raise Invalid("A poll's options must differ from each other.", field="poll")
    if not MIN_SECONDS <= int(new.expires_in) <= MAX_SECONDS:
        raise Invalid(
            "A poll is open for 5 minutes to 7 days.",
            field="poll",
        )
    return NewPoll(options, int(new.expires_in), bool(new.multiple), bool(new.hide_totals))


def _seen_poll(viewer_id: int | None, status_id: int) -> tuple[int, int, polls.Poll, bool]:
    """(status id, author, poll, whether the viewer blocks the author) of a status the
    viewer (None: a visitor) may see; NotFound for one without a poll or that they may
    not see."""
    status, refused = likes.status_for_viewer(get_redis(), viewer_id, status_id)
    if status is None or refused is likes.LikeResult.NOT_FOUND:
        raise NotFound(NO_SUCH_POLL)
    poll = polls.poll_of(status)
    if poll is None:
        raise NotFound(NO_SUCH_POLL)
    return int(status["id"]), int(status["uid"]), poll, refused is likes.LikeResult.BLOCKED


def show(actor: Actor | None, status_id: int) -> PollShown:
    """The poll of status ``status_id`` as the actor (None: a visitor) sees it.
    NotFound for a status without a poll or that they may not see. No throttle: a
    read."""
    viewer_id = None if actor is None or not actor.uid else actor.uid  # uid 0: a visitor
    sid, author, poll, _ = _seen_poll(viewer_id, status_id)
    own: tuple[int, ...] = ()
    if viewer_id is not None:
        own = polls.own_votes(get_redis(), viewer_id, [sid]).get(sid, ())
    return PollShown(sid, author, poll, own, bool(own) or viewer_id == author)


def vote(actor: Actor, status_id: int, choices: Sequence[int]) -> PollShown:
    """The actor votes ``choices`` (option indexes) in the poll of status
    ``status_id``, once; the poll after it. Throttle "likes" (a tap on a status), a
    verified address. NotFound for a status without a poll or that the actor may not
    see; NotAllowed for their own poll, one whose author they block, one they voted in
    already; Invalid for choices that are not its options (several in a
    single-choice poll, none), or a poll that has ended."""
    require(actor, throttle="likes", verified=True)
    sid, author, poll, blocking = _seen_poll(actor.uid, status_id)
    if blocking:
        raise NotAllowed("You cannot vote in this poll: you block its author.")
    if author == actor.uid:
        raise NotAllowed("You cannot vote in your own poll.")
    chosen = sorted(set(int(choice) for choice in choices))
    if not chosen:
        raise Invalid("Choose an option to vote.", field="choices")
    if any(not 0 <= choice < len(poll.options) for choice in chosen):
        raise Invalid("That is not an option of this poll.", field="choices")
    if len(chosen) > 1 and not poll.multiple:
        raise Invalid("This poll takes one choice.", field="choices")
    result = polls.vote(get_redis(), actor.uid, sid, chosen, len(poll.options))
    if result == -1:
        raise NotFound(NO_SUCH_POLL)
    if result == -2:
        raise Invalid("This poll has ended.", field="choices")
    if result == 0:
        raise NotAllowed("You have already voted in this poll.")
    return show(actor, sid)

"""Who acts (Actor) and why an act was not done (Refused and its kinds): what every
action takes and raises, and what every door maps once to its own answers."""

from collections.abc import Callable
from dataclasses import dataclass, field

from socialsite import throttling


def _nothing_counted(name: str) -> throttling.Counted | None:
    return None


@dataclass(frozen=True)
class Actor:
    """The account acting, as its door knows it.

    ``count`` is the door's counter of throttle uses (throttling.count for the request
    that carries the act; a command or a worker counts nothing): the action names the
    throttle, the door says whom it counts (an account, an address) and may have
    counted it already in the round trip that read its session.
    """

    uid: int
    login: str
    must_verify_email: bool = False
    is_moderator: bool = False
    count: Callable[[str], throttling.Counted | None] = field(
        default=_nothing_counted, compare=False, repr=False
    )


class Refused(Exception):
    """An act not done, and why, in words a person can read (``str(refusal)``). Each door
    answers each kind once: see socialsite/acting.py (pages) and api/common.py (API)."""

    def __init__(self, message: str = "", field: str | None = None):
        super().__init__(message)
        self.message = message
        # The input the refusal is about (a form field's name), when it is about one.
        self.field = field


class NotFound(Refused):
    """Nothing there for this actor: missing, deleted, or hidden from them (a status the
    actor may not see answers exactly as one that does not exist), or not theirs to act
    on (one deletes among one's own). Pages 404, the API "Record not found"."""


class NotAllowed(Refused):
    """The actor sees it and may not do this to it (repost a private account's status,
    follow someone they block). Pages 403, the API 403 (Mastodon's)."""


class Invalid(Refused):
    """Input that cannot be (too long, empty, a choice not offered). A form error on
    the pages, a 422 on the API."""


class Busy(Refused):
    """Another act on the same thing is still under way (a lock held): try again."""


class EmailUnverified(Refused):
    """The act needs a verified address (EMAIL_VERIFICATION=required) and the actor's
    is not verified yet."""

    def __init__(self) -> None:
        super().__init__("Your email address is not verified yet: verify it first.")


class Throttled(Refused):
    """The act's throttle refused this use; ``counted`` says what and until when."""

    def __init__(self, counted: throttling.Counted):
        super().__init__(counted.message)
        self.counted = counted


def require(actor: Actor, *, throttle: str | None = None, verified: bool = False) -> None:
    """The rules an act shares with others, applied in the order the pages always did:
    its throttle (one use counted, Throttled if refused), then the verified address
    (EmailUnverified), when ``verified``."""
    if throttle is not None:
        counted = actor.count(throttle)
        if throttling.is_refused(counted):
            raise Throttled(counted)
    if verified and actor.must_verify_email:
        raise EmailUnverified()

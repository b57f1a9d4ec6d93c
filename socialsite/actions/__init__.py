"""The acts people and moderators do, one function each, called by every door.

A door (the pages, the client API, moderation's pages and commands, the workers) turns
a request into an Actor and plain typed arguments, calls one action, and turns what it
returns, or the Refused it raises, into its own answer: a page and a flash message, a
JSON entity or error, a command's line. The action applies every rule and setting that
belongs to the act once (its throttle, the verified-email rule, who may see what,
NOTIFICATIONS_KEPT, INLINE_FANOUT_LIMIT, FANOUT_PULL_FOLLOWERS, the audit log,
metrics) and calls the repository, which owns every key. Doors never call a repository
write themselves (tests/test_one_action_per_act.py reads the code for it).

Why here, under ``socialsite``: the actions are shared by every app's doors (timeline,
api, accounts, moderation), and sit below all of them and above ``media`` and the
repository (docs/decisions/0066-one-action-per-act-called-by-every-door.md).
"""

from .core import (
    Actor,
    Busy,
    EmailUnverified,
    Invalid,
    NotAllowed,
    NotFound,
    Refused,
    Throttled,
    require,
)

__all__ = [
    "Actor",
    "Busy",
    "EmailUnverified",
    "Invalid",
    "NotAllowed",
    "NotFound",
    "Refused",
    "Throttled",
    "require",
]

"""Profiles beyond the name: a bio, a website, an avatar and a header picture.

They are fields of the user hash (keys.AVATAR_FIELD and the others beside it), so that
every page that reads a user already has them: the profile page, the lists of people,
notifications' actors (users.get_authors). The pictures themselves are files in the
site's storage (media/), named here by their storage names only.

A change (update_profile) replaces fields in one step and returns what they held, so
that the caller deletes exactly the files no longer named. A deleted account's files
are listed in keys.UNUSED_PICTURES (forget_pictures, a deletion step) for the app to
delete (unused_pictures, forget_unused).
"""

import time
from collections.abc import Mapping, Sequence
from typing import Any

from . import entities, keys, scripts, users
from .client import Client

# The longest bio, in characters (Mastodon's figure).
BIO_MAX_LENGTH = 500
# The longest website address kept.
WEBSITE_MAX_LENGTH = 200


class AccountGone(Exception):
    """The account was deleted (or its deletion began) while it was being changed."""


def parse_bio(r: Client, bio: str) -> str:
    """The packed entities of ``bio`` (mentions of existing users, tags, links), as a
    status's are parsed (entities.parse): "" when it has none. One round trip when it
    mentions someone, none otherwise."""
    found = entities.find(bio)
    logins = found.mentioned_logins(bio)
    user_ids = users.get_user_ids(r, logins) if logins else {}
    return entities.pack(entities.build(bio, found, user_ids))


def update_profile(r: Client, uid: int, changes: dict[str, str]) -> dict[str, str]:
    """Set the profile fields ``changes`` ({field: value}, "" removing one) of user
    ``uid`` in one step (lua/update_user_fields.lua); {field: former value, "" for
    unset}. AccountGone if the account is gone or being deleted: nothing changed."""
    if not changes:
        return {}
    former = scripts.update_user_fields(r, uid=uid, changes=changes)
    if former == 0:
        raise AccountGone(uid)
    users.forget_author(uid)  # this process shows the new avatar at once
    return dict(zip(changes, former, strict=True))


def picture_names(user: Mapping[str, Any]) -> list[str]:
    """The storage names of the pictures the user dict (or former values) ``user`` names."""
    return [user[field] for field in keys.PICTURE_FIELDS if user.get(field)]


def forget_pictures(r, uid, budget, now=None):
    """A deletion step (leaving.DELETION_STEPS): list the account's pictures in
    keys.UNUSED_PICTURES for the app to delete, then take them off its hash. Listed
    first: a crash between the two lists them again, which is harmless."""
    names = [name for name in r.hmget(keys.user(uid), keys.PICTURE_FIELDS) if name]
    if not names:
        return 0
    now_ms = int((time.time() if now is None else now) * 1000)
    r.zadd(keys.UNUSED_PICTURES, dict.fromkeys(names, now_ms))
    r.hdel(keys.user(uid), *keys.PICTURE_FIELDS)
    return 1


def unused_pictures(r, count=100):
    """Up to ``count`` storage names of pictures nothing shows, oldest first."""
    return r.zrange(keys.UNUSED_PICTURES, 0, count - 1)


def forget_unused(r: Client, names: Sequence[str]) -> None:
    """Take ``names`` off keys.UNUSED_PICTURES (their files are deleted)."""
    if names:
        r.zrem(keys.UNUSED_PICTURES, *names)


def set_time_zone(r: Client, uid: int, zone: str) -> None:
    """Keep ``zone`` (an IANA time zone name; "" or "UTC" for the default, UTC) as the
    time zone user ``uid``'s pages show times in (keys.TIME_ZONE_FIELD). AccountGone if
    the account is gone or being deleted: nothing changed."""
    update_profile(r, uid, {keys.TIME_ZONE_FIELD: "" if zone == "UTC" else zone})


# The themes one may choose (keys.THEME_FIELD); none chosen: the system's.
THEMES = ("light", "dark")


def set_theme(r: Client, uid: int, theme: str) -> None:
    """Give user ``uid`` the theme ``theme`` (one of THEMES, or "" for the system's).
    AccountGone if the account is gone or being deleted: nothing changed."""
    if theme and theme not in THEMES:
        raise ValueError(f"no such theme: {theme!r}")
    update_profile(r, uid, {keys.THEME_FIELD: theme})


# The tabs a home may open with (keys.HOME_TAB_FIELD); none chosen: Latest.
HOME_TABS = ("latest", "top")


def set_top(r: Client, uid: int, weights: str, home_tab: str) -> None:
    """Keep user ``uid``'s tuning of the Top timeline (``weights``, as
    ranking.Weights.pack writes it) and the tab their home opens with (one of
    HOME_TABS). AccountGone if the account is gone or being deleted."""
    if home_tab not in HOME_TABS:
        raise ValueError(f"no such tab: {home_tab!r}")
    tab = "" if home_tab == "latest" else home_tab
    update_profile(r, uid, {keys.TOP_WEIGHTS_FIELD: weights, keys.HOME_TAB_FIELD: tab})

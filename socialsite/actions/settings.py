"""The reader's own settings that change how pages look to them, not what others see:
the time zone the pages show times in (set_time_zone) and the theme (set_theme), called
by the settings page (timeline/relations.py, settings_page); the Top timeline's weights
and the tab the home opens with (set_top), called by /settings/top/ (timeline/top.py);
and whether the reader's public statuses may be found by search (set_indexable), from
the settings page's Search form (timeline/search.py) and the client API's
update_credentials.
"""

import functools
import zoneinfo

from socialsite.connection import get_redis
from socialsite.repository import profiles, ranking, status_search, users

from .core import Actor, Invalid, NotFound

DEFAULT_TIME_ZONE = "UTC"
UNKNOWN_TIME_ZONE = "Choose a time zone from the list."
ACCOUNT_GONE = "This account no longer exists."


@functools.cache
def time_zones() -> tuple[str, ...]:
    """The time zones one may choose (the IANA database's names, as Python knows them),
    sorted, UTC first."""
    names = zoneinfo.available_timezones() - {DEFAULT_TIME_ZONE}
    return (DEFAULT_TIME_ZONE, *sorted(name for name in names if "/" in name))


def set_time_zone(actor: Actor, zone: str) -> None:
    """Show the actor's pages' times in ``zone``, an IANA name ("Europe/Paris"; "UTC",
    the default). Invalid for a name not in time_zones(); NotFound when the account is
    gone."""
    if zone not in time_zones():
        raise Invalid(UNKNOWN_TIME_ZONE, field="time_zone")
    try:
        profiles.set_time_zone(get_redis(), actor.uid, zone)
    except profiles.AccountGone:
        raise NotFound(ACCOUNT_GONE) from None


# The choices, as the settings page offers them: "" follows the system's.
THEMES = ("", *profiles.THEMES)


def set_theme(actor: Actor, theme: str) -> None:
    """Give the actor the theme ``theme``: "light", "dark", or "" (the system's).

    Invalid for another; NotFound when the account is gone meanwhile."""
    if theme not in THEMES:
        raise Invalid("Choose System, Light or Dark.", field="theme")
    try:
        profiles.set_theme(get_redis(), actor.uid, theme)
    except profiles.AccountGone:
        raise NotFound("There is no such account any more.") from None


# The Top timeline's settings (/settings/top/): each weight's plain choices, and the
# level (ranking.LEVELS) each stands for.
TOP_LEVELS = {"less": 0.5, "normal": 1.0, "more": 2.0}
UNKNOWN_LEVEL = "Choose less, normal or more."


def top_weights(
    people: str, popular: str, newest: str, hide_reposts: bool, hide_replies: bool
) -> ranking.Weights:
    """The ranking.Weights of the settings form's choices ("less", "normal", "more" for
    each of people, popular and newest). Invalid for another choice (its field named)."""
    levels = {}
    for field, choice in (("people", people), ("popular", popular), ("newest", newest)):
        if choice not in TOP_LEVELS:
            raise Invalid(UNKNOWN_LEVEL, field=field)
        levels[field] = TOP_LEVELS[choice]
    return ranking.Weights(**levels, hide_reposts=hide_reposts, hide_replies=hide_replies)


def set_top(actor: Actor, weights: ranking.Weights, home_tab: str) -> None:
    """Keep the actor's tuning of the Top timeline (``weights``, top_weights) and the
    tab their home ("/") opens with: "latest" (the default) or "top". Invalid for another
    tab; NotFound when the account is gone meanwhile."""
    if home_tab not in profiles.HOME_TABS:
        raise Invalid("Choose Latest or Top.", field="home_tab")
    try:
        profiles.set_top(get_redis(), actor.uid, weights.pack(), home_tab)
    except profiles.AccountGone:
        raise NotFound(ACCOUNT_GONE) from None


# --- full-text search: the "indexable" setting ------------------------------------------


def set_indexable(actor: Actor, on: bool) -> None:
    """Let the actor's public statuses be found by everyone's search (``on``), or not
    (Mastodon's ``indexable``; off by default: docs/decisions/0070). Their statuses
    already posted are indexed or taken out at once. NotFound when the account is gone."""
    r = get_redis()
    user = users.get_user(r, actor.uid)
    if user is None or users.is_hidden(user):
        raise NotFound(ACCOUNT_GONE)
    status_search.set_indexable(r, actor.uid, on)

"""The reader's own settings that change how pages look to them, not what others see:
the theme. Called by the settings page (timeline/relations.py, settings_page)."""

from socialsite.connection import get_redis
from socialsite.repository import profiles

from .core import Actor, Invalid, NotFound

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

"""Icons on pages: ``{{ icon("heart") }}`` draws Lucide's heart from the one sprite
(static/icons/sprite.svg, made by scripts/make-icon-sprite.sh from the names in
static/icons/icons.txt) as ``<svg class="icon" aria-hidden="true"><use href=...#heart>``.

An icon is never a control's only name: the control around it carries its text (shown,
or visually hidden) or an aria-label, so the icon is hidden from assistive technology.
Made once per name and remembered: an icon costs a status no more than its text
(a function call, where a template macro costs several microseconds per call).
"""

import functools

from django.conf import settings
from django.templatetags.static import static
from markupsafe import Markup


def icon(name: str) -> Markup:
    """The markup drawing icon ``name`` (one of static/icons/icons.txt)."""
    return _icon(name, settings.STATIC_URL)


@functools.lru_cache(maxsize=128)
def _icon(name: str, static_url: str) -> Markup:
    # static_url is not used here but by static(): the cache's key.
    sprite = static("icons/sprite.svg")
    # Markup.format escapes what it is given: the name is a template's, never a user's.
    return Markup(
        '<svg class="icon" aria-hidden="true" focusable="false"><use href="{}#{}"></use></svg>'
    ).format(sprite, name)

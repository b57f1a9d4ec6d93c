"""Icons come from the one sprite: every name a template asks for is drawn in it."""

import re
from pathlib import Path

from socialsite.icons import icon

ROOT = Path(__file__).resolve().parents[1]
SPRITE = (ROOT / "static" / "icons" / "sprite.svg").read_text()
DRAWN = set(re.findall(r'<symbol id="([^"]+)"', SPRITE))


def test_every_icon_a_template_names_is_in_the_sprite():
    named = set()
    for template in (ROOT / "templates").rglob("*.html"):
        named.update(re.findall(r'icon\(\s*"([^"]+)"', template.read_text()))
    assert named <= DRAWN, f"not in static/icons/icons.txt: {sorted(named - DRAWN)}"


def test_an_icon_is_hidden_from_assistive_technology_and_drawn_from_the_sprite():
    markup = str(icon("heart"))
    assert 'aria-hidden="true"' in markup and "sprite" in markup and markup.endswith("</svg>")
    assert '#heart"' in markup


def test_the_sprite_says_its_licence():
    assert "ISC" in SPRITE and (ROOT / "static" / "icons" / "LICENSE").exists()

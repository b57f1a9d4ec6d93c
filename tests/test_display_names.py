"""Display names hold visible text only (accounts/display_names.py); names and statuses
are isolated on the page, so that neither can turn the text around them."""

import html as html_module

import pytest

from accounts import display_names
from socialsite.repository import users
from tests.support.helpers import PASSWORD, log_in, make_user, post


def sign_up(client, name, login="dinah"):
    return client.post(
        "/accounts/signup/",
        {
            "username": login,
            "name": name,
            "email": f"{login}@example.org",
            "password1": PASSWORD,
            "password2": PASSWORD,
        },
    )


# (name, what the error says): one or more of each class the rule refuses.
REFUSED = [
    # Direction controls, every one of them.
    *[
        (f"a{char}b", "direction controls")
        for char in "\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"
    ],
    ("\u202eevil\u202c name", "direction controls (U+202E RIGHT-TO-LEFT OVERRIDE)"),
    # Invisible characters.
    ("a\u200bb", "invisible characters (U+200B ZERO WIDTH SPACE)"),
    ("a\u2060b", "invisible characters (U+2060 WORD JOINER)"),
    ("\ufeffDinah", "invisible characters (U+FEFF ZERO WIDTH NO-BREAK SPACE)"),
    ("\u3164", "invisible characters (U+3164 HANGUL FILLER)"),
    ("a\u115fb", "invisible characters (U+115F HANGUL CHOSEONG FILLER)"),
    # Joiners that join nothing: at either end, beside a space, doubled.
    ("\u200dDinah", "invisible characters (U+200D ZERO WIDTH JOINER)"),
    ("Dinah\u200c", "invisible characters (U+200C ZERO WIDTH NON-JOINER)"),
    ("Di \u200dnah", "may only join two letters or symbols"),
    ("Di\u200d\u200dnah", "may only join two letters or symbols"),
    # Other controls (Cc) and format characters (Cf).
    ("Di\tnah", "control or formatting characters (U+0009)"),
    ("Di\nnah", "control or formatting characters (U+000A)"),
    ("Di\x07nah", "control or formatting characters (U+0007)"),
    ("Di\x85nah", "control or formatting characters (U+0085)"),
    ("Di\u00adnah", "control or formatting characters (U+00AD SOFT HYPHEN)"),
    ("a\u2062b", "control or formatting characters (U+2062 INVISIBLE TIMES)"),
    ("Dinah\U000e0041", "control or formatting characters (U+E0041 TAG LATIN CAPITAL LETTER A)"),
    # Line and paragraph separators.
    ("Di\u2028nah", "control or formatting characters (U+2028 LINE SEPARATOR)"),
    ("Di\u2029nah", "control or formatting characters (U+2029 PARAGRAPH SEPARATOR)"),
    # Private use and unassigned.
    ("Dinah \ue000", "U+E000: a private-use or unassigned character"),
    ("Dinah \U000f0000", "U+F0000: a private-use or unassigned character"),
    ("Dinah \u0378", "U+0378: a private-use or unassigned character"),
    ("Dinah \ufdd0", "U+FDD0: a private-use or unassigned character"),
]


@pytest.mark.parametrize(("name", "error"), REFUSED)
def test_it_refuses_a_display_name_that_is_not_all_visible_text(client, r, name, error):
    response = sign_up(client, name)
    assert response.status_code == 400
    page = html_module.unescape(response.content.decode())
    assert error in page
    assert users.get_user_id(r, "dinah") is None
    # Nothing typed is lost: the login is there to correct the name beside it.
    assert 'value="dinah"' in response.content.decode()


ACCEPTED = [
    "Dinah Cat",
    "José Ñúñez",
    "Jose\u0301 (a combining accent)",
    "\u0639\u0645\u0631",  # Arabic, right to left: shown the right way by <bdi>
    "\u05d3\u05d9\u05e0\u05d4 Dinah",  # Hebrew and Latin
    "\u0645\u06cc\u200c\u062e\u0648\u0627\u0647\u0645",  # Persian: a non-joiner between letters
    "\u0915\u094d\u200d\u0937",  # Devanagari: a joiner after a virama
    "Family \U0001f468\u200d\U0001f469\u200d\U0001f467",  # an emoji sequence
    "\U0001f3f3\ufe0f\u200d\U0001f308 flag",  # variation selector, joiner, rainbow
    "Dinah \U0001fae8",  # an emoji newer than some Pythons' Unicode tables
    "\u738b\u5c0f\u660e",
    "Ms. O'Brien-Smith #1 \u2764",
]


@pytest.mark.parametrize("name", ACCEPTED)
def test_it_accepts_names_in_any_script_with_emoji(client, r, name):
    response = sign_up(client, name)
    assert response.status_code == 302, html_module.unescape(response.content.decode())
    assert users.get_user_by_login(r, "dinah")["name"] == name


def test_the_rule_names_the_first_character_it_refuses():
    assert display_names.problem("ok \u200b then \u202e") == (
        "A display name cannot contain invisible characters (U+200B ZERO WIDTH SPACE)."
    )
    assert display_names.problem("fine") is None


# --- isolation on the page: names stored before the rule, statuses that keep them --------


def test_a_name_stored_before_the_rule_cannot_turn_the_page_around(client, r, alice):
    evil = make_user(r, "mallory", "\u202eevil")
    sid = post(r, evil, "hello")
    log_in(client, "alice")
    for path in ("/@mallory/", f"/@mallory/{sid}/", "/@mallory/followers/"):
        page = client.get(path).content.decode()
        assert "<bdi>\u202eevil</bdi>" in page, path
    listing = client.get("/@alice/followers/").content.decode()
    assert "<bdi>Alice Liddell</bdi>" in listing


def test_a_status_keeps_its_direction_controls_isolated_in_its_paragraph(client, r, alice, bob):
    # Right-to-left writers use the marks in statuses; they stay, isolated (dir="auto").
    text = "\u05e9\u05dc\u05d5\u05dd \u200fworld\u202e reversed"
    sid = post(r, bob, text)
    log_in(client, "alice")
    page = client.get(f"/@bob/{sid}/").content.decode()
    assert f'<p class="message" dir="auto">{text}</p>' in page
    # The page title isolates it too (FSI ... PDI), so the site's name after it is unturned.
    assert f"&ldquo;&#x2068;{text}&#x2069;&rdquo; &middot; socialsite</title>" in page

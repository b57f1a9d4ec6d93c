"""The rules of what an account writes about itself: a display name, a bio, a website, a
list's name, and the words of the refusals about lists. One place for the actions
(profiles, lists, relations' display name) that apply them and for the page forms that
say them beside their fields before the act: the API has no form and gets the same
words from the action (a 422).

Each ``check_*`` returns the text as stored (stripped, normalized) or raises
Invalid(message, field=the form's field name); each ``*_problem`` says why not, or None.

What a display name may hold (visible text, in any script, with emoji) moved here from
accounts/display_names.py, which keeps its form field: a display name is shown beside
other people's text on every page, so it must not reach outside itself or hide what it
is: a RIGHT-TO-LEFT OVERRIDE makes "\\u202eevil\\u202c name" read as "live name", and can
turn the text after the name around too; invisible characters make names that look
empty, or look like another person's. Refused (the decision: docs/decisions/0027):

- direction controls (U+061C, U+200E/F, U+202A-202E, U+2066-2069); the page still
  isolates every name (<bdi>), for names stored before this rule;
- invisible characters: zero-width space, word joiner, byte-order mark, the Hangul
  fillers that render as blanks; the zero-width joiner and non-joiner only where they
  join two letters, marks, digits or symbols, as Persian and Indic writing and emoji
  sequences (a family, a rainbow flag) need them;
- every other control or format character (categories Cc, Cf), line and paragraph
  separators (Zl, Zp), surrogates;
- private-use characters (Co), whose look depends on the reader's fonts, and unassigned
  code points (Cn), except in the emoji blocks, where new emoji arrive before this
  Python's Unicode tables know them.

Accepted: letters of every script (right-to-left ones shown the right way round by the
page's isolation), combining marks, digits, punctuation, symbols, spaces.
"""

import unicodedata

from socialsite.repository import limits, lists, profiles

from .core import Invalid

# --- display names ------------------------------------------------------------------------

BIDI_CONTROLS = frozenset(
    "\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"
)
JOINERS = frozenset("\u200c\u200d")  # zero-width non-joiner, zero-width joiner
INVISIBLE = frozenset("\u200b\u2060\ufeff\u115f\u1160\u3164\uffa0") | JOINERS
# Categories never shown as themselves: controls, format characters (the bidi controls
# and zero-width characters among them), line and paragraph separators, surrogates.
CONTROL_CATEGORIES = frozenset({"Cc", "Cf", "Zl", "Zp", "Cs"})
# Emoji blocks (U+1F000-1FAFF): code points unassigned to this Python may be new emoji.
EMOJI_BLOCKS = range(0x1F000, 0x1FB00)

# The longest display name, in characters.
DISPLAY_NAME_MAX_LENGTH = 50

# Django's words for an empty required field and a value over a field's max_length: the
# display name's form field (accounts.display_names.display_name_field) says them on
# the pages, and the API said them through the same form before the actions.
REQUIRED = "This field is required."
NULL_CHARACTERS = "Null characters are not allowed."


def _too_long(most: int, length: int) -> str:
    return f"Ensure this value has at most {most} characters (it has {length})."


def describe(char: str) -> str:
    """ "U+202E RIGHT-TO-LEFT OVERRIDE": a character as a person can look it up."""
    name = unicodedata.name(char, "")
    return f"U+{ord(char):04X} {name}".rstrip()


def _joins(name: str, index: int) -> bool:
    """Whether the joiner at ``index`` stands between two visible characters."""
    if index == 0 or index == len(name) - 1:
        return False
    visible = "LMNS"  # letters, marks, numbers, symbols
    return (
        unicodedata.category(name[index - 1])[0] in visible
        and unicodedata.category(name[index + 1])[0] in visible
    )


def display_name_problem(name: str) -> str | None:
    """Why ``name`` cannot be a display name (a sentence for the form), or None."""
    for index, char in enumerate(name):
        if char in BIDI_CONTROLS:
            return (
                f"A display name cannot contain direction controls ({describe(char)}):"
                " they change how the text around the name reads."
            )
        if char in JOINERS and _joins(name, index):
            continue
        if char in INVISIBLE:
            hint = (
                "; a zero-width joiner or non-joiner may only join two letters or symbols"
                if char in JOINERS
                else ""
            )
            return f"A display name cannot contain invisible characters ({describe(char)}){hint}."
        category = unicodedata.category(char)
        if category in CONTROL_CATEGORIES:
            return (
                "A display name cannot contain control or formatting characters"
                f" ({describe(char)})."
            )
        if category == "Co" or (category == "Cn" and ord(char) not in EMOJI_BLOCKS):
            return (
                f"A display name cannot contain {describe(char)}: a private-use or"
                " unassigned character, which readers' fonts show differently or not at all."
            )
    return None


def check_display_name(name: str, field: str = "name") -> str:
    """The display name as stored (without surrounding spaces), or Invalid: empty, over
    DISPLAY_NAME_MAX_LENGTH characters, or holding what display_name_problem refuses."""
    name = name.strip()
    if not name:
        raise Invalid(REQUIRED, field=field)
    if len(name) > DISPLAY_NAME_MAX_LENGTH:
        raise Invalid(_too_long(DISPLAY_NAME_MAX_LENGTH, len(name)), field=field)
    reason = display_name_problem(name)
    if reason is not None:
        raise Invalid(reason, field=field)
    return name


# --- the profile: bio and website ---------------------------------------------------------

BIO_MAX_LENGTH = profiles.BIO_MAX_LENGTH
WEBSITE_MAX_LENGTH = profiles.WEBSITE_MAX_LENGTH


def check_bio(bio: str) -> str:
    """The bio as stored: without surrounding spaces, a line break as one character
    (browsers send a textarea's as CR LF), at most BIO_MAX_LENGTH characters; Invalid
    otherwise. Empty is a bio taken away."""
    bio = bio.strip().replace("\r\n", "\n")
    if "\x00" in bio:
        raise Invalid(NULL_CHARACTERS, field="bio")
    if len(bio) > BIO_MAX_LENGTH:
        raise Invalid(
            f"A bio is at most {BIO_MAX_LENGTH} characters; this one has {len(bio)}.",
            field="bio",
        )
    return bio


def check_website(website: str) -> str:
    """The website as stored: empty (none), or an http:// or https:// address of at
    most WEBSITE_MAX_LENGTH characters; Invalid otherwise. (The page's URLField reads
    what a person types, "example.org", into such an address first.)"""
    website = website.strip()
    if not website:
        return ""
    if len(website) > WEBSITE_MAX_LENGTH:
        raise Invalid(_too_long(WEBSITE_MAX_LENGTH, len(website)), field="website")
    if not website.lower().startswith(("http://", "https://")):
        raise Invalid("A website is an http:// or https:// address.", field="website")
    return website


def both_for_a_picture(which: str) -> str:
    """The refusal of a new picture chosen and the same picture removed at once."""
    return f"Choose a new {which} or remove it, not both."


# --- lists --------------------------------------------------------------------------------

LIST_NAME_MAX_LENGTH = limits.LIST_NAME_MAX_LENGTH
LIST_NAME_REQUIRED = "Give the list a name."
LIST_EXISTS = "You already have a list named \u201c{name}\u201d."
LISTS_FULL = (
    f"You have {limits.LISTS_PER_USER} lists, the most one can have: "
    "delete one before making another."
)
NOT_FOLLOWING = "You can only add people you follow: follow @{login} first."
LIST_FULL = f"A list holds at most {limits.LIST_MEMBERS} people."
LIST_SELF = "Your own statuses are on your home page: a list is for others."


def check_list_name(name: str, field: str = "name") -> str:
    """A list's name as stored (lists.normalize_name: NFKC, stripped), or Invalid: what
    a display name may not hold, empty, or over LIST_NAME_MAX_LENGTH characters once
    normalized."""
    name = lists.normalize_name(name)
    reason = display_name_problem(name)
    if reason is not None:
        raise Invalid(reason.replace("A display name", "A list name"), field=field)
    if not name:
        raise Invalid(LIST_NAME_REQUIRED, field=field)
    if len(name) > LIST_NAME_MAX_LENGTH:
        raise Invalid(
            f"A list name has at most {LIST_NAME_MAX_LENGTH} characters"
            f" (this one has {len(name)} once normalized).",
            field=field,
        )
    return name

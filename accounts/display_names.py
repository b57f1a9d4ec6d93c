"""What a display name may hold: visible text, in any script, with emoji.

A display name is shown beside other people's text on every page, so it must not reach
outside itself or hide what it is: a RIGHT-TO-LEFT OVERRIDE makes "\\u202eevil\\u202c
name" read as "live name", and can turn the text after the name around too; invisible
characters make names that look empty, or look like another person's. Refused (the
decision: docs/decisions/0027):

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

from django import forms

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


def describe(char):
    """ "U+202E RIGHT-TO-LEFT OVERRIDE": a character as a person can look it up."""
    name = unicodedata.name(char, "")
    return f"U+{ord(char):04X} {name}".rstrip()


def _joins(name, index):
    """Whether the joiner at ``index`` stands between two visible characters."""
    if index == 0 or index == len(name) - 1:
        return False
    visible = "LMNS"  # letters, marks, numbers, symbols
    return (
        unicodedata.category(name[index - 1])[0] in visible
        and unicodedata.category(name[index + 1])[0] in visible
    )


def problem(name):
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


def validate_display_name(value):
    """The form validator: a ValidationError saying which character, and why."""
    reason = problem(value)
    if reason is not None:
        raise forms.ValidationError(reason, code="invalid_display_name")


# The longest display name, in characters.
MAX_LENGTH = 50


def display_name_field(**options):
    """The form field of a display name, as sign-up and the settings page ask for it."""
    return forms.CharField(
        label="Display name", max_length=MAX_LENGTH, validators=[validate_display_name], **options
    )

"""What a display name may hold: visible text, in any script, with emoji (the rules
themselves: socialsite/actions/rules.py; here, the forms' field applying them).

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

from django import forms

# The rules moved below the apps, to the actions that apply them (socialsite/actions/
# rules.py): the names here are those the sign-up and settings forms know.
from socialsite.actions.rules import DISPLAY_NAME_MAX_LENGTH as MAX_LENGTH
from socialsite.actions.rules import display_name_problem as problem


def validate_display_name(value):
    """The form validator: a ValidationError saying which character, and why."""
    reason = problem(value)
    if reason is not None:
        raise forms.ValidationError(reason, code="invalid_display_name")


def display_name_field(**options):
    """The form field of a display name, as sign-up and the settings page ask for it."""
    return forms.CharField(
        label="Display name", max_length=MAX_LENGTH, validators=[validate_display_name], **options
    )

"""The form field of a display name, as sign-up and the settings pages ask for it. What a
display name may hold (visible text, in any script, with emoji; no direction controls,
invisible, control, private-use or unassigned characters: decision 0027) is the rule of
socialsite/actions/rules.py, which the actions setting a name apply too."""

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

"""The moderation pages' forms: what is typed, read into what the actions take
(socialsite/actions/moderation.py applies the rules: the form says its answers)."""

from django import forms

from socialsite.actions import Invalid
from socialsite.actions import moderation as acts
from socialsite.repository.ids import parse_id
from socialsite.repository.limits import MODERATION_REASON_MAX_LENGTH, REPORT_COMMENT_MAX_LENGTH


def parse_ids(values):
    """Status ids given as text as ints, in order, once each (acts.parse_status_ids);
    ValidationError for one that is not a number."""
    try:
        return acts.parse_status_ids(values)
    except Invalid as refusal:
        raise forms.ValidationError(refusal.message) from None


class ReportForm(forms.Form):
    """A report about an account: a reason, a comment, and (as ``status`` fields, one
    per status, written out by the template) the statuses it is about, read as ids
    (``status_ids``). Which of them the report may name (the account's, as the reporter
    may see them; at most REPORT_STATUSES_MAX) is the action's rule
    (acts.report_account), whose refusal the view adds to the form."""

    reason = forms.ChoiceField(
        label="What is wrong?",
        choices=list(acts.REASONS.items()),
        widget=forms.RadioSelect,
        error_messages={"required": "Say what is wrong: pick a reason."},
    )
    comment = forms.CharField(
        label="Anything the moderators should know (optional)",
        required=False,
        max_length=REPORT_COMMENT_MAX_LENGTH,
        widget=forms.Textarea(attrs={"rows": 4}),
    )

    def __init__(self, *args, **kwargs):
        self.status_ids = []
        super().__init__(*args, **kwargs)

    def posted_status_ids(self):
        """The ``status`` fields sent, as numbers where they are numbers."""
        values = self.data.getlist("status") if hasattr(self.data, "getlist") else []
        return [number for number in map(parse_id, values) if number is not None]

    def clean(self):
        cleaned = super().clean()
        values = self.data.getlist("status") if hasattr(self.data, "getlist") else []
        try:
            self.status_ids = parse_ids(values)
        except forms.ValidationError as error:
            self.add_error(None, error)
        return cleaned


def reason_field(required):
    return forms.CharField(
        label="Reason",
        required=required,
        max_length=MODERATION_REASON_MAX_LENGTH,
        error_messages={"required": acts.REASON_REQUIRED},
    )


class ReportActionForm(forms.Form):
    """A moderator's decision on a report: dismiss it, delete one of its statuses, or
    suspend the account. Deleting and suspending need a reason."""

    ACTIONS = ("dismiss", "delete-status", "suspend")

    action = forms.ChoiceField(choices=[(action, action) for action in ACTIONS])
    status = forms.CharField(required=False, max_length=20)
    reason = reason_field(required=False)

    def clean(self):
        cleaned = super().clean()
        action = cleaned.get("action")
        if action in ("delete-status", "suspend") and not cleaned.get("reason"):
            self.add_error("reason", "Give a reason: the audit log records why.")
        if action == "delete-status":
            try:
                ids = parse_ids([cleaned.get("status") or ""])
            except forms.ValidationError as error:
                self.add_error("status", error)
            else:
                cleaned["status"] = ids[0]
        return cleaned


class AccountActionForm(forms.Form):
    """Suspending an account (a reason needed), or ending its suspension."""

    reason = reason_field(required=False)

    def __init__(self, action, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["reason"].required = action == "suspend"

from django import forms

from socialsite.connection import get_redis
from socialsite.repository import moderation
from socialsite.repository.ids import parse_id
from socialsite.repository.limits import (
    MODERATION_REASON_MAX_LENGTH,
    REPORT_COMMENT_MAX_LENGTH,
    REPORT_STATUSES_MAX,
)


def parse_ids(values, what="status"):
    """Ids given as text (form fields, query parameters) as ints, in order, once
    each; ValidationError for one that is not a number."""
    ids = []
    for value in values:
        number = parse_id(value, lowest=0)  # 0 names no status: "not one of theirs"
        if number is None:
            raise forms.ValidationError(f"A {what} is named by its number, not {value[:40]!r}.")
        ids.append(number)
    return list(dict.fromkeys(ids))


class ReportForm(forms.Form):
    """A report about an account: a reason, a comment, and (as ``status`` fields, one
    per status, written out by the template) the statuses it is about, which must all
    be the account's, and statuses the reporter ``reporter_id`` may see
    (moderation.reportable_statuses: one they may not see is refused word for word as
    one that is not there)."""

    reason = forms.ChoiceField(
        label="What is wrong?",
        choices=list(moderation.REASONS.items()),
        widget=forms.RadioSelect,
        error_messages={"required": "Say what is wrong: pick a reason."},
    )
    comment = forms.CharField(
        label="Anything the moderators should know (optional)",
        required=False,
        max_length=REPORT_COMMENT_MAX_LENGTH,
        widget=forms.Textarea(attrs={"rows": 4}),
    )

    def __init__(self, account, reporter_id, *args, **kwargs):
        self.account = account
        self.reporter_id = reporter_id
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
            ids = parse_ids(values)
        except forms.ValidationError as error:
            self.add_error(None, error)
            return cleaned
        if len(ids) > REPORT_STATUSES_MAX:
            self.add_error(
                None, f"A report names at most {REPORT_STATUSES_MAX} statuses; this one {len(ids)}."
            )
            return cleaned
        theirs = moderation.reportable_statuses(get_redis(), self.reporter_id, self.account, ids)
        unknown = [str(sid) for sid in ids if sid not in theirs]
        if unknown:
            self.add_error(
                None,
                f"Status {', '.join(unknown)} is not one of @{self.account['login']}'s "
                "statuses (deleted since, or someone else's): untick it to send the report.",
            )
        self.status_ids = theirs
        return cleaned


def reason_field(required):
    return forms.CharField(
        label="Reason",
        required=required,
        max_length=MODERATION_REASON_MAX_LENGTH,
        error_messages={"required": "Give a reason: the audit log records why."},
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

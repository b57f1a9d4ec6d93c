"""POST /api/v1/reports: a report about an account into the moderators' queue, checked
by the report page's own form (moderation/forms.py: the reason, the comment's length,
the statuses must be the account's) and counted against the same THROTTLE_REPORTS."""

import time

from django.http import QueryDict

from moderation.forms import ReportForm
from socialsite.connection import get_redis
from socialsite.repository import moderation

from . import entities
from .auth import api_view
from .common import BadBody, body, get_list, shown_user, throttled
from .responses import error, json_response

# Mastodon's report categories as the reasons here (moderation.REASONS); a reason's own
# name is taken too.
CATEGORIES = {"spam": "spam", "legal": "illegal", "violation": "abuse", "other": "other"}
REASON_CATEGORY = {reason: category for category, reason in CATEGORIES.items()}


@api_view(scope="write:reports", methods=("POST",))
def report(request):
    """``account_id``, ``status_ids[]``, ``comment``, ``category``: the Report entity."""
    refused = throttled(request, "reports")
    if refused is not None:
        return refused
    try:
        params = body(request)
    except BadBody as bad:
        return error(422, str(bad))
    r = get_redis()
    account = shown_user(r, str(params.get("account_id", "")))
    if account["id"] == request.user.id:
        return error(422, "Validation failed: you cannot report yourself")
    category = str(params.get("category") or "other")
    form_data = QueryDict(mutable=True)
    form_data.update({"reason": CATEGORIES.get(category, category),
                      "comment": str(params.get("comment", ""))})  # fmt: skip
    form_data.setlist("status", get_list(params, "status_ids"))
    form = ReportForm(account, request.user.id, form_data)
    if not form.is_valid():
        problems = " ".join(str(m) for errors in form.errors.values() for m in errors)
        return error(422, f"Validation failed: {problems}")
    reason = form.cleaned_data["reason"]
    reporter = {"id": request.user.id, "login": request.user.login}
    rid = moderation.file_report(
        r, reporter, account, reason, form.cleaned_data["comment"], form.status_ids
    )
    return json_response(
        {
            "id": str(rid),
            "action_taken": False,
            "action_taken_at": None,
            "category": REASON_CATEGORY.get(reason, "other"),
            "comment": form.cleaned_data["comment"],
            "forwarded": False,
            "created_at": entities.iso_time(time.time()),
            "status_ids": [str(sid) for sid in form.status_ids],
            "rule_ids": None,
            "target_account": entities.account(entities.site_base(request), account),
        }
    )

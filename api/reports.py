"""POST /api/v1/reports: a report about an account into the moderators' queue, by the
report page's own action (actions.moderation.report_account: the "reports" throttle,
the reason, the comment's length, which statuses may be named, not oneself)."""

import time

from socialsite.acting import actor_of
from socialsite.actions import moderation as acts

from . import entities
from .auth import api_view
from .common import BadBody, body, get_list, id_or_404
from .responses import error, json_response

# Mastodon's report categories as the reasons here (moderation.REASONS); a reason's own
# name is taken too.
CATEGORIES = {"spam": "spam", "legal": "illegal", "violation": "abuse", "other": "other"}
REASON_CATEGORY = {reason: category for category, reason in CATEGORIES.items()}


@api_view(scope="write:reports", methods=("POST",))
def report(request):
    """``account_id``, ``status_ids[]``, ``comment``, ``category``: the Report entity."""
    try:
        params = body(request)
    except BadBody as bad:
        return error(422, str(bad))
    account_id = id_or_404(str(params.get("account_id", "")))
    category = str(params.get("category") or "other")
    filed = acts.report_account(
        actor_of(request),
        account_id,
        CATEGORIES.get(category, category),
        str(params.get("comment") or ""),
        acts.parse_status_ids(get_list(params, "status_ids")),
    )
    return json_response(
        {
            "id": str(filed.id),
            "action_taken": False,
            "action_taken_at": None,
            "category": REASON_CATEGORY.get(filed.reason, "other"),
            "comment": filed.comment,
            "forwarded": False,
            "created_at": entities.iso_time(time.time()),
            "status_ids": [str(sid) for sid in filed.status_ids],
            "rule_ids": None,
            "target_account": entities.account(entities.site_base(request), filed.account),
        }
    )

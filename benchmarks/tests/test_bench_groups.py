"""``manage.py bench_groups`` runs at a tiny scale: a pulled group of 30 members, and
the group pages and a home of 5 groups against /healthz."""

import re
from io import StringIO

from django.core.management import call_command


def test_bench_groups_measures_posting_and_pages(r):
    out = StringIO()
    call_command("bench_groups", members=30, pull_members=20, repeat=1, requests=2, stdout=out)
    text = out.getvalue()
    assert re.search(r"Posting to a group of 30 members \(pulled\)", text)
    assert re.search(r"Redis ms\s+[0-9.]+\s+[0-9.]+", text)
    for label in ("public group page", "private group page", "home (5 groups, 1 pulled)"):
        assert re.search(rf"{re.escape(label)}\s+[0-9.]+ ms", text), label

"""``manage.py bench_group_pages`` runs on a tiny scale: a short gunicorn run of a
group's page and of a home of 5 groups against /healthz."""

import re
from io import StringIO

from django.core.management import call_command


def test_bench_group_pages_measures_a_group_page_and_a_home_of_groups():
    out = StringIO()
    call_command("bench_group_pages", seconds=0.5, warmup=0.2, connections=2, stdout=out,
                 stderr=StringIO())  # fmt: skip
    text = out.getvalue()
    assert "5 groups of the reader and the authors, the last pulled" in text, text
    assert re.search(r"home/healthz by gunicorn CPU per request: \d+%", text), text
    assert re.search(r"group page/healthz by gunicorn CPU per request: \d+% -> ", text), text

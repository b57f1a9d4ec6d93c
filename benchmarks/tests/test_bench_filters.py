"""``manage.py bench_filters`` runs on a tiny scale: a short gunicorn run of the home page
of a reader with 10 keyword filters against /healthz."""

import re
from io import StringIO

from django.core.management import call_command

from benchmarks.filters import FILTERS, KEYWORDS, reader_filters


def test_the_readers_filters_are_ten_of_five_keywords():
    made = reader_filters()
    assert len(made) == FILTERS and all(len(words) == KEYWORDS for _, _, words in made)


def test_bench_filters_measures_the_home_page_with_filters():
    out = StringIO()
    call_command("bench_filters", seconds=0.5, warmup=0.2, connections=2, stdout=out,
                 stderr=StringIO())  # fmt: skip
    text = out.getvalue()
    assert "the home page shows 30 statuses, 3 of them filtered" in text, text
    assert re.search(r"home/healthz by gunicorn CPU per request: \d+%", text), text
    assert re.search(r"home with 10 filters of 5 keywords/healthz .*: \d+% -> ", text), text

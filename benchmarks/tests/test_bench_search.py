"""``manage.py bench_search`` runs (at a small scale) on a demo network already there."""

import re
from io import StringIO

from django.core.management import call_command

from benchmarks.search import LENGTHS, make_queries


def test_the_query_mix_has_every_length_and_kind():
    import random

    queries = make_queries(random.Random(1), 1000, 500)
    assert {kind for kind, _ in queries} == set(LENGTHS)
    texts = [text for _, text in queries]
    assert any(t.startswith("#") for t in texts) and any(t.startswith("@") for t in texts)
    assert all(len(t.lstrip("@#")) == 1 for kind, t in queries if kind == "1 letter")


def test_bench_search_measures_a_seeded_demo_network(r, redis_backend):
    call_command("seed_demo", users=300, follows=3000, statuses=300, stdout=StringIO())
    out = StringIO()
    call_command(
        "bench_search",
        redis_url=redis_backend.url,
        cluster=redis_backend.cluster,
        queries=20,
        index_statuses=True,
        stdout=out,
    )
    text = out.getvalue()
    assert "bench_search: 300 users" in text
    for what in ("search (repository)", "/search/ (view)", "/search/complete.json (view)"):
        assert re.search(rf"{re.escape(what)}\s+all\s+[0-9.]+\s+[0-9.]+", text), what
    assert re.search(r"People index: .* bytes per user", text)
    for what in ("statuses (repository)", "/search/?type=statuses (view)"):
        assert re.search(rf"{re.escape(what)}\s+two words\s+[0-9.]+\s+[0-9.]+", text), what
    assert re.search(r"Status index: .* [0-9]+ bytes per status", text)

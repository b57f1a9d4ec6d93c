"""``manage.py bench_fanout`` (at a small scale, on its own throwaway server): the share of
the server-time ceiling it prints, and its breakdown of a delivery's time."""

import re
from io import StringIO

from django.core.management import call_command


def bench_fanout(**options):
    out = StringIO()
    call_command("bench_fanout", stdout=out, **options)
    return out.getvalue()


def test_the_rate_is_read_against_the_book_and_the_server_time_ceiling():
    out = bench_fanout(followers="3000", workers="1", repeat=1, ceiling_timelines=20)
    ceiling = re.search(r"server-time ceiling\s+([\d.]+)us\s+([\d,]+)", out)
    assert ceiling and float(ceiling[1]) > 0
    share = re.search(r"ours / server-time ceiling \(([\d.]+) us, ([\d,]+) deliveries/s\): "
                      r"1 workers (\d+)%", out)  # fmt: skip
    assert share and share[1] == ceiling[1] and share[2] == ceiling[2]
    assert re.search(r"ours / book: 1 workers [\d.]+x", out)


def test_the_breakdown_says_where_a_deliverys_time_goes():
    out = bench_fanout(followers="3000", breakdown=True, ceiling_timelines=20)
    assert "2,000 delivered by one worker" in out
    calls = dict(re.findall(r"^\s+(sadd|scard) \(in scripts\)\s+([\d.]+)", out, re.M))
    assert calls == {"sadd": "1000.0", "scard": "1000.0"}  # empty homes: nothing else
    assert re.search(r"Round trips: [\d.]+ per 1,000 deliveries", out)
    for part in ("reading followers", "deliver.lua calls built", "deliver.lua calls sent"):
        assert re.search(rf"{part}.* [\d.]+ us", out)

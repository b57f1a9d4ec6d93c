"""bench_web's measurement of the Top timeline, at a tiny scale: the ranking's cost at
a few candidate counts (measure_ranking), and /top/ measured in process beside /healthz
and the home page. The full scale (200 and 800 candidates) is the integrator's run."""

from io import StringIO

from django.core.management import call_command

from benchmarks import web


def test_the_ranking_is_measured_at_each_size(r):
    found = web.measure_ranking(r, (4, 8), rounds=2)
    assert [row.candidates for row in found] == [4, 8]
    assert [row.scored for row in found] == [4, 8]
    for row in found:
        # The home's candidates; the follows, affinities and likers: whatever the size.
        assert row.round_trips == 2
        assert row.wall_ms > 0 and row.redis_ms >= 0


def test_bench_web_in_process_measures_top_and_the_ranking(r):
    out = StringIO()
    call_command(
        "bench_web", in_process=True, repeat=1, ranking_sizes=(3, 6), ranking_rounds=1,
        stdout=out,
    )  # fmt: skip
    text = out.getvalue()
    assert "GET /top/" in text and "top/healthz:" in text
    assert "The Top timeline's ranking" in text


def test_the_signals_measurement_runs_at_a_tiny_scale(r):
    from benchmarks import top_signals

    wall, cpu = top_signals.per_like(r, followers=5, likes=2)
    assert wall > 0 and cpu >= 0
    wall, cpu = top_signals.per_page(r, candidates=9, likers=3, pages=2)
    assert wall > 0 and cpu >= 0


def test_bench_web_in_process_cold_measures_each_page_again_with_the_caches_emptied(r):
    from benchmarks import web

    out = StringIO()
    call_command("bench_web", in_process=True, cold=True, repeat=1, ranking_sizes=(), stdout=out)
    text = out.getvalue()
    assert text.count("home/healthz:") == 2 and "the CPU's caches emptied before each" in text
    web._EVICTION_BUFFER[-16:] = b"x" * 16
    web.evict_caches()  # writes over the whole buffer
    assert web._EVICTION_BUFFER[-16:] == bytes(16)

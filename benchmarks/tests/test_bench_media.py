"""``manage.py bench_media`` runs on tiny inputs: a small JPEG, then a short gunicorn
run of the home page with images against /healthz."""

import re
from io import StringIO

from django.core.management import call_command

from benchmarks.media import dimensions


def test_a_12_megapixel_picture_is_4000_by_3000():
    assert dimensions(12) == (4000, 3000)


def test_bench_media_measures_the_jpeg_and_the_home_page_with_images():
    out = StringIO()
    call_command("bench_media", megapixels=0.3, jpeg_runs=2, seconds=0.5, warmup=0.2,
                 connections=2, stdout=out, stderr=StringIO())  # fmt: skip
    text = out.getvalue()
    assert re.search(r"Accepting a 632 x 474 JPEG .* best of 2 [0-9.]+ s of CPU", text), text
    assert re.search(r"of which the blurhash .*: [0-9.]+ ms of CPU .* without: [0-9.]+", text)
    assert "the reader's home page shows 10 of 30 with one" in text
    assert re.search(r"home/healthz by gunicorn CPU per request: \d+%", text), text
    assert re.search(r"home with 10 images/healthz by gunicorn CPU per request: \d+% -> ", text)

"""Benchmarks and load generation: a Django app for its management commands, installed only
by benchmarks/settings.py, apart from the product (socialsite, accounts, timeline,
moderation), which imports nothing from here.

Commands (benchmarks/management/commands/, thin entry points over the modules below),
each run with ``--settings benchmarks.settings`` (settings.py: production's, with what
production must be given made up, as each benchmark starts its own Redis):

- ``manage.py bench_web`` (web.py): pages through gunicorn, the home page against
  ``/healthz``, and posting; with --in-process, the CPU time per page in one process.
- ``manage.py bench_fanout`` (fanout.py): fan-out rate, the workers against the book's
  algorithm (book.py) and raw ZADDs.
- ``manage.py bench_memory`` (memory.py): bytes per home-timeline entry and per status,
  and Redis's time per delivery, ours against the book's layout.
- ``manage.py bench_stream`` (stream.py): the streaming server's delivery delay, memory
  and CPU against the book's design of one subscription per client.
- ``manage.py bench_stream_server``: the streaming server with that design
  (book_stream.py), which bench_stream starts for the comparison.

Other modules: book.py, the book's fan-out (listings 8.6 and 8.7); book_stream.py, the
book's streaming hub (listing 8.15); loadgen.py, the HTTP load generator bench_web
uses.

The benchmarks start their Redis servers and stream servers with socialsite_dev (shared
with the tests, owned by neither). Their own tests are in benchmarks/tests/.
"""

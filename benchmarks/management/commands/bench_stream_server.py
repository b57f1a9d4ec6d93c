"""``manage.py bench_stream_server``: ``manage.py stream`` with the book's design of one
Redis subscription per client (benchmarks/book_stream.py), for bench_stream to
compare with. Same options and endpoints as ``manage.py stream``; not for production.
"""

from benchmarks.book_stream import PerClientHub
from socialsite.management.commands import stream


class Command(stream.Command):
    help = "Run the streaming server with one Redis subscription per client, as in the book."

    hub_class = PerClientHub

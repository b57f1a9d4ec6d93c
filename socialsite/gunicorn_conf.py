"""gunicorn's settings for the site's metrics: ``gunicorn -c python:socialsite.gunicorn_conf
socialsite.wsgi ...`` (docs/operating.md, "Metrics").

The workers keep their metrics in files of a directory they share (prometheus-client's
multiprocess mode, socialsite/metrics.py): the master empties it at start, so that an
earlier run's counts are not added to this one's, and forgets a worker's gauges when it
exits (its counters stay: they are summed over every worker that ever ran).
"""

import os

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "socialsite.settings")


def on_starting(server):
    from django.conf import settings

    from socialsite.metrics_setup import prepare_directory

    # Reading the settings puts PROMETHEUS_MULTIPROC_DIR in the environment, which the
    # workers inherit.
    prepare_directory(os.environ.get("PROMETHEUS_MULTIPROC_DIR") or settings.METRICS_DIR / "web")


def child_exit(server, worker):
    from prometheus_client import multiprocess

    multiprocess.mark_process_dead(worker.pid)

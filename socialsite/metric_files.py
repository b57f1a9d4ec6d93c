"""The directories where processes keep their metrics for whichever of them answers a
scrape (prometheus-client's multiprocess mode: socialsite/metrics.py for the web
processes, timeline/streaming/metrics.py for a stream server's). Nothing here makes a
metric, so a supervising process (gunicorn's master, manage.py stream) may use it
without files of its own appearing among its children's."""

import shutil
from pathlib import Path


def prepare_directory(path):
    """Make the directory ``path``, emptied: the files of processes of an earlier run
    would be added to this run's figures."""
    path = Path(path)
    if path.exists():
        shutil.rmtree(path)
    path.mkdir(parents=True, exist_ok=True)
    return path

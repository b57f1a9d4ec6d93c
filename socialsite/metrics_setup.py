"""What the site's metrics endpoints share (the pages' GET /metrics,
socialsite/metrics_page.py; a stream server's, streaming/metrics.py): who may
read them, and the directories where processes keep their metrics for whichever of
them answers a scrape (prometheus-client's multiprocess mode). Nothing here makes a
metric, so a supervising process (gunicorn's master, manage.py stream) may use it
without files of its own appearing among its children's."""

import hmac
import shutil
from pathlib import Path

from django.conf import settings


def prepare_directory(path):
    """Make the directory ``path``, emptied: the files of processes of an earlier run
    would be added to this run's figures."""
    path = Path(path)
    if path.exists():
        shutil.rmtree(path)
    path.mkdir(parents=True, exist_ok=True)
    return path


def may_read(address, authorization):
    """Whether a request from ``address`` (an ipaddress object or None: the client
    address as the throttles read it) with header ``authorization`` may read metrics:
    the address in METRICS_ALLOWED, or "Bearer METRICS_TOKEN"."""
    token = settings.METRICS_TOKEN
    if token and hmac.compare_digest((authorization or "").encode(), f"Bearer {token}".encode()):
        return True
    return address is not None and any(address in network for network in settings.METRICS_ALLOWED)

"""socialsite.wsgi, the module gunicorn loads."""

import os
import subprocess
import sys

from django.conf import settings


def output_of_a_new_process(script):
    """What ``python -c script`` prints, run with the site's settings: as gunicorn's
    process, it has not run tests or Django's test client first."""
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "socialsite.settings", "DEBUG": "true"}
    result = subprocess.run(
        [sys.executable, "-c", script], cwd=settings.BASE_DIR, env=env,
        capture_output=True, text=True, timeout=60, check=True,
    )  # fmt: skip
    return result.stdout.split()


def test_loading_the_application_imports_the_views_and_freezes_what_is_in_memory():
    is_app, views_imported, frozen = output_of_a_new_process(
        "import gc, sys; import socialsite.wsgi as w; "
        "print(callable(w.application), 'timeline.views' in sys.modules, gc.get_freeze_count())"
    )
    assert is_app == "True" and views_imported == "True"
    assert int(frozen) > 10_000  # Django and the project, not a handful of objects


def test_requests_skip_the_housekeeping_there_is_no_database_or_cache_for():
    # Django's test client connects these receivers again after each request it makes,
    # hence a new process. disconnect() says whether it found the receiver connected.
    assert output_of_a_new_process(
        "import socialsite.wsgi; from django.core import signals; "
        "from django.db import close_old_connections as c, reset_queries as q; "
        "from django.core.cache import close_caches as k; "
        "print(signals.request_started.disconnect(c), signals.request_started.disconnect(q), "
        "signals.request_finished.disconnect(c), signals.request_finished.disconnect(k))"
    ) == ["False", "False", "False", "False"]


def test_a_cache_backend_that_closes_something_keeps_its_housekeeping():
    from socialsite.apps import _closes_nothing

    assert _closes_nothing("django.core.cache.backends.locmem.LocMemCache")
    assert not _closes_nothing("django.core.cache.backends.memcached.PyMemcacheCache")

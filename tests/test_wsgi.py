"""socialsite.wsgi, the module gunicorn loads."""

import os
import subprocess
import sys

from django.conf import settings


def test_loading_the_application_imports_the_views_and_freezes_what_is_in_memory():
    script = (
        "import gc, sys; import socialsite.wsgi as w; "
        "print(callable(w.application), 'timeline.views' in sys.modules, gc.get_freeze_count())"
    )
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "socialsite.settings", "DEBUG": "true"}
    result = subprocess.run(
        [sys.executable, "-c", script], cwd=settings.BASE_DIR, env=env,
        capture_output=True, text=True, timeout=60, check=True,
    )  # fmt: skip
    is_app, views_imported, frozen = result.stdout.split()
    assert is_app == "True" and views_imported == "True"
    assert int(frozen) > 10_000  # Django and the project, not a handful of objects

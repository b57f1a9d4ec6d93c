"""The site's settings for the tests: production's (DEBUG off), with the values
production must be given made up here.

The tests start their own Redis servers (tests/conftest.py) and point settings.REDIS_URL
at them in every test; each process they start (these settings, through the inherited
DJANGO_SETTINGS_MODULE) is given its server's URL in REDIS_URL. Without one, REDIS_URL
names a port nothing listens on: a process that is not told where its Redis is fails at
once, rather than starting the embedded Redis in var/. The secret is made for the run
and inherited, so a stream server reads the sessions the test client signed.
"""

import os
import secrets
import tempfile

os.environ.setdefault("SECRET_KEY", secrets.token_urlsafe(50))
os.environ.setdefault("REDIS_URL", "redis://127.0.0.1:1/0")
# Mail goes to Django's memory outbox in the tests (pytest-django sets it up); the tests
# of sending start a real SMTP server and point the settings at it (tests/test_email*.py).
os.environ.setdefault("EMAIL_URL", "smtp://127.0.0.1:1")
os.environ.setdefault("SITE_URL", "http://testserver")
# The verification tests set "required" themselves.
os.environ.setdefault("EMAIL_VERIFICATION", "optional")
# Pictures of the run go to a directory of their own, never the checkout's var/;
# tests that store some give each test its own (the media_root fixture).
os.environ.setdefault("MEDIA_ROOT", tempfile.mkdtemp(prefix="socialsite-tests-media-"))

# The processes' metrics files (socialsite/metrics.py) likewise.
os.environ.setdefault("METRICS_DIR", tempfile.mkdtemp(prefix="socialsite-tests-metrics-"))

from socialsite.settings import *  # noqa: E402, F403

# Pictures are served here as in development (media/views.py), so that the tests see
# real responses; each test's files go to a directory of its own (tests/conftest.py).
MEDIA_SERVED_HERE = True

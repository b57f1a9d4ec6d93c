"""The site's settings for the benchmarks: production's (DEBUG off), with the values
production must be given made up here (mail printed on the console), and the benchmarks'
app (its management commands) installed, so that `manage.py bench_* --settings
benchmarks.settings` needs nothing else.

Each benchmark starts its own Redis servers and passes their URLs to the processes it
starts, and to its own code; REDIS_URL names a port nothing listens on until then, so
nothing can reach the embedded Redis in var/ by mistake. The secret is made for this run.
"""

import os
import secrets

os.environ.setdefault("SECRET_KEY", secrets.token_urlsafe(50))
os.environ.setdefault("REDIS_URL", "redis://127.0.0.1:1/0")
os.environ.setdefault("EMAIL_URL", "console:")
os.environ.setdefault("SITE_URL", "http://127.0.0.1:8000")
# The benchmarks' accounts post at once, as the tests' do.
os.environ.setdefault("EMAIL_VERIFICATION", "optional")

from socialsite.settings import *  # noqa: E402, F403

# The product's settings leave the benchmarks out; their commands exist only here.
INSTALLED_APPS = [*INSTALLED_APPS, "benchmarks"]  # noqa: F405

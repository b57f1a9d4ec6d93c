import gc
import os
from importlib import import_module

from django.conf import settings
from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "socialsite.settings")
application = get_wsgi_application()

# Import every view now (the URLconf does), then freeze what is in memory: Python's
# collector no longer walks the ~80,000 objects Django and the project are made of, which
# it did in every full collection, a 44 ms pause of a worker every few thousand requests
# (measured in docs/bench_web.md). Unreachable garbage is collected first, not kept.
import_module(settings.ROOT_URLCONF)
gc.collect()
gc.freeze()

import gc
import os
from importlib import import_module

from django.conf import settings
from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "socialsite.settings")
application = get_wsgi_application()

# Import every view now (the URLconf does), then freeze what is in memory: Python's
# collector does not walk the objects Django and the project are made of in every full
# collection, which paused a worker for tens of milliseconds every few thousand requests
# (docs/decisions/0013). Unreachable garbage is collected first, not kept.
import_module(settings.ROOT_URLCONF)
gc.collect()
gc.freeze()

# Whether Redis keeps what it is given (maxmemory-policy, persistence, ...), logged once
# per process: an operator sees it in the logs without running manage.py doctor.
import_module("socialsite.doctor").log_redis_checks()

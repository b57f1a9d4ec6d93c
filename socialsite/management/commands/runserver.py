"""``manage.py runserver`` (what ``./run`` starts) with its static files open to other
origins (socialsite/static_files.py): Django's static handler answers them before any
middleware, so the headers are added by the handler itself."""

from django.conf import settings
from django.contrib.staticfiles.management.commands.runserver import Command as StaticRunserver

from socialsite.static_files import CrossOriginStaticFilesHandler


class Command(StaticRunserver):
    def get_handler(self, *args, **options):
        handler = super().get_handler(*args, **options)
        serving = options["use_static_handler"] and (settings.DEBUG or options["insecure_serving"])
        if serving:
            return CrossOriginStaticFilesHandler(handler.application)
        return handler

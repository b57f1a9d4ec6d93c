"""Pictures served by Django: in development and in the tests (settings.MEDIA_SERVED_HERE);
in production the proxy serves MEDIA_ROOT at MEDIA_URL with the same headers
(docs/media.md).

Only names files.py makes are answered, each with its image type from its extension
(never guessed from its content) and nosniff: nothing under MEDIA_URL is ever taken for
a page or a script.
"""

from django.core.files.storage import default_storage
from django.http import FileResponse, Http404
from django.views.decorators.http import require_GET

from . import files

# Names are never reused (files.py): a picture's response never changes.
CACHE_CONTROL = "public, max-age=31536000, immutable"


@require_GET
def serve(request, name):
    if not files.NAME.fullmatch(name):
        raise Http404("There is no such picture.")
    try:
        handle = default_storage.open(name, "rb")
    except (FileNotFoundError, OSError):
        raise Http404("There is no such picture.") from None
    response = FileResponse(handle, content_type=files.CONTENT_TYPES[name.rsplit(".", 1)[1]])
    response["X-Content-Type-Options"] = "nosniff"
    response["Cache-Control"] = CACHE_CONTROL
    response["Content-Disposition"] = "inline"
    # Shown by web clients on other origins, as static files are (socialsite/static_files.py).
    response["Access-Control-Allow-Origin"] = "*"
    response["Cross-Origin-Resource-Policy"] = "cross-origin"
    return response

from django.conf import settings
from django.urls import include, path, register_converter

from accounts.urls import settings_urlpatterns
from socialsite.repository.ids import MAX_ID, parse_id

from . import metrics_page, views


class IdConverter:
    """``<id:name>`` in a path: an id as ids.parse_id reads it (1 to MAX_ID); anything
    else matches no page (404), where ``<int:>`` would pass 10**30 on to Redis."""

    regex = f"[0-9]{{1,{len(str(MAX_ID))}}}"

    def to_python(self, value):
        number = parse_id(value)
        if number is None:
            raise ValueError(value)  # Django's "no match"
        return number

    def to_url(self, value):
        return str(value)


# Before the includes below: their patterns name it.
register_converter(IdConverter, "id")

urlpatterns = [
    path("healthz", views.healthz, name="healthz"),
    path("readyz", views.readyz, name="readyz"),
    path("metrics", metrics_page.metrics, name="metrics"),
    path("accounts/", include("accounts.urls")),
    path("settings/", include(settings_urlpatterns)),
    path("", include("api.urls")),
    path("", include("moderation.urls")),
    path("", include("timeline.urls")),
    path("", include("timeline.direct_urls")),
]

# Pictures, where this process serves them (development, the tests); else the proxy.
if settings.MEDIA_SERVED_HERE:
    urlpatterns += [path("", include("media.urls"))]

handler400 = "socialsite.errors.bad_request"
handler500 = "socialsite.errors.server_error"

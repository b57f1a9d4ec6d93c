from django.conf import settings
from django.urls import include, path

from accounts.urls import settings_urlpatterns

from . import metrics_page, views

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

from django.urls import include, path

from accounts.urls import settings_urlpatterns

from . import views

urlpatterns = [
    path("healthz", views.healthz, name="healthz"),
    path("readyz", views.readyz, name="readyz"),
    path("accounts/", include("accounts.urls")),
    path("settings/", include(settings_urlpatterns)),
    path("", include("moderation.urls")),
    path("", include("timeline.urls")),
]

handler400 = "socialsite.errors.bad_request"
handler500 = "socialsite.errors.server_error"

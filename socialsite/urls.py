from django.urls import include, path

from . import views

urlpatterns = [
    path("healthz", views.healthz, name="healthz"),
    path("readyz", views.readyz, name="readyz"),
    path("accounts/", include("accounts.urls")),
    path("", include("timeline.urls")),
]

handler400 = "socialsite.errors.bad_request"
handler500 = "socialsite.errors.server_error"

from django.urls import include, path

from . import views

urlpatterns = [
    path("healthz", views.healthz, name="healthz"),
    path("accounts/", include("accounts.urls")),
    path("", include("timeline.urls")),
]

handler400 = "socialsite.errors.bad_request"

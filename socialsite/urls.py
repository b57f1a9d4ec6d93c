from django.urls import include, path

urlpatterns = [
    path("accounts/", include("accounts.urls")),
    path("", include("timeline.urls")),
]

handler400 = "socialsite.errors.bad_request"

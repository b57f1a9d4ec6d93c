from django.urls import path

from . import accounts

app_name = "api"

urlpatterns = [
    path(
        "api/v1/accounts/verify_credentials",
        accounts.verify_credentials,
        name="verify_credentials",
    ),
]

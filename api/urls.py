from django.urls import path

from . import accounts, oauth_views

app_name = "api"

urlpatterns = [
    path(
        "api/v1/accounts/verify_credentials",
        accounts.verify_credentials,
        name="verify_credentials",
    ),
    # Apps and OAuth 2 (api/oauth_views.py)
    path("api/v1/apps", oauth_views.create_app, name="create_app"),
    path("api/v1/apps/verify_credentials", oauth_views.verify_app, name="verify_app"),
    path("oauth/authorize", oauth_views.authorize, name="oauth_authorize"),
    path("oauth/token", oauth_views.token, name="oauth_token"),
    path("oauth/revoke", oauth_views.revoke, name="oauth_revoke"),
    path(
        ".well-known/oauth-authorization-server",
        oauth_views.server_metadata,
        name="oauth_server_metadata",
    ),
    path("settings/apps/", oauth_views.settings_apps, name="settings_apps"),
    path("settings/apps/<str:client_id>/revoke/", oauth_views.revoke_app, name="revoke_app"),
]

from django.urls import path

from . import email_views, leaving, views

urlpatterns = [
    path("signup/", views.signup, name="signup"),
    path("login/", views.login, name="login"),
    path("logout/", views.logout, name="logout"),
    path("password/", views.password_change, name="password_change"),
    path("password/reset/", email_views.password_reset, name="password_reset"),
    path("password/reset/sent/", email_views.password_reset_sent, name="password_reset_sent"),
    # Django's convention for the mailed links.
    path(
        "reset/<str:uidb64>/<str:token>/",
        email_views.password_reset_confirm,
        name="password_reset_confirm",
    ),
    path("verify/<str:token>/", email_views.verify_email, name="verify_email"),
]

# Leaving the site, under /settings/ (socialsite/urls.py): a list of their own, beside
# the settings page's.
settings_urlpatterns = [
    path("delete/", leaving.delete_account, name="delete_account"),
    path("export/", leaving.export_account, name="export_account"),
    path("email/", email_views.email_settings, name="email_settings"),
]

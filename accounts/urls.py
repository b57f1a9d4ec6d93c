from django.urls import path

from . import leaving, views

urlpatterns = [
    path("signup/", views.signup, name="signup"),
    path("login/", views.login, name="login"),
    path("logout/", views.logout, name="logout"),
    path("password/", views.password_change, name="password_change"),
]

# Leaving the site, under /settings/ (socialsite/urls.py): a list of their own, beside
# the settings page's.
settings_urlpatterns = [
    path("delete/", leaving.delete_account, name="delete_account"),
    path("export/", leaving.export_account, name="export_account"),
]

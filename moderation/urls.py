from django.urls import path

from . import views

urlpatterns = [
    path("@<str:login>/report/", views.report, name="report"),
    path("moderation/", views.queue, name="moderation_queue"),
    path("moderation/log/", views.log, name="moderation_log"),
    path(
        "moderation/reports/<id:report_id>/",
        views.report_action,
        name="moderation_report_action",
    ),
    path(
        "moderation/accounts/<str:login>/suspend/",
        views.account_action,
        {"action": "suspend"},
        name="moderation_suspend",
    ),
    path(
        "moderation/accounts/<str:login>/unsuspend/",
        views.account_action,
        {"action": "unsuspend"},
        name="moderation_unsuspend",
    ),
]

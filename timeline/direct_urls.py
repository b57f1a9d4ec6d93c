"""The direct messages' addresses (direct.py), named ``direct:...``. A conversation's id
is a number, so /messages/requests/ never collides with one."""

from django.urls import path

from . import direct

app_name = "direct"

urlpatterns = [
    path("messages/", direct.inbox, name="inbox"),
    path("messages/requests/", direct.requests_page, name="requests"),
    path("messages/<id:cid>/", direct.conversation, name="conversation"),
    path("messages/<id:cid>/leave/", direct.leave, name="leave"),
    path("messages/<id:cid>/mute/", direct.mute, name="mute"),
    path("messages/<id:cid>/unmute/", direct.unmute, name="unmute"),
    path("messages/<id:cid>/accept/", direct.accept, name="accept"),
    path("messages/<id:cid>/delete/", direct.delete, name="delete"),
    path("messages/<id:cid>/<id:mid>/delete/", direct.delete_message, name="delete_message"),
    path("messages/<id:cid>/<id:mid>/report/", direct.report_message, name="report_message"),
    path("settings/messages/", direct.settings_page, name="settings_messages"),
]

from django.urls import path

from . import relations, views

urlpatterns = [
    path("", views.home, name="home"),
    path("statuses/", views.post_status, name="post_status"),
    path("statuses/<int:status_id>/delete/", views.delete_status, name="delete_status"),
    path("@<str:login>/", views.profile, name="profile"),
    path("@<str:login>/followers/", views.followers, name="followers"),
    path("@<str:login>/following/", views.following, name="following"),
    path("@<str:login>/follow/", views.follow, name="follow"),
    path("@<str:login>/unfollow/", views.unfollow, name="unfollow"),
    path("@<str:login>/<int:status_id>/", views.status_detail, name="status_detail"),
    path("tags/<str:tag>/", views.tag, name="tag"),
    path("notifications/", views.notifications_page, name="notifications"),
]

# Blocks, mutes and private accounts (relations.py).
urlpatterns += [
    path("@<str:login>/block/", relations.block, name="block"),
    path("@<str:login>/unblock/", relations.unblock, name="unblock"),
    path("@<str:login>/mute/", relations.mute, name="mute"),
    path("@<str:login>/unmute/", relations.unmute, name="unmute"),
    path("settings/", relations.settings_page, name="settings"),
    path("settings/blocks/", relations.settings_blocks, name="settings_blocks"),
    path("settings/mutes/", relations.settings_mutes, name="settings_mutes"),
    path("settings/requests/", relations.settings_requests, name="settings_requests"),
    path(
        "settings/requests/<str:login>/approve/",
        relations.approve_request,
        name="approve_request",
    ),
    path("settings/requests/<str:login>/reject/", relations.reject_request, name="reject_request"),
]

# Reposts (views.py: repost, unrepost, reposters).
urlpatterns += [
    path("statuses/<int:status_id>/repost/", views.repost, name="repost"),
    path("statuses/<int:status_id>/unrepost/", views.unrepost, name="unrepost"),
    path("@<str:login>/<int:status_id>/reposts/", views.reposters, name="reposters"),
]

from django.urls import path

from . import views

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
    path("notifications/", views.notifications_page, name="notifications"),
]

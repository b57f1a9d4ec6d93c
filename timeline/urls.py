from django.urls import path

from . import discover, likes, lists, profile_settings, relations, search, views

urlpatterns = [
    path("", views.home, name="home"),
    path("statuses/", views.post_status, name="post_status"),
    path("statuses/<id:status_id>/delete/", views.delete_status, name="delete_status"),
    path("@<str:login>/", views.profile, name="profile"),
    path("@<str:login>/followers/", views.followers, name="followers"),
    path("@<str:login>/following/", views.following, name="following"),
    path("@<str:login>/follow/", views.follow, name="follow"),
    path("@<str:login>/unfollow/", views.unfollow, name="unfollow"),
    path("@<str:login>/<id:status_id>/", views.status_detail, name="status_detail"),
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
    path("settings/profile/", profile_settings.edit_profile, name="edit_profile"),
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

# Trending tags and who to follow (discover.py).
urlpatterns += [
    path("explore/", discover.explore, name="explore"),
    path("explore/people/", discover.explore_people, name="explore_people"),
]

# Named lists (lists.py): the owner's own, by their per-owner ids.
urlpatterns += [
    path("lists/", lists.lists_page, name="lists"),
    path("lists/<id:list_id>/", lists.list_timeline, name="list_timeline"),
    path("lists/<id:list_id>/members/", lists.list_members, name="list_members"),
    path("lists/<id:list_id>/rename/", lists.rename_list, name="rename_list"),
    path("lists/<id:list_id>/delete/", lists.delete_list, name="delete_list"),
    path("lists/<id:list_id>/add/", lists.add_to_list, name="add_to_list"),
    path("lists/<id:list_id>/remove/", lists.remove_from_list, name="remove_from_list"),
]

# Likes (likes.py).
urlpatterns += [
    path("statuses/<id:status_id>/like/", likes.like, name="like"),
    path("statuses/<id:status_id>/unlike/", likes.unlike, name="unlike"),
    path("@<str:login>/<id:status_id>/likes/", likes.status_likes, name="status_likes"),
    path("@<str:login>/likes/", likes.user_likes, name="user_likes"),
]

# Search and autocomplete (search.py).
urlpatterns += [
    path("search/", search.search_page, name="search"),
    path("search/complete.json", search.complete_json, name="search_complete"),
    path("settings/search/", search.search_settings, name="search_settings"),
]

# Reposts (views.py: repost, unrepost, reposters).
urlpatterns += [
    path("statuses/<id:status_id>/repost/", views.repost, name="repost"),
    path("statuses/<id:status_id>/unrepost/", views.unrepost, name="unrepost"),
    path("@<str:login>/<id:status_id>/reposts/", views.reposters, name="reposters"),
]

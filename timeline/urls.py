from django.urls import path

from . import (
    bookmarks,
    discover,
    edits,
    filters,
    followed_tags,
    groups,
    likes,
    lists,
    pins,
    polls,
    profile_settings,
    relations,
    search,
    top,
    views,
)

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
    # Followed hashtags.
    path("tags/<str:tag>/follow/", followed_tags.follow, name="tag_follow_page"),
    path("tags/<str:tag>/unfollow/", followed_tags.unfollow, name="tag_unfollow_page"),
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
    # Polls (polls.py).
    path("statuses/<id:status_id>/vote/", polls.vote, name="vote_poll"),
    path("statuses/<id:status_id>/unlike/", likes.unlike, name="unlike"),
    path("@<str:login>/<id:status_id>/likes/", likes.status_likes, name="status_likes"),
    path("@<str:login>/likes/", likes.user_likes, name="user_likes"),
    # Bookmarks.
    path("bookmarks/", bookmarks.bookmarks_page, name="bookmarks_page"),
    path("statuses/<id:status_id>/bookmark/", bookmarks.bookmark, name="bookmark_status"),
    path("statuses/<id:status_id>/unbookmark/", bookmarks.unbookmark, name="unbookmark_status"),
    # Pinned statuses.
    path("statuses/<id:status_id>/pin/", pins.pin, name="pin_status"),
    # Edits.
    path("statuses/<id:status_id>/edit/", edits.edit_status, name="edit_status"),
    path("statuses/<id:status_id>/history/", edits.status_history, name="status_history"),
    path("statuses/<id:status_id>/unpin/", pins.unpin, name="unpin_status"),
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

# Groups (groups.py; "communities" in code: docs/decisions/0067).
urlpatterns += [
    path("groups/", groups.groups_page, name="groups"),
    path("groups/new/", groups.new_group, name="new_group"),
    path("g/<str:slug>/", groups.group, name="group"),
    path("g/<str:slug>/join/", groups.join, name="group_join"),
    path("g/<str:slug>/leave/", groups.leave, name="group_leave"),
    path("g/<str:slug>/home/", groups.in_home, name="group_home"),
    path("g/<str:slug>/invite/", groups.invite, name="group_invite"),
    path("g/<str:slug>/requests/", groups.requests_page, name="group_requests"),
    path(
        "g/<str:slug>/requests/<str:login>/<str:decision>/",
        groups.decide,
        name="group_decide",
    ),
    path("g/<str:slug>/members/<str:act>/", groups.member_act, name="group_member"),
    path(
        "g/<str:slug>/statuses/<id:status_id>/remove/",
        groups.remove_status,
        name="group_remove_status",
    ),
    path("g/<str:slug>/edit/", groups.edit, name="group_edit"),
    path("g/<str:slug>/delete/", groups.delete, name="group_delete"),
    path("g/<str:slug>/suspend/", groups.suspend, name="group_suspend"),
]

# The Top timeline beside Latest (top.py): Latest stays at / unless the reader's home
# opens with Top, and is at /latest/ always.
urlpatterns += [
    path("top/", top.top, name="top"),
    path("latest/", views.home, {"latest": True}, name="latest"),
    path("settings/top/", top.top_settings, name="top_settings"),
]

# Keyword filters (filters.py).
urlpatterns += [
    path("settings/filters/", filters.filters_page, name="settings_filters"),
    path("settings/filters/<id:filter_id>/", filters.edit_filter, name="edit_filter"),
    path("settings/filters/<id:filter_id>/delete/", filters.delete_filter, name="delete_filter"),
]

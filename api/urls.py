from django.urls import path, re_path

from . import (
    accounts,
    direct,
    favourites,
    instance,
    lists,
    markers,
    media,
    notifications,
    oauth_views,
    relations,
    reports,
    search,
    statuses,
    timelines,
)

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
    # --- REST (api-rest) ---
    path(
        "api/v1/accounts/update_credentials",
        accounts.update_credentials,
        name="update_credentials",
    ),
    path("api/v1/accounts/lookup", accounts.lookup, name="account_lookup"),
    path("api/v1/accounts/relationships", accounts.relationships, name="relationships"),
    path("api/v1/accounts/search", accounts.search_accounts, name="account_search"),
    path("api/v1/accounts/<str:account_id>", accounts.one, name="account"),
    path(
        "api/v1/accounts/<str:account_id>/statuses",
        accounts.account_statuses,
        name="account_statuses",
    ),
    path("api/v1/accounts/<str:account_id>/followers", accounts.followers, name="followers"),
    path("api/v1/accounts/<str:account_id>/following", accounts.following, name="following"),
    path("api/v1/accounts/<str:account_id>/follow", accounts.follow, name="follow"),
    path("api/v1/accounts/<str:account_id>/unfollow", accounts.unfollow, name="unfollow"),
    # Mastodon.py asks for the instance with a final slash.
    re_path(r"^api/v1/instance/?$", instance.instance_v1, name="instance_v1"),
    re_path(r"^api/v2/instance/?$", instance.instance_v2, name="instance_v2"),
    path("api/v1/statuses", statuses.post, name="statuses"),
    path("api/v1/statuses/<str:status_id>", statuses.one, name="status"),
    path("api/v1/statuses/<str:status_id>/context", statuses.context, name="status_context"),
    path("api/v1/statuses/<str:status_id>/favourite", statuses.favourite, name="favourite"),
    path("api/v1/statuses/<str:status_id>/unfavourite", statuses.unfavourite, name="unfavourite"),
    path("api/v1/statuses/<str:status_id>/reblog", statuses.reblog, name="reblog"),
    path("api/v1/statuses/<str:status_id>/unreblog", statuses.unreblog, name="unreblog"),
    path(
        "api/v1/statuses/<str:status_id>/favourited_by",
        statuses.favourited_by,
        name="favourited_by",
    ),
    path(
        "api/v1/statuses/<str:status_id>/reblogged_by",
        statuses.reblogged_by,
        name="reblogged_by",
    ),
    path("api/v1/timelines/home", timelines.home, name="timeline_home"),
    path("api/v1/timelines/public", timelines.public, name="timeline_public"),
    path("api/v1/timelines/tag/<str:tag>", timelines.tag, name="timeline_tag"),
    path("api/v1/timelines/list/<str:list_id>", timelines.list_timeline, name="timeline_list"),
    path("api/v1/notifications", notifications.notification_list, name="notifications"),
    path("api/v1/notifications/clear", notifications.clear, name="notifications_clear"),
    path(
        "api/v1/notifications/<str:notification_id>",
        notifications.one,
        name="notification",
    ),
    path(
        "api/v1/notifications/<str:notification_id>/dismiss",
        notifications.dismiss,
        name="notification_dismiss",
    ),
    path("api/v2/search", search.search_v2, name="search"),
    # --- Part 2 (api-part2) ---
    path("api/v1/markers", markers.markers_view, name="markers"),
    path("api/v1/accounts/<str:account_id>/block", relations.block, name="block"),
    path("api/v1/accounts/<str:account_id>/unblock", relations.unblock, name="unblock"),
    path("api/v1/accounts/<str:account_id>/mute", relations.mute, name="mute"),
    path("api/v1/accounts/<str:account_id>/unmute", relations.unmute, name="unmute"),
    path("api/v1/blocks", relations.blocks_list, name="blocks"),
    path("api/v1/mutes", relations.mutes_list, name="mutes"),
    path("api/v1/follow_requests", relations.follow_requests, name="follow_requests"),
    path(
        "api/v1/follow_requests/<str:account_id>/authorize",
        relations.authorize,
        name="follow_request_authorize",
    ),
    path(
        "api/v1/follow_requests/<str:account_id>/reject",
        relations.reject,
        name="follow_request_reject",
    ),
    # Mastodon.py posts a report with a final slash.
    re_path(r"^api/v1/reports/?$", reports.report, name="reports"),
    path("api/v1/favourites", favourites.favourites, name="favourites"),
    path("api/v1/lists", lists.lists_view, name="lists"),
    path("api/v1/lists/<str:list_id>", lists.one, name="list"),
    path("api/v1/lists/<str:list_id>/accounts", lists.accounts, name="list_accounts"),
    # --- media and conversations ---
    path("api/v2/media", media.upload, name="media_upload"),
    path("api/v1/media", media.upload, name="media_upload_v1"),
    path("api/v1/media/<str:media_id>", media.one, name="media"),
    # Mastodon.py asks for the conversations with a final slash.
    re_path(r"^api/v1/conversations/?$", direct.conversation_list, name="conversations"),
    path(
        "api/v1/conversations/<str:conversation_id>",
        direct.one,
        name="conversation",
    ),
    path(
        "api/v1/conversations/<str:conversation_id>/read",
        direct.read,
        name="conversation_read",
    ),
]

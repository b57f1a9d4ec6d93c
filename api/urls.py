from django.urls import include, path, re_path

from . import (
    accounts,
    bookmarks,
    direct,
    discovery,
    favourites,
    filters,
    instance,
    lists,
    markers,
    media,
    notification_groups,
    notifications,
    oauth_views,
    pins,
    polls,
    relations,
    reports,
    search,
    startup,
    statuses,
    tags,
    timelines,
)
from .responses import error

app_name = "api"


def api_not_found(request):
    """A path under /api/ that names no endpoint: Mastodon's 404."""
    return error(404, "Record not found")


# Mastodon's REST API, under /api/ (one prefix for the resolver to test: the site's pages
# never look through these patterns).
api_urlpatterns = [
    path(
        "v1/accounts/verify_credentials",
        accounts.verify_credentials,
        name="verify_credentials",
    ),
    # Apps and OAuth 2 (api/oauth_views.py)
    path("v1/apps", oauth_views.create_app, name="create_app"),
    path("v1/apps/verify_credentials", oauth_views.verify_app, name="verify_app"),
    # --- REST (api-rest) ---
    path(
        "v1/accounts/update_credentials",
        accounts.update_credentials,
        name="update_credentials",
    ),
    path("v1/accounts/lookup", accounts.lookup, name="account_lookup"),
    path("v1/accounts/relationships", accounts.relationships, name="relationships"),
    path("v1/accounts/search", accounts.search_accounts, name="account_search"),
    path("v1/accounts/<str:account_id>", accounts.one, name="account"),
    path(
        "v1/accounts/<str:account_id>/statuses",
        accounts.account_statuses,
        name="account_statuses",
    ),
    path("v1/accounts/<str:account_id>/followers", accounts.followers, name="followers"),
    path("v1/accounts/<str:account_id>/following", accounts.following, name="following"),
    path("v1/accounts/<str:account_id>/follow", accounts.follow, name="follow"),
    path("v1/accounts/<str:account_id>/unfollow", accounts.unfollow, name="unfollow"),
    # Mastodon.py asks for the instance with a final slash.
    re_path(r"^v1/instance/?$", instance.instance_v1, name="instance_v1"),
    re_path(r"^v2/instance/?$", instance.instance_v2, name="instance_v2"),
    path("v1/statuses", statuses.post, name="statuses"),
    # polls
    path("v1/polls/<str:poll_id>", polls.one, name="poll"),
    path("v1/polls/<str:poll_id>/votes", polls.votes, name="poll_votes"),
    path("v1/statuses/<str:status_id>", statuses.one, name="status"),
    path("v1/statuses/<str:status_id>/context", statuses.context, name="status_context"),
    path("v1/statuses/<str:status_id>/source", statuses.source, name="status_source"),
    path("v1/statuses/<str:status_id>/history", statuses.history, name="status_history"),
    path("v1/statuses/<str:status_id>/favourite", statuses.favourite, name="favourite"),
    path("v1/statuses/<str:status_id>/unfavourite", statuses.unfavourite, name="unfavourite"),
    path("v1/statuses/<str:status_id>/reblog", statuses.reblog, name="reblog"),
    path("v1/statuses/<str:status_id>/unreblog", statuses.unreblog, name="unreblog"),
    # Bookmarks.
    path("v1/statuses/<str:status_id>/bookmark", bookmarks.bookmark, name="bookmark"),
    path("v1/statuses/<str:status_id>/unbookmark", bookmarks.unbookmark, name="unbookmark"),
    # Pinned statuses.
    path("v1/statuses/<str:status_id>/pin", pins.pin, name="pin"),
    path("v1/statuses/<str:status_id>/unpin", pins.unpin, name="unpin"),
    path(
        "v1/statuses/<str:status_id>/favourited_by",
        statuses.favourited_by,
        name="favourited_by",
    ),
    path(
        "v1/statuses/<str:status_id>/reblogged_by",
        statuses.reblogged_by,
        name="reblogged_by",
    ),
    path("v1/timelines/home", timelines.home, name="timeline_home"),
    path("v1/timelines/public", timelines.public, name="timeline_public"),
    path("v1/timelines/tag/<str:tag>", timelines.tag, name="timeline_tag"),
    path("v1/timelines/list/<str:list_id>", timelines.list_timeline, name="timeline_list"),
    # Groups: this site's extension.
    path("v1/timelines/group/<str:slug>", timelines.group_timeline, name="timeline_group"),
    # The Top timeline (this site's extension: timeline/top.py's page, ranking.py).
    path("v1/timelines/top", timelines.top, name="timeline_top"),
    path("v1/notifications", notifications.notification_list, name="notifications"),
    path("v1/notifications/clear", notifications.clear, name="notifications_clear"),
    path(
        "v1/notifications/<str:notification_id>",
        notifications.one,
        name="notification",
    ),
    path(
        "v1/notifications/<str:notification_id>/dismiss",
        notifications.dismiss,
        name="notification_dismiss",
    ),
    # Grouped notifications, Mastodon 4.3 (api/notification_groups.py).
    path("v2/notifications", notification_groups.group_list, name="notification_groups"),
    path(
        "v2/notifications/unread_count",
        notification_groups.unread_count,
        name="notification_unread_count",
    ),
    path(
        "v2/notifications/<str:group_key>",
        notification_groups.group_one,
        name="notification_group",
    ),
    path(
        "v2/notifications/<str:group_key>/accounts",
        notification_groups.group_accounts,
        name="notification_group_accounts",
    ),
    path(
        "v2/notifications/<str:group_key>/dismiss",
        notification_groups.group_dismiss,
        name="notification_group_dismiss",
    ),
    path("v2/search", search.search_v2, name="search"),
    # --- markers, blocks, mutes, follow requests, lists, reports, favourites ---
    path("v1/markers", markers.markers_view, name="markers"),
    path("v1/accounts/<str:account_id>/block", relations.block, name="block"),
    path("v1/accounts/<str:account_id>/unblock", relations.unblock, name="unblock"),
    path("v1/accounts/<str:account_id>/mute", relations.mute, name="mute"),
    path("v1/accounts/<str:account_id>/unmute", relations.unmute, name="unmute"),
    path("v1/blocks", relations.blocks_list, name="blocks"),
    path("v1/mutes", relations.mutes_list, name="mutes"),
    path("v1/follow_requests", relations.follow_requests, name="follow_requests"),
    path(
        "v1/follow_requests/<str:account_id>/authorize",
        relations.authorize,
        name="follow_request_authorize",
    ),
    path(
        "v1/follow_requests/<str:account_id>/reject",
        relations.reject,
        name="follow_request_reject",
    ),
    # Mastodon.py posts a report with a final slash.
    re_path(r"^v1/reports/?$", reports.report, name="reports"),
    path("v1/favourites", favourites.favourites, name="favourites"),
    path("v1/bookmarks", bookmarks.bookmarks, name="bookmarks"),
    # Followed hashtags.
    path("v1/tags/<str:tag>", tags.tag, name="tag_api"),
    path("v1/tags/<str:tag>/follow", tags.follow, name="tag_follow"),
    path("v1/tags/<str:tag>/unfollow", tags.unfollow, name="tag_unfollow"),
    path("v1/followed_tags", tags.followed, name="followed_tags"),
    # Keyword filters (filters.py).
    path("v2/filters", filters.filters_view, name="filters"),
    path("v2/filters/keywords/<str:keyword_id>", filters.keyword_one, name="filter_keyword"),
    path("v2/filters/<str:filter_id>", filters.one, name="filter"),
    path("v2/filters/<str:filter_id>/keywords", filters.keywords_view, name="filter_keywords"),
    path("v1/filters", filters.v1_filters, name="filters_v1"),
    path("v1/lists", lists.lists_view, name="lists"),
    path("v1/lists/<str:list_id>", lists.one, name="list"),
    path("v1/lists/<str:list_id>/accounts", lists.accounts, name="list_accounts"),
    # --- media and conversations ---
    path("v2/media", media.upload, name="media_upload"),
    path("v1/media", media.upload, name="media_upload_v1"),
    path("v1/media/<str:media_id>", media.one, name="media"),
    # Mastodon.py asks for the conversations with a final slash.
    re_path(r"^v1/conversations/?$", direct.conversation_list, name="conversations"),
    path(
        "v1/conversations/<str:conversation_id>",
        direct.one,
        name="conversation",
    ),
    path(
        "v1/conversations/<str:conversation_id>/read",
        direct.read,
        name="conversation_read",
    ),
    # --- what apps ask for as they start (api/startup.py) ---
    path("v1/preferences", startup.preferences, name="preferences"),
    path("v1/custom_emojis", startup.custom_emojis, name="custom_emojis"),
    path("v1/announcements", startup.announcements, name="announcements"),
    path(
        "v1/accounts/<str:account_id>/featured_tags",
        startup.featured_tags,
        name="featured_tags",
    ),
    path("v1/trends", startup.trend_tags, name="trends"),
    path("v1/trends/tags", startup.trend_tags, name="trend_tags"),
    path("v1/trends/statuses", startup.trend_statuses, name="trend_statuses"),
    path("v1/trends/links", startup.trend_links, name="trend_links"),
    # Last: any other path under /api/ is Mastodon's JSON 404, never the site's page.
    re_path(r"^", api_not_found, name="api_not_found"),
]

urlpatterns = [
    path("api/", include(api_urlpatterns)),
    # With or without a final slash: toot opens /oauth/authorize/.
    re_path(r"^oauth/authorize/?$", oauth_views.authorize, name="oauth_authorize"),
    re_path(r"^oauth/token/?$", oauth_views.token, name="oauth_token"),
    re_path(r"^oauth/revoke/?$", oauth_views.revoke, name="oauth_revoke"),
    path(
        ".well-known/oauth-authorization-server",
        oauth_views.server_metadata,
        name="oauth_server_metadata",
    ),
    path(".well-known/nodeinfo", discovery.nodeinfo_links, name="nodeinfo_links"),
    path("nodeinfo/2.0", discovery.nodeinfo, name="nodeinfo"),
    path("settings/apps/", oauth_views.settings_apps, name="settings_apps"),
    path("settings/apps/<str:client_id>/revoke/", oauth_views.revoke_app, name="revoke_app"),
]

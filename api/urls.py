from django.urls import path, re_path

from . import accounts, instance, statuses, timelines

app_name = "api"

urlpatterns = [
    path(
        "api/v1/accounts/verify_credentials",
        accounts.verify_credentials,
        name="verify_credentials",
    ),
    # --- REST (api-rest) ---
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
]

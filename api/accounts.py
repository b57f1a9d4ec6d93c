"""The client API's accounts (/api/v1/accounts/...): one's own (verify_credentials,
update_credentials), anyone's card, statuses, followers and following, follows and
relationships, and search. Each through the repository function its page uses, so a
private account, a block or a suspension refuses here as there."""

from django.http import Http404
from django.http.multipartparser import MultiPartParserError

from media import files, images
from socialsite.acting import actor_of
from socialsite.actions import profiles as profile_actions
from socialsite.actions import relations as relation_actions
from socialsite.actions import settings as settings_actions
from socialsite.actions import uploads as upload_actions
from socialsite.connection import get_redis
from socialsite.repository import (
    graph,
    likes,
    pins,
    reposts,
    search,
    timelines,
    users,
    visibility,
)
from socialsite.repository.ids import parse_id

from . import entities, paging
from .acting_on_accounts import act_on_account, relationship
from .auth import api_view
from .common import (
    TRUE,
    BadBody,
    body,
    filter_statuses,
    form_body,
    get_list,
    read_viewer_marks,
    shown_user,
)
from .responses import error, json_response, json_text_response
from .search import exact_account

RELATIONSHIPS_AT_ONCE = 40


@api_view(scope="read:accounts")
def verify_credentials(request):
    """GET /api/v1/accounts/verify_credentials: the token's own account, with its
    ``source`` (the bio as written)."""
    base = entities.site_base(request)
    return json_response(entities.credential_account(base, request.user_data))


@api_view(scope="write:accounts", methods=("PATCH",))
def update_credentials(request):
    """PATCH /api/v1/accounts/update_credentials: ``display_name``, ``note`` (the bio),
    and the pictures ``avatar`` and ``header`` (multipart), through the profile page's
    action (socialsite/actions/profiles.py: its rules, its image pipeline); each
    picture counts toward THROTTLE_MEDIA before it is read, as on the page."""
    try:
        if request.content_type == "application/json":
            params, uploads = body(request), {}
        else:
            params, uploads = _patch(request)
    except (BadBody, MultiPartParserError) as bad:
        return error(422, str(bad) or "The request's body could not be read")
    sent = {field: uploads[field] for field in PICTURE_FIELDS if uploads.get(field)}
    actor = actor_of(request)
    # One use of "media" per picture, before any picture is read, as the page counts them.
    upload_actions.count_pictures(actor, len(sent))
    try:
        read = {field: images.read_upload(upload) for field, upload in sent.items()}
    except images.ImageRefused as refused:
        return error(422, f"Validation failed: {refused}")
    change = profile_actions.ProfileChange(
        name=None if "display_name" not in params else str(params["display_name"]),
        bio=None if "note" not in params else str(params["note"]),
        avatar=read.get("avatar"),
        header=read.get("header"),
    )
    try:
        profile_actions.update_profile(actor, change)
    except files.StorageFailed:
        return error(503, "Your pictures could not be stored just now, so nothing was changed")
    if "indexable" in params:
        # Full-text search: whether the account's public statuses may be found.
        settings_actions.set_indexable(actor, _true(params["indexable"]))
    user = users.get_user(get_redis(), request.user.id)
    if user is None:
        raise Http404
    return json_response(entities.credential_account(entities.site_base(request), user))


def _true(value):
    """A boolean parameter of a body as Mastodon reads one (Rails' true values)."""
    return value is True or str(value).lower() in ("1", "true", "t", "on")


# The pictures update_credentials takes, as the profile page's form names them.
PICTURE_FIELDS = ("avatar", "header")


def _patch(request):
    """A PATCH's form body and files (Django parses only a POST's)."""
    return form_body(request)


@api_view(scope="read:accounts", public=True)
def lookup(request):
    """GET /api/v1/accounts/lookup?acct=login (an ``@`` in front, or this server's
    domain after, allowed)."""
    acct = request.GET.get("acct", "").lstrip("@").partition("@")[0]
    user = users.get_user_by_login(get_redis(), acct) if acct else None
    if user is None or users.is_hidden(user):
        raise Http404
    return json_response(entities.account(entities.site_base(request), user))


@api_view(scope="read:accounts", public=True)
def one(request, account_id):
    """GET /api/v1/accounts/:id: the card, which is public, as the profile's."""
    user = shown_user(get_redis(), account_id)
    return json_response(entities.account(entities.site_base(request), user))


def _truthy(request, name):
    return request.GET.get(name) in TRUE


@api_view(scope="read:statuses", public=True)
def account_statuses(request, account_id):
    """GET /api/v1/accounts/:id/statuses: as the profile page shows them (none of a
    private account the viewer does not follow; 404 for one that blocks the viewer);
    ``exclude_replies``, ``exclude_reblogs``, ``only_media`` filter the page read;
    ``pinned`` gives the account's pinned statuses, the latest pin first, unpaged."""
    try:
        query = paging.params(request)
    except paging.BadParameter as bad:
        return error(422, str(bad))
    r = get_redis()
    user = shown_user(r, account_id)
    viewer = request.user.id
    rel = visibility.relationship(r, viewer, user["id"])
    seen = visibility.statuses_visibility(viewer, user, rel)
    if seen is visibility.Visibility.BLOCKED:
        raise Http404
    if seen is not visibility.Visibility.VISIBLE:
        return json_response([])
    if _truthy(request, "pinned"):  # pinned statuses
        if query.bounds().get("before") is not None or query.bounds().get("above") is not None:
            return json_response([])  # one page: nothing older or newer
        shown = pins.pinned_statuses(r, user["id"], viewer)
        shown = filter_statuses(request, shown, "account")  # keyword filters
        liked = likes.likes_of(r, viewer, [item["id"] for item in shown])
        mine = frozenset(item["id"] for item in shown) if viewer == user["id"] else frozenset()
        base = entities.site_base(request)
        marked = read_viewer_marks(r, viewer, shown)  # bookmarks
        text = entities.shown_statuses_json(base, shown, liked, pinned=mine, bookmarked=marked)
        return json_text_response(text)
    page = timelines.profile_page(r, user["id"], viewer_id=viewer, **query.bounds())
    kept = [item for item in page.items if _kept(request, item, user["id"])]
    kept = filter_statuses(request, kept, "account")  # keyword filters
    base = entities.site_base(request)
    shown_by = [(item["reposted_by"]["id"], item["id"]) for item in kept if item.get("reposted_by")]
    found = reposts.reposts_of(r, shown_by)
    marked = read_viewer_marks(r, viewer, kept)  # bookmarks, and polls' own votes
    text = entities.shown_statuses_json(base, kept, page.liked, found, bookmarked=marked)
    response = json_text_response(text)
    return paging.with_link(response, request, page.next_cursor, page.prev_cursor)


def _kept(request, item, owner):
    if _truthy(request, "exclude_replies") and item.get("in_reply_to"):
        return False
    if _truthy(request, "exclude_reblogs") and item.get("reposted_by"):
        return False
    return not (_truthy(request, "only_media") and not item.get("media"))


def _people(request, account_id, read_page):
    try:
        query = paging.params(request)
    except paging.BadParameter as bad:
        return error(422, str(bad))
    r = get_redis()
    user = shown_user(r, account_id)
    page = read_page(r, user["id"], **query.bounds())
    return paging.accounts_response(request, page.items, page)


@api_view(scope="read:accounts", public=True)
def followers(request, account_id):
    """GET /api/v1/accounts/:id/followers, the latest follow first (as the page)."""
    return _people(request, account_id, graph.followers_page)


@api_view(scope="read:accounts", public=True)
def following(request, account_id):
    """GET /api/v1/accounts/:id/following, the latest follow first (as the page)."""
    return _people(request, account_id, graph.following_page)


@api_view(scope="write:follows", methods=("POST",))
def follow(request, account_id):
    """POST /api/v1/accounts/:id/follow: follow, or for a private account ask to
    (the Relationship says ``requested``): relation_actions.follow, with its throttle
    and the verified-address rule."""
    return act_on_account(request, account_id, relation_actions.follow)


@api_view(scope="write:follows", methods=("POST",))
def unfollow(request, account_id):
    """POST /api/v1/accounts/:id/unfollow (a request not yet answered is withdrawn)."""
    return act_on_account(request, account_id, relation_actions.unfollow)


@api_view(scope="read:follows")
def relationships(request):
    """GET /api/v1/accounts/relationships?id[]=...: up to RELATIONSHIPS_AT_ONCE ids; ids
    of no account are left out, as Mastodon does."""
    r = get_redis()
    wanted = [parse_id(uid) for uid in get_list(request.GET, "id")]
    found = users.get_users(r, [uid for uid in wanted if uid][:RELATIONSHIPS_AT_ONCE])
    shown = [user for user in found.values() if not users.is_hidden(user)]
    return json_response([relationship(r, request.user.id, user["id"]) for user in shown])


@api_view(scope="read:accounts")
def search_accounts(request):
    """GET /api/v1/accounts/search?q=: people, as the search page finds them."""
    try:
        limit = paging.params(request).limit
        query = search.parse_query("@" + request.GET.get("q", "").lstrip("@"))
    except (paging.BadParameter, search.QueryError) as bad:
        return error(422, str(bad))
    results = search.search(get_redis(), query, request.user.id, count=limit, relations=False)
    base = entities.site_base(request)
    people = results.people
    exact = exact_account(request.GET.get("q", ""), base)
    if exact is not None:  # an exact name, whatever the relationship (api/search.py)
        people = [exact, *(p for p in people if p["id"] != exact["id"])][:limit]
    return json_response([entities.account(base, person) for person in people])

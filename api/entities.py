"""Mastodon's JSON entities (docs.joinmastodon.org/entities/) made from the
repository's records: ids as strings, times in ISO 8601."""

import datetime
import functools
import json

from django.conf import settings
from django.templatetags.static import static
from django.utils.html import format_html

from media import attachments, files
from socialsite.memory import Memory
from socialsite.repository import entities as parsed_entities
from socialsite.repository import polls
from socialsite.repository.limits import NOTIFICATION_GROUP_MS
from socialsite.status_markup import StatusLinks, message_html

# The pictures of an account that has none: plain static images, as Mastodon's
# "missing.png" (the pages draw initials instead, which an app cannot show).
MISSING_AVATAR = "api/avatar-missing.png"
MISSING_HEADER = "api/header-missing.png"


def iso_time(seconds):
    """``seconds`` since the epoch as Mastodon writes times: 2026-11-27T19:30:00.000Z."""
    moment = datetime.datetime.fromtimestamp(float(seconds), datetime.UTC)
    return moment.isoformat(timespec="milliseconds").replace("+00:00", "Z")


def site_base(request):
    """The site's origin as apps reach it ("https://social.example"): SITE_URL, or the
    request's own scheme and host. Entities are made from it, not from a request, so
    that the stream server makes the same ones."""
    if settings.SITE_URL:
        return settings.SITE_URL.rstrip("/")
    return request.build_absolute_uri("/").rstrip("/")


def absolute(base, url):
    """``url`` (a path or an absolute URL) as an absolute URL on ``base``: apps fetch
    avatars and open pages by them."""
    if url.startswith(("http://", "https://")):
        return url
    return f"{base}{url}"


class _SiteLinks:
    """The links message_html puts in ``content``, as absolute URLs on ``base``: an app
    has no page to resolve a path against."""

    __slots__ = ("base", "links")

    def __init__(self, base):
        self.base, self.links = base, StatusLinks()

    def profile(self, login):
        return absolute(self.base, self.links.profile(login))

    def tag(self, normalized):
        return absolute(self.base, self.links.tag(normalized))


def html(base, text, packed_entities=None):
    """``text`` with its parsed ``packed_entities`` as Mastodon's HTML: one paragraph,
    mentions, hashtags and links as the pages render them (message_html: every piece
    escaped); "" for no text."""
    if not text:
        return ""
    markup = message_html({"message": text, "entities": packed_entities}, _SiteLinks(base))
    return format_html("<p>{}</p>", markup)


@functools.lru_cache(maxsize=8)
def _static_url(path):
    return static(path)


def _picture(base, user, field, missing):
    name = user.get(field)
    return absolute(base, files.url(name) if name else _static_url(missing))


def account(base, user):
    """The Account entity of ``user`` (a repository user dict: a whole user hash, or an
    author as users.get_authors and the status events carry it), URLs on ``base``. An
    author dict carries no bio, header or signup: those come out empty."""
    avatar = _picture(base, user, "avatar", MISSING_AVATAR)
    if not user.get("avatar") and user.get("avatar_small"):
        avatar = _picture(base, user, "avatar_small", MISSING_AVATAR)
    header = _picture(base, user, "header", MISSING_HEADER)
    private = user.get("private") in ("1", True)
    return {
        "id": str(user["id"]),
        "username": user["login"],
        "acct": user["login"],
        "display_name": user.get("name") or "",
        "locked": private,
        "bot": False,
        "group": False,
        "discoverable": not private,
        # Full-text search: the account's own setting (off unless they turned it on).
        "indexable": user.get("indexable") in ("1", True) and not private,
        "created_at": iso_time(user.get("signup") or 0),
        "note": html(base, user.get("bio"), user.get("bio_entities")),
        "url": absolute(base, f"/@{user['login']}/"),
        "uri": absolute(base, f"/@{user['login']}/"),
        "avatar": avatar,
        "avatar_static": avatar,
        "header": header,
        "header_static": header,
        "followers_count": int(user.get("followers", 0)),
        "following_count": int(user.get("following", 0)),
        "statuses_count": int(user.get("posts", 0)),
        "last_status_at": None,
        "emojis": [],
        "fields": _fields(user),
    }


def _fields(user):
    website = user.get("website")
    if not website:
        return []
    value = format_html('<a href="{}" rel="nofollow noopener noreferrer">{}</a>', website, website)
    return [{"name": "Website", "value": str(value), "verified_at": None}]


def credential_account(base, user):
    """The Account of the token's own user with ``source`` (what update_credentials
    edits, as plain text), as verify_credentials answers."""
    entity = account(base, user)
    entity["indexable"] = user.get("indexable") in ("1", True)  # the setting as set
    entity["source"] = {
        "privacy": "private" if entity["locked"] else "public",
        "sensitive": False,
        "language": None,
        "note": user.get("bio") or "",
        "fields": [
            {"name": f["name"], "value": user.get("website") or "", "verified_at": None}
            for f in entity["fields"]
        ],  # fmt: skip
        "follow_requests_count": int(user.get("follow_requests", 0)),
    }
    return entity


def visibility_of(author):
    """A status's visibility as Mastodon names it: its author's account decides, now
    (decision 0032), ``private`` (followers only) for a private account. (A status
    posted while the account was private is never streamed: privacy.py.)"""
    return "private" if author.get("private") in ("1", True) else "public"


def _posted_private(status):
    """Whether ``status`` is known to have been posted while its author was private: a
    status event says so (the stream server's statuses, whose author dict is the
    event's and carries no privacy of its own)."""
    return str(status.get("private", "")) == "1"


def media_attachment(base, item):
    """Mastodon's MediaAttachment entity of ``item``, an image as
    attachments.media_of (a status's) or attachments.pending_upload (an upload's)
    gives it: ``url`` the original (re-encoded, no metadata), ``preview_url`` the
    small rendition, ``meta`` both sizes, ``description`` the alt text."""
    return {
        "id": item["id"],
        "type": "image",
        "url": absolute(base, item["url"]),
        "preview_url": absolute(base, item["preview_url"]),
        "remote_url": None,
        "preview_remote_url": None,
        "text_url": None,
        "meta": {
            "original": {
                "width": item["original_width"],
                "height": item["original_height"],
                "size": f"{item['original_width']}x{item['original_height']}",
                "aspect": item["original_width"] / max(item["original_height"], 1),
            },
            "small": {
                "width": item["width"],
                "height": item["height"],
                "size": f"{item['width']}x{item['height']}",
                "aspect": item["width"] / max(item["height"], 1),
            },
        },  # fmt: skip
        "description": item["alt"] or None,
        "blurhash": item.get("blurhash") or None,
    }


def _media(base, status):
    return [media_attachment(base, item) for item in attachments.media_of(status)]


def _parsed(status):
    """The entities of ``status`` (Twitter's format: parsed_entities.unpack)."""
    return parsed_entities.unpack(str(status.get("message") or ""), status.get("entities"))


def _mentions(base, found):
    return [
        {
            "id": str(m["id"]),
            "username": m["screen_name"],
            "acct": m["screen_name"],
            "url": absolute(base, f"/@{m['screen_name']}/"),
        }  # fmt: skip
        for m in found["user_mentions"]
    ]


def _tags(base, found):
    return [
        {"name": name, "url": absolute(base, f"/tags/{name}/")}
        for name in parsed_entities.tags(found)
    ]


# What a Status entity says that its status hash alone decides (its text as HTML, its
# mentions, tags and images, its times and links), kept per process by (base, id, its
# last edit's time): a status changes only by an edit, which makes a new key (decision
# 0074), and rendering its HTML is most of the cost of
# a timeline call (the pages keep their markup the same way: jinja_helpers.status_list_markup).
REMEMBERED_STATUSES = 20_000  # ~3 KB each: ~60 MB per process at most
_remembered = Memory("api statuses", REMEMBERED_STATUSES)


def _own_part(base, status):
    # Edits: the version (its last edit's time) is part of the key (decision 0074).
    key = (base, int(status["id"]), status.get("edited") or "")
    part = _remembered.get(key)
    if part is None:
        part = own_part(base, status)
        _remembered.put(key, part)
    return part


def own_part(base, status):
    """What a Status entity says that ``status``'s own fields decide (made each time:
    _own_part remembers it; the history's versions use it as it is)."""
    login = status.get("login") or ""
    url = absolute(base, f"/@{login}/{status['id']}/")
    in_reply_to = status.get("in_reply_to")
    spoiler = str(status.get("spoiler") or "")
    reply_uid = status.get("in_reply_to_uid")
    found = _parsed(status)
    part = {
        "id": str(status["id"]),
        "uri": url,
        "url": url,
        "created_at": iso_time(status["posted"]),
        "content": str(html(base, status.get("message"), status.get("entities"))),
        "sensitive": status.get("sensitive") in ("1", 1, True) or bool(spoiler),
        "spoiler_text": spoiler,
        "media_attachments": _media(base, status),
        "mentions": _mentions(base, found),
        "tags": _tags(base, found),
        "in_reply_to_id": str(in_reply_to) if in_reply_to else None,
        "in_reply_to_account_id": str(reply_uid) if reply_uid else None,
    }
    return part


# --- polls ------------------------------------------------------------------------------
# A status dict's fields the API's views set for its viewer (common.read_poll_votes):
# the options they chose; whether they wrote the poll.
POLL_OWN_FIELD = "poll_own_votes"
POLL_AUTHOR_FIELD = "poll_viewer_is_author"


def poll(sid, found, own_votes=(), voted=False, now_ms=None):
    """Mastodon's Poll entity of status ``sid``'s poll ``found`` (polls.Poll): each
    option's ``votes_count`` is null while a poll that hides its totals is open;
    ``voted``, ``own_votes``: the viewer's (their own choices, never anyone else's)."""
    expired = found.expired(now_ms)
    hidden = found.hide_totals and not expired
    return {
        "id": str(sid),
        "expires_at": iso_time(found.expires_ms / 1000),
        "expired": expired,
        "multiple": found.multiple,
        "votes_count": found.votes_count,
        "voters_count": found.voters,
        "options": [
            {"title": title, "votes_count": None if hidden else votes}
            for title, votes in zip(found.options, found.votes, strict=True)
        ],
        "emojis": [],
        "voted": bool(voted or own_votes),
        "own_votes": [int(choice) for choice in own_votes],
    }


def _status_poll(status, viewer):
    """The Poll entity of a status dict with a poll (None without one); ``viewer``'s
    ``own_votes`` (None: not read) and ``is_author``."""
    found = polls.poll_of(status)
    if found is None:
        return None
    own = viewer.get("own_votes") or ()
    return poll(status["id"], found, own, voted=bool(viewer.get("is_author")))


def status(base, status, author, *, counts=None, viewer=None, reblog=None):
    """Mastodon's Status entity of ``status`` (a repository status dict, as
    statuses.get_statuses or a status event carries it) by ``author`` (a repository
    user or author dict), URLs on ``base``. ``counts``: {"replies", "reblogs",
    "favourites"} (zeros if None); ``viewer``: {"favourited", "reblogged", "bookmarked"} (False if
    None); ``reblog``: for a repost, its original's Status entity (else None)."""
    counts = counts or {}
    viewer = viewer or {}
    entity = dict(_own_part(base, status))
    if reblog is not None:  # a repost says nothing of its own: its original is its reblog
        entity.update(content="", media_attachments=[], mentions=[], tags=[])
    entity.update(
        {
            "account": account(base, author),
            "text": None,
            "visibility": "private" if _posted_private(status) else visibility_of(author),
            "application": None,
            "emojis": [],
            "reblogs_count": int(counts.get("reblogs", 0)),
            "favourites_count": int(counts.get("favourites", 0)),
            "replies_count": int(counts.get("replies", 0)),
            "reblog": reblog,
            "poll": _status_poll(status, viewer) if reblog is None else None,  # polls
            "card": None,
            "language": None,
            "edited_at": edited_at(status) if reblog is None else None,  # edits
            "favourited": bool(viewer.get("favourited", False)),
            "reblogged": bool(viewer.get("reblogged", False)),
            "muted": False,
            "bookmarked": bool(viewer.get("bookmarked", False)),
            "pinned": bool(viewer.get("pinned", False)),
            "filtered": [],
        }
    )
    return entity


def edited_at(status):
    """The time of ``status``'s last edit (ISO 8601), or None for one never edited."""
    edited = status.get("edited")
    return iso_time(int(edited) / 1000) if edited else None


def direct_status_id(cid, mid):
    """The Status id of message ``mid`` of conversation ``cid``: "dm-<cid>-<mid>". Not a
    number, so that it can never name a status (a message is none: it has no place in
    any timeline); GET /api/v1/statuses/:id reads it as the message, for its members."""
    return f"dm-{int(cid)}-{int(mid)}"


def direct_status(base, cid, message, sender):
    """Mastodon's Status entity of direct message ``message`` (as the repository's
    direct.conversation_page gives it) of conversation ``cid``, sent by ``sender`` (a
    user or author dict): ``visibility`` "direct", its text as the conversation page
    renders it; no counts, no reblog, no media."""
    url = absolute(base, f"/messages/{int(cid)}/#m{int(message['id'])}")
    text = str(message.get("message") or "")
    found = parsed_entities.unpack(text, message.get("entities"))
    return {
        "id": direct_status_id(cid, message["id"]),
        "uri": url,
        "url": url,
        "created_at": iso_time(message["at"]),
        "content": str(html(base, text, message.get("entities"))),
        "sensitive": False,
        "spoiler_text": "",
        "media_attachments": [],
        "mentions": _mentions(base, found),
        "tags": _tags(base, found),
        "in_reply_to_id": None,
        "in_reply_to_account_id": None,
        "account": account(base, sender),
        "text": None,
        "visibility": "direct",
        "application": None,
        "emojis": [],
        "reblogs_count": 0,
        "favourites_count": 0,
        "replies_count": 0,
        "reblog": None,
        "poll": None,
        "card": None,
        "language": None,
        "edited_at": None,
        "favourited": False,
        "reblogged": False,
        "muted": False,
        "bookmarked": False,
        "pinned": False,
        "filtered": [],
    }


def conversation(base, conversation, last_sender=None):
    """Mastodon's Conversation entity of ``conversation`` (a repository
    direct.Conversation as its member sees it): ``accounts`` the other members,
    ``unread`` whether they have unread messages, ``last_status`` the newest message
    they see (by ``last_sender``, a user or author dict) or null."""
    last = conversation.last
    return {
        "id": str(conversation.id),
        "unread": conversation.unread > 0,
        "accounts": [account(base, member) for member in conversation.others],
        "last_status": (
            direct_status(base, conversation.id, last, last_sender)
            if last is not None and last_sender is not None
            else None
        ),
    }


# The repository's notification kinds as Mastodon's types: a reply is a mention there,
# a follow approved is not a notification there (it comes as "follow_request" answered).
NOTIFICATION_TYPES = {
    "follow": "follow",
    "mention": "mention",
    "reply": "mention",
    "follow_request": "follow_request",
    "like": "favourite",
    "repost": "reblog",
    # Kinds later issues add, as Mastodon names them (an edited status; a poll ended).
    "update": "update",
    "poll": "poll",
}


# --- grouped notifications (/api/v2/notifications, api/notification_groups.py) ---
# The types Mastodon 4.3 groups, and the window a group spans: fixed windows of the
# pages' grouping length (limits.NOTIFICATION_GROUP_MS), counted from the epoch, so that
# a notification's group key depends on it alone and pages never shift.
GROUPABLE_TYPES = ("favourite", "follow", "reblog")
GROUP_WINDOW_MS = NOTIFICATION_GROUP_MS


def notification_group_key(notification, grouped=GROUPABLE_TYPES):
    """The group key of ``notification`` (a notifications.Event), as Mastodon forms it:
    ``favourite-<status>-<window>`` and ``reblog-<status>-<window>`` per status,
    ``follow-<window>`` (the window: hours since the epoch at its start); every other
    type, or one not in ``grouped``, ``ungrouped-<id>``."""
    kind = NOTIFICATION_TYPES.get(notification.kind, notification.kind)
    if kind not in grouped or kind not in GROUPABLE_TYPES:
        return f"ungrouped-{notification.score}"
    window = notification.score // GROUP_WINDOW_MS * GROUP_WINDOW_MS // 3_600_000
    if kind == "follow":
        return f"follow-{window}"
    return f"{kind}-{notification.status}-{window}"


def notification(base, notification, account_user, status=None):
    """Mastodon's Notification entity of ``notification`` (a notifications.Event) by
    ``account_user`` (a repository user or author dict), about ``status`` (its Status
    entity; None for a follow). Its id is the event's score: unique in the user's list,
    and in order."""
    return {
        "id": str(notification.score),
        "type": NOTIFICATION_TYPES.get(notification.kind, notification.kind),
        "created_at": iso_time(notification.score / 1000),
        "group_key": notification_group_key(notification),
        "account": account(base, account_user),
        "status": status,
    }


def relationship(other_id, rel, *, followed_by=False, private_other=False):
    """Mastodon's Relationship of the viewer to ``other_id`` from a
    visibility.Relationship ``rel``."""
    return {
        "id": str(other_id),
        "following": rel.following,
        "showing_reblogs": rel.following,
        "notifying": False,
        "languages": None,
        "followed_by": followed_by,
        "blocking": rel.blocking,
        "blocked_by": rel.blocked,
        "muting": rel.mute_ends is not None,
        "muting_notifications": rel.mute_ends is not None,
        "requested": rel.requested,
        "requested_by": False,
        "domain_blocking": False,
        "endorsed": False,
        "note": "",
    }


def tag(base, name, history=(), following=False):
    """Mastodon's Tag entity of hashtag ``name`` (normalized); ``following``: whether the
    caller follows it (followed hashtags)."""
    return {
        "name": name,
        "url": absolute(base, f"/tags/{name}/"),
        "history": list(history),
        "following": bool(following),
    }


def shown_status(base, item, liked=frozenset(), bookmarked=frozenset(), pinned=frozenset()):
    """The Status entity of ``item``, a status as the repository's pages give it (with
    its ``author``, counts, ``viewer_reposted``); ``liked``: the ids the viewer likes
    (the page's ``liked``); ``bookmarked``: those the viewer bookmarked, when read;
    ``pinned``: those pinned, for their author."""
    counts = {"replies": item.get("replies", 0), "reblogs": item.get("reposts", 0),
              "favourites": item.get("likes", 0)}  # fmt: skip
    viewer = {"favourited": item["id"] in liked, "reblogged": bool(item.get("viewer_reposted")),
              "bookmarked": item["id"] in bookmarked, "pinned": item["id"] in pinned}  # fmt: skip
    # Polls: the viewer's own votes, where the caller read them (common.read_poll_votes).
    viewer["own_votes"] = item.get(POLL_OWN_FIELD) or ()
    viewer["is_author"] = bool(item.get(POLL_AUTHOR_FIELD))
    entity = status(base, item, item["author"], counts=counts, viewer=viewer)
    if item.get(FILTERED_FIELD) is not None:  # keyword filters: a warn filter matched
        entity["filtered"] = filter_results(item[FILTERED_FIELD])
    return entity


# --- a page of statuses as JSON text ---------------------------------------------------------
# A timeline call sends up to 40 Status entities. Their own parts (_own_part) and their
# authors' Account entities are kept here as JSON text, so that a page is mostly joined
# text rather than dicts copied and encoded again: the same JSON as json.dumps of
# ``status`` (tests/test_api_rest.py compares them).
_own_text = Memory("api status json", REMEMBERED_STATUSES)
REMEMBERED_ACCOUNTS = 20_000  # ~1 KB each
_account_text = Memory("api account json", REMEMBERED_ACCOUNTS)


def _dumps(data):
    return json.dumps(data, ensure_ascii=False, separators=(",", ":"))


def _own_json(base, status):
    key = (base, int(status["id"]))
    text = _own_text.get(key)
    if text is None:
        text = _dumps(_own_part(base, status))[1:-1]
        _own_text.put(key, text)
    return text


def _account_json(base, author):
    # Keyed by everything the entity is made of: a changed name or picture is a new key.
    key = (base, *sorted(author.items()))
    text = _account_text.get(key)
    if text is None:
        text = _dumps(account(base, author))
        _account_text.put(key, text)
    return text


# The fields of a Status entity that are the same for every status here.
_CONSTANT_FIELDS = _dumps(
    {
        "text": None,
        "application": None,
        "emojis": [],
        "reblog": None,
        "poll": None,
        "card": None,
        "language": None,
        "edited_at": None,
        "muted": False,
        "bookmarked": False,
        "pinned": False,
        "filtered": [],
    }  # fmt: skip
)[1:-1]


def reblog_of(base, item, repost, liked=frozenset()):
    """The Status entity of a repost shown on a page as its original ``item`` under a
    "reposted" header (``reposted_by``): the repost, ``repost`` (its id, when it was
    posted), wrapping the original, as Mastodon shows a reblog."""
    rid, posted = repost
    original = shown_status(base, item, liked)
    reposter = item["reposted_by"]
    wrapper = status(
        base, {"id": rid, "posted": posted, "login": reposter["login"]}, reposter,
        reblog=original,
    )  # fmt: skip
    wrapper.update(
        filtered=original["filtered"],  # keyword filters
        favourited=original["favourited"],
        reblogged=original["reblogged"],
        reblogs_count=original["reblogs_count"],
        favourites_count=original["favourites_count"],
        replies_count=original["replies_count"],
    )
    return wrapper


def shown_statuses_json(base, items, liked=frozenset(), reposts=None, bookmarked=frozenset(),
                        pinned=frozenset()):  # fmt: skip
    """The JSON text of ``items`` (statuses as the repository's pages give them) as a
    list of Status entities: what json.dumps([shown_status(...) ...]) gives. ``reposts``:
    {(reposter id, original id): (repost id, posted)} for items shown under a "reposted"
    header, each given as the repost wrapping it (reblog_of). ``bookmarked``: the ids the
    viewer bookmarked, where the caller read them (GET /api/v1/bookmarks: all); a
    timeline does not read them, and says ``"bookmarked": false``; ``pinned``: the ids
    to say ``"pinned": true`` of (an author's pinned statuses, to their author)."""
    parts = []
    reposts = reposts or {}
    for item in items:
        if item["id"] in bookmarked or item["id"] in pinned:  # marked
            parts.append(_dumps(shown_status(base, item, liked, bookmarked, pinned)))
            continue
        shown_by = item.get("reposted_by")
        repost = reposts.get((shown_by["id"], item["id"])) if shown_by else None
        if repost is not None:
            parts.append(_dumps(reblog_of(base, item, repost, liked)))
            continue
        if "poll" in item or FILTERED_FIELD in item or item.get("edited"):  # made each time
            parts.append(_dumps(shown_status(base, item, liked)))
            continue
        favourited = "true" if item["id"] in liked else "false"
        reblogged = "true" if item.get("viewer_reposted") else "false"
        parts.append(
            f'{{{_own_json(base, item)},"account":{_account_json(base, item["author"])},'
            f'"visibility":"{visibility_of(item["author"])}",'
            f'"reblogs_count":{int(item.get("reposts", 0))},'
            f'"favourites_count":{int(item.get("likes", 0))},'
            f'"replies_count":{int(item.get("replies", 0))},'
            f'"favourited":{favourited},"reblogged":{reblogged},{_CONSTANT_FIELDS}}}'
        )
    return f"[{','.join(parts)}]"


# --- keyword filters -------------------------------------------------------------------------

# The field of a status dict (as the pages give it) that holds the filters.Match of the
# viewer's warn filters that matched it (api.common.filter_statuses), for ``filtered``.
FILTERED_FIELD = "_filtered"


def _iso_ms(ms):
    return iso_time(ms / 1000) if ms else None


def filter_keyword(keyword):
    """Mastodon's FilterKeyword entity of a filters.Keyword."""
    return {"id": str(keyword.id), "keyword": keyword.keyword, "whole_word": keyword.whole_word}


def filter_entity(found):
    """Mastodon's Filter entity of a filters.Filter."""
    return {
        "id": str(found.id),
        "title": found.title,
        "context": list(found.context),
        "expires_at": _iso_ms(found.expires_ms),
        "filter_action": found.action,
        "keywords": [filter_keyword(k) for k in found.keywords],
        "statuses": [],
    }


def filter_results(match):
    """The FilterResult entities of a status's filters.Match (the Status's ``filtered``)."""
    return [
        {"filter": filter_entity(found), "keyword_matches": list(words), "status_matches": None}
        for found, words in zip(match.filters, match.keyword_matches, strict=True)
    ]

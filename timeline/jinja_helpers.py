"""The filters and functions only the timeline templates use (installed by
socialsite.jinja2), and the status component's Python side.

A status becomes markup in one place, _status.html's status_article macro, for every
page (through its status_list) and for the live page's events alike (the stream server
calls it: timeline.live). Its links and its message's markup, which the client API
shares, are socialsite.status_markup's (StatusLinks, message_html and the url filters).
"""

import datetime
import functools
import time
import zoneinfo

from django.conf import settings
from django.utils import timezone
from markupsafe import Markup

from socialsite import icons
from socialsite.connection import get_redis
from socialsite.memory import Memory
from socialsite.repository import filters, polls


def reltime(posted, now=None):
    """A timestamp (seconds since the epoch) as people read it on a timeline.

    Under a minute "now"; then "5m", "2h", "3d"; older than a week the date. (Dates are
    made only for that last case: a timeline renders this 30 times, mostly for recent
    statuses.)
    """
    posted = float(posted)
    seconds = (now.timestamp() if now else time.time()) - posted
    if seconds < 60:
        return "now"
    if seconds < 3600:
        return f"{int(seconds // 60)}m"
    if seconds < 86400:
        return f"{int(seconds // 3600)}h"
    if seconds < 7 * 86400:
        return f"{int(seconds // 86400)}d"
    moment = datetime.datetime.fromtimestamp(posted, tz=datetime.UTC)
    now = now or timezone.now()
    if moment.year == now.year:
        return f"{moment:%b} {moment.day}"
    return f"{moment:%b} {moment.day}, {moment.year}"


@functools.lru_cache(maxsize=64)
def _zone(name):
    try:
        return zoneinfo.ZoneInfo(name)
    except (zoneinfo.ZoneInfoNotFoundError, ValueError, TypeError):
        return datetime.UTC


def abstime(posted, zone="UTC"):
    """A timestamp (seconds since the epoch) as a date and time in the reader's time
    zone (``zone``, an IANA name; UTC for none or an unknown one), as a status shows it
    on hover and focus: "29 Nov 2026, 11:24 CET"."""
    moment = datetime.datetime.fromtimestamp(float(posted), tz=_zone(zone or "UTC"))
    return f"{moment.day} {moment:%b %Y, %H:%M} {moment.tzname()}"


def isotime(posted):
    """A timestamp (seconds since the epoch) as ISO 8601, for <time datetime>."""
    return datetime.datetime.fromtimestamp(float(posted), tz=datetime.UTC).isoformat()


# --- the frame (templates/_site_header.html) ---------------------------------------------

# The frame's markup by what it is drawn from (site_header_markup): a reader's login,
# counts and current tab. ~4 KB each (3.8 KB of markup for a logged-in reader): ~8 MB per
# process at most.
REMEMBERED_HEADERS = 2_000
_remembered_headers = Memory("page headers", REMEMBERED_HEADERS)
# Stands for the log-out form's CSRF input while the frame is drawn: what is remembered
# is the markup on either side of it.
_CSRF_PLACE = Markup("\x00csrf\x00")


def site_header_markup(macro, viewer, here, urls, url, csrf_input):
    """The frame of a page (_site_header.html's site_header, the macro ``macro``) for
    ``viewer`` (None or a visitor: the logged-out frame) on the page at path ``here``,
    from this process's memory when it drew the same before.

    The key is every argument the macro is drawn from, so an entry is never stale: the
    reader's login and moderator mark, their unread counts and versions, and which tab
    is the current one (``here`` only where it is a tab's path: a status's page and a
    search draw the same frame). ``urls`` (socialsite.jinja2.NamedUrls) is one object
    per script prefix and URLconf, kept for the process, so it keys by identity (with
    its home's path: a page rendered without a request has the one global ``urls``,
    which follows the present prefix).
    """
    signed_in = bool(viewer and viewer.is_authenticated)
    if signed_in:
        login = viewer.login
        profile_path = url("profile", login)
        unread, direct_unread = viewer.notifications, viewer.direct_unread
        inbox = getattr(urls, "direct:inbox")
        tabs = (urls.home, urls.explore, urls.notifications, inbox, profile_path)
        key = (
            urls, urls.home, here if here in tabs else "", login, viewer.is_moderator, profile_path,
            unread.count, unread.version, direct_unread.count, direct_unread.version,
        )  # fmt: skip
    else:
        tabs = (urls.home, urls.explore, urls.login, urls.signup)
        key = (urls, urls.home, here if here in tabs else "", None, False, "", 0, 0, 0, 0)
    parts = _remembered_headers.get(key)
    if parts is None:
        current, login, is_moderator, profile_path, *counts = key[2:]
        markup = macro(
            current, urls, signed_in, login, is_moderator, profile_path, *counts, _CSRF_PLACE
        )
        before, found, after = markup.partition(_CSRF_PLACE)
        parts = (before, after if found else None)
        _remembered_headers.put(key, parts)
    before, after = parts
    if after is None:
        return before
    # Markup's + keeps markup as it is (the CSRF input is Django's safe HTML).
    return before + csrf_input + after


# --- the more menu (templates/_menu.html) ----------------------------------------------------


def more_menu_start(label, class_=""):
    """The opening of a "more" menu (_menu.html's more_menu, and each status's): a
    <details class="menu"> whose <summary> is the ellipsis icon button named ``label``,
    then the <div class="menu-items"> its items go in; more_menu_end closes them. A
    function, not a macro, so that a page's 30 statuses draw it at the cost of a call
    (a macro costs several microseconds), and the markup is written once."""
    return _MENU_START.format(f" {class_}" if class_ else "", label, icons.icon("ellipsis"))


_MENU_START = Markup(
    '<details class="menu{}"><summary class="icon-button" aria-label="{}" title="More">{}'
    '</summary><div class="menu-items">'
)
MORE_MENU_END = Markup("</div></details>")


def stream_url():
    """Where the page's script reaches the streaming server (settings.STREAM_PUBLIC_URL);
    empty means the page's own host name on stream_port."""
    return settings.STREAM_PUBLIC_URL


def stream_port():
    return settings.STREAM_PORT


# --- the status component ------------------------------------------------------------------


# The markup of others' statuses (_status.html's status_article), by status id, relative
# time, link patterns and the viewer's buttons: (the status it was made from, its
# markup). A status whose fields differ from those remembered (an author's new name, a
# count, any field it has) is made again, so an entry is never shown stale.
REMEMBERED_STATUSES = 20_000  # ~2 KB each with the status and key: ~40 MB per process at most
_remembered = Memory("status markup", REMEMBERED_STATUSES)


def status_list_markup(article, statuses, request, csrf_input, links, delete_next, liked,
                       bookmarked=None, pinned=None):  # fmt: skip
    """The markup of a page's statuses (_status.html's status_list), each by the macro
    ``article`` (status_article), with the viewer's buttons.

    The viewer's own statuses, which carry a delete form with the page's CSRF token, are
    made each time; the others come from this process's memory when it has made the
    same before for the same buttons. A popular status appears on many pages, and making
    its markup costs many times what finding it remembered does: without the memory, a
    home page of 30 statuses takes about twice the CPU (docs/decisions/0047).

    ``bookmarked``: the ids the viewer bookmarked, where the page read them (the
    bookmarks page: all of them); elsewhere none is read, and the menu offers
    "Bookmark", which bookmarking again leaves as it is. Part of the key, as ``liked``.
    ``pinned``: the ids pinned, where the page read them (a profile's pinned section):
    the viewer's own statuses' menu says "Unpin" for them (those are made each time).
    """
    pinned = pinned or ()
    viewer_id = request.user.id
    # Keyword filters: a hide filter's statuses dropped before drawing, a warn filter's
    # drawn as any other and wrapped (filtered_markup): the memory stays per status.
    statuses, warned = filters.apply(
        page_filters(request), list(statuses), viewer_id, getattr(request, "filter_focus", None)
    )
    actions = viewer_id is not None
    # The reader's time zone (their setting, socialsite.actions.settings), for the
    # absolute times.
    zone = getattr(request.user, "time_zone", None) or "UTC"
    liked = liked or ()
    bookmarked = bookmarked or ()
    own_next = delete_next or request.get_full_path()
    # Polls: the reader's own choices in the open polls of others (one round trip, only
    # for a page holding any), part of the key as ``liked`` is.
    voted = own_poll_votes(request, statuses, viewer_id)
    keys = [
        (status["id"], reltime(status["posted"]), links.patterns, actions,
         status["id"] in liked, status.get("viewer_reposted", False), zone,
         status["id"] in bookmarked, voted.get(status["id"]))
        for status in statuses
    ]  # fmt: skip
    remembered = _remembered.get_many(keys)
    new = {}
    made = []
    for status, key in zip(statuses, keys, strict=True):
        _, when, _, _, is_liked, reposted, _, is_bookmarked, choices = key
        # Bookmarks: the macro's keyword, given only where the page read them.
        marked = {"bookmarked": True} if is_bookmarked else {}
        if choices is not None:  # polls: the reader voted
            marked["voted"] = choices
        if status["uid"] == viewer_id:
            own = (csrf_input, own_next, actions, is_liked, reposted, when, zone)
            mine = {**marked, "pinned": True} if status["id"] in pinned else marked
            made.append(article(status, links, *own, **mine))
            continue
        # The viewer's own mark is in the key, not in what is compared: the status's
        # fields alone.
        fields = status
        if "viewer_reposted" in status:
            fields = {name: value for name, value in status.items() if name != "viewer_reposted"}
        if "poll" in status:  # polls: an open poll's markup is not an ended one's
            fields = {**fields, "poll_ended": poll_ended(status)}
        entry = remembered.get(key)
        if entry is None or entry[0] != fields:
            markup = article(
                status, links, None, None, actions, is_liked, reposted, when, zone, **marked
            )
            entry = new[key] = (dict(fields), markup)
        if status["id"] in warned:  # keyword filters: the memory's markup, wrapped
            made.append(filtered_markup(entry[1], warned[status["id"]]))
            continue
        made.append(entry[1])
    if new:
        _remembered.put_many(new)
    return Markup("\n").join(made)


def first_actions_form(request):
    """Whether the page's actions form (_status.html's status_actions_form) is still to
    be shown: true the first time a page asks, false after. A page may show several
    status lists (a thread does), and the Like and Repost buttons of all of them submit
    the one form."""
    if getattr(request, "status_actions_form_shown", False):
        return False
    request.status_actions_form_shown = True
    return True


# --- the inbox (direct messages) -----------------------------------------------------------

# The markup of inbox rows (messages.html's conversation_row), by conversation id, relative
# time of its last message, unread count, mute and the page's link prefix: (what it was
# made from, its markup). A row whose members or last message differ from those
# remembered is made again, so an entry is never shown stale. An inbox shows the same
# conversations page after page, and making a row costs several times finding it.
REMEMBERED_CONVERSATION_ROWS = 20_000  # ~1 KB each: ~20 MB per process at most
_remembered_rows = Memory("conversation rows", REMEMBERED_CONVERSATION_ROWS)


def conversation_rows_markup(row, conversations, prefix, viewer_id):
    """The markup of an inbox page's rows, each by the macro ``row`` (``row(conversation,
    prefix, viewer_id, when)``), from this process's memory where it made the same."""
    keys = [
        (c.id, viewer_id, reltime(c.last["at"]) if c.last else "", c.unread, c.muted, prefix)
        for c in conversations
    ]
    remembered = _remembered_rows.get_many(keys)
    new, made = {}, []
    for conversation, key in zip(conversations, keys, strict=True):
        fields = (conversation.members, conversation.last)
        entry = remembered.get(key)
        if entry is None or entry[0] != fields:
            markup = row(conversation, prefix, viewer_id, key[2])
            entry = new[key] = ((list(conversation.members), conversation.last), markup)
        made.append(entry[1])
    if new:
        _remembered_rows.put_many(new)
    return Markup("\n").join(made)


# --- a conversation (direct messages) as a chat --------------------------------------------

# Messages of one sender follow each other in one group (one name and avatar, shown once)
# while each comes within this many seconds of the one before, on the same day.
CHAT_GROUP_SECONDS = 5 * 60


class ChatRow:
    """One message of a conversation's page as conversation.html draws it: ``message``,
    its ``sender`` (a user dict, or None for a deleted account), ``own`` (the reader's),
    ``day`` (the label of the day separator before it: "Today", "Yesterday", "Friday,
    November 27"; "" when it is of the same day as the message before), ``date`` (its
    day, ISO), ``continued`` (it follows a message of the same sender in its group),
    ``clock`` ("14:05") and ``full`` (the whole moment, for the time's title)."""

    __slots__ = ("message", "sender", "own", "day", "date", "continued", "clock", "full")


def _day_label(moment, today):
    days = (today - moment.date()).days
    if days == 0:
        return "Today"
    if days == 1:
        return "Yesterday"
    if moment.year == today.year:
        return f"{moment:%A, %B} {moment.day}"
    return f"{moment:%A, %B} {moment.day}, {moment.year}"


def _zone(name):
    try:
        return zoneinfo.ZoneInfo(str(name or "UTC"))
    except (zoneinfo.ZoneInfoNotFoundError, ValueError):
        return datetime.UTC


def chat_rows(messages, senders, viewer_id, zone="UTC", now=None):
    """``{% for row in chat_rows(page.messages, page.senders, viewer.id, zone) %}``: the
    messages (oldest first) as ChatRows, grouped by sender and time with a day separator
    where the day changes, days and times in the reader's time zone ``zone`` (a name of
    the tz database; UTC if unknown). One call per page, in place of a few filters and
    comparisons per message in the template."""
    tz = _zone(zone)
    label = "UTC" if tz is datetime.UTC else str(zone)
    today = (now or timezone.now()).astimezone(tz).date()
    rows, previous = [], None
    for message in messages:
        at = float(message["at"])
        moment = datetime.datetime.fromtimestamp(at, tz=tz)
        row = ChatRow()
        row.message, row.sender = message, senders.get(message["from"])
        row.own = message["from"] == viewer_id
        row.date = moment.date().isoformat()
        new_day = previous is None or previous[1] != row.date
        row.day = _day_label(moment, today) if new_day else ""
        row.continued = (
            not new_day
            and previous[0] == message["from"]
            and at - previous[2] <= CHAT_GROUP_SECONDS
        )
        row.clock = f"{moment:%H:%M}"
        row.full = f"{moment:%A, %B} {moment.day}, {moment.year}, {moment:%H:%M} ({label})"
        previous = (message["from"], row.date, at)
        rows.append(row)
    return rows


# --- polls ----------------------------------------------------------------------------


def own_poll_votes(request, statuses, viewer_id):
    """{status id: the reader's choices} in the open polls of others among ``statuses``
    that the reader voted in (polls.own_votes: one round trip, none for a page without
    such polls or a visitor); kept on the request for its other lists."""
    if viewer_id is None:
        return {}
    known = getattr(request, "own_poll_votes", None)
    if known is None:
        known = request.own_poll_votes = {}
    wanted = [
        status["id"]
        for status in statuses
        if "poll" in status
        and status["uid"] != viewer_id
        and status["id"] not in known
        and not poll_ended(status)
    ]
    if wanted:
        found = polls.own_votes(get_redis(), viewer_id, wanted)
        known.update({sid: found.get(sid) for sid in wanted})
    return {sid: choices for sid, choices in known.items() if choices is not None}


def poll_ended(status):
    """Whether ``status``'s poll has ended (its ``poll_expires``, ms, has come)."""
    return time.time() * 1000 >= int(status.get("poll_expires") or 0)


def status_poll(status):
    """``{{ status|status_poll }}``: what the status component shows of a status's poll
    (None without one): ``options`` as (index, title, votes, percent of the votes),
    ``voters``, ``votes``, ``ended``, ``multiple``, ``hidden`` (the totals, until the
    end), ``expires`` (seconds since the epoch)."""
    found = polls.poll_of(status)
    if found is None:
        return None
    total = found.votes_count
    options = [
        (index, title, votes, round(100 * votes / total) if total else 0)
        for index, (title, votes) in enumerate(zip(found.options, found.votes, strict=True))
    ]
    ended = found.expired()
    return {
        "options": options,
        "voters": found.voters,
        "votes": total,
        "ended": ended,
        "multiple": found.multiple,
        "hidden": found.hide_totals and not ended,
        "expires": found.expires_ms / 1000,
    }


# --- keyword filters ------------------------------------------------------------------------

# The filter context of the statuses of each page, by its URL name (Mastodon's contexts:
# lists and Top are home timelines; a tag's and a group's are public timelines). Pages
# not named here (bookmarks, likes, search) are not filtered, as in Mastodon.
FILTER_CONTEXTS = {
    "home": "home",
    "latest": "home",
    "top": "home",
    "list_timeline": "home",
    "tag": "public",
    "group": "public",
    "status_detail": "thread",
    "profile": "account",
    "notifications": "notifications",
}
_UNREAD = object()


def page_filters(request):
    """The reader's keyword filters of the request's page, compiled (filters.Matcher), or
    None: read along with the session (accounts.session_store: no round trip of their
    own), compiled once per process for the same filters, looked up once per request."""
    found = getattr(request, "_filter_matcher", _UNREAD)
    if found is not _UNREAD:
        return found
    found = None
    uid = getattr(request.user, "id", None)
    match = getattr(request, "resolver_match", None)
    context = FILTER_CONTEXTS.get(getattr(match, "url_name", None))
    if uid is not None and context is not None:
        read = getattr(request.session, "filters", None)
        mine = read.for_user(uid) if read is not None else None
        if mine is None:  # a session whose key does not name its user: read them now
            mine = filters.get_filters(get_redis(), uid)
        found = filters.matcher_for(mine, context)
    request._filter_matcher = found
    return found


_FILTERED = Markup(
    '<details class="filtered"><summary class="filtered-summary">'
    '<span class="filtered-title">Filtered: <bdi>{}</bdi></span>'
    '<span class="filtered-show">Show anyway</span></summary>{}</details>'
)


def filtered_markup(markup, match):
    """A status's ``markup`` collapsed behind "Filtered: <title>" (a warn filter's
    ``match``): a <details> that opens without a script."""
    return _FILTERED.format(match.titles, markup)

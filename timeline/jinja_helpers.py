"""The filters and functions the timeline templates use (installed by socialsite.jinja2),
and the status component's Python side.

A status becomes markup in one place, _status.html's status_article macro, for every
page (through its status_list) and for the live page's events alike (the stream server
calls it: timeline.live). StatusLinks and the filters below make its links.

The functools.lru_cache on _url_pattern is not a memory (socialsite.memory): it keeps
what reverse() gives for its arguments, which is never stale.
"""

import datetime
import functools
import re
import time
from urllib.parse import quote

from django.conf import settings
from django.template import defaultfilters
from django.urls import get_script_prefix, get_urlconf, reverse
from django.utils import timezone
from django.utils.html import escape, format_html
from markupsafe import Markup

from socialsite.memory import Memory
from socialsite.repository import entities


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


def isotime(posted):
    """A timestamp (seconds since the epoch) as ISO 8601, for <time datetime>."""
    return datetime.datetime.fromtimestamp(float(posted), tz=datetime.UTC).isoformat()


def stream_url():
    """Where the page's script reaches the streaming server (settings.STREAM_PUBLIC_URL);
    empty means the page's own host name on stream_port."""
    return settings.STREAM_PUBLIC_URL


def stream_port():
    return settings.STREAM_PORT


# --- links in the status markup ----------------------------------------------------------
# url() calls reverse(), which a home page would do 60 times (two links per status), and
# that is slow. StatusLinks reverses each pattern once per URLconf and script prefix,
# with placeholders, then puts the login and the id in: the same URLs, far faster.
_LOGIN_SLOT = "__login__"
_TAG_SLOT = "__tag__"
_ID_SLOT = 9_876_543_210_123  # digits that no login placeholder contains
_ID_TEXT = str(_ID_SLOT)
# Logins are letters, digits and underscores (accounts.forms.LOGIN_PATTERN), which need no
# quoting in a URL. Anything else goes through reverse() itself, to get exactly its answer.
_PLAIN_LOGIN = re.compile(r"[A-Za-z0-9_]+")


@functools.lru_cache(maxsize=64)
def _url_pattern(name, args, prefix, urlconf):
    # prefix and urlconf are not used here but by reverse(): they are the cache's key.
    return reverse(name, urlconf=urlconf, args=args)


class StatusLinks:
    """The links of the status markup, for one page (``status_links()`` in a template).

    Looking the script prefix and the URLconf up (they are context-local) costs more than
    building a link, so a page does it once, here, and passes this object to the filters:
    ``{{ login|profile_url(links) }}``. Without one each filter makes its own.
    """

    __slots__ = (
        "_profile",
        "_status",
        "_delete",
        "_tag",
        "_like",
        "_unlike",
        "_repost",
        "_unrepost",
        "patterns",
    )

    def __init__(self, prefix=None, urlconf=None):
        """The links for ``prefix`` and ``urlconf`` (as socialsite.jinja2.page_context
        looked them up), or for the present ones."""
        if prefix is None:
            prefix, urlconf = get_script_prefix(), get_urlconf()
        self._profile = _url_pattern("profile", (_LOGIN_SLOT,), prefix, urlconf)
        self._status = _url_pattern("status_detail", (_LOGIN_SLOT, _ID_SLOT), prefix, urlconf)
        self._delete = _url_pattern("delete_status", (_ID_SLOT,), prefix, urlconf)
        self._tag = _url_pattern("tag", (_TAG_SLOT,), prefix, urlconf)
        self._like = _url_pattern("like", (_ID_SLOT,), prefix, urlconf)
        self._unlike = _url_pattern("unlike", (_ID_SLOT,), prefix, urlconf)
        self._repost = _url_pattern("repost", (_ID_SLOT,), prefix, urlconf)
        self._unrepost = _url_pattern("unrepost", (_ID_SLOT,), prefix, urlconf)
        # What the links depend on besides the login, the id and the tag.
        self.patterns = (self._profile, self._status, self._delete, self._tag)

    def profile(self, login):
        login = str(login)
        if not _PLAIN_LOGIN.fullmatch(login):
            return reverse("profile", args=[login])
        return self._profile.replace(_LOGIN_SLOT, login, 1)

    def status(self, login, sid):
        login = str(login)
        if not _PLAIN_LOGIN.fullmatch(login):
            return reverse("status_detail", args=[login, sid])
        return self._status.replace(_ID_TEXT, str(int(sid)), 1).replace(_LOGIN_SLOT, login, 1)

    def delete(self, sid):
        return self._delete.replace(_ID_TEXT, str(int(sid)), 1)

    def like(self, sid):
        return self._like.replace(_ID_TEXT, str(int(sid)), 1)

    def unlike(self, sid):
        return self._unlike.replace(_ID_TEXT, str(int(sid)), 1)

    def repost(self, sid):
        return self._repost.replace(_ID_TEXT, str(int(sid)), 1)

    def unrepost(self, sid):
        return self._unrepost.replace(_ID_TEXT, str(int(sid)), 1)

    def tag(self, normalized):
        """The page of a tag (entities.normalize_tag's form): any letters, percent-encoded
        as reverse() would."""
        return self._tag.replace(_TAG_SLOT, quote(normalized, safe=""), 1)


def profile_url(login, links=None):
    """``{{ login|profile_url }}``: what ``{{ url("profile", login) }}`` gives, faster."""
    return (links or StatusLinks()).profile(login)


def status_url(status, links=None):
    """``{{ status|status_url }}``: ``{{ url("status_detail", status.author.login, status.id) }}``,
    faster."""
    return (links or StatusLinks()).status(status["author"]["login"], status["id"])


def delete_url(status, links=None):
    """``{{ status|delete_url }}``: ``{{ url("delete_status", status.id) }}``, faster."""
    return (links or StatusLinks()).delete(status["id"])


# --- the status component ------------------------------------------------------------------


# The markup of others' statuses (_status.html's status_article), by status id, relative
# time, link patterns and the viewer's buttons: (the status it was made from, its
# markup). A status whose fields differ from those remembered (an author's new name, a
# count, any field it has) is made again, so an entry is never shown stale.
REMEMBERED_STATUSES = 20_000  # ~2 KB each with the status and key: ~40 MB per process at most
_remembered = Memory("status markup", REMEMBERED_STATUSES)


def status_list_markup(article, statuses, request, csrf_input, links, delete_next, liked):
    """The markup of a page's statuses (_status.html's status_list), each by the macro
    ``article`` (status_article), with the viewer's buttons.

    The viewer's own statuses, which carry a delete form with the page's CSRF token, are
    made each time; the others come from this process's memory when it has made the
    same before for the same buttons. A popular status appears on many pages, and making
    its markup costs many times what finding it remembered does: without the memory, a
    home page of 30 statuses takes about twice the CPU (docs/decisions/0047).
    """
    viewer_id = request.user.id
    actions = viewer_id is not None
    liked = liked or ()
    own_next = delete_next or request.get_full_path()
    keys = [
        (status["id"], reltime(status["posted"]), links.patterns, actions,
         status["id"] in liked, status.get("viewer_reposted", False))
        for status in statuses
    ]  # fmt: skip
    remembered = _remembered.get_many(keys)
    new = {}
    made = []
    for status, key in zip(statuses, keys, strict=True):
        _, when, _, _, is_liked, reposted = key
        if status["uid"] == viewer_id:
            made.append(article(status, links, csrf_input, own_next, actions, is_liked, reposted))
            continue
        # The viewer's own mark is in the key, not in what is compared: the status's
        # fields alone.
        fields = status
        if "viewer_reposted" in status:
            fields = {name: value for name, value in status.items() if name != "viewer_reposted"}
        entry = remembered.get(key)
        if entry is None or entry[0] != fields:
            markup = article(status, links, None, None, actions, is_liked, reposted, when)
            entry = new[key] = (dict(fields), markup)
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


# rel of a link in a status: the site does not vouch for it (nofollow, ugc), and the
# page it opens gets neither this window (noopener) nor this page's address (noreferrer).
_LINK_REL = "nofollow noopener noreferrer ugc"


def message_html(status, links=None):
    """``{{ status|message_html(links) }}``: the status's message as markup, its
    mentions linked to profiles, its hashtags to their tag pages and its links to
    themselves (shown as display_url), from the entities parsed when it was posted
    (entities.py); a status without them (none, or posted before there were) as plain
    text, as linebreaksbr. Every piece is escaped here: text, link texts, addresses.
    """
    message = str(status["message"])
    packed = status.get("entities")
    if not packed:
        return linebreaksbr(message)
    links = links or StatusLinks()
    parts = []
    shown = 0
    for start, end, kind, entity in entities.in_order(entities.unpack(message, packed)):
        link = _entity_link(kind, entity, message[start:end], links)
        if link is None:
            continue  # shown as text, with what comes after it
        parts.append(linebreaksbr(message[shown:start]))
        parts.append(link)
        shown = end
    parts.append(linebreaksbr(message[shown:]))
    # Each part is escaped markup (a SafeString): Markup's join keeps it as it is.
    return Markup("").join(parts)


def _entity_link(kind, entity, text, links):
    """The markup of one entity, or None to show it as text."""
    if kind == "url":
        return format_html('<a href="{}" rel="{}">{}</a>', entity["expanded_url"], _LINK_REL,
                           entity["display_url"])  # fmt: skip
    if kind == "mention":
        if not _PLAIN_LOGIN.fullmatch(entity["screen_name"]):
            return None
        href = links.profile(entity["screen_name"])
        return format_html('<a class="mention" href="{}">{}</a>', href, text)
    tag = entities.normalize_tag(entity["text"])
    if not entities.is_tag(tag):
        return None
    return format_html('<a class="hashtag" href="{}">{}</a>', links.tag(tag), text)


def linebreaksbr(text):
    """Django's linebreaksbr filter: the text escaped, each line break as <br>. Most
    statuses have no line break, and for them escape() alone gives the same, for a
    fraction of the filter's cost."""
    text = str(text)
    if "\n" in text or "\r" in text:
        return defaultfilters.linebreaksbr(text)
    return escape(text)


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

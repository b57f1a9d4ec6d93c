"""The markup of a status's links and message, which the pages, the live page and the
client API share: StatusLinks (the links of one page), the url filters the templates
use, and message_html, the message with its mentions, hashtags and links linked (the
API's ``content`` is the same markup, on absolute URLs).

Here, under ``socialsite``, because the timeline app (its templates, through
socialsite.jinja2, and timeline.live) and the client API (api.entities) both use it, and
neither app may import the other. The links name the timeline app's URL patterns, which
reverse() finds in the URLconf: no import of the app.

The functools.lru_cache on _url_pattern is not a memory (socialsite.memory): it keeps
what reverse() gives for its arguments, which is never stale.
"""

import functools
import re
from urllib.parse import quote

from django.template import defaultfilters
from django.urls import get_script_prefix, get_urlconf, reverse
from django.utils.html import escape, format_html
from markupsafe import Markup

from socialsite.repository import entities

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
        "_mute",
        "_block",
        "_report",
        "_bookmark",
        "_unbookmark",
        "_pin",
        "_unpin",
        "_vote",
        "_edit",
        "_history",
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
        # The status's more menu: mute, block and report its author.
        self._mute = _url_pattern("mute", (_LOGIN_SLOT,), prefix, urlconf)
        self._block = _url_pattern("block", (_LOGIN_SLOT,), prefix, urlconf)
        self._report = _url_pattern("report", (_LOGIN_SLOT,), prefix, urlconf)
        # Bookmarks: the status's more menu.
        self._bookmark = _url_pattern("bookmark_status", (_ID_SLOT,), prefix, urlconf)
        self._unbookmark = _url_pattern("unbookmark_status", (_ID_SLOT,), prefix, urlconf)
        # Pinned statuses: one's own status's more menu.
        self._pin = _url_pattern("pin_status", (_ID_SLOT,), prefix, urlconf)
        self._unpin = _url_pattern("unpin_status", (_ID_SLOT,), prefix, urlconf)
        # Polls: a vote.
        self._vote = _url_pattern("vote_poll", (_ID_SLOT,), prefix, urlconf)
        # Edits: one's own status's edit page; a status's history.
        self._edit = _url_pattern("edit_status", (_ID_SLOT,), prefix, urlconf)
        self._history = _url_pattern("status_history", (_ID_SLOT,), prefix, urlconf)
        # What the links depend on besides the login, the id and the tag.
        self.patterns = (self._profile, self._status, self._delete, self._tag, self._mute)

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

    def bookmark(self, sid):
        return self._bookmark.replace(_ID_TEXT, str(int(sid)), 1)

    def unbookmark(self, sid):
        return self._unbookmark.replace(_ID_TEXT, str(int(sid)), 1)

    def pin(self, sid):
        return self._pin.replace(_ID_TEXT, str(int(sid)), 1)

    def unpin(self, sid):
        return self._unpin.replace(_ID_TEXT, str(int(sid)), 1)

    def vote(self, sid):
        return self._vote.replace(_ID_TEXT, str(int(sid)), 1)

    def edit(self, sid):
        return self._edit.replace(_ID_TEXT, str(int(sid)), 1)

    def history(self, sid):
        return self._history.replace(_ID_TEXT, str(int(sid)), 1)

    def repost(self, sid):
        return self._repost.replace(_ID_TEXT, str(int(sid)), 1)

    def unrepost(self, sid):
        return self._unrepost.replace(_ID_TEXT, str(int(sid)), 1)

    def mute(self, login):
        return self._of_login(self._mute, "mute", login)

    def block(self, login):
        return self._of_login(self._block, "block", login)

    def report(self, login, sid):
        """The report form for ``login``'s account with their status ``sid`` ticked."""
        return f"{self._of_login(self._report, 'report', login)}?status={int(sid)}"

    def _of_login(self, pattern, name, login):
        login = str(login)
        if not _PLAIN_LOGIN.fullmatch(login):
            return reverse(name, args=[login])
        return pattern.replace(_LOGIN_SLOT, login, 1)

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


# --- Groups ------------------------------------------------------------


def group_url(slug):
    """``{{ status.community_slug|group_url }}``: the page of the group a status was
    posted to."""
    return reverse("group", args=[slug])

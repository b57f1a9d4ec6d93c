"""The filters and functions the timeline templates use (installed by socialsite.jinja2),
and the status component's Python side.

A status becomes markup in one place, _status.html's status_article macro, for every
page and for the live page's events alike. status_list_markup (pages) and
status_article (the stream server) call it and remember what it made; StatusLinks and
the filters below make its links quickly.

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
from markupsafe import escape as as_markup

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

    @property
    def patterns(self):
        """What the links depend on besides the login, the id and the tag."""
        return self._profile, self._status, self._delete, self._tag


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
# The one per-page part of a status's markup is the CSRF token of its delete form (the
# viewer's own statuses only). The markup is made with this blank one; whoever shows it
# puts the page's token in: status_list_markup on the server, static/js/live.js in the
# browser. User content is escaped in the markup, so this is the only <input> of its
# kind there.
BLANK_CSRF_INPUT = Markup('<input type="hidden" name="csrfmiddlewaretoken" value="">')
_BLANK_CSRF_TEXT = str(BLANK_CSRF_INPUT)

# Markup made by status_article, by (status id, relative time, link patterns, the delete
# form's ``next`` or None): (the status it was made from, its markup before LIKE_SLOT,
# its markup after). A status whose fields differ from those remembered (an author's new
# name, a count, any field a template shows) is made again, so an entry is never shown
# stale.
REMEMBERED_STATUSES = 20_000  # ~2 KB each with the status and key: ~40 MB per process at most
_remembered = Memory("status markup", REMEMBERED_STATUSES)


# A status's Like (or Unlike) and Repost (or Undo repost) buttons are the viewer's: they
# are kept out of the remembered markup, which has ACTIONS_SLOT in their place, split there
# once (status_list_markup). They carry no form of their own: each names the page's one
# hidden form (ACTIONS_FORM_ID, with the page's CSRF token and ``next``) and posts it to
# its own URL (``form`` and ``formaction``, plain HTML: no script needed). A home page of
# 30 statuses then carries one CSRF token for them, not 30. The buttons' text around a
# status's id depends on the link patterns alone, and is made once (action_buttons_parts).
ACTIONS_SLOT = Markup("<!--actions-->")
ACTIONS_FORM_ID = "status-actions"


@functools.lru_cache(maxsize=64)
def _action_buttons_pieces(like_url, unlike_url, repost_url, unrepost_url):
    """For each (liked, reposted): the buttons' text before the id in the Like button's
    URL, between it and the id in the Repost button's, and after it; for these URLs with
    _ID_SLOT."""
    pieces = {}
    button = f'<button type="submit" form="{ACTIONS_FORM_ID}" class="link '
    for liked, url, label in ((False, like_url, "Like"), (True, unlike_url, "Unlike")):
        like_before, _, like_after = url.partition(_ID_TEXT)
        for reposted, r_url, r_label in (
            (False, repost_url, "Repost"),
            (True, unrepost_url, "Undo repost"),
        ):
            repost_before, _, repost_after = r_url.partition(_ID_TEXT)
            pieces[liked, reposted] = (
                f'<span class="actions">{button}{label.lower()}" formaction="{like_before}',
                f'{like_after}">{label}</button> {button}repost" formaction="{repost_before}',
                f'{repost_after}">{r_label}</button></span>',
            )
    return pieces


def action_buttons_parts(links):
    """{(liked, reposted): (before, between, after)}: the text of the action buttons around
    a status's id (action_buttons), escaped markup as plain strs."""
    return _action_buttons_pieces(
        links.like(_ID_SLOT),
        links.unlike(_ID_SLOT),
        links.repost(_ID_SLOT),
        links.unrepost(_ID_SLOT),
    )


def action_buttons(parts, sid, liked=False, reposted=False):
    """The Like and Repost buttons of status ``sid`` (action_buttons_parts), as markup;
    they submit the page's actions_form."""
    before, between, after = parts[liked, reposted]
    sid = str(int(sid))
    return Markup(before + sid + between + sid + after)  # noqa: S704 -- escaped parts


def actions_form(csrf_input, next_url):
    """The page's hidden form that the action buttons submit: the CSRF token and where to
    come back to (``next_url``, escaped here)."""
    return (
        f'<form id="{ACTIONS_FORM_ID}" method="post" hidden>{as_markup(csrf_input)}'
        f'<input type="hidden" name="next" value="{escape(next_url)}"></form>'
    )


def status_article(article, status, links, delete_next=None, when=None, actions=None):
    """``status`` (a dict with its ``author``) as markup, by the macro ``article``
    (_status.html's status_article): with a delete form when ``delete_next`` (where
    deleting leads back to) is given, its CSRF token left blank (BLANK_CSRF_INPUT);
    ``actions``, the markup of its Like and Repost buttons (action_buttons, or
    ACTIONS_SLOT), or None for none (a visitor).

    The stream server sends this as it is, for live pages; status_list_markup
    remembers it. ``when`` is the relative time ("5m"), worked out here by default.
    """
    if when is None:
        when = reltime(status["posted"])
    own = delete_next is not None
    return article(status, links, when, BLANK_CSRF_INPUT if own else None, delete_next, actions)


def status_list_markup(statuses, request, csrf_input, links, delete_next, article, liked=None):
    """The markup of a page's statuses (_status.html's status_list), each by the macro
    ``article`` (status_article), from this process's memory when it has made the same
    before. The viewer's own statuses carry a delete form with the page's CSRF token,
    which sends them back to ``delete_next`` (by default this page). A logged-in viewer
    gets the Like (Unlike, for those whose ids are in ``liked``) and Repost (Undo repost,
    for those marked ``viewer_reposted``) buttons on each, put in at ACTIONS_SLOT, so that
    the memory serves every viewer; they submit the page's one actions_form, leading back
    to this page, which comes before the first list of the page (an empty one too).

    A popular status appears on many pages, and making its markup costs several times
    what finding it remembered does: for a home page, most of its rendering.
    """
    viewer_id = request.user.id
    patterns = links.patterns
    forms = None
    parts = []
    if viewer_id is not None:
        forms = action_buttons_parts(links)
        # One form per page, however many lists the page shows (a thread shows several).
        if not getattr(request, "status_actions_form", False):
            request.status_actions_form = True
            parts += (actions_form(csrf_input, request.get_full_path()), "\n")
    liked = liked or ()
    own_next = None
    keys = []
    for status in statuses:
        if status["uid"] == viewer_id:
            if own_next is None:
                own_next = delete_next or request.get_full_path()
            keys.append((status["id"], reltime(status["posted"]), patterns, own_next))
        else:
            keys.append((status["id"], reltime(status["posted"]), patterns, None))
    remembered = _remembered.get_many(keys)
    made = {}
    csrf_text = str(as_markup(csrf_input))
    # Plain strs from here, joined once for the page: every part is escaped markup
    # already (as_markup below, actions_form, action_buttons_parts), and one Markup and
    # one join for the page cost less than one per status.
    add = parts.extend
    for status, key in zip(statuses, keys, strict=True):
        # The viewer's own mark, not the status's: out of what the memory compares, so
        # that viewers who did and did not repost it share its markup.
        reposted = status.pop("viewer_reposted", False)
        entry = remembered.get(key)
        if entry is None or entry[0] != status:
            markup = status_article(article, status, links, key[3], key[1], ACTIONS_SLOT)
            head, _, tail = str(as_markup(markup)).partition(ACTIONS_SLOT)
            # The head without the slot's indentation too: a visitor's markup is exactly
            # the macro's without the form.
            entry = made[key] = (dict(status), head, tail, head.rstrip())
        tail = entry[2]
        if key[3] is not None:
            tail = tail.replace(_BLANK_CSRF_TEXT, csrf_text, 1)  # the delete form's
        if forms is None:
            add((entry[3], tail, "\n"))
        else:
            before, between, after = forms[status["id"] in liked, reposted]
            sid = str(status["id"])
            add((entry[1], before, sid, between, sid, after, tail, "\n"))
    if made:
        _remembered.put_many(made)
    return Markup("".join(parts[:-1]))  # noqa: S704 -- every part escaped, as said above


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

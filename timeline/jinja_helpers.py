"""The filters and functions the timeline templates use (installed by socialsite.jinja2)."""

import datetime
import functools
import re
import time

from django.conf import settings
from django.template import defaultfilters
from django.urls import get_script_prefix, get_urlconf, reverse
from django.utils import timezone
from django.utils.html import escape
from markupsafe import Markup

from socialsite.memory import make_room


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
# url() calls reverse(), about 25 us each, which a home page would do 60 times (two links
# per status). StatusLinks reverses each pattern once per URLconf and script prefix, with
# placeholders, then puts the login and the id in: the same URLs for a few us.
_LOGIN_SLOT = "__login__"
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

    __slots__ = ("_profile", "_status", "_delete")

    def __init__(self, prefix=None, urlconf=None):
        """The links for ``prefix`` and ``urlconf`` (as socialsite.jinja2.page_context
        looked them up), or for the present ones."""
        if prefix is None:
            prefix, urlconf = get_script_prefix(), get_urlconf()
        self._profile = _url_pattern("profile", (_LOGIN_SLOT,), prefix, urlconf)
        self._status = _url_pattern("status_detail", (_LOGIN_SLOT, _ID_SLOT), prefix, urlconf)
        self._delete = _url_pattern("delete_status", (_ID_SLOT,), prefix, urlconf)

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

    @property
    def patterns(self):
        """What the links depend on besides the login and the id."""
        return self._profile, self._status

    # The same links for static/js/live.js (the home page's data attributes), which puts
    # the login in for "__login__" and the id for "/0/": "/@__login__/0/".
    @property
    def profile_template(self):
        return self._profile

    @property
    def status_template(self):
        return self._status.replace(_ID_TEXT, "0", 1)

    @property
    def delete_template(self):
        return self._delete.replace(_ID_TEXT, "0", 1)


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


# Rendered status markup by everything it shows: see remembered_status.
REMEMBERED_STATUSES = 20_000  # ~1.5 KB each with its key: ~30 MB per process at most
_remembered = {}


def remembered_status(render, status, links=None, part="content"):
    """``render(status, links, when)`` (_status.html's status_content or public_article,
    named by ``part``), from this process's memory when it has made the same markup
    before.

    The key holds everything the markup shows (id, time, author's login and name,
    message, location, the relative time, the URL patterns), so an entry is never stale:
    a changed name or a new "5m" is a new key, and the oldest are forgotten when the
    memory is full (socialsite.memory.make_room). Rendering a status takes about 21 us,
    a hit a few. Single dict operations are atomic, so threads may share it.
    """
    links = links or StatusLinks()
    author = status["author"]
    when = reltime(status["posted"])
    key = (part, status["id"], status["posted"], author["login"], author["name"],
           status["message"], status.get("location"), when, links.patterns)  # fmt: skip
    markup = _remembered.get(key)
    if markup is None:
        make_room(_remembered, REMEMBERED_STATUSES)
        markup = _remembered[key] = render(status, links, when)
    return markup


def status_list_markup(statuses, request, csrf_input, links, delete_next, *, own, public):
    """The markup of a page's statuses (_status.html's status_list): ``public(status,
    links, when)`` remembered for statuses the viewer did not write, ``own(status,
    request, csrf_input, links, delete_next)`` made afresh for those they did. Both are
    the template's macros, so everything is escaped there."""
    viewer_id = request.user.id
    articles = [
        own(status, request, csrf_input, links, delete_next)
        if status["uid"] == viewer_id
        else remembered_status(public, status, links, "article")
        for status in statuses
    ]
    if all(type(article) is Markup for article in articles):
        # All escaped markup (the macros made them), so joined they are too. Markup.join
        # would ask each to escape itself: 28 us for a page of 30, against 2 us here.
        return Markup("\n".join(articles))  # noqa: S704 -- parts checked just above
    return Markup("\n").join(articles)


def linebreaksbr(text):
    """Django's linebreaksbr filter: the text escaped, each line break as <br>. Most
    statuses have no line break, and for them escape() alone gives the same, for a third
    of the filter's cost."""
    text = str(text)
    if "\n" in text or "\r" in text:
        return defaultfilters.linebreaksbr(text)
    return escape(text)

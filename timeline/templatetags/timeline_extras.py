import datetime
import functools
import re

from django import template
from django.conf import settings
from django.urls import get_script_prefix, get_urlconf, reverse
from django.utils import timezone

register = template.Library()


@register.filter
def reltime(posted, now=None):
    """A timestamp (seconds since the epoch) as people read it on a timeline.

    Under a minute "now"; then "5m", "2h", "3d"; older than a week the date.
    """
    moment = datetime.datetime.fromtimestamp(float(posted), tz=datetime.UTC)
    now = now or timezone.now()
    seconds = (now - moment).total_seconds()
    if seconds < 60:
        return "now"
    if seconds < 3600:
        return f"{int(seconds // 60)}m"
    if seconds < 86400:
        return f"{int(seconds // 3600)}h"
    if seconds < 7 * 86400:
        return f"{int(seconds // 86400)}d"
    if moment.year == now.year:
        return f"{moment:%b} {moment.day}"
    return f"{moment:%b} {moment.day}, {moment.year}"


@register.filter
def isotime(posted):
    """A timestamp (seconds since the epoch) as ISO 8601, for <time datetime>."""
    return datetime.datetime.fromtimestamp(float(posted), tz=datetime.UTC).isoformat()


@register.simple_tag
def stream_url():
    """Where the page's script reaches the streaming server (settings.STREAM_PUBLIC_URL);
    empty means the page's own host name on stream_port."""
    return settings.STREAM_PUBLIC_URL


@register.simple_tag
def stream_port():
    return settings.STREAM_PORT


# --- links in the status markup ----------------------------------------------------------
# {% url %} calls reverse(), about 25 us each, which a home page did 60 times (two links
# per status). These filters reverse each pattern once per URLconf and script prefix, with
# placeholders, then put the login and the id in: the same URLs for a few us.
_LOGIN_SLOT = "__login__"
_ID_SLOT = 9_876_543_210_123  # digits that no login placeholder contains
# Logins are letters, digits and underscores (accounts.forms.LOGIN_PATTERN), which need no
# quoting in a URL. Anything else goes through reverse() itself, to get exactly its answer.
_PLAIN_LOGIN = re.compile(r"[A-Za-z0-9_]+")


@functools.lru_cache(maxsize=64)
def _url_pattern(name, with_id, prefix, urlconf):
    # prefix and urlconf are not used here but by reverse(): they are the cache's key.
    args = [_LOGIN_SLOT, _ID_SLOT] if with_id else [_LOGIN_SLOT]
    return reverse(name, urlconf=urlconf, args=args)


def _login_url(name, login, sid=None):
    login = str(login)
    if not _PLAIN_LOGIN.fullmatch(login):
        return reverse(name, args=[login] if sid is None else [login, sid])
    url = _url_pattern(name, sid is not None, get_script_prefix(), get_urlconf())
    if sid is not None:
        url = url.replace(str(_ID_SLOT), str(int(sid)), 1)
    return url.replace(_LOGIN_SLOT, login, 1)


@register.filter
def profile_url(login):
    """``{{ login|profile_url }}``: what ``{% url 'profile' login %}`` gives, faster."""
    return _login_url("profile", login)


@register.filter
def status_url(status):
    """``{{ status|status_url }}``: ``{% url 'status_detail' status.author.login status.id %}``,
    faster."""
    return _login_url("status_detail", status["author"]["login"], status["id"])

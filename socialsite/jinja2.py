"""The Jinja2 environment of the site's templates (settings.TEMPLATES).

Jinja2 rather than Django's template language for speed alone: a logged-in home page
renders several times faster (docs/decisions/0010). Autoescaping is on, as in
Django: every value is escaped unless it is already HTML-safe (format_html, escape and
Django's own filters return SafeStrings, which Jinja2 respects through ``__html__``).

This module is the top of the templates' imports: it installs the helpers of
timeline.jinja_helpers and socialsite.form_markup, and nothing imports it but
settings.TEMPLATES (views take what they need from those modules).

Django's Jinja2 backend puts ``request``, ``csrf_input`` and ``csrf_token`` in every
context rendered with a request, plus what the context processors of settings.TEMPLATES
give (``messages``, and ``csrf_input`` once more with ``viewer``, ``urls``, ``url`` and
``status_links``: page_context below).

Links: ``{{ urls.home }}`` for a view whose URL takes no arguments, ``{{ url("profile",
login) }}`` for one that does (NamedUrls says why two ways). The functools.lru_cache
on _reverse, _named_urls and _static are not memories (socialsite.memory): they keep
what pure functions give for their arguments, which is never stale.
"""

import functools
import math
import os
import time

from django.conf import settings
from django.middleware.csrf import CSRF_ALLOWED_CHARS, CSRF_SECRET_LENGTH, get_token
from django.template.defaultfilters import truncatechars
from django.templatetags.static import static as django_static
from django.urls import get_script_prefix, get_urlconf, reverse
from django.utils.functional import LazyObject
from django.utils.html import format_html
from jinja2 import Environment

from socialsite import form_markup
from socialsite.memory import Memory
from timeline import jinja_helpers


class _PageCsrfInput:
    """``{{ csrf_input }}`` for one page: worked out where first shown, then the same.

    Django's ``csrf_input`` masks the CSRF secret anew each time it is shown, and a page
    with 30 of the viewer's statuses shows it 31 times. A new mask for each response is
    what defeats BREACH; the same masked token in several forms of one response gives
    nothing more away. Nothing is worked out (and no CSRF cookie set) for a page that
    shows no form.
    """

    __slots__ = ("_request", "_html")

    def __init__(self, request):
        self._request = request
        self._html = None

    def __html__(self):
        if self._html is None:
            self._html = format_html(
                '<input type="hidden" name="csrfmiddlewaretoken" value="{}">',
                masked_csrf_token(self._request),
            )
        return self._html

    __str__ = __html__


# How often this process sends a CSRF cookie again to renew its age (settings.
# CSRF_COOKIE_AGE, a year by default): once a day, or ten times in the cookie's age if
# that is shorter; when it did is remembered by hash of the cookie's secret, for a day at
# most. Django sends the cookie again with every page that shows a form, for that
# renewal alone, and making the Set-Cookie header is a noticeable part of a home page's
# CPU. A day's slack on a year's age changes nothing: the cookie is also set anew
# whenever it is missing or malformed and at each log-in, and a process that restarts or
# forgets (the memory is bounded) only renews it sooner.
CSRF_COOKIE_RENEW_SECONDS = 24 * 60 * 60
CSRF_COOKIES_REMEMBERED = 100_000  # ~150 bytes each: ~15 MB per process at most
_csrf_cookie_renewed = Memory(
    "csrf cookie renewals", CSRF_COOKIES_REMEMBERED, ttl=CSRF_COOKIE_RENEW_SECONDS
)

# Random bytes below this map evenly onto the allowed characters (4 x 62 = 248).
_UNBIASED_BYTES = 256 - 256 % len(CSRF_ALLOWED_CHARS)
# bytes.translate tables: a random byte to the allowed character it draws (those at or
# above _UNBIASED_BYTES are deleted first, so every character is as likely).
_RANDOM_BYTE_TO_CHAR = bytes(
    ord(CSRF_ALLOWED_CHARS[byte % len(CSRF_ALLOWED_CHARS)]) for byte in range(256)
)
_BIASED_BYTES = bytes(range(_UNBIASED_BYTES, 256))
# A secret character and a mask character to their sum's character (Django's
# _mask_cipher_secret adds the two characters' positions modulo 62).
_CIPHER_OF_PAIR = {
    secret_char + mask_char: CSRF_ALLOWED_CHARS[
        (secret_index + mask_index) % len(CSRF_ALLOWED_CHARS)
    ]
    for secret_index, secret_char in enumerate(CSRF_ALLOWED_CHARS)
    for mask_index, mask_char in enumerate(CSRF_ALLOWED_CHARS)
}


def masked_csrf_token(request):
    """What django.middleware.csrf.get_token(request) gives: the CSRF secret under a
    new random mask, as Django masks it (its middleware unmasks it on POST).

    Django draws each of the mask's 32 characters with its own call to the system's
    random source (secrets.choice) and adds them in a Python loop. Here one os.urandom
    call gives them all, by rejection sampling (so each is as evenly drawn), and table
    look-ups made once do the rest. A request without a secret yet goes to Django,
    which makes one. The cookie is sent again to renew its age once
    a day (CSRF_COOKIE_RENEW_SECONDS), where get_token has it sent with every page.
    """
    secret = request.META.get("CSRF_COOKIE")
    if secret is None:
        return get_token(request)
    _renew_csrf_cookie_daily(request, secret)
    mask = ""
    while len(mask) < CSRF_SECRET_LENGTH:
        random_bytes = os.urandom(CSRF_SECRET_LENGTH + 8)
        mask += random_bytes.translate(_RANDOM_BYTE_TO_CHAR, _BIASED_BYTES).decode("ascii")
    mask = mask[:CSRF_SECRET_LENGTH]
    cipher = "".join(map(_CIPHER_OF_PAIR.__getitem__, map(str.__add__, secret, mask)))
    return mask + cipher


def _renew_csrf_cookie_daily(request, secret):
    now = time.monotonic()
    key = hash(secret)  # the secret itself is not kept
    every = min(CSRF_COOKIE_RENEW_SECONDS, (settings.CSRF_COOKIE_AGE or math.inf) / 10)
    if now - _csrf_cookie_renewed.get(key, -math.inf) < every:
        return
    _csrf_cookie_renewed.put(key, now)
    # The middleware then sends the cookie again, as after get_token.
    request.META["CSRF_COOKIE_NEEDS_UPDATE"] = True


def page_context(request):
    """Context processor (settings.TEMPLATES): the page's ``viewer`` and ``csrf_input``
    (replacing the backend's), and its own ``urls``, ``url()`` and ``status_links()``,
    which take the script prefix and URLconf looked up here, once (they are
    context-local values, slow to look up), rather than each time. These shadow the
    globals of the same names, which a template rendered without a request (or a macro
    imported without context) uses.
    """
    prefix, urlconf = get_script_prefix(), get_urlconf()
    return {
        "viewer": viewer(request),
        "csrf_input": _PageCsrfInput(request),
        "urls": _named_urls(prefix, urlconf),
        "url": functools.partial(_url, prefix, urlconf),
        "status_links": functools.partial(jinja_helpers.StatusLinks, prefix, urlconf),
    }


def viewer(request):
    """Who is looking at the page: ``request.user`` itself, not the lazy object the
    authentication middleware leaves there, or None on a request that failed before it
    had a user (a 400 for a bad Host header, say).

    Every page shows who is logged in, so the user is loaded now as it would be a few
    lines further down anyway. An attribute read through the lazy object costs several
    times one read on the user itself, and the templates read the viewer's several
    times a page.
    """
    user = getattr(request, "user", None)
    if isinstance(user, LazyObject):
        user.is_authenticated  # noqa: B018 -- loads the user if it is not loaded yet
        user = user._wrapped
    return user


class NamedUrls:
    """``{{ urls.home }}``: what ``{{ url("home") }}`` gives, for a view whose URL takes
    no arguments, as an attribute: reversed the first time, then kept on the object.

    A call from a template costs far more than the reverse() it makes once remembered:
    Jinja2 first asks each callable whether it wants the context. An unknown name raises
    NoReverseMatch, as url() does.
    """

    def __init__(self, prefix, urlconf):
        self._prefix, self._urlconf = prefix, urlconf

    def __getattr__(self, name):
        # Called only for names not yet in the instance's __dict__.
        if name.startswith("_"):
            raise AttributeError(name)
        url = self.__dict__[name] = _reverse(name, (), self._prefix, self._urlconf)
        return url


@functools.lru_cache(maxsize=64)
def _named_urls(prefix, urlconf):
    return NamedUrls(prefix, urlconf)


class _PresentNamedUrls:
    """The global ``urls``, for a template rendered without a request (Django's own 400
    and CSRF failure pages render base.html so): the NamedUrls of the present script
    prefix and URLconf, looked up at each use."""

    def __getattr__(self, name):
        if name.startswith("_"):
            raise AttributeError(name)
        return getattr(_named_urls(get_script_prefix(), get_urlconf()), name)


def url(name, *args):
    """``{{ url("profile", login) }}``: what Django's ``{% url 'profile' login %}`` gives.

    Remembered per URLconf and script prefix (reverse() is slow, and a home page calls
    this several times): a URL depends on nothing else. Bounded, since the arguments
    may be anyone's login.
    """
    return _url(get_script_prefix(), get_urlconf(), name, *args)


def _url(prefix, urlconf, name, *args):
    return _reverse(name, args, prefix, urlconf)


@functools.lru_cache(maxsize=4096)
def _reverse(name, args, prefix, urlconf):
    # prefix is not used here but by reverse(): it is part of the cache's key.
    return reverse(name, urlconf=urlconf, args=args)


def static(path):
    """``{{ static("css/site.css") }}``: Django's static(), remembered per path, static
    files storage and STATIC_URL (slow, and on every page)."""
    storage = settings.STORAGES.get("staticfiles", {}).get("BACKEND")
    return _static(path, storage, settings.STATIC_URL)


@functools.lru_cache(maxsize=256)
def _static(path, storage, static_url):
    # storage and static_url are not used here but by static(): the cache's key.
    return django_static(path)


class _Environment(Environment):
    def make_globals(self, d):
        # A template's globals as a plain dict of the environment's and its own, where
        # Jinja2 makes a ChainMap of the two. Every render copies them, and every
        # ``{% from ... import ... %}`` compares them with the importing template's,
        # which through a ChainMap's Python-level lookups is slow. What the ChainMap
        # would add, seeing the environment's globals change after a template is
        # loaded, is not needed: environment() below sets them all before any template
        # is loaded (as Jinja2's documentation asks anyway).
        return {**self.globals, **(d or {})}


def environment(**options):
    # Autoescaping on whatever the options say (Django's backend sets it on, too).
    options.pop("autoescape", None)
    # As Django's engine does: the markup ends as the template file does.
    options.setdefault("keep_trailing_newline", True)
    env = _Environment(autoescape=True, **options)
    env.globals.update(
        url=url,
        urls=_PresentNamedUrls(),
        static=static,
        form_widget=form_markup.form_widget,
        remembered_form_fields=form_markup.remembered_form_fields,
        status_links=jinja_helpers.StatusLinks,
        status_list_markup=jinja_helpers.status_list_markup,
        stream_url=jinja_helpers.stream_url,
        stream_port=jinja_helpers.stream_port,
    )
    env.filters.update(
        profile_url=jinja_helpers.profile_url,
        status_url=jinja_helpers.status_url,
        delete_url=jinja_helpers.delete_url,
        isotime=jinja_helpers.isotime,
        reltime=jinja_helpers.reltime,
        linebreaksbr=jinja_helpers.linebreaksbr,
        message_html=jinja_helpers.message_html,
        # Django's (Jinja2's truncate counts otherwise); the result is escaped as usual.
        truncatechars=truncatechars,
    )
    return env

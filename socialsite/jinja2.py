"""The Jinja2 environment of the site's templates (settings.TEMPLATES).

Jinja2 rather than Django's template language for speed alone: rendering a logged-in home
page (30 statuses) cost 6 to 8 ms of CPU with Django's, about 1.7 ms with these (figures
in docs/bench_web.md). Autoescaping is on, as in Django:
every value is escaped unless it is already HTML-safe (format_html, escape and Django's
own filters return SafeStrings, which Jinja2 respects through ``__html__``).

Django's Jinja2 backend puts ``request``, ``csrf_input`` and ``csrf_token`` in every
context rendered with a request, plus what the context processors of settings.TEMPLATES
give (``messages``, and ``csrf_input`` once more with ``viewer``, ``urls``, ``url`` and
``status_links``: page_context below).

Links: ``{{ urls.home }}`` for a view whose URL takes no arguments, ``{{ url("profile",
login) }}`` for one that does (NamedUrls says why two ways).
"""

import functools
import math
import os
import time

from django.conf import settings
from django.forms.widgets import Input, Textarea
from django.middleware.csrf import CSRF_ALLOWED_CHARS, CSRF_SECRET_LENGTH, get_token
from django.template.defaultfilters import truncatechars
from django.templatetags.static import static as django_static
from django.urls import get_script_prefix, get_urlconf, reverse
from django.utils.functional import LazyObject
from django.utils.html import format_html
from jinja2 import Environment

from socialsite.memory import make_room
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
# that is shorter; when it did is remembered by hash of the cookie's secret. Django sends
# the cookie again with every page that shows a form, for that renewal alone, and making
# the Set-Cookie header was 4% of a home page's CPU. A day's slack on a year's age
# changes nothing: the cookie is also set anew whenever it is missing or malformed and at
# each log-in, and a process that restarts or forgets (the memory is bounded) only
# renews it sooner.
CSRF_COOKIE_RENEW_SECONDS = 24 * 60 * 60
CSRF_COOKIES_REMEMBERED = 100_000
_csrf_cookie_renewed = {}

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
    random source (secrets.choice) and adds them in a Python loop: 4% of a home page's
    CPU. Here one os.urandom call gives them all, by rejection sampling (so each is as
    evenly drawn), and table look-ups made once do the rest. A request without a secret
    yet goes to Django, which makes one. The cookie is sent again to renew its age once
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
    make_room(_csrf_cookie_renewed, CSRF_COOKIES_REMEMBERED)
    _csrf_cookie_renewed[key] = now
    # The middleware then sends the cookie again, as after get_token.
    request.META["CSRF_COOKIE_NEEDS_UPDATE"] = True


def page_context(request):
    """Context processor (settings.TEMPLATES): the page's ``viewer`` and ``csrf_input``
    (replacing the backend's), and its own ``urls``, ``url()`` and ``status_links()``,
    which take the script prefix and URLconf looked up here, once (they are
    context-local values, 6 us to look up), rather than each time. These shadow the
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
    lines further down anyway. An attribute read through the lazy object costs 2.7 us,
    on the user itself 0.7 us (a template reading one ten times, timed), and the
    templates read the viewer's several times a page.
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
    Jinja2 first asks each callable whether it wants the context. Five links of the home
    page read so rather than called took 57,000 of its 2.6 M instructions out (callgrind;
    docs/bench_web.md). An unknown name raises NoReverseMatch, as url() does.
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

    Remembered per URLconf and script prefix (reverse() costs 15 to 40 us, and a home
    page calls this eight times): a URL depends on nothing else. Bounded, since the
    arguments may be anyone's login.
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
    files storage and STATIC_URL (about 45 us each, three on every page)."""
    storage = settings.STORAGES.get("staticfiles", {}).get("BACKEND")
    return _static(path, storage, settings.STATIC_URL)


@functools.lru_cache(maxsize=256)
def _static(path, storage, static_url):
    # storage and static_url are not used here but by static(): the cache's key.
    return django_static(path)


# Markup of blank forms, by what it shows: see remembered_form_fields.
_blank_forms = {}
REMEMBERED_BLANK_FORMS = 256


class BlankForm:
    """What a view passes for a blank (unbound, default) form of ``form_class`` whose
    markup is the same every time: remembered_form_fields writes it out once per
    process, and the form itself is made only then (making one deep-copies its fields:
    3% of a home page's CPU).

    The class says with its classmethod ``blank_markup_key()`` what its blank markup
    depends on besides the class (settings it reads, say); nothing else may change it.
    """

    __slots__ = ("form_class",)

    def __init__(self, form_class):
        self.form_class = form_class


def remembered_form_fields(render, form):
    """``render(form)`` (_form_fields.html's fresh_form_fields); for a BlankForm the
    markup of a new form of its class, from this process's memory if it has been
    written out before. Any other form (with its data and errors) is made afresh."""
    if not isinstance(form, BlankForm):
        return render(form)
    form_class = form.form_class
    key = (form_class, form_class.blank_markup_key())
    markup = _blank_forms.get(key)
    if markup is None:
        make_room(_blank_forms, REMEMBERED_BLANK_FORMS)
        markup = _blank_forms[key] = render(form_class())
    return markup


# Django widget templates that are input.html and nothing else: _form_fields.html writes
# those widgets' markup itself. Any other widget is rendered by Django.
_PLAIN_INPUT_TEMPLATES = frozenset(
    f"django/forms/widgets/{kind}.html"
    for kind in (
        "text password email url number search tel hidden date datetime time color"
    ).split()
)


def form_widget(field):
    """What Django's widget template gets for a form field (a BoundField): ``type``,
    ``name``, ``value`` and ``attrs``, worked out by Django's own code so that the
    attributes and their order are those of ``{{ field }}``, plus ``kind``: "input",
    "textarea", or None for a widget _form_fields.html leaves to Django.

    Rendering a field through Django's widget templates cost 0.3 to 0.5 ms; this and the
    macro a few microseconds.
    """
    widget = field.field.widget
    attrs = field.build_widget_attrs({}, widget)
    if field.auto_id and "id" not in widget.attrs:
        attrs.setdefault("id", field.auto_id)
    context = widget.get_context(field.html_name, field.value(), attrs)["widget"]
    if isinstance(widget, Textarea):
        context["kind"] = "textarea"
    elif isinstance(widget, Input) and widget.template_name in _PLAIN_INPUT_TEMPLATES:
        context["kind"] = "input"
    else:
        context["kind"] = None
    return context


class _Environment(Environment):
    def make_globals(self, d):
        # A template's globals as a plain dict of the environment's and its own, where
        # Jinja2 makes a ChainMap of the two. Every render copies them, and every
        # ``{% from ... import ... %}`` compares them with the importing template's:
        # through a ChainMap's Python-level lookups that was 4 to 5% of a home page's
        # CPU. What the ChainMap would add, seeing the environment's globals change
        # after a template is loaded, is not needed: environment() below sets them all
        # before any template is loaded (as Jinja2's documentation asks anyway).
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
        form_widget=form_widget,
        remembered_form_fields=remembered_form_fields,
        status_links=jinja_helpers.StatusLinks,
        remembered_status=jinja_helpers.remembered_status,
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
        # Django's (Jinja2's truncate counts otherwise); the result is escaped as usual.
        truncatechars=truncatechars,
    )
    return env

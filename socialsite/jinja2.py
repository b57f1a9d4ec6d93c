"""The Jinja2 environment of the site's templates (settings.TEMPLATES).

Jinja2 rather than Django's template language for speed alone: a logged-in home page
renders several times faster (docs/decisions/0010). Autoescaping is on, as in
Django: every value is escaped unless it is already HTML-safe (format_html, escape and
Django's own filters return SafeStrings, which Jinja2 respects through ``__html__``).

This module is the top of the templates' imports: it installs the helpers of
timeline.jinja_helpers, socialsite.status_markup and socialsite.form_markup, and nothing
imports it but
settings.TEMPLATES (views take what they need from those modules).

Django's Jinja2 backend puts ``request``, ``csrf_input`` and ``csrf_token`` in every
context rendered with a request, plus what the context processors of settings.TEMPLATES
give (``messages``, and ``viewer``, ``urls``, ``url`` and ``status_links``: page_context
below).

Links: ``{{ urls.home }}`` for a view whose URL takes no arguments, ``{{ url("profile",
login) }}`` for one that does (NamedUrls says why two ways). The functools.lru_cache
on _reverse, _named_urls and _static are not memories (socialsite.memory): they keep
what pure functions give for their arguments, which is never stale.
"""

import functools

from django.conf import settings
from django.middleware.csrf import get_token
from django.template.defaultfilters import pluralize, truncatechars
from django.templatetags.static import static as django_static
from django.urls import get_script_prefix, get_urlconf, reverse
from django.utils.functional import LazyObject
from django.utils.html import format_html
from jinja2 import Environment

from media import attachments, avatars
from socialsite import form_markup, icons, status_markup
from socialsite.request_log import current_request_id
from timeline import jinja_helpers


class PageCsrfInput:
    """``{{ csrf_input }}``: Django's CSRF input, made where a page first shows it and
    the same in the page's other forms.

    Django's own ``csrf_input`` asks get_token anew at each use, and a logged-in page
    shows it in several forms (posting, the status buttons' form, logging out, each
    delete form). One token per response is what masking is for (BREACH); Django's
    middleware accepts any masking of the secret. Nothing is made (and no CSRF cookie
    set) for a page that shows no form. docs/decisions/0047 has the figures.
    """

    __slots__ = ("_request", "_html")

    def __init__(self, request):
        self._request = request
        self._html = None

    def __html__(self):
        if self._html is None:
            self._html = format_html(
                '<input type="hidden" name="csrfmiddlewaretoken" value="{}">',
                get_token(self._request),
            )
        return self._html

    __str__ = __html__


def page_context(request):
    """Context processor (settings.TEMPLATES): the page's ``viewer``, and its own
    ``urls``, ``url()`` and ``status_links()``,
    which take the script prefix and URLconf looked up here, once (they are
    context-local values, slow to look up), rather than each time. These shadow the
    globals of the same names, which a template rendered without a request (or a macro
    imported without context) uses.
    """
    prefix, urlconf = get_script_prefix(), get_urlconf()
    return {
        "viewer": viewer(request),
        "csrf_input": PageCsrfInput(request),
        "urls": _named_urls(prefix, urlconf),
        "url": functools.partial(_url, prefix, urlconf),
        "status_links": functools.partial(status_markup.StatusLinks, prefix, urlconf),
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
        # {{ icon("heart") }}: an icon from the sprite (socialsite/icons.py).
        icon=icons.icon,
        form_widget=form_markup.form_widget,
        remembered_form_fields=form_markup.remembered_form_fields,
        status_links=status_markup.StatusLinks,
        first_actions_form=jinja_helpers.first_actions_form,
        status_list_markup=jinja_helpers.status_list_markup,
        conversation_rows_markup=jinja_helpers.conversation_rows_markup,
        more_menu_start=jinja_helpers.more_menu_start,
        site_header_markup=jinja_helpers.site_header_markup,
        more_menu_end=jinja_helpers.MORE_MENU_END,
        stream_url=jinja_helpers.stream_url,
        stream_port=jinja_helpers.stream_port,
        # A conversation's messages grouped for the chat (templates/timeline/conversation.html).
        chat_rows=jinja_helpers.chat_rows,
        # Avatars and headers as markup (media/avatars.py): globals, not a context
        # processor, so that status_article, imported without context and called by
        # the stream server too, has them.
        avatar_img=avatars.avatar,
        header_img=avatars.header,
        # The id of the request being served, for error pages (socialsite/request_log.py).
        request_id=current_request_id,
    )
    env.filters.update(
        profile_url=status_markup.profile_url,
        group_url=status_markup.group_url,  # groups
        status_url=status_markup.status_url,
        delete_url=status_markup.delete_url,
        isotime=jinja_helpers.isotime,
        abstime=jinja_helpers.abstime,
        reltime=jinja_helpers.reltime,
        # Django's: "1 follower", "2 followers" as ``follower{{ n|pluralize }}``.
        pluralize=pluralize,
        linebreaksbr=status_markup.linebreaksbr,
        message_html=status_markup.message_html,
        # A status's images and content warning (media/attachments.py).
        status_media=attachments.media_of,
        status_warning=attachments.warning_of,
        status_summary=attachments.summary,
        # Polls: a status's poll as the status component shows it.
        status_poll=jinja_helpers.status_poll,
        # Django's (Jinja2's truncate counts otherwise); the result is escaped as usual.
        truncatechars=truncatechars,
    )
    return env

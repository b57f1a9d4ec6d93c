"""Avatars and headers as markup: the uploaded picture when there is one, else an avatar
made from the account's name, so that every page looks right with no uploads.

The made avatar is the name's initials on one of HUES background colours, picked from
the login: a class for the stylesheet (static/css/site.css), no inline style (the
Content-Security-Policy allows none) and no image to fetch. Everything a person wrote
(their name, the storage name) is escaped here by format_html.
"""

import zlib

from django.utils.html import format_html

from . import files

# How many background colours made avatars use (classes avatar-hue-0 to -11).
HUES = 12


def initials(name, login):
    """Up to two letters for a made avatar: the first letter or digit of the name's first
    two words, upper case; the login's first character if the name has none."""
    letters = []
    for word in str(name or "").split():
        letter = next((char for char in word if char.isalnum()), None)
        if letter:
            letters.append(letter.upper())
        if len(letters) == 2:
            break
    return "".join(letters) or str(login or "?")[:1].upper()


def hue(login):
    """The made avatar's colour class number for ``login`` (the same on every page)."""
    return zlib.crc32(str(login).lower().encode()) % HUES


def _field(person, name):
    if isinstance(person, dict):
        return person.get(name)
    return getattr(person, name, None)


def avatar(person, size="small"):
    """``{{ avatar_img(person) }}``: the avatar of ``person`` (a user dict, an author, a
    suggestion) as markup: ``size`` "small" (48 px, from the 96 x 96 file) beside a name
    in a list, "large" (120 px, from the 400 x 400 file) on a profile. Decorative
    (alt=""): the name is always written beside it."""
    field = "avatar" if size == "large" else "avatar_small"
    name = _field(person, field)
    shown = 120 if size == "large" else 48
    if name:
        return format_html(
            '<img class="avatar avatar-{}" src="{}" alt="" width="{}" height="{}" loading="lazy">',
            size,
            files.url(name),
            shown,
            shown,
        )
    login = _field(person, "login")
    return format_html(
        '<span class="avatar avatar-{} avatar-made avatar-hue-{}" aria-hidden="true">{}</span>',
        size,
        hue(login),
        initials(_field(person, "name"), login),
    )


def header(person):
    """``{{ header_img(profile) }}``: the profile's header picture, or "" without one."""
    name = _field(person, "header")
    if not name:
        return ""
    width, _, height = str(_field(person, "header_size") or "1500x500").partition("x")
    return format_html(
        '<img class="profile-header" src="{}" alt="" width="{}" height="{}">',
        files.url(name),
        int(width) if width.isdigit() else 1500,
        int(height) if height.isdigit() else 500,
    )

"""The templates' picture helpers (settings.TEMPLATES' context processors): avatars and
headers as markup (avatars.py). Constant: a page pays a dictionary for them."""

from . import avatars

_HELPERS = {"avatar_img": avatars.avatar, "header_img": avatars.header}


def pictures(request):
    return _HELPERS

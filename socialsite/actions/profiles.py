"""What a profile shows of its account: the display name, the bio, the website, the
avatar and the header. One act, update_profile, called by the profile page
(timeline/profile_settings.py) and the client API's update_credentials
(api/accounts.py), with the same rules (socialsite/actions/rules.py) and the same
image pipeline (media/images.py, media/pictures.py).

Each picture counts toward THROTTLE_MEDIA before it is read: the doors count it, as
they take the upload in, with actions.uploads.count_pictures (one use per picture).
"""

from dataclasses import dataclass

from PIL.Image import Image

from media import images, pictures
from socialsite.connection import get_redis
from socialsite.repository import profiles, users

from . import rules
from .core import Actor, Invalid, NotFound

ACCOUNT_GONE = "There is no such account any more."


@dataclass(frozen=True)
class ProfileChange:
    """What to change; None (False) keeps what is there. ``avatar`` and ``header`` are
    a picture file's bytes (images.read_upload's), decoded by the act."""

    name: str | None = None
    bio: str | None = None
    website: str | None = None
    avatar: bytes | None = None
    header: bytes | None = None
    remove_avatar: bool = False
    remove_header: bool = False


@dataclass(frozen=True)
class ProfileSaved:
    """What update_profile wrote: the display name, and the rest of the profile (the
    bio, website and pictures, written together)."""

    name_changed: bool
    profile_changed: bool


def _picture(data: bytes | None, field: str) -> Image | None:
    if data is None:
        return None
    try:
        return images.read_image(data)
    except images.ImageRefused as refused:
        raise Invalid(str(refused), field=field) from None


def update_profile(actor: Actor, change: ProfileChange) -> ProfileSaved:
    """Give the actor's profile what ``change`` says.

    Rules: the display name, bio and website as rules.check_display_name, check_bio and
    check_website say; a picture is new or removed, not both; a picture is one
    images.read_image reads (its refusal is Invalid on its field). Every check is made
    before anything is written. Then the bio, website and pictures in one write
    (pictures.change_profile, which stores the files and deletes the former ones),
    then the display name if it changed (users.change_name: the name index too).

    NotFound when the account is gone (deleted meanwhile); files.StorageFailed, not a
    refusal, when the pictures cannot be stored: nothing is changed then.
    """
    name = None if change.name is None else rules.check_display_name(change.name)
    bio = None if change.bio is None else rules.check_bio(change.bio)
    website = None if change.website is None else rules.check_website(change.website)
    for field, new in (("avatar", change.avatar), ("header", change.header)):
        if new is not None and getattr(change, f"remove_{field}"):
            raise Invalid(rules.both_for_a_picture(field), field=f"remove_{field}")
    r = get_redis()
    user = users.get_user(r, actor.uid)
    if user is None:
        raise NotFound(ACCOUNT_GONE)
    # Decoded last of the checks: the costliest, and only for a profile still there.
    avatar = _picture(change.avatar, "avatar")
    header = _picture(change.header, "header")
    profile_changed = (
        bio is not None
        or website is not None
        or avatar is not None
        or header is not None
        or change.remove_avatar
        or change.remove_header
    )
    if profile_changed:
        try:
            pictures.change_profile(
                r,
                actor.uid,
                bio=user.get("bio", "") if bio is None else bio,
                website=user.get("website", "") if website is None else website,
                avatar=avatar,
                header=header,
                remove_avatar=change.remove_avatar,
                remove_header=change.remove_header,
            )
        except profiles.AccountGone:
            raise NotFound(ACCOUNT_GONE) from None
    name_changed = False
    if name is not None and name != user["name"]:
        users.change_name(r, actor.uid, name)
        name_changed = True
    return ProfileSaved(name_changed=name_changed, profile_changed=profile_changed)

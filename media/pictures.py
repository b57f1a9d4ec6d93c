"""Changing an account's pictures and profile: images made (images.py), their files
stored (files.py), then the user hash changed in one step (repository/profiles.py),
then the files it no longer names deleted.

The order keeps storage and Redis agreeing whatever fails: files are written before the
hash names them, and deleted only after it stops naming them. A failure before the hash
changes deletes the files just written: no half-written profile, no file left behind.
"""

from socialsite.repository import profiles

from . import files, images


def change_profile(r, uid, *, bio, website, avatar=None, header=None, remove_avatar=False,
                   remove_header=False):  # fmt: skip
    """Give account ``uid`` this bio and website, and the pictures ``avatar`` and
    ``header`` (images from images.read_image, or None to keep the present one; with
    ``remove_avatar`` or ``remove_header``, none). Raises files.StorageFailed (nothing
    kept) or profiles.AccountGone (the new files deleted)."""
    changes = {
        "bio": bio,
        "bio_entities": profiles.parse_bio(r, bio) if bio else "",
        "website": website,
    }
    written = []
    try:
        if avatar is not None:
            large, small = files.save_all("avatars", images.avatar(avatar))
            written += [large, small]
            changes["avatar"], changes["avatar_small"] = large, small
        elif remove_avatar:
            changes["avatar"] = changes["avatar_small"] = ""
        if header is not None:
            made = images.header(header)
            (name,) = files.save_all("headers", [made])
            written.append(name)
            changes["header"] = name
            changes["header_size"] = f"{made.width}x{made.height}"
        elif remove_header:
            changes["header"] = changes["header_size"] = ""
        former = profiles.update_profile(r, uid, changes)
    except BaseException:
        files.delete_all(written)
        raise
    files.delete_all(profiles.picture_names(former))


def delete_unused(r, batch=100):
    """Delete the files of pictures nothing shows any more (a deleted account's:
    profiles.forget_pictures; a deleted status's images: statuses.media_names), then
    forget them; how many. A file already gone is
    fine: a repeated run deletes nothing twice."""
    done = 0
    while True:
        names = profiles.unused_pictures(r, batch)
        if not names:
            return done
        files.delete_all(names)
        profiles.forget_unused(r, names)
        done += len(names)

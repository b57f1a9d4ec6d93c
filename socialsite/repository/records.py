"""What the repository's reads give the layers above, typed: a status as read (for
display and for the API's entities), an account as read, a notification. Pages of them
are paging.Page[...] (its items, cursors and the viewer's likes).

They are TypedDicts, not dataclasses: a record is the Redis hash as decoded (HGETALL's
fields, the ids and counts made numbers), and every template, the status memory
(socialsite/memory.py), the API's entities and the stream server read it as a mapping.
A TypedDict types exactly that, checked by mypy where the code is annotated, at no
cost per status (docs/decisions/0066-one-action-per-act-called-by-every-door.md).
Field names are the hash's own; the ones the hash keeps under a constant's name
(keys.STATUS_MEDIA_FIELD ...) are the same words, so code outside the repository names
them as written here.

``total=False``: which fields a hash has depends on what was posted (a reply has
``in_reply_to``, a repost ``repost_of``; an account without pictures has no
``avatar``); the fields every record has are listed first in each.
"""

from typing import TypedDict


class User(TypedDict, total=False):
    """An account's public hash (users.get_user): never its address or password."""

    # Always there.
    id: int
    login: str
    name: str
    followers: int
    following: int
    posts: int
    signup: float  # seconds since the epoch
    # Set when they apply.
    private: str  # "1" for a private account (privacy.py)
    bio: str
    bio_entities: str  # the bio's packed entities (entities.pack)
    website: str
    avatar: str  # the 400 x 400 avatar's file name
    avatar_small: str  # the 96 x 96 one's
    header: str  # the header picture's file name
    header_size: str  # "WIDTHxHEIGHT"
    suspended: str  # when it was suspended, while it is
    leaving: str  # when its deletion began
    moderator: str  # "1" for a moderator
    email_state: str  # "verified" or "unverified"; absent without an address
    last_posted: str  # ms
    messages_from: str  # who may start a conversation with them (direct.py)
    devices: str  # the device cookies' generation (devices.py)
    theme: str  # "light" or "dark" when the reader chose one (profiles.py)


class Status(TypedDict, total=False):
    """A status as read (statuses.get_status, the timelines' pages): its hash with its
    ids and time as numbers, its counts, and on pages its ``author`` read fresh."""

    # Always there.
    id: int
    uid: int
    login: str
    message: str
    posted: float  # seconds since the epoch
    # Set when they apply.
    entities: str  # the message's mentions, tags and links, packed (entities.pack)
    location: str  # "latitude,longitude"
    media: str  # the images, packed JSON (media/attachments.py reads it)
    sensitive: str  # "1" when the poster marked it sensitive
    spoiler: str  # the content warning
    private: str  # "1": posted while the account was private
    in_reply_to: int
    in_reply_to_uid: int
    in_reply_to_login: str
    ancestors: str  # the ids above it in its thread, comma-separated
    repost_of: int | str  # a repost: the original's id (as stored; locate's an int)
    repost_of_uid: int | str
    # Counted, read with it.
    replies: int
    likes: int
    reposts: int
    # Added by the pages' reads.
    author: User
    deleted: bool  # a thread's placeholder for a status gone
    unavailable: bool  # a thread's placeholder for one the viewer may not see

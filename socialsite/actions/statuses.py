"""Acts on statuses: posting one (with images, as a reply, behind a content warning),
deleting one's own, liking and reposting and undoing either. Each applies the act's
throttle and the verified-email rule, the settings that bound its work
(INLINE_FANOUT_LIMIT, FANOUT_PULL_FOLLOWERS, NOTIFICATIONS_KEPT) and the one visibility
rule, then calls the repository.

Who may see a status decides before anything else: a status the actor may not see is
refused as NotFound, exactly as one that is not there; one they see and may not act on
(a private account's, reposted; an author they block, liked) is NotAllowed.
"""

import enum
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from django.conf import settings

from media import attachments, files, pictures
from socialsite.connection import get_redis
from socialsite.repository import (
    bookmarks,
    entities,
    followed_tags,
    keys,
    likes,
    limits,
    pins,
    polls,
    reposts,
    statuses,
)

from . import communities
from . import polls as poll_rules
from .core import Actor, Busy, Invalid, NotAllowed, NotFound, require

# What a page says of a status the actor may not see, word for word the same as of one
# that does not exist (timeline.lookups.no_such_status says it too).
NO_SUCH_STATUS = "There is no such status."


@dataclass(frozen=True)
class NewStatus:
    """What a person writes: the text, and with it an optional content warning
    (``spoiler_text``), the sensitive mark, a location ("latitude,longitude") and the id
    of the status it replies to."""

    text: str
    spoiler_text: str = ""
    sensitive: bool = False
    location: str = ""
    in_reply_to: int | None = None


def checked_text(text: str) -> str:
    """The text of a status as it is kept (without the spaces around it; a line break
    one character: browsers send a textarea's as CR LF), or Invalid (field
    ``message``) if it is longer than a status may be: STATUS_MAX_LENGTH weighted
    (every link counting entities.URL_WEIGHT), and as written at most the larger of
    that and limits.MESSAGE_MAX_CHARACTERS."""
    text = text.strip().replace("\r\n", "\n")
    max_length = settings.STATUS_MAX_LENGTH
    length = entities.weighted_length(text)
    if length > max_length:
        links = (
            f", every link counting as {entities.URL_WEIGHT}" if entities.link_spans(text) else ""
        )
        raise Invalid(
            f"A status is at most {max_length} characters{links}; this one has {length}.",
            field="message",
        )
    written_limit = max(max_length, limits.MESSAGE_MAX_CHARACTERS)
    if len(text) > written_limit:
        raise Invalid(
            f"A status is at most {written_limit} characters as written, links in full;"
            f" this one has {len(text)}. Shorten its links.",
            field="message",
        )
    return text


def checked_spoiler(spoiler_text: str) -> str:
    """A content warning as kept, or Invalid (field ``spoiler_text``) past its length."""
    if len(spoiler_text) > attachments.SPOILER_MAX_LENGTH:
        raise Invalid(
            f"A content warning is at most {attachments.SPOILER_MAX_LENGTH} characters;"
            f" this one has {len(spoiler_text)}.",
            field="spoiler_text",
        )
    return spoiler_text


def post(
    actor: Actor,
    new: NewStatus,
    *,
    images: Sequence[attachments.Prepared] = (),
    descriptions: Sequence[str] = (),
    upload_ids: Sequence[str] = (),
    posting_key: str | None = None,
    group: str | None = None,
    poll: "poll_rules.NewPoll | None" = None,
) -> int:
    """Post ``new`` for ``actor``, delivered to their followers (the first
    INLINE_FANOUT_LIMIT now, the rest by the fan-out workers; an account of
    FANOUT_PULL_FOLLOWERS followers or more is pulled), the accounts it mentions and the
    author it replies to notified (each keeping NOTIFICATIONS_KEPT); its id.

    Its images are either ``images`` made from uploads now (with their alt texts
    ``descriptions``: the pages' form) or ``upload_ids``, images uploaded before
    (Mastodon's /api/v2/media). ``posting_key`` names one submission: the same key again
    posts nothing new and gives the first one's id (a form sent twice, an API
    Idempotency-Key), its uploads attached already.

    ``group``: the URL name of the group (communities.py) it is posted to; a reply to a
    group's status stays in that group whatever ``group`` says (communities.posting_place:
    its refusals, NotAllowed or NotFound, post nothing at all).

    ``poll``: a poll it carries (actions.polls.checked_poll's limits; not with images),
    open from now for its ``expires_in`` seconds, listed for the workers' sweep at its
    end.

    Throttle "statuses", a verified address. Refusals: Invalid (text too long, nothing
    to post, a poll out of its limits or with images, uploads not the actor's or too
    old, a reply across a block), NotFound (the status replied to is not there), Busy
    (the images' files could not be stored: nothing was posted)."""
    require(actor, throttle="statuses", verified=True)
    text = checked_text(new.text)
    spoiler = checked_spoiler(new.spoiler_text.strip())
    sent = len(images) + len(upload_ids)
    if sent > attachments.MAX_IMAGES:
        raise Invalid(
            f"A status may have at most {attachments.MAX_IMAGES} images; {sent} were sent.",
            field="media",
        )
    if not text and not images and not upload_ids:
        raise Invalid("Write something, or add an image, before posting.", field="message")
    # Polls: checked before anything is written; its end counted from now.
    poll_data: dict[str, str] = {}
    poll_end = 0
    if poll is not None:
        poll = poll_rules.checked_poll(poll)
        if sent:
            raise Invalid("A status with a poll cannot have images.", field="poll")
        poll_end = int(time.time() * 1000) + poll.expires_in * 1000
        poll_data = polls.poll_fields(poll.options, poll.multiple, poll.hide_totals, poll_end)
    # Groups: where it goes, decided before anything is written.
    place = communities.posting_place(actor, group, new.in_reply_to)
    r = get_redis()

    def write(media: str, pending: list[str]) -> int | None:
        fields: dict[str, Any] = {
            "media": media,
            "sensitive": "1" if new.sensitive else "",
            "spoiler": spoiler,
        }
        if new.location:
            fields["location"] = new.location
        fields.update(poll_data)  # polls
        if place is not None:
            fields[keys.STATUS_COMMUNITY_FIELD] = place.cid
            fields["community_slug"] = place.slug
            fields["community_name"] = place.name
        return statuses.post_status(
            r,
            actor.uid,
            text,
            inline_limit=settings.INLINE_FANOUT_LIMIT,
            pull_followers=settings.FANOUT_PULL_FOLLOWERS,
            posting_key=posting_key,
            in_reply_to=new.in_reply_to,
            notifications_kept=settings.NOTIFICATIONS_KEPT,
            pending_uploads=pending,
            members_only=place is not None and place.members_only,
            **fields,
        )

    try:
        if upload_ids:
            sid = attachments.attach_pending(r, actor.uid, list(upload_ids), write)
        else:
            sid = attachments.post_with_images(
                r, actor.uid, list(images), list(descriptions), write
            )
    except attachments.UploadsNotFound as missing:
        # The same key again: the first submission attached the uploads and posted.
        earlier = posting_key and statuses.posted_with_key(r, actor.uid, posting_key)
        if not earlier:
            raise Invalid(
                "There is no such media to attach (not yours, attached already, or uploaded too"
                f" long ago): {', '.join(missing.upload_ids)}",
                field="media",
            ) from None
        sid = int(earlier)
    except files.StorageFailed:
        raise Busy(
            "Your images could not be stored just now, so nothing was posted. Try again in"
            " a moment."
        ) from None
    except statuses.ReplyRefused as refused:
        raise Invalid(str(refused), field="in_reply_to") from None
    except statuses.ParentGone:
        raise NotFound(
            "The status it replies to was deleted, or never existed.", field="in_reply_to"
        ) from None
    if sid is None:
        raise NotFound("Your account is not there any more.")
    if place is not None:
        communities.deliver(place, int(sid), actor.uid)
    if poll_data:  # polls: its end, for the workers' sweep (again for a resent form: the same)
        polls.note_end(r, actor.uid, int(sid), poll_end)
    # Followed hashtags: to the homes of its tags' followers, if public.
    followed_tags.deliver_status(r, int(sid))
    return int(sid)


def delete(actor: Actor, status_id: int) -> None:
    """Delete the actor's own status ``status_id``: off every timeline (the first
    INLINE_FANOUT_LIMIT followers' homes now, the rest by the workers), its
    notifications taken back, its images' files deleted. Throttle "deletions".
    NotFound for a status that is not there or not the actor's (as Mastodon: one
    deletes among one's own). A moderator's deletion of another's status is
    actions.moderation's."""
    require(actor, throttle="deletions")
    r = get_redis()
    result = statuses.delete_status(r, actor.uid, status_id)
    if result is not statuses.DeleteResult.DELETED:
        raise NotFound(NO_SUCH_STATUS)
    # Its images' files, which the deletion listed (decision 0051).
    pictures.delete_unused(r)


def _refuse_like(result: likes.LikeResult) -> None:
    if result is likes.LikeResult.NOT_FOUND:
        raise NotFound(NO_SUCH_STATUS)
    if result is likes.LikeResult.BLOCKED:
        raise NotAllowed("You cannot like or unlike this status: you block its author.")


def like(actor: Actor, status_id: int) -> likes.LikeResult:
    """The actor likes status ``status_id`` (LIKED, or ALREADY_LIKED: nothing changes);
    its author notified, keeping NOTIFICATIONS_KEPT. Throttle "likes", a verified
    address. NotFound for a status the actor may not see, NotAllowed for one whose
    author they block."""
    require(actor, throttle="likes", verified=True)
    result = likes.like(
        get_redis(), actor.uid, status_id, notifications_kept=settings.NOTIFICATIONS_KEPT
    )
    _refuse_like(result)
    return result


def unlike(actor: Actor, status_id: int) -> likes.LikeResult:
    """The actor takes back their like (UNLIKED, or NOT_LIKED: nothing changes), and its
    notification. Throttle "likes"; refusals as like's."""
    require(actor, throttle="likes")
    result = likes.unlike(get_redis(), actor.uid, status_id)
    _refuse_like(result)
    return result


class RepostOutcome(enum.Enum):
    REPOSTED = "reposted"
    ALREADY_REPOSTED = "already reposted"
    UNREPOSTED = "unreposted"
    NOT_REPOSTED = "not reposted"


@dataclass(frozen=True)
class Reposted:
    """What a repost or its undoing did, and the original status's id when the
    repository told it (a repost of a repost reposts its original; an undo does not
    say)."""

    outcome: RepostOutcome
    original_id: int | None = None


def _repost_refusal(result: reposts.RepostResult) -> None:
    if result is reposts.RepostResult.NOT_FOUND:
        raise NotFound(NO_SUCH_STATUS)
    if result is reposts.RepostResult.NOT_PUBLIC:
        raise NotAllowed(
            "This status is not public (its author's account is private): it cannot be reposted."
        )
    if result is reposts.RepostResult.BLOCKED:
        raise NotAllowed("You cannot repost this status: you block its author.")


def repost(actor: Actor, status_id: int) -> Reposted:
    """The actor reposts status ``status_id`` (or the original a repost shows): into
    their followers' homes (the first INLINE_FANOUT_LIMIT now, the rest by the workers),
    its author notified (keeping NOTIFICATIONS_KEPT). Reposting twice changes nothing.
    Throttle "reposts", a verified address. NotFound for a status the actor may not
    see; NotAllowed for one not public or whose author they block."""
    require(actor, throttle="reposts", verified=True)
    result, original = reposts.repost(
        get_redis(),
        actor.uid,
        status_id,
        inline_limit=settings.INLINE_FANOUT_LIMIT,
        notifications_kept=settings.NOTIFICATIONS_KEPT,
    )
    _repost_refusal(result)
    return Reposted(RepostOutcome(result.value), int(original) if original else None)


def unrepost(actor: Actor, status_id: int) -> Reposted:
    """The actor undoes their repost of status ``status_id`` (or of the original a repost
    shows): out of their followers' homes (INLINE_FANOUT_LIMIT now, the rest by the
    workers), the notification taken back. Throttle "reposts"; refusals as repost's."""
    require(actor, throttle="reposts")
    result = reposts.unrepost(
        get_redis(), actor.uid, status_id, inline_limit=settings.INLINE_FANOUT_LIMIT
    )
    _repost_refusal(result)
    return Reposted(RepostOutcome(result.value))


# --- bookmarks ---------------------------------------------------------------------


def bookmark(actor: Actor, status_id: int) -> bookmarks.BookmarkResult:
    """The actor bookmarks status ``status_id`` (a repost's original) for themselves
    alone: BOOKMARKED, or ALREADY_BOOKMARKED (nothing changes). Throttle "likes" (the
    same budget as likes: both are a tap on a status); no verified address needed (it
    reaches nobody). NotFound for a status the actor may not see."""
    require(actor, throttle="likes")
    result = bookmarks.bookmark(get_redis(), actor.uid, status_id)
    if result is bookmarks.BookmarkResult.NOT_FOUND:
        raise NotFound(NO_SUCH_STATUS)
    return result


def unbookmark(actor: Actor, status_id: int) -> bookmarks.BookmarkResult:
    """The actor lets go of their bookmark of ``status_id``: UNBOOKMARKED, or
    NOT_BOOKMARKED (nothing changes). A bookmarked status the actor may no longer see
    (or deleted) can still be let go of. Throttle "likes". NotFound for a status that
    is neither bookmarked nor one they may see."""
    require(actor, throttle="likes")
    result = bookmarks.unbookmark(get_redis(), actor.uid, status_id)
    if result is bookmarks.BookmarkResult.NOT_FOUND:
        raise NotFound(NO_SUCH_STATUS)
    return result


# --- pinned statuses ---------------------------------------------------------------


def pin(actor: Actor, status_id: int) -> pins.PinResult:
    """The actor pins their own public status ``status_id`` to their profile: PINNED,
    or ALREADY_PINNED (nothing changes). Throttle "likes". NotFound for a status the
    actor may not see; Invalid for another's status or a repost, one posted to
    followers or a group's members only, and past pins.MAX_PINNED."""
    require(actor, throttle="likes")
    result = pins.pin(get_redis(), actor.uid, status_id)
    if result is pins.PinResult.NOT_FOUND:
        raise NotFound(NO_SUCH_STATUS)
    if result is pins.PinResult.NOT_OWN:
        raise Invalid("You can pin only your own statuses (not a repost).", field="status")
    if result is pins.PinResult.NOT_PUBLIC:
        raise Invalid(
            "Only public statuses can be pinned: not those for followers or a group's members.",
            field="status",
        )
    if result is pins.PinResult.FULL:
        raise Invalid(
            f"You have pinned {pins.MAX_PINNED} statuses already, the most there can be: "
            "unpin one first.",
            field="status",
        )
    return result


def unpin(actor: Actor, status_id: int) -> pins.PinResult:
    """The actor unpins ``status_id``: UNPINNED, or NOT_PINNED (nothing changes).
    Throttle "likes"."""
    require(actor, throttle="likes")
    return pins.unpin(get_redis(), actor.uid, status_id)


# --- editing a status (decision 0074) ----------------------------------------------


@dataclass(frozen=True)
class StatusEdit:
    """What an edit changes: the text, content warning and sensitive mark (each as it
    is to be), and the images: ``media_ids`` the ids of those it is to show, in order
    (its own, and uploads of the editor's not attached yet; None: those it has), with
    ``descriptions`` their new alt texts by id."""

    text: str
    spoiler_text: str = ""
    sensitive: bool = False
    media_ids: tuple[str, ...] | None = None
    descriptions: tuple[tuple[str, str], ...] = ()


@dataclass(frozen=True)
class Edited:
    """An edit made: the status as it is now."""

    status_id: int
    status: dict[str, Any]


def edit(actor: Actor, status_id: int, change: StatusEdit) -> Edited:
    """The actor edits their own status ``status_id``: its text (mentions and hashtags
    parsed again: the newly mentioned notified, its tags' timelines and the search index
    following), content warning, sensitive mark and images; its earlier version kept in
    its history; those who reposted it notified (``update``); the streams told. A poll's
    options are not editable (its text is), and a status with a poll takes no images.

    Throttle "statuses" (as posting), a verified address. NotFound for a status that is
    not there, not the actor's or a repost; Invalid for a text too long or empty (with
    no images), too many images, uploads not theirs, an alt text too long, and past
    statuses.MAX_EDITS edits; Busy if it was edited at the same moment elsewhere."""
    require(actor, throttle="statuses", verified=True)
    text = checked_text(change.text)
    spoiler = checked_spoiler(change.spoiler_text.strip())
    r = get_redis()
    old = statuses.own_status(r, actor.uid, status_id)
    if old is None:
        raise NotFound(NO_SUCH_STATUS)
    descriptions = dict(change.descriptions)
    for alt in descriptions.values():
        if len(alt) > attachments.ALT_MAX_LENGTH:
            raise Invalid(
                f"An image's description is at most {attachments.ALT_MAX_LENGTH} characters.",
                field="media",
            )
    if change.media_ids is not None and len(change.media_ids) > attachments.MAX_IMAGES:
        raise Invalid(
            f"A status may have at most {attachments.MAX_IMAGES} images;"
            f" {len(change.media_ids)} were sent.",
            field="media",
        )
    packed = str(old.get(keys.STATUS_MEDIA_FIELD) or "")
    try:
        media, added = attachments.edited_media(
            r, actor.uid, packed, change.media_ids, descriptions
        )
    except attachments.UploadsNotFound as missing:
        raise Invalid(
            "There is no such media to attach (not yours, attached already, or uploaded too"
            f" long ago): {', '.join(missing.upload_ids)}",
            field="media",
        ) from None
    if media and old.get("poll"):
        raise Invalid("A status with a poll cannot have images.", field="media")
    if not text and not media:
        raise Invalid("Write something, or keep an image, before saving.", field="message")
    result, status = statuses.edit_status(
        r,
        actor.uid,
        status_id,
        text,
        spoiler=spoiler,
        sensitive=change.sensitive,
        media=media if media != packed else None,
        pending_uploads=added,
        notifications_kept=settings.NOTIFICATIONS_KEPT,
    )
    if (
        result is statuses.EditResult.NOT_FOUND
        or status is None
        and result is statuses.EditResult.EDITED
    ):
        raise NotFound(NO_SUCH_STATUS)
    if result is statuses.EditResult.CHANGED:
        raise Busy("The status was edited elsewhere at the same moment: read it again and retry.")
    if result is statuses.EditResult.TOO_MANY:
        raise Invalid(
            f"A status can be edited at most {statuses.MAX_EDITS} times; this one has been.",
            field="message",
        )
    if status is None:
        raise NotFound(NO_SUCH_STATUS)
    return Edited(int(status_id), dict(status))

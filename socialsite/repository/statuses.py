"""Statuses: posting (with fan-out), reading and deleting them (sections 8.1.2 and 8.4),
and what a status does in a conversation: a reply is counted on the status it replies
to, and a reply or a mention notifies whom it concerns.

A reply's hash also holds ``in_reply_to`` (the status id), ``in_reply_to_uid`` and
``in_reply_to_login`` (its author) and ``ancestors``: the ids of up to
limits.THREAD_ANCESTORS statuses above it, oldest first, so that a thread page reads
them all in one pipeline (status keys are in different slots: no script could follow
the chain). ``notified``: the users notified of a mention, to take back on deletion.
A status's reply count is the size of keys.replies, in the status's own slot; its like
and repost counts are in keys.status_counts, in the same slot, changed with their lists
(likes.py; reposts). All three are read with every page (``_read_or_confirm``) and
given with each status as ``replies``, ``likes``, ``reposts``.
"""

import enum
import json
import time
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from ..memory import Memory
from . import (
    affinity,
    client,
    entities,
    events,
    fanout,
    jobs,
    keys,
    locks,
    notifications,
    scripts,
    status_index,
    tags,
    trends,
    uploads,
    users,
    visibility,
)
from .client import Client
from .limits import (
    COUNTS_TRUST_SECONDS,
    DELETED_NOTE_MS,
    FANOUT_PULL_FOLLOWERS,
    INLINE_FANOUT_LIMIT,
    MENTIONS_NOTIFIED,
    NOTIFICATIONS_KEPT,
    POSTING_KEY_SECONDS,
    STATUS_TRUST_SECONDS,
    THREAD_ANCESTORS,
    UNFINISHED_POST_GRACE_MS,
)
from .records import Status


class DeleteResult(enum.Enum):
    DELETED = "deleted"
    NOT_FOUND = "not found"
    NOT_OWNER = "not owner"


class ParentGone(Exception):
    """The status replied to does not exist: it never did, or it was deleted; or the
    poster may not see it (a private account they do not follow, an author who blocks
    them, a suspended author), which to them is the same."""


class ReplyRefused(Exception):
    """The poster blocks the author of the status replied to."""


def _decode_status(data):
    if not data:
        return None
    status = dict(data)
    status["id"] = int(status["id"])
    status["uid"] = int(status["uid"])
    status["posted"] = float(status["posted"])
    if "in_reply_to" in status:
        status["in_reply_to"] = int(status["in_reply_to"])
        status["in_reply_to_uid"] = int(status["in_reply_to_uid"])
    return status


# --- a status in a conversation ------------------------------------------------------------


def _reply_fields(parent_sid, parent_uid, parent_login, parent_ancestors):
    """The fields of a reply to status ``parent_sid`` (its author's id and login, its own
    ancestors as stored)."""
    above = parent_ancestors.split(",") if parent_ancestors else []
    return {
        "in_reply_to": int(parent_sid),
        "in_reply_to_uid": int(parent_uid),
        "in_reply_to_login": parent_login,
        "ancestors": ",".join([*above, str(int(parent_sid))][-THREAD_ANCESTORS:]),
    }


def _mentions_to_notify(author, replied_to, mentioned_uids):
    """The first MENTIONS_NOTIFIED distinct users of ``mentioned_uids`` other than the
    author and the user replied to (who is notified of the reply instead)."""
    chosen = []
    for uid in mentioned_uids:
        uid = int(uid)
        if uid not in (author, replied_to) and uid not in chosen:
            chosen.append(uid)
            if len(chosen) == MENTIONS_NOTIFIED:
                break
    return chosen


def ancestor_ids(status):
    """The ids of the statuses above ``status`` in its thread, oldest first."""
    ancestors = status.get("ancestors")
    return [int(sid) for sid in ancestors.split(",")] if ancestors else []


def _notifications_of(status):
    """(user, event) for each notification ``status`` makes: a reply notifies the author
    of the status replied to (unless they replied to themselves), a mention each user in
    ``notified``."""
    author, sid = int(status["uid"]), int(status["id"])
    made = []
    parent = status.get("in_reply_to")
    if parent:
        replied_to = int(status["in_reply_to_uid"])
        if replied_to != author:
            made.append((replied_to, notifications.member("reply", author, sid, parent)))
    for uid in str(status.get("notified") or "").split(","):
        if uid:
            made.append((int(uid), notifications.member("mention", author, sid, sid)))
    return made


def _in_conversation(status):
    """Whether posting ``status`` writes more than the status: a reply, or mentions."""
    return bool(status.get("in_reply_to") or status.get("notified"))


def _queue_conversation(pipe, status, keep=NOTIFICATIONS_KEPT):
    """Queue what ``status`` does in a conversation: count it on the status it replies
    to (add_reply.lua), notify whom it concerns (notify.lua). Every step is idempotent:
    a post retried, or finished by the sweep of unfinished posts, counts and notifies
    once. Notifications carry the posting time, the same on every retry."""
    sid = int(status["id"])
    parent = status.get("in_reply_to")
    if parent:
        scripts.add_reply.queue(pipe, parent=parent, sid=sid)
    now_ms = int(float(status["posted"]) * 1000)
    for uid, event in _notifications_of(status):
        notifications.queue_notify(pipe, uid, event, now_ms, keep)


def _queue_conversation_undone(pipe, status):
    """Queue the undoing of _queue_conversation, for a deleted status: uncount it on
    its parent (remove_reply.lua, which keeps it from being counted again), take it off
    its author's list of replies and take its notifications back."""
    sid, author = int(status["id"]), int(status["uid"])
    parent = status.get("in_reply_to")
    if parent:
        scripts.remove_reply.queue(pipe, parent=parent, sid=sid)
        pipe.zrem(keys.profile_replies(author), f"{sid}:{int(status['in_reply_to_uid'])}")
    for uid, event in _notifications_of(status):
        notifications.queue_unnotify(pipe, uid, [event])


def _replied_to(status):
    """Whom a reply's fan-out must check followers against (deliver.lua): the user
    replied to; None for a status that is not a reply, or a reply to its own author
    (everyone following the author gets it)."""
    replied_to = status.get("in_reply_to_uid")
    if replied_to is None or int(replied_to) == int(status["uid"]):
        return None
    return int(replied_to)


def post_status(
    r: Client,
    uid: int,
    message: str,
    inline_limit: int = INLINE_FANOUT_LIMIT,
    posting_key: str | None = None,
    in_reply_to: int | None = None,
    mentioned_uids: Sequence[int] | None = None,
    notifications_kept: int = NOTIFICATIONS_KEPT,
    pending_uploads: Iterable[str] = (),
    pull_followers: int = FANOUT_PULL_FOLLOWERS,
    members_only: bool = False,
    **data: Any,
) -> int | None:
    """Post a status for user ``uid`` and deliver it; return its id (None: no such user).

    Extra keyword fields (``location="lat,lon"``...) are stored with the status, as
    the book's ``**data``. ``posting_key`` names one form submission: the same key
    again (a resubmitted form) posts nothing new and returns the status it posted.
    The message's mentions, hashtags and links are parsed here, once (entities.py),
    and kept with the status in its ``entities`` field (entities.pack; status_entities
    gives them back in Twitter's format).
    ``in_reply_to``: the id of the status this replies to; ParentGone if it does not
    exist, ReplyRefused if its author blocks the poster or the poster blocks them.
    ``mentioned_uids``: users to notify of a mention, in order (None: the users the
    message mentions, from its entities); the first MENTIONS_NOTIFIED of them (not the
    author, nor the user replied to, who is notified of the reply, nor anyone in a
    block with the author) are notified, each keeping their newest
    ``notifications_kept``.
    ``pending_uploads``: the ids of the uploads (uploads.py) whose images the status's
    media field names, taken off the pending ones in step 2, after the hash.
    Steps, each safe to retry:
    1. One round trip: the author's login, privacy, name, counts and signup (for the
       status's event: the account at posting time), a new id (INCR status:id:), the
       ids of the logins the message mentions and, for a reply, the parent's author and
       ancestors, and for either the author's blocks both ways. With a posting key, one
       more: claim the key for that id, or find the id it names.
    2. One round trip: add the id to the author's profile and home, count the post and
       note it as unfinished with the newest follower's score (add_own_status.lua);
       write status:<id>; count a reply on its parent and notify (_queue_conversation);
       in their own slots, add the id to the timeline of each of its hashtags
       (tags.queue_add) and count the author among the tag's users of the day
       (trends.queue_use); note when the author last posted; read the first
       ``inline_limit`` followers. Readers skip an id whose hash is not written yet.
    3. One round trip: deliver to those followers (fanout.deliver; a reply only to
       those who follow the user replied to, or are them).
    4. If there are more: one job for the fan-out workers covering everyone who
       followed after the last inline follower, up to the newest at posting time.
    5. Clear the unfinished note and publish the status with its author for the
       streaming API (a public status's id was noted in step 2 among the recent ones it
       catches up from).
    Should the request die between 2 and 5, the workers find the note, queue the
    fan-out over every follower at posting time and finish the conversation's writes
    (finish_unfinished).
    ``members_only``: posted in a private community (``community`` among the fields,
    communities.py): kept "private" as a private account's status (no public timeline,
    tag, trend or public stream) and marked keys.STATUS_MEMBERS_ONLY_FIELD (the
    visibility path shows it to members only); its mentions notify members only (one
    round trip more when it has any).
    An author with ``pull_followers`` followers or more (0: nobody) is pulled (fanout.py):
    step 2 puts the status in keys.pulled_statuses, where every follower's page reads
    it, and steps 3 and 4 do nothing.
    """
    found = entities.find(message)
    mentioned = found.mentioned_logins(message)
    pipe = r.pipeline(transaction=False)
    pipe.hmget(
        keys.user(uid),
        ["private", keys.FANOUT_PATH_FIELD, keys.INDEXABLE_FIELD, *users.EVENT_AUTHOR_FIELDS],
    )
    pipe.incr(keys.STATUS_IDS)
    if mentioned or in_reply_to is not None:
        # Who is in a block with the author (the author's slot): no reply to them, no
        # mention notifies them. Both lists are short for nearly everyone.
        pipe.zrange(keys.blocks(uid), 0, -1)
        pipe.zrange(keys.blocked_by(uid), 0, -1)
    if mentioned:
        users.queue_user_ids(pipe, mentioned)
    if in_reply_to is not None:
        pipe.hmget(keys.status(in_reply_to), ["uid", "login", "ancestors"])
    (private, path, indexable_flag, *author_fields), sid, *rest = pipe.execute()
    login = author_fields[0]
    blocked, blocked_by_them = set(), set()
    if mentioned or in_reply_to is not None:
        blocking, blocked_by, *rest = rest
        blocked = {int(other) for other in (*blocking, *blocked_by)}
        blocked_by_them = {int(other) for other in blocked_by}
    mentioned_ids = rest[:1] if mentioned else []
    parent = rest[1:] if mentioned else rest
    if not login:
        return None
    user_ids = users.user_ids_read(mentioned, mentioned_ids[0]) if mentioned else {}
    parsed = entities.build(message, found, user_ids)
    status_tags = entities.tags(parsed)
    if posting_key is not None:
        earlier = _claim_posting_key(r, uid, posting_key, sid)
        if earlier is not None:
            stored = _decode_status(r.hgetall(keys.status(earlier)))
            if stored is not None:
                # Posted by the first submission. Its tags' and conversation's writes
                # again, in case that request died before making them all (on a
                # cluster a pipeline's commands on one node can fail while those on
                # another succeed): each counts once.
                _add_to_tags_again(r, stored)
                author = {"private": private, keys.INDEXABLE_FIELD: indexable_flag}
                if status_index.indexable(stored, author):  # the search index's too
                    scripts.run_pipeline(r, lambda pipe: status_index.queue_index(pipe, stored))
                if _in_conversation(stored):
                    scripts.run_pipeline(
                        r, lambda pipe: _queue_conversation(pipe, stored, notifications_kept)
                    )
                return earlier
            sid = earlier  # that submission died before storing it: store it now
    if parent and parent[0][0] is None:
        raise ParentGone(f"There is no status {in_reply_to} to reply to.")
    status = {
        **{name: str(value) for name, value in data.items() if value not in (None, "")},
        "message": message,
        "posted": time.time(),
        "id": sid,
        "uid": uid,
        "login": login,
    }
    packed = entities.pack(parsed)
    if packed:
        status["entities"] = packed
    if private == "1":
        # Posted while the account is private: the streaming API never sends it
        # (privacy.py).
        status["private"] = "1"
    if parent:
        status.update(_reply_fields(in_reply_to, *parent[0]))
    if mentioned_uids is None:
        mentioned_uids = [mention["id"] for mention in parsed["user_mentions"]]
    notified = _mentions_to_notify(uid, status.get("in_reply_to_uid"), mentioned_uids)
    if parent and status["in_reply_to_uid"] in blocked_by_them:
        # Their statuses are, to the poster, statuses that do not exist (visibility.py).
        raise ParentGone(f"There is no status {in_reply_to} to reply to.")
    if parent and status["in_reply_to_uid"] in blocked:
        raise ReplyRefused(f"You cannot reply to @{status['in_reply_to_login']}.")
    if parent and status["in_reply_to_uid"] != uid:
        _check_parent_seen(r, uid, status["in_reply_to_uid"], in_reply_to)
    notified = [other for other in notified if other not in blocked]
    if members_only:
        # Groups: a private community's status notifies nobody outside it.
        status["private"] = "1"
        status[keys.STATUS_MEMBERS_ONLY_FIELD] = "1"
        if notified:
            cid = status[keys.STATUS_COMMUNITY_FIELD]
            scores = r.zmscore(keys.community_members(cid), notified)
            notified = [o for o, score in zip(notified, scores, strict=True) if score is not None]
    if notified:
        status["notified"] = ",".join(map(str, notified))
    conversation = _in_conversation(status)
    member = fanout.pulled_member(sid, uid, status.get("in_reply_to_uid"))

    def fill(pipe):
        # The note first, then the hash: whatever prefix of these writes survives a
        # crash (Redis applies and logs them in order) is one the workers can finish.
        scripts.add_own_status.queue(
            pipe, uid=uid, sid=sid, now_ms=int(time.time() * 1000), conversation=conversation,
            parent=status["in_reply_to"] if parent else None,
            replied_to=status["in_reply_to_uid"] if parent else None,
            **fanout.pull_thresholds(pull_followers),
        )  # fmt: skip
        if path == "pulled":
            # Most likely pulled again: the copies ride along (for a status delivered
            # after all, they only repeat what its delivery gives).
            fanout.queue_copy(pipe, uid, sid, member)
        pipe.hset(keys.status(sid), mapping=status)
        uploads.queue_attached(pipe, uid, pending_uploads)
        if conversation:
            _queue_conversation(pipe, status, notifications_kept)
        public = not status.get("private")
        tags.queue_add(pipe, sid, status_tags, public)
        # The author among each tag's users of the day (trends.py), in the tags' slots,
        # for a public status only (a trend names its tag to everyone); and when they
        # last posted (who-to-follow's "active"), in their own slot.
        if public:
            trends.queue_use(pipe, uid, status_tags, status["posted"])
        pipe.hset(keys.user(uid), keys.LAST_POSTED_FIELD, int(status["posted"] * 1000))
        if parent:  # the Top timeline's affinity (affinity.py), riding along
            affinity.queue_bump(pipe, uid, status["in_reply_to_uid"], "reply", status["posted"])
        if not status.get("private"):
            events.queue_note_recent(pipe, sid)  # for the streaming API's catch-up
        # Full-text search (status_index.py): in the index shard's slot, this round trip.
        author = {"private": private, keys.INDEXABLE_FIELD: indexable_flag}
        if status_index.indexable(status, author):
            status_index.queue_index(pipe, status)
        if path != "pulled":
            # Last: the caller takes the followers from the last reply.
            pipe.zrangebyscore(
                keys.followers(uid), "-inf", "+inf", start=0, num=inline_limit, withscores=True
            )

    written = scripts.run_pipeline(r, fill)
    added, upto, pulled = written[0]
    if pulled == fanout.PULLED:
        followers = []
    elif path != "pulled":
        followers = written[-1]
    else:  # pulled no longer: the followers were not read along
        followers = r.zrangebyscore(
            keys.followers(uid), "-inf", "+inf", start=0, num=inline_limit, withscores=True
        )
    if pulled == fanout.TO_REGISTER:
        fanout.register_pulled(r, uid)
    elif pulled == fanout.PULLED and path != "pulled":
        fanout.copy_pulled(r, uid, sid, member)
    fanout.deliver(r, uid, sid, [int(member) for member, _ in followers], _replied_to(status))
    if upto >= 0:
        # Followers past the inline ones (all of them when inline_limit is 0) are deferred.
        last_inline = int(followers[-1][1]) if followers else None
        if last_inline is None or upto > last_inline:
            jobs.enqueue(r, fanout.plan_job("deliver", uid, sid, last_inline, upto))
    if upto >= 0 or conversation or pulled == fanout.PULLED:
        # Only once the job is queued (or the copies written): until then the note
        # stands for it.
        r.hdel(keys.unfinished_posts(uid), sid)
    events.publish_posted(r, status, users.event_author(uid, author_fields, posts_added=added))
    return sid


def media_names(status: Status) -> list[str]:
    """The storage names of the files of ``status``'s images (keys.STATUS_MEDIA_FIELD),
    originals and previews; none for a status without images, or with a field that
    does not read."""
    try:
        media = json.loads(str(status.get(keys.STATUS_MEDIA_FIELD) or "[]"))
        return [str(item[part]) for item in media for part in ("o", "p") if item.get(part)]
    except (ValueError, TypeError, AttributeError):
        return []


def media_names_posted_since(r, uid, since, page=100, most=5000):
    """The storage names of the images of the statuses ``uid`` posted since ``since``
    (seconds): what tells the uploads sweep (media/uploads.py) that a status shows an
    upload whose pending mark stayed. Newest first, a page of ``page`` statuses a round
    trip (and one for the page's ids), stopping at the first posted before ``since`` or
    after ``most``."""
    names, start = set(), 0
    while start < most:
        sids = r.zrevrange(keys.profile(uid), start, start + page - 1)
        if not sids:
            break

        def fill(pipe, sids=sids):
            for sid in sids:
                pipe.hmget(keys.status(sid), ["posted", keys.STATUS_MEDIA_FIELD])

        reached_older = False
        for posted, media in client.round_trip(r, fill):
            if posted is None:
                continue  # deleted: its files were listed as unused
            if float(posted) < since:
                reached_older = True
                continue
            names.update(media_names({keys.STATUS_MEDIA_FIELD: media}))
        if reached_older or len(sids) < page:
            break
        start += page
    return names


def stored_media(r: Client, sid: int) -> str | None:
    """The media field status ``sid`` was written with ("" for none, None for no such
    status): what tells a post from the same form sent again, whose posting key named
    an earlier status with files of its own. Not a way to show a status."""
    pipe = r.pipeline(transaction=False)  # one slot: one node
    pipe.exists(keys.status(sid))
    pipe.hget(keys.status(sid), keys.STATUS_MEDIA_FIELD)
    found, media = pipe.execute()
    return (media or "") if found else None


def _queue_media_unused(pipe, names):
    """List ``names`` in keys.UNUSED_PICTURES for the app to delete their files
    (media/pictures.delete_unused): queued before the status's hash is deleted, so a
    crash between the two lists them again on the retry, which is harmless."""
    if names:
        pipe.zadd(keys.UNUSED_PICTURES, dict.fromkeys(names, int(time.time() * 1000)))


def _check_parent_seen(r, uid, parent_uid, parent_sid):
    """ParentGone unless ``uid`` may see the statuses of ``parent_uid`` (the one rule:
    visibility.statuses_visibility, the author read fresh): a status the poster may not
    see (a private account they do not follow, a suspended author) is, to them, a
    status that does not exist, and a reply to it is refused as one to nothing would
    be. One round trip, for a reply to someone else's status only."""
    author, rel = visibility.author_and_relationship(r, uid, parent_uid)
    if not visibility.sees_statuses_of(uid, author, rel):
        raise ParentGone(f"There is no status {parent_sid} to reply to.")


def _add_to_tags_again(r, status):
    """Add ``status`` to its tags' timelines once more: the request that posted it may
    have died before it did (on a cluster a pipeline's commands on one node can fail
    while those on another succeed). Nothing is sent for a status without tags."""
    status_tags = entities.tags(status_entities(status))
    if status_tags:
        pipe = r.pipeline(transaction=False)
        public = not status.get("private")
        tags.queue_add(pipe, status["id"], status_tags, public)
        if public:
            trends.queue_use(pipe, status["uid"], status_tags, status["posted"])
        pipe.execute()


def status_entities(status):
    """The entities of ``status`` (a status dict) in Twitter's format: its mentions,
    hashtags and links as parsed when it was posted (none for a status posted before
    statuses had entities)."""
    return entities.unpack(status.get("message", ""), status.get("entities"))


def _claim_posting_key(r, uid, posting_key, sid):
    """Make form submission ``posting_key`` of ``uid`` name status ``sid``; or, if an
    earlier request claimed it, return the status id that one chose."""
    key = keys.posting_key(uid, posting_key)
    now_ms = int(time.time() * 1000)
    pipe = r.pipeline(transaction=False)  # one slot: one node, in order
    pipe.set(key, sid, nx=True, ex=POSTING_KEY_SECONDS)
    pipe.get(key)
    # Listed, so that deleting the account can find the user's posting keys.
    listed = keys.posting_keys(uid)
    pipe.zadd(listed, {posting_key: now_ms})
    pipe.zremrangebyscore(listed, "-inf", now_ms - POSTING_KEY_SECONDS * 1000)
    pipe.pexpire(listed, POSTING_KEY_SECONDS * 1000)
    claimed, named, *_ = pipe.execute()
    return None if claimed else int(named)


def posted_with_key(r: Client, uid: int, posting_key: str) -> int | None:
    """The id of the status form submission ``posting_key`` of ``uid`` posted (within
    POSTING_KEY_SECONDS), or None: a repeat whose images the first took can answer with
    it."""
    sid = r.get(keys.posting_key(uid, posting_key))
    return int(sid) if sid is not None else None


def forget_posting_keys(r, uid):
    """Delete every posting key of ``uid`` (the account is being deleted)."""
    listed = keys.posting_keys(uid)
    posting_keys = r.zrange(listed, 0, -1)
    # Every key in the user's slot: one command.
    r.delete(listed, *(keys.posting_key(uid, key) for key in posting_keys))


def finish_unfinished(r, grace_ms=UNFINISHED_POST_GRACE_MS):
    """Queue the fan-out of every post left unfinished for ``grace_ms`` (its request
    died after the status became visible); return how many were finished.

    For a stored status, one plan job over every follower at posting time (those
    already reached get the id again, which changes nothing), and its conversation's
    writes again (each counts once). A status whose hash was never written was never
    shown: it is taken off the profile (and its parent's replies) and uncounted. The
    fan-out workers call this now and then; one sweeps at a time.
    """
    try:
        with locks.hold(r, keys.UNFINISHED_SWEEP_LOCK, wait_seconds=0, expire_ms=60_000):
            return _finish_unfinished(r, grace_ms)
    except locks.LockBusy:
        return 0  # another worker is sweeping


def _finish_unfinished(r, grace_ms):
    shard_keys = keys.all_unfinished_posts()
    pipe = r.pipeline(transaction=False)
    for key in shard_keys:
        pipe.hgetall(key)
    due_before = time.time() * 1000 - grace_ms
    due = [
        (key, int(sid), json.loads(note))
        for key, notes in zip(shard_keys, pipe.execute(), strict=True)
        for sid, note in notes.items()
        if json.loads(note)["at"] <= due_before
    ]
    for key, sid, note in due:
        author = note["author"]
        status = _decode_status(r.hgetall(keys.status(sid)))
        if status is not None:
            if _in_conversation(status):
                scripts.run_pipeline(
                    r, lambda pipe, status=status: _queue_conversation(pipe, status)
                )
            if int(note["upto"]) >= 0:
                jobs.enqueue(r, fanout.plan_job("deliver", author, sid, None, int(note["upto"])))
            if note.get("pulled"):
                fanout.copy_pulled(r, author, sid, note["pulled"])
        else:
            scripts.run_pipeline(r, lambda pipe, sid=sid, note=note: _take_back(pipe, sid, note))
            if note.get("pulled"):
                fanout.refill_copies(r, note["author"])
        r.hdel(key, sid)
    return len(due)


def _take_back(pipe, sid, note):
    """Queue the undoing of a post whose hash was never written (finish_unfinished)."""
    author = note["author"]
    if note.get("repost_of"):
        # A repost (reposts.py): off the reposter's profile and lists, uncounted on the
        # original. Nothing was delivered: delivery follows the hash.
        orig = note["repost_of"]
        scripts.remove_own_repost.queue(pipe, uid=author, orig=orig, rid=sid)
        scripts.status_count.queue(
            pipe, sid=orig, uid=author, kind="reposts", action="remove",
            now_ms=int(time.time() * 1000),
        )  # fmt: skip
        return
    scripts.remove_own_status.queue(pipe, uid=author, sid=sid)
    if note.get("pulled"):
        fanout.queue_uncopy(pipe, author, sid)  # copied along with the post, maybe
    parent = note.get("parent")
    if parent:
        scripts.remove_reply.queue(pipe, parent=parent, sid=sid)
        pipe.zrem(keys.profile_replies(author), f"{sid}:{note['replied']}")


def decode_status(data: Mapping[Any, Any] | None) -> Status | None:
    """A status hash as read by HGETALL (a dict of strings) as get_status gives it."""
    return _decode_status(data)


# The counts of a status kept in keys.status_counts, read with HMGET in this order.
# Edits: ``edited``, the time of the status's last edit (decision 0074), read with its
# counts: a process that remembers an older version reads the hash again.
_COUNTS_FIELDS = ("likes", "reposts", keys.POLL_TALLY_FIELD, keys.STATUS_EDITED_FIELD)


def _counts(replies, counted):
    """(replies, likes, reposts, the poll's tally or None, the last edit or "") from a
    ZCARD and an HMGET of _COUNTS_FIELDS."""
    likes, reposts, tally, edited = counted
    return (replies, int(likes or 0), int(reposts or 0), tally, edited or "")


def _with_counts(status, counts):
    found = {**status, "replies": counts[0], "likes": counts[1], "reposts": counts[2]}
    if counts[3] is not None:  # polls: the tally, "<voters>,<votes of each option>"
        found["poll_tally"] = counts[3]
    return found


def get_status(r: Client, sid: int | str) -> Status | None:
    """The status hash as a dict (id, uid as ints; posted as float) with its counts as
    ``replies``, ``likes`` and ``reposts``, or None; one round trip (the keys share a
    slot)."""
    pipe = r.pipeline(transaction=False)
    pipe.hgetall(keys.status(sid))
    pipe.zcard(keys.replies(sid))
    pipe.hmget(keys.status_counts(sid), _COUNTS_FIELDS)
    data, replies, counted = pipe.execute()
    status = _decode_status(data)
    if status is not None:
        status = _with_counts(status, _counts(replies, counted))
    return status


def locate(r: Client, sid: int) -> dict[str, Any] | None:
    """Where status ``sid`` is, without what it says: {id, uid, login, repost_of (0 for
    none)}, or None if there is no such status. For links and checks (a repost's page is
    its original's; who reposted a status): showing a status takes get_statuses and
    visibility.shown_statuses. One command."""
    uid, login, repost_of = r.hmget(keys.status(sid), ["uid", "login", "repost_of"])
    if uid is None:
        return None
    return {"id": int(sid), "uid": int(uid), "login": login, "repost_of": int(repost_of or 0)}


# A status hash never changes once written (deleting a status deletes the whole hash),
# so each process remembers the statuses it has read, with when Redis last confirmed
# that each still exists. A profile page then costs 30 EXISTS with integer answers
# instead of 30 hashes to send and parse, and a home page, whose ids home_page.lua has
# already filtered through the deletion notes, nothing at all for statuses confirmed in
# the last STATUS_TRUST_SECONDS. Ids are never reused (INCR), except after a FLUSHALL,
# which empties every memory (client.flush_all). Counts do change: they are read (ZCARD
# of the replies and HMGET of keys.status_counts, in the status's slot) along with every
# EXISTS or HGETALL, and a home page that needs neither reads them again once they are
# COUNTS_TRUST_SECONDS old, or at once for a viewer who liked or unliked lately
# (``counts_fresh``; keys.likes_changed) or a status whose counts this process changed
# (forget_counts).
KNOWN_STATUSES = 50_000  # ~0.5 KB each: ~25 MB per process at most
# {sid: (decoded status, monotonic time last confirmed, (replies, likes, reposts),
#        monotonic time the counts were read)}
_known = Memory("statuses", KNOWN_STATUSES)

# What _read_or_confirm does for a status: read its hash, confirm that it exists, or
# only read its counts; the counts in every case.
_READ, _CONFIRM, _COUNT = "read", "confirm", "count"


class ViewerLikes:
    """Which statuses of a page the viewer ``uid`` likes (None: a visitor, nothing is
    read): each round trip that reads or confirms statuses for the page reads them too
    (one ZMSCORE of keys.user_likes, in the viewer's slot) and adds them to ``ids``."""

    def __init__(self, uid):
        self.uid = uid
        self.ids = set()


def forget_counts(sid):
    """Make this process read status ``sid``'s counts from Redis the next time it shows
    it (they changed here: a like or unlike)."""
    entry = _known.get(int(sid))
    if entry is not None:
        _known.put(int(sid), (*entry[:3], float("-inf")))


def get_statuses(r, sids, deletions_skipped=False, viewer_likes=None, counts_fresh=False,
                 seen=None, notes_of=None):  # fmt: skip
    """Several statuses in one round trip at most, in the order given, each with its
    counts as ``replies``, ``likes`` and ``reposts``; missing ones left out. Each is a
    fresh dict the caller may change.

    ``deletions_skipped``: the ids were read through the deletion notes a moment ago
    (timelines.home_page), so statuses this process confirmed lately are shown from
    memory without asking Redis (their counts too, for COUNTS_TRUST_SECONDS, unless
    ``counts_fresh``); otherwise remembered statuses cost an EXISTS each.
    ``viewer_likes``: a ViewerLikes, given which of them its viewer likes in the same
    round trip (a page that knows them already, as a home page, gives none).
    ``seen``: a visibility.Seen, read in the same round trip (for
    visibility.shown_statuses: what the viewer may see of authors known beforehand).
    ``notes_of``: ids read from a timeline without the deletion notes (a tag's, a
    group's): the notes of user ``notes_of``'s shard (every shard holds the same,
    keys.deleted_statuses) are asked about them in the same round trip, and then the
    statuses this process remembers are trusted as with ``deletions_skipped``: a page of
    30 asks one command about them rather than an EXISTS each.
    """
    return _statuses(
        r, sids, deletions_skipped, None, viewer_likes, counts_fresh, seen=seen, notes_of=notes_of
    )[0]


def get_statuses_with_replies(r, sids, replies_wanted, viewer_likes=None):
    """get_statuses for ``sids`` (each confirmed), and the ids of some of their replies,
    oldest first, in the same round trip: ``replies_wanted`` is {sid: (how many, after
    which id or None)}. Returns (statuses, {sid: [reply ids]})."""
    return _statuses(r, sids, False, replies_wanted, viewer_likes)


def get_statuses_and(r, sids, queue_extra, viewer_likes=None, seen=None):
    """get_statuses for ``sids``, and whatever ``queue_extra(pipe)`` queues (one
    command) in the same round trip: (statuses, its reply). A page that must ask one
    more thing about the statuses it shows (what the viewer reposted) asks it without
    a round trip of its own. ``seen``: as for get_statuses."""
    sids = [int(sid) for sid in sids]
    if not sids:
        return [], None
    found, extra = _statuses(
        r, sids, False, viewer_likes=viewer_likes, extra=queue_extra, seen=seen
    )
    return found, extra


def remembered_authors(sids):
    """{status id: its author's id} for those of ``sids`` this process remembers (no
    round trip): the authors a page may ask about with the statuses' own round trip
    (visibility.Seen)."""
    return {sid: entry[0]["uid"] for sid, entry in _known.get_many(int(s) for s in sids).items()}


def _statuses(r, sids, deletions_skipped, replies_wanted=None, viewer_likes=None,
              counts_fresh=False, extra=None, seen=None, notes_of=None):  # fmt: skip
    sids = [int(sid) for sid in sids]
    if not sids:
        return [], {}
    deletions_skipped = deletions_skipped or notes_of is not None
    now = time.monotonic()
    remembered = _known.get_many(sids)
    plan = []
    if len(remembered) < len(sids):
        plan = [(sid, _READ) for sid in dict.fromkeys(sids) if sid not in remembered]
    for sid, entry in remembered.items():
        if not (deletions_skipped and now - entry[1] < STATUS_TRUST_SECONDS):
            plan.append((sid, _CONFIRM))
        elif counts_fresh or now - entry[3] >= COUNTS_TRUST_SECONDS:
            plan.append((sid, _COUNT))
    if seen is not None and not seen.wanted:
        seen = None  # nothing to ask
    queue_more = None
    if extra is not None or seen is not None or notes_of is not None:

        def queue_more(pipe):
            if notes_of is not None:
                pipe.zmscore(keys.deleted_statuses(notes_of), sids)
            if seen is not None:
                seen.queue(pipe)
            if extra is not None:
                extra(pipe)

    reply_ids, more = {}, []
    wants_likes = viewer_likes is not None and viewer_likes.uid is not None
    if plan or queue_more is not None or wants_likes:
        reply_ids, more = _read_or_confirm(
            r, plan, remembered, now, replies_wanted or {},
            viewer_likes if wants_likes else None, queue_more, liked_of=sids,
        )  # fmt: skip
    if notes_of is not None:
        for sid, noted in zip(sids, more[0], strict=True):
            if noted is not None:  # deleted lately: gone, whatever this process remembers
                remembered.pop(sid, None)
                _known.forget(sid)
        more = more[1:]
    if seen is not None:
        seen.take(more[: seen.replies])
        more = more[seen.replies :]
    # _with_counts written out: a home page does this 30 times.
    found = [
        {**entry[0], "replies": entry[2][0], "likes": entry[2][1], "reposts": entry[2][2]}
        for entry in map(remembered.get, sids)
        if entry
    ]
    for status in found:  # polls: the tally of those voted in
        tally = remembered[status["id"]][2][3]
        if tally is not None:
            status["poll_tally"] = tally
    return found, (more[0] if extra is not None else reply_ids)


def _read_or_confirm(r, plan, remembered, now, replies_wanted, viewer_likes=None, extra=None,
                     liked_of=()):  # fmt: skip
    """One round trip: for each (sid, what) of ``plan``, read the status's hash or
    check that it still exists (what _READ, _CONFIRM), and read its counts, and the
    reply ids ``replies_wanted`` asks for; with ``viewer_likes`` (a ViewerLikes of a
    logged-in viewer), which of ``liked_of`` (the page's ids, those remembered too)
    the viewer likes; update ``remembered`` and the process's memory. ``extra``: a
    function queueing more commands. Returns ({sid: [reply ids]}, the replies of
    ``extra``'s commands)."""
    liked_of = list(dict.fromkeys(liked_of)) or [sid for sid, _ in plan]
    likes_read = viewer_likes is not None and viewer_likes.uid is not None and bool(liked_of)

    def fill(pipe):
        # One command per key: a command's keys must share a slot, and status keys do not.
        for sid, what in plan:
            if what is _READ:
                pipe.hgetall(keys.status(sid))
            elif what is _CONFIRM:
                pipe.exists(keys.status(sid))
            pipe.zcard(keys.replies(sid))
            pipe.hmget(keys.status_counts(sid), _COUNTS_FIELDS)
            if sid in replies_wanted:
                count, after = replies_wanted[sid]
                low = "-inf" if after is None else f"({int(after)}"
                pipe.zrangebyscore(keys.replies(sid), low, "+inf", start=0, num=count)
        if likes_read:
            pipe.zmscore(keys.user_likes(viewer_likes.uid), liked_of)
        if extra is not None:
            extra(pipe)

    # client.round_trip rather than redis-py's pipeline: every page that shows statuses
    # makes this round trip, and the pipeline's own work around it cost as much again
    # (docs/decisions/0007).
    replies = iter(scripts.run_pipeline(r, fill))
    fresh, reply_ids = {}, {}
    edited = []  # edits: remembered in an older version than the counts say
    for sid, what in plan:
        head = next(replies) if what is not _COUNT else None
        count = _counts(next(replies), next(replies))
        wanted = next(replies) if sid in replies_wanted else None
        if what is _READ:
            status = _decode_status(head)
            entry = (status, now, count, now) if status else None
        elif what is _CONFIRM:
            entry = (remembered[sid][0], now, count, now) if head else None
        else:
            entry = (*remembered[sid][:2], count, now)
        if entry is not None and count[4] != (entry[0].get(keys.STATUS_EDITED_FIELD) or ""):
            edited.append(sid)
        remembered[sid] = entry
        if entry is None:
            _known.forget(sid)
            continue
        fresh[sid] = entry
        if wanted is not None:
            reply_ids[sid] = [int(reply) for reply in wanted]
    if likes_read:
        scores = next(replies)
        viewer_likes.ids.update(sid for sid, score in zip(liked_of, scores, strict=True) if score)
    rest = list(replies)
    if edited:
        # Edited since this process read them (decision 0074): one round trip more,
        # only when a status shown changed.
        pipe = r.pipeline(transaction=False)
        for sid in edited:
            pipe.hgetall(keys.status(sid))
        for sid, data in zip(edited, pipe.execute(), strict=True):
            status = _decode_status(data)
            if status is None:
                remembered[sid] = None
                fresh.pop(sid, None)
                _known.forget(sid)
            else:
                entry = (status, now, remembered[sid][2], now)
                remembered[sid] = fresh[sid] = entry
    _known.put_many(fresh)
    return reply_ids, rest


def _note_deleted(r, sid):
    """Note status ``sid`` as deleted in every shard's keys.deleted_statuses, for
    limits.DELETED_NOTE_MS, dropping notes older than that (one pipeline)."""
    now_ms = int(time.time() * 1000)
    pipe = r.pipeline(transaction=False)
    for key in keys.all_deleted_statuses():
        pipe.zadd(key, {sid: now_ms})
        pipe.zremrangebyscore(key, "-inf", now_ms - DELETED_NOTE_MS)
        pipe.pexpire(key, DELETED_NOTE_MS)
    pipe.execute()


def delete_status(r: Client, uid: int, sid: int) -> DeleteResult:
    """Delete status ``sid`` if user ``uid`` posted it; return a DeleteResult.

    1. Read the status, and its newest likers (as many as a user keeps notifications:
       any older like's notification is gone already), and check its owner.
    2. Take it off the author's profile and home and uncount it
       (remove_own_status.lua; a retry after a crash does not uncount it twice),
       uncount it on the status it replied to and take back its notifications
       (_queue_conversation_undone), take it off its hashtags' timelines
       (tags.queue_remove, their own slots), take back the notifications of its likes
       (the author's slot), and read the newest follower's score, in one round trip.
       The hash is still there: a retry after a crash finds the status and does all
       of this again.
    3. Note the deletion in every shard (home pages skip it from now on, even from a
       process's memory of statuses), then delete the hash with its lists and counts
       (other readers skip ids without a hash; likers' keys.user_likes entries naming
       it are skipped when read, and taken out by the page that finds them).
    4. Queue a job for the fan-out workers to take the id out of followers' home
       timelines (the book's "zombie" exercise), and one to undo every repost of it
       (reposts.purge_reposts), and publish the deletion.
    """
    pipe = r.pipeline(transaction=False)
    pipe.hgetall(keys.status(sid))
    pipe.zrevrange(keys.likes(sid), 0, NOTIFICATIONS_KEPT - 1)
    # An account that is or was pulled may have the status copied into every shard.
    pipe.hget(keys.user(uid), keys.FANOUT_PATH_FIELD)
    pipe.lrange(keys.status_history(sid), 0, -1)  # edits: its earlier versions' images
    data, likers, registered, history = pipe.execute()
    status = _decode_status(data)
    if status is None or status.get("repost_of"):
        return DeleteResult.NOT_FOUND  # a repost is undone, not deleted (reposts.py)
    if status["uid"] != int(uid):
        return DeleteResult.NOT_OWNER
    status_tags = entities.tags(status_entities(status))
    like_events = [
        notifications.member("like", liker, sid, sid) for liker in likers if int(liker) != int(uid)
    ]

    def fill(pipe):
        scripts.remove_own_status.queue(pipe, uid=uid, sid=sid)
        if registered:
            fanout.queue_uncopy(pipe, uid, sid)
        _queue_conversation_undone(pipe, status)
        tags.queue_remove(pipe, sid, status_tags)
        if like_events:
            notifications.queue_unnotify(pipe, uid, like_events)
        _queue_media_unused(pipe, media_names(status) + _history_media(history))
        status_index.queue_unindex(pipe, status)
        pipe.exists(keys.reposts(sid))
        pipe.zrange(keys.followers(uid), -1, -1, withscores=True)  # last: read below

    *_, reposted, newest = scripts.run_pipeline(r, fill)
    if registered:
        fanout.refill_copies(r, uid)
    if status.get(keys.STATUS_COMMUNITY_FIELD):
        # Groups: a pulled community's copies may hold it too.
        fanout.forget_community_status(r, int(status[keys.STATUS_COMMUNITY_FIELD]), sid)
    _note_deleted(r, sid)
    # Its replies list, likes and counts go with it (one slot); replies to it keep their
    # place in their own threads, under "This status was deleted". The list of its
    # reposters stays for the job that undoes their reposts (reposts.purge_reposts).
    r.delete(
        keys.status(sid),
        keys.replies(sid),
        keys.removed_replies(sid),
        keys.likes(sid),
        keys.status_counts(sid),
        keys.poll_votes(sid),  # polls
        keys.status_history(sid),  # edits
    )
    followups = []
    if newest:
        followups.append(fanout.plan_job("remove", uid, sid, None, int(newest[0][1])))
    if reposted:
        followups.append({"kind": "purge_reposts", "sid": int(sid), "author": int(uid)})
    if followups:
        jobs.enqueue(r, *followups)
    events.publish_deleted(r, status)
    return DeleteResult.DELETED


def delete_statuses_of_leaving_user(r, uid, sids):
    """Delete statuses ``sids`` of user ``uid``, whose account is being deleted; return
    how many of them were still there.

    Unlike delete_status, nothing is queued to take the ids out of followers' home
    timelines: deleting an account unfollows them all first, which takes the
    account's statuses out of their timelines (graph.unfollow), and until then every
    page leaves a hidden author's statuses out (users.get_authors). Nor are deletions
    noted in every shard: ten thousand notes would make every home page read ten
    thousand ids more for an hour (home_page.lua). Each status leaves the profile and
    the unfinished notes, its hash is deleted and the deletion is published, for the
    streams that showed it. Two round trips, plus one to publish each.
    """
    sids = [int(sid) for sid in sids]
    if not sids:
        return 0
    pipe = r.pipeline(transaction=False)
    for sid in sids:
        pipe.hgetall(keys.status(sid))
    found = [_decode_status(data) for data in pipe.execute()]

    def fill(pipe):
        for sid in sids:
            scripts.remove_own_status.queue(pipe, uid=uid, sid=sid)
        pipe.hdel(keys.unfinished_posts(uid), *sids)
        freed = [name for status in found if status for name in media_names(status)]
        _queue_media_unused(pipe, freed)
        for status in found:
            if status is not None:
                status_index.queue_unindex(pipe, status)
        for sid in sids:
            pipe.delete(keys.status(sid))
            # Its likes and counts with it; their notifications were the leaving
            # author's own, deleted with the account. One key per DEL: a cluster
            # pipeline sends no DEL of several keys.
            pipe.delete(keys.likes(sid))
            pipe.delete(keys.status_counts(sid))
            pipe.delete(keys.poll_votes(sid))  # polls
            pipe.delete(keys.status_history(sid))  # edits (their images: decision 0074)

    scripts.run_pipeline(r, fill)
    for status in found:
        if status is not None:
            _known.forget(status["id"])
            events.publish_deleted(r, status)
    return sum(1 for status in found if status is not None)


# --- editing a status (decision 0074) ------------------------------------------

# The most edits a status may have (Mastodon sets none): its history stays a short read.
MAX_EDITS = 20
# The newest reposters told of an edit (an ``update`` notification each).
REPOSTERS_NOTIFIED = 1000


class EditResult(enum.Enum):
    EDITED = "edited"
    NOT_FOUND = "not found"  # no such status, not the editor's, or a repost
    CHANGED = "changed"  # edited meanwhile by another request: nothing was written
    TOO_MANY = "too many"  # MAX_EDITS reached


def edit_status(
    r: Client,
    uid: int,
    sid: int,
    message: str,
    *,
    spoiler: str = "",
    sensitive: bool = False,
    media: str | None = None,
    pending_uploads: Iterable[str] = (),
    most: int = MAX_EDITS,
    notifications_kept: int = NOTIFICATIONS_KEPT,
) -> tuple[EditResult, Status | None]:
    """Edit status ``sid`` of ``uid``: its text ``message`` (its entities parsed again),
    content warning ``spoiler``, ``sensitive`` mark and, unless None, its ``media`` (the
    packed JSON the status keeps; ``pending_uploads``: the uploads it newly shows, taken
    off the pending ones). Returns (the result, the status as edited).

    1. One round trip: the status, its author's fields (privacy, whether they may be
       found, their event fields), its newest REPOSTERS_NOTIFIED reposters, the
       author's blocks both ways and the ids of the logins the text mentions.
    2. edit_status.lua: the version as it was pushed on keys.status_history, the new
       fields written, the edit's time as ``edited`` in the hash and in
       keys.status_counts (which every page reads with the status: decision 0074).
    3. One round trip: the tags' timelines (off those it lost, on those it gained, if
       public), the search index (the old words out, the new in), the newly mentioned
       notified once (added to ``notified``, so that deleting it takes them back; a
       mention removed is not taken back, as Mastodon), each reposter's ``update``
       notification (an earlier edit's moved up), the uploads it now shows.
    4. Published as an edit for the streams (status.update)."""
    found = entities.find(message)
    mentioned = found.mentioned_logins(message)
    pipe = r.pipeline(transaction=False)
    pipe.hgetall(keys.status(sid))
    pipe.zrevrange(keys.reposts(sid), 0, REPOSTERS_NOTIFIED - 1)
    pipe.hmget(keys.user(uid), [*status_index.AUTHOR_FIELDS, *users.EVENT_AUTHOR_FIELDS])
    pipe.zrange(keys.blocks(uid), 0, -1)
    pipe.zrange(keys.blocked_by(uid), 0, -1)
    if mentioned:
        users.queue_user_ids(pipe, mentioned)
    data, reposters, user_fields, blocking, blocked_by, *rest = pipe.execute()
    old = _decode_status(data)
    if old is None or old["uid"] != int(uid) or old.get("repost_of"):
        return EditResult.NOT_FOUND, None
    author = dict(zip(status_index.AUTHOR_FIELDS, user_fields, strict=False))
    author_fields = user_fields[len(status_index.AUTHOR_FIELDS) :]
    user_ids = users.user_ids_read(mentioned, rest[0]) if mentioned else {}
    parsed = entities.build(message, found, user_ids)
    blocked = {int(other) for other in (*blocking, *blocked_by)}
    fields: dict[str, str] = {
        "message": message,
        "entities": entities.pack(parsed) or "",
        keys.STATUS_SPOILER_FIELD: spoiler,
        keys.STATUS_SENSITIVE_FIELD: "1" if sensitive else "",
    }
    if media is not None:
        fields[keys.STATUS_MEDIA_FIELD] = media
    # Mentions: those not notified before, as posting chooses them.
    already = {int(each) for each in str(old.get("notified") or "").split(",") if each}
    wanted = _mentions_to_notify(
        uid, old.get("in_reply_to_uid"), [mention["id"] for mention in parsed["user_mentions"]]
    )
    new_mentions = [other for other in wanted if other not in blocked and other not in already]
    if new_mentions and old.get(keys.STATUS_MEMBERS_ONLY_FIELD):
        cid = old[keys.STATUS_COMMUNITY_FIELD]
        scores = r.zmscore(keys.community_members(cid), new_mentions)
        new_mentions = [o for o, s in zip(new_mentions, scores, strict=True) if s is not None]
    if new_mentions:
        fields["notified"] = ",".join(map(str, [*sorted(already), *new_mentions]))
    now_ms = int(time.time() * 1000)
    done = scripts.edit_status(
        r, sid=sid, uid=uid, edited=old.get(keys.STATUS_EDITED_FIELD) or "", now_ms=now_ms,
        most=most, fields=fields,
    )  # fmt: skip
    if done == -1:
        return EditResult.NOT_FOUND, None
    if done == -2:
        return EditResult.CHANGED, None
    if done == -3:
        return EditResult.TOO_MANY, None
    new: dict[str, Any] = {**old, **fields, keys.STATUS_EDITED_FIELD: str(now_ms)}
    for name in [name for name, value in fields.items() if value == ""]:
        del new[name]
    old_tags = set(entities.tags(status_entities(old)))
    new_tags = set(entities.tags(parsed))
    public = not old.get("private")

    def fill(pipe):
        gone = [tag for tag in old_tags if tag not in new_tags]
        added = [tag for tag in new_tags if tag not in old_tags]
        if gone:
            tags.queue_remove(pipe, sid, gone)
        if added:
            tags.queue_add(pipe, sid, added, public)
            if public:
                trends.queue_use(pipe, uid, added, time.time())
        if status_index.indexable(old, author):
            status_index.queue_unindex(pipe, old)
        if status_index.indexable(new, author):
            status_index.queue_index(pipe, new)
        for other in new_mentions:
            notifications.queue_notify(
                pipe, other, notifications.member("mention", uid, sid, sid), now_ms,
                notifications_kept,
            )  # fmt: skip
        update = notifications.member("update", uid, sid, sid)
        for reposter in reposters:
            if int(reposter) != int(uid) and int(reposter) not in blocked:
                notifications.queue_unnotify(pipe, int(reposter), [update])
                notifications.queue_notify(pipe, int(reposter), update, now_ms, notifications_kept)
        uploads.queue_attached(pipe, uid, list(pending_uploads))

    scripts.run_pipeline(r, fill)
    _known.forget(int(sid))
    events.publish_changed(r, new, users.event_author(uid, author_fields))
    return EditResult.EDITED, decode_status(new)


def own_status(r: Client, uid: int, sid: int) -> Status | None:
    """Status ``sid`` if ``uid`` wrote it (not a repost), with its counts; else None. An
    author may always see their own statuses: what the edit form and the edit read."""
    status = get_status(r, sid)
    if status is None or status["uid"] != int(uid) or status.get("repost_of"):
        return None
    return status


def status_history(r: Client, sid: int) -> list[dict[str, Any]]:
    """The earlier versions of status ``sid``, oldest first: dicts of message, entities,
    spoiler, sensitive, media (each "" when it had none) and ``at`` (ms). One command."""
    versions = []
    for text in r.lrange(keys.status_history(sid), 0, -1):
        try:
            version = json.loads(text)
        except ValueError:
            continue
        if isinstance(version, dict):
            versions.append(version)
    return versions


def _history_media(texts):
    """The storage names of the images of a status's earlier versions (keys.status_history
    as read), for deleting it: an image taken off in an edit stays in its history."""
    names = []
    for text in texts or ():
        try:
            version = json.loads(text)
        except ValueError:
            continue
        if isinstance(version, dict):
            names += media_names({keys.STATUS_MEDIA_FIELD: version.get("media") or ""})
    return list(dict.fromkeys(names))

"""The Lua scripts in ``lua/``, each called through one Python wrapper.

Every script has exactly one wrapper here, named as its file (``lua/add_edge.lua`` is
``add_edge``): a function with named parameters that builds the script's keys from
``keys.py`` and its arguments, and says in its docstring what the script does to which
keys. Every key a script touches is passed in KEYS, which is what Redis Cluster routes
by; the only keys a script makes itself are those it derives from data it reads, in
its caller's slot, from the formats of ``lua/_keys.lua`` (decision 0045).

A wrapper runs its script now, ``scripts.add_edge(r, ...)``, or queues it on a caller's
pipeline (or ``run_pipeline``'s batch), ``scripts.add_edge.queue(pipe, ...)``, with the
same named parameters. The keys a wrapper passes carry names (the keys of the dict its
body returns) that the script's header (``-- KEYS[1] = name ...``) repeats in the same
order: tests/test_repository_scripts.py holds each script against its wrapper.

Scripts are called by SHA (EVALSHA) so the script text crosses the network once per
server, not once per call. A server that has not seen a script yet (first use, or a
restart) answers NOSCRIPT; we then load every script on every primary and try again.
Retrying is safe because every script here is idempotent.
"""

import functools
import hashlib
import json
from pathlib import Path

from redis.exceptions import NoScriptError

from . import client, keys
from .limits import (
    COUNTS_TRUST_SECONDS,
    HOME_TIMELINE_SIZE,
    HOME_TIMELINE_SLACK,
    POSTING_KEY_SECONDS,
    PULLED_COPY_SIZE,
    REPOSTS_SHOWN_NOTE_MS,
    STREAM_ADDRESSES_TTL_MS,
    UNFOLLOW_MEMORY_MS,
)

LUA_DIR = Path(__file__).parent / "lua"

# Every script, in the order its wrapper is defined (load_all loads them all).
ALL: list["Script"] = []


class Script:
    """One Lua script, lua/<name>.lua after the shared lua/_<prelude>.lua files it uses,
    and its wrapper ``build``: a function of named parameters returning the script's keys
    ({name: key, or name: [key, ...] for a run of keys}) and its arguments."""

    def __init__(self, build, preludes=()):
        functools.update_wrapper(self, build)
        self.name = build.__name__
        self.build = build
        self.preludes = tuple(preludes)
        parts = [(LUA_DIR / f"_{prelude}.lua").read_text() for prelude in self.preludes]
        self.text = "".join([*parts, (LUA_DIR / f"{self.name}.lua").read_text()])
        # SHA-1 because that is how Redis names scripts, not for security.
        self.sha = hashlib.sha1(self.text.encode(), usedforsecurity=False).hexdigest()

    def keys_and_args(self, **params):
        """The flat KEYS and ARGV of a call with ``params``."""
        return _flat(*self.build(**params))

    def __call__(self, r, /, **params):
        """Run the script now and return its result."""
        script_keys, args = _flat(*self.build(**params))
        try:
            return r.evalsha(self.sha, len(script_keys), *script_keys, *args)
        except NoScriptError:
            load_all(r)
            return r.evalsha(self.sha, len(script_keys), *script_keys, *args)

    def queue(self, pipe, /, **params):
        """Add a call of the script to a pipeline, or to run_pipeline's batch."""
        script_keys, args = _flat(*self.build(**params))
        # execute_command rather than pipe.evalsha: redis-py refuses the evalsha
        # method on cluster pipelines, but routes a raw EVALSHA by its first key.
        pipe.execute_command("EVALSHA", self.sha, len(script_keys), *script_keys, *args)


def _flat(named_keys, args):
    flat = []
    for key in named_keys.values():
        if type(key) is list:
            flat += key
        else:
            flat.append(key)
    return flat, args


def script(*preludes):
    """Make the decorated function the wrapper of lua/<its name>.lua, which runs after
    the preludes lua/_<prelude>.lua named (shared Lua functions)."""

    def wrap(build):
        made = Script(build, preludes)
        ALL.append(made)
        return made

    return wrap


def load_all(r):
    """SCRIPT LOAD every script (on every primary, for a cluster client)."""
    for each in ALL:
        r.script_load(each.text)


def run_pipeline(r, fill):
    """Run the commands ``fill(pipe)`` queues in one round trip (client.round_trip)
    and return their results.

    Every command ``fill`` queues must be idempotent: if a server answers NOSCRIPT,
    the scripts are loaded and the whole pipeline runs again. Any other error is raised.
    """
    for attempt in (1, 2):
        results = client.round_trip(r, fill)
        if attempt == 1 and any(isinstance(x, NoScriptError) for x in results):
            load_all(r)
            continue
        for result in results:
            if isinstance(result, Exception):
                raise result
        return results


def _id_or_blank(value):
    return "" if value is None else int(value)


# --- the social graph (graph.py) -----------------------------------------------------------


@script("scores")
def add_edge(*, follower, followed, now_ms, side):
    """``side`` "following": ``followed`` joins keys.following(follower) and the user
    hash's "following" count, unless a block stands either way (keys.blocks,
    keys.blocked_by of ``follower``); the follower's keys.unfollowed note about
    ``followed`` goes. ``side`` "followers": ``follower`` joins
    keys.followers(followed) and its "followers" count, and their follow request goes.
    Scored by ``now_ms``, made unique per list. Returns 1 if added, 0 if it was there
    already (nothing changes), -1 if a block refuses it."""
    if side == "following":
        return {
            "follow_list": keys.following(follower),
            "user": keys.user(follower),
            "outdated_note": keys.unfollowed(follower, followed),
            "blocks": keys.blocks(follower),
            "blocked_by": keys.blocked_by(follower),
        }, [followed, now_ms, "following", follower]
    return {
        "follow_list": keys.followers(followed),
        "user": keys.user(followed),
        "outdated_note": keys.follow_requests(followed),
    }, [follower, now_ms, "followers", follower]


@script()
def remove_edge(*, follower, followed):
    """``follower`` leaves keys.followers(followed) and its "followers" count, and their
    request to follow (keys.follow_requests) is withdrawn. Returns [1 if removed else 0,
    1 if a request was withdrawn else 0]."""
    return {
        "followers": keys.followers(followed),
        "user": keys.user(followed),
        "follow_requests": keys.follow_requests(followed),
    }, [follower, "followers"]


@script("scores", "hide")
def follow_check(*, uid, other, now_ms, approved):
    """Whether ``uid`` may follow ``other``, asked in other's slot (keys.user's
    "private", keys.blocks and keys.blocked_by, keys.followers of ``other``); for a
    private account, uid's request is recorded in keys.follow_requests(other) instead.
    ``approved``: other approves uid's request (refused if there is none). Returns
    "blocked", "blocking", "follow", "requested", "already requested" or "no request"."""
    return {
        "user": keys.user(other),
        "blocks": keys.blocks(other),
        "blocked_by": keys.blocked_by(other),
        "followers": keys.followers(other),
        "follow_requests": keys.follow_requests(other),
    }, [uid, now_ms, int(approved)]


@script("home", "reposts")
def unfollow(*, uid, followed, now_ms, items, originals):
    """The follower's side of an unfollow: ``followed`` leaves keys.following(uid) and
    the "following" count of keys.user(uid); ``items`` (their newest statuses, a repost
    as "<rid>/<orig>/<author>") leave keys.home(uid) by the dedupe rules (keys.
    home_reposts, keys.reposts_shown of each of ``originals``, the reposts' originals
    in their order); uid is noted in keys.unfollowed for fan-outs in progress. Returns
    1 if ``followed`` was followed, else 0."""
    return {
        "following": keys.following(uid),
        "user": keys.user(uid),
        "home": keys.home(uid),
        "unfollowed": keys.unfollowed(uid, followed),
        "home_reposts": keys.home_reposts(uid),
        "reposts_shown": [keys.reposts_shown(uid, orig) for orig in originals],
    }, [followed, uid, now_ms, UNFOLLOW_MEMORY_MS, HOME_TIMELINE_SIZE, HOME_TIMELINE_SLACK,
        *items]  # fmt: skip


@script("home", "reposts")
def backfill(*, uid, followed, now_ms, items, originals):
    """Copy ``items`` into keys.home(uid): a followed user's statuses after a follow
    (``followed``: unless uid no longer follows them, or does not get their statuses:
    keys.following, keys.hides), or, with ``followed`` None, a refill's. A reply
    ("<id>:<replied-to uid>") by the reply rule, a repost ("<rid>/<orig>/<author>/
    <reposter>") by the dedupe rules (keys.home_reposts, keys.reposts_shown of each of
    ``originals``, in the reposts' order). Returns how many entries were added."""
    return {
        "home": keys.home(uid),
        "following": keys.following(uid),
        "hides": keys.hides(uid),
        "home_reposts": keys.home_reposts(uid),
        "reposts_shown": [keys.reposts_shown(uid, orig) for orig in originals],
    }, [_id_or_blank(followed), HOME_TIMELINE_SIZE, HOME_TIMELINE_SLACK, now_ms, uid,
        REPOSTS_SHOWN_NOTE_MS, *items]  # fmt: skip


@script("home", "reposts")
def take_out(*, uid, author, items, originals):
    """Take ``items`` (``author``'s statuses, a repost as "<rid>/<orig>/<author>") out
    of keys.home(uid) by the dedupe rules (keys.home_reposts, keys.following,
    keys.reposts_shown of each of ``originals``, in the reposts' order): a block, a
    mute. Returns 1."""
    return {
        "home": keys.home(uid),
        "home_reposts": keys.home_reposts(uid),
        "following": keys.following(uid),
        "reposts_shown": [keys.reposts_shown(uid, orig) for orig in originals],
    }, [uid, author, HOME_TIMELINE_SIZE, HOME_TIMELINE_SLACK, *items]


# --- blocks and mutes (blocks.py) ----------------------------------------------------------


@script("scores", "hide")
def set_block(*, uid, other, now_ms, action, side):
    """One side of a block (``action`` "block" or "unblock"), in ``uid``'s slot:
    ``side`` "blocker" changes keys.blocks(uid), "blocked" keys.blocked_by(uid); then
    keys.hides(uid) and keys.hiding(uid, other) say again whether uid gets other's
    statuses (with keys.mute_ends), and a block takes other's request to follow uid
    (keys.follow_requests) away. Returns 1 if the list changed, else 0."""
    return {
        "blocks": keys.blocks(uid),
        "blocked_by": keys.blocked_by(uid),
        "mute_ends": keys.mute_ends(uid),
        "hides": keys.hides(uid),
        "hiding": keys.hiding(uid, other),
        "follow_requests": keys.follow_requests(uid),
    }, [other, uid, now_ms, action, side]


@script("scores", "hide")
def set_mute(*, uid, other, now_ms, action, ends_ms=0):
    """Mute (``action`` "mute", until ``ends_ms``, 0 for ever), unmute ("unmute") or end
    a mute that is due ("end"), in ``uid``'s slot: keys.mutes, keys.mute_ends and
    keys.mute_endings; then keys.hides(uid) and keys.hiding(uid, other) say again
    whether uid gets other's statuses (with keys.blocks, keys.blocked_by). Returns 1 if
    it changed whether uid mutes other, else 0."""
    return {
        "mutes": keys.mutes(uid),
        "mute_ends": keys.mute_ends(uid),
        "blocks": keys.blocks(uid),
        "blocked_by": keys.blocked_by(uid),
        "hides": keys.hides(uid),
        "hiding": keys.hiding(uid, other),
        "mute_endings": keys.mute_endings(uid),
    }, [other, uid, now_ms, action, ends_ms]


# --- posting and deleting (statuses.py, reposts.py) ----------------------------------------


@script("home")
def add_own_status(
    *, uid, sid, now_ms, conversation, parent=None, replied_to=None, pull_at=0, push_below=0
):
    """Put status ``sid`` on keys.profile(uid) and keys.home(uid), count it in
    keys.user(uid) ("posts"), and note it in keys.unfinished_posts with the newest
    follow score of keys.followers(uid) (if there are followers, or ``conversation``:
    writes to make beyond the status). A reply to ``parent`` by ``replied_to`` is
    listed in keys.profile_replies too. With ``pull_at`` followers or more (``push_below``
    once pulled: keys.FANOUT_PATH_FIELD), the account is pulled: the status goes into
    keys.pulled_statuses instead of being noted for delivery. Returns [1 if added else 0,
    the newest follow score or -1, 1 if pulled, 2 if the account is to be registered
    (fanout.register_pulled), else 0]."""
    script_keys = {
        "profile": keys.profile(uid),
        "home": keys.home(uid),
        "user": keys.user(uid),
        "followers": keys.followers(uid),
        "unfinished_posts": keys.unfinished_posts(uid),
        "pulled_statuses": keys.pulled_statuses(uid),
    }
    args = [sid, HOME_TIMELINE_SIZE, HOME_TIMELINE_SLACK, uid, now_ms, int(conversation),
            int(pull_at), int(push_below)]  # fmt: skip
    if parent:
        script_keys["profile_replies"] = keys.profile_replies(uid)
        args += [parent, replied_to]
    return script_keys, args


@script()
def remove_own_status(*, uid, sid):
    """Take status ``sid`` off keys.profile(uid), keys.home(uid) and keys.pulled_statuses
    (uid) and uncount it in keys.user(uid). Returns 1 if removed, 0 if it was gone
    already."""
    return {
        "profile": keys.profile(uid),
        "home": keys.home(uid),
        "user": keys.user(uid),
        "pulled_statuses": keys.pulled_statuses(uid),
    }, [sid]


@script()
def add_reply(*, parent, sid):
    """Count reply ``sid`` in keys.replies(parent), unless the parent's hash is gone or
    the reply was deleted (keys.removed_replies). Returns 1 if counted, else 0."""
    return {
        "status": keys.status(parent),
        "replies": keys.replies(parent),
        "removed_replies": keys.removed_replies(parent),
    }, [sid]


@script()
def remove_reply(*, parent, sid):
    """Uncount reply ``sid`` in keys.replies(parent) and, while the parent exists, note
    it in keys.removed_replies so that it is never counted again. Returns 1 if it was
    counted, else 0."""
    return {
        "status": keys.status(parent),
        "replies": keys.replies(parent),
        "removed_replies": keys.removed_replies(parent),
    }, [sid]


@script()
def add_repost(*, uid, orig, rid, author, now_ms):
    """The reposter's side of repost ``rid`` of ``orig`` (by ``author``): keys.reposted,
    keys.profile and keys.profile_reposts of ``uid``, and a note in keys.
    unfinished_posts with the newest follow score of keys.followers(uid); for a pulled
    reposter (keys.user's keys.FANOUT_PATH_FIELD), in keys.pulled_statuses instead of
    being noted for delivery. Returns [rid, the newest follow score or -1, 1 if pulled
    else 0], or [the earlier repost's id, -2, 0] if uid reposted ``orig`` already
    (nothing changes)."""
    return {
        "reposted": keys.reposted(uid),
        "profile": keys.profile(uid),
        "profile_reposts": keys.profile_reposts(uid),
        "followers": keys.followers(uid),
        "unfinished_posts": keys.unfinished_posts(uid),
        "user": keys.user(uid),
        "pulled_statuses": keys.pulled_statuses(uid),
    }, [orig, rid, author, uid, now_ms, HOME_TIMELINE_SIZE]


@script()
def remove_own_repost(*, uid, orig, rid=None):
    """The reposter's side of undoing uid's repost of ``orig`` (only the repost ``rid``,
    if given): off keys.reposted, keys.profile, keys.profile_reposts and keys.
    pulled_statuses of ``uid``. Returns the id of the repost undone, or 0."""
    return {
        "reposted": keys.reposted(uid),
        "profile": keys.profile(uid),
        "profile_reposts": keys.profile_reposts(uid),
        "pulled_statuses": keys.pulled_statuses(uid),
    }, [orig, _id_or_blank(rid)]


@script("scores")
def status_count(*, sid, uid, kind, action, now_ms=0):
    """Count (``action`` "add", at ``now_ms``) or uncount ("remove") ``uid``'s like
    (``kind`` "likes": keys.likes) or repost ("reposts": keys.reposts) of status
    ``sid``, with its count in keys.status_counts, while keys.status exists. Returns 1
    if counted or uncounted, 0 if it was already, -1 if the status is gone."""
    listing = keys.likes(sid) if kind == "likes" else keys.reposts(sid)
    return {
        "status": keys.status(sid),
        "users": listing,
        "status_counts": keys.status_counts(sid),
    }, [uid, now_ms, action, kind]


@script("scores")
def mark_like(*, uid, sid, now_ms):
    """Note status ``sid`` in keys.user_likes(uid) (scored by ``now_ms``, unique) and
    set keys.likes_changed(uid) for COUNTS_TRUST_SECONDS. Returns 1 if noted, 0 if it
    was already."""
    return {
        "user_likes": keys.user_likes(uid),
        "likes_changed": keys.likes_changed(uid),
    }, [sid, now_ms, COUNTS_TRUST_SECONDS * 1000]


# --- bookmarks (bookmarks.py) ----------------------------------------------------


@script("scores")
def mark_bookmark(*, uid, sid, now_ms):
    """Note status ``sid`` in keys.bookmarks(uid), scored by ``now_ms`` made unique.
    Returns 1 if noted, 0 if it was already (its time stays)."""
    return {"bookmarks": keys.bookmarks(uid)}, [sid, now_ms]


@script()
def pin_status(*, uid, sid, now_ms, most):
    """Pin status ``sid`` in keys.pinned(uid), scored by ``now_ms``, unless ``most`` are
    pinned already. Returns 1 if pinned, 0 if it was already, -1 if there is no room."""
    return {"pinned": keys.pinned(uid)}, [sid, now_ms, most]


@script()
def edit_status(*, sid, uid, edited, now_ms, most, fields):
    """Edit status ``sid`` of ``uid``: push its version as it is on
    keys.status_history(sid), write ``fields`` ({name: value}, "" deleting the field)
    over keys.status(sid) and the edit's time ``now_ms`` as the ``edited`` field of it
    and of keys.status_counts(sid), if its ``edited`` field is still ``edited`` ("" for
    never) and it has had fewer than ``most`` edits. Returns 1 if edited, -1 for no such
    status of theirs, -2 if it changed meanwhile, -3 past ``most``."""
    return {
        "status": keys.status(sid),
        "status_history": keys.status_history(sid),
        "status_counts": keys.status_counts(sid),
    }, [int(uid), str(edited or ""), int(now_ms), int(most), json.dumps(fields)]


# --- fan-out (fanout.py): one call per shard group of followers ------------------------------


@script("home", "keys", "lists")
def deliver(*, author, sid, followers, now_ms, replied_to=None):
    """Add status ``sid`` by ``author`` to keys.home of each of ``followers`` (all of one
    shard), skipping those noted in keys.unfollowed, keys.hiding (until when) and
    keys.reposts_shown and evicted homes (holding only the eviction's member), and to
    the named lists of those noted in keys.listing. A reply to ``replied_to`` reaches
    only those who are them or follow them (keys.following of each follower). Returns
    how many homes received it."""
    first = followers[0]
    script_keys = {
        "unfollowed": keys.unfollowed(first, author),
        "hiding": keys.hiding(first, author),
        "reposts_shown": keys.reposts_shown(first, sid),
        "listing": keys.listing(first, author),
        "home": keys.homes_in_one_shard(followers),
    }
    args = [sid, HOME_TIMELINE_SIZE, HOME_TIMELINE_SLACK, now_ms]
    if replied_to is not None:
        script_keys["following"] = [keys.following(uid) for uid in followers]
        args.append(int(replied_to))
    return script_keys, args


@script("home", "keys", "reposts")
def deliver_repost(*, reposter, rid, orig, orig_author, followers, now_ms):
    """Add repost ``rid`` (by ``reposter`` of ``orig`` by ``orig_author``) to keys.home
    of each of ``followers`` (all of one shard) by the dedupe rules (keys.home_reposts,
    keys.reposts_shown), skipping those noted in keys.unfollowed and keys.hiding, and
    evicted homes. Returns how many homes got a new entry."""
    first = followers[0]
    return {
        "unfollowed": keys.unfollowed(first, reposter),
        "hiding": keys.hiding(first, reposter),
        "reposts_shown": keys.reposts_shown(first, orig),
        "home": keys.homes_in_one_shard(followers),
        "home_reposts": keys.home_reposts_in_one_shard(followers),
    }, [rid, HOME_TIMELINE_SIZE, HOME_TIMELINE_SLACK, now_ms, orig, orig_author, reposter,
        REPOSTS_SHOWN_NOTE_MS]  # fmt: skip


@script("home", "keys", "reposts")
def remove_repost(*, rid, orig, orig_author, reposter, followers, purge):
    """Take repost ``rid`` (by ``reposter`` of ``orig`` by ``orig_author``) out of keys.
    home of each of ``followers`` (all of one shard) by the dedupe rules (keys.
    home_reposts, keys.reposts_shown, keys.following: whether the author still brings
    it); ``purge``: the original goes too. Returns the number of homes."""
    return {
        "reposts_shown": keys.reposts_shown(followers[0], orig),
        "home": keys.homes_in_one_shard(followers),
        "home_reposts": [keys.home_reposts(uid) for uid in followers],
        "following": [keys.following(uid) for uid in followers],
    }, [rid, orig, orig_author, reposter, int(purge), HOME_TIMELINE_SIZE,
        HOME_TIMELINE_SLACK]  # fmt: skip


@script("home", "keys", "lists")
def list_remove_status(*, sid, author, followers):
    """Take status ``sid`` by ``author`` out of the named lists of those of
    ``followers`` (all of one shard) noted in keys.listing. Returns how many list
    timelines held it."""
    return {"listing": keys.listing(followers[0], author)}, [sid, author, *followers]


# --- pages (timelines.py, lists.py) --------------------------------------------------------


@script("keys")
def home_page(
    *, uid, before, count, now_ms, skip_deleted=True, with_likes=False, list_id=None,
    merge=False, above=None,
):  # fmt: skip
    """Up to ``count`` ids of keys.home(uid) below ``before`` (None: the newest), newest
    first, without those noted in keys.deleted_statuses (``skip_deleted``); the authors
    uid does not get now (keys.hides); the entries shown through reposts (keys.
    home_reposts) and the originals uid reposted (keys.reposted); ``with_likes``: the
    originals uid likes (keys.user_likes) and whether keys.likes_changed stands. With
    ``list_id``: a page of uid's named list (keys.list_timeline) instead, and only the
    ids and hidden authors. ``merge``: the statuses of the accounts of keys.
    pulled_accounts that uid follows (keys.following; a list: its keys.list_members),
    not hidden, merged in from their keys.pulled_copy by the reply rule (keys.following),
    and one more answer, last: what was merged; a home's page also merges the pulled
    communities (keys.pulled_communities) uid belongs to (keys.memberships) and keeps
    in their home (not in keys.communities_out_of_home), each as the source -cid.
    ``above`` (the client API's min_id; no page of the site passes it): the page starts
    at the ``count``-th entry above ``above`` (delivered or merged), so that it holds
    every entry between; and one more answer, last: [the cursor it was read below (""
    for none), the delivered ids above ``above`` it counted, lowest first]."""
    args = [_id_or_blank(before), count, HOME_TIMELINE_SIZE, int(skip_deleted), now_ms,
            int(merge), uid, PULLED_COPY_SIZE, _id_or_blank(above)]  # fmt: skip
    if list_id is not None:
        script_keys = {
            "timeline": keys.list_timeline(uid, list_id),
            "deleted_statuses": keys.deleted_statuses(uid),
            "hides": keys.hides(uid),
        }
        followed = keys.list_members(uid, list_id)
    else:
        script_keys = {
            "timeline": keys.home(uid),
            "deleted_statuses": keys.deleted_statuses(uid),
            "hides": keys.hides(uid),
            "home_reposts": keys.home_reposts(uid),
            "reposted": keys.reposted(uid),
        }
        if with_likes:
            script_keys["user_likes"] = keys.user_likes(uid)
            script_keys["likes_changed"] = keys.likes_changed(uid)
        followed = keys.following(uid)
    if merge:
        # Groups: a home page merges the pulled communities uid belongs to and keeps in
        # their home too (ARGV[10]); a list's page does not.
        with_communities = list_id is None
        if with_communities:
            script_keys["communities"] = [
                keys.pulled_communities(uid),
                keys.memberships(uid),
                keys.communities_out_of_home(uid),
            ]
        args.append(int(with_communities))
        script_keys["merge"] = [keys.pulled_accounts(uid), followed, keys.following(uid)]
    return script_keys, args


# --- evicted homes (eviction.py) ----------------------------------------------------------


@script("home", "keys")
def evict_home(*, uid, seen_before):
    """Evict uid's home if keys.seen scores them below ``seen_before`` (s): delete
    keys.home_reposts and each list's keys.list_timeline (the list ids from keys.lists),
    leave keys.home holding only the eviction's member (deliveries skip it), take uid
    out of keys.seen and note them in keys.evicted_homes. Returns
    1 if evicted, 0 if uid was seen since (or is not in keys.seen)."""
    return {
        "seen": keys.seen(uid),
        "evicted_homes": keys.evicted_homes(uid),
        "lists": keys.lists(uid),
        "home": keys.home(uid),
        "home_reposts": keys.home_reposts(uid),
    }, [uid, seen_before]


@script("keys")
def rebuild_home(*, uid, action, now_ms, hold_ms=0, until_ms=0):
    """``action`` "begin": if keys.evicted_homes notes uid (or a rebuild of theirs whose
    hold ended), clear keys.home, keys.home_reposts and the keys.list_timeline of each
    of keys.lists, and hold the rebuild for ``hold_ms``: returns ["rebuild", until]; a
    rebuild held by another request: ["busy", until]; else ["none", 0]. "end": let go
    of the hold that ends at ``until_ms`` (if it is still this one)."""
    return {
        "evicted_homes": keys.evicted_homes(uid),
        "lists": keys.lists(uid),
        "home": keys.home(uid),
        "home_reposts": keys.home_reposts(uid),
    }, [action, uid, now_ms, hold_ms, until_ms]


# --- named lists (lists.py) ----------------------------------------------------------------


@script()
def create_list(*, uid, name, limit):
    """Create a list named ``name`` in keys.lists(uid), its id from keys.list_ids(uid),
    unless uid has one by that name or ``limit`` lists. Returns ["created", id],
    ["exists", id] or ["full", 0]."""
    return {"lists": keys.lists(uid), "list_ids": keys.list_ids(uid)}, [name, limit]


@script()
def rename_list(*, uid, lid, name):
    """Rename uid's list ``lid`` in keys.lists(uid). Returns "renamed", "exists" or
    "missing"."""
    return {"lists": keys.lists(uid)}, [int(lid), name]


@script("home", "keys", "lists")
def delete_list(*, uid, lid):
    """Delete uid's list ``lid`` (keys.lists, keys.list_members, keys.list_timeline),
    taking it out of each member's keys.listed entry (and the member's keys.listing note
    with their last list). Returns 1 if deleted, 0 if there was no such list."""
    return {
        "lists": keys.lists(uid),
        "listed": keys.listed(uid),
        "list_members": keys.list_members(uid, lid),
        "list_timeline": keys.list_timeline(uid, lid),
    }, [int(lid), uid]


@script("scores", "home", "keys", "lists")
def list_member(*, uid, lid, member, action, now_ms, limit):
    """Add ``member`` (``action`` "add": one uid follows, keys.following; at most
    ``limit`` a list) to uid's list ``lid`` or take them off it ("remove"):
    keys.list_members, keys.listed, keys.listing. Returns "added", "removed",
    "already", "absent", "missing", "not following" or "full"."""
    return {
        "lists": keys.lists(uid),
        "list_members": keys.list_members(uid, lid),
        "listed": keys.listed(uid),
        "listing": keys.listing(uid, member),
        "following": keys.following(uid),
    }, [action, int(lid), int(member), int(uid), now_ms, limit]


@script("home", "keys", "lists")
def list_fill(*, uid, member, action, now_ms, lid, marked_ids):
    """Put ``member``'s statuses ``marked_ids`` (replies "<id>:<replied-to uid>") into
    uid's list ``lid`` ("" for every list holding them, keys.listed) while uid follows
    and gets them (keys.following, keys.hides), replies by the reply rule (``action``
    "fill"); or take them out ("empty"). Returns how many ids were added or removed."""
    return {
        "listed": keys.listed(uid),
        "following": keys.following(uid),
        "hides": keys.hides(uid),
    }, [action, int(member), int(uid), now_ms, lid, HOME_TIMELINE_SIZE, HOME_TIMELINE_SLACK,
        *marked_ids]  # fmt: skip


@script("home", "keys", "lists")
def list_forget(*, uid, member, status_ids):
    """Take ``member`` off every list of uid's (keys.listed, keys.listing), with
    ``status_ids`` out of them. Returns how many lists the member was on."""
    return {
        "listed": keys.listed(uid),
        "listing": keys.listing(uid, member),
    }, [int(member), int(uid), *status_ids]


# --- notifications (notifications.py) ------------------------------------------------------


@script("scores", "notifications")
def notify(*, uid, event, now_ms, keep):
    """Add ``event`` to keys.notifications(uid), keeping the newest ``keep``, unless it
    is there or keys.user(uid) is gone; then the unread count (keys.
    notifications_state, leaving out keys.hidden_actors) is stored and published on
    keys.NOTIFICATION_CHANNEL. Returns 1 if added, else 0."""
    return {
        "notifications": keys.notifications(uid),
        "notifications_state": keys.notifications_state(uid),
        "user": keys.user(uid),
        "hidden_actors": keys.hidden_actors(uid),
    }, [event, int(now_ms), int(keep), int(uid), keys.NOTIFICATION_CHANNEL]


@script("notifications")
def unnotify(*, uid, events, seen=""):
    """Take ``events`` out of keys.notifications(uid) and, with ``seen`` (a score; "*"
    to recount only), mark those up to it as seen; then the unread count (keys.
    notifications_state, leaving out keys.hidden_actors) is stored and published on
    keys.NOTIFICATION_CHANNEL. Returns [taken out, unread count, version]."""
    return {
        "notifications": keys.notifications(uid),
        "notifications_state": keys.notifications_state(uid),
        "hidden_actors": keys.hidden_actors(uid),
    }, [int(uid), keys.NOTIFICATION_CHANNEL, seen, *events]


# --- direct messages (direct.py) -------------------------------------------------------------


@script()
def direct_send(
    *, cid, sender, text, packed, now_ms, key, pair="", members=(), ttl=POSTING_KEY_SECONDS
):
    """Append ``text`` (entities ``packed``) from ``sender`` to keys.conversation_messages
    (cid) as the next message id of keys.conversation(cid), which notes it as the last;
    with ``members``, the conversation (and keys.conversation_members) is made first if it
    is not there. The form submission ``key`` is noted (keys.conversation_sent) for
    ``ttl`` seconds: sent again, it sends nothing. Returns [message id, 1 (0: sent
    before), its time, member ids...], [-1] for no conversation, [-2] for a sender who is
    not a member."""
    return {
        "conversation": keys.conversation(cid),
        "members": keys.conversation_members(cid),
        "messages": keys.conversation_messages(cid),
        "sent": keys.conversation_sent(cid, sender, key),
    }, [int(sender), text, packed, int(now_ms), int(ttl), int(cid), pair,
        *(int(m) for m in members)]  # fmt: skip


@script()
def direct_member(
    *, uid, cid, action, mid=0, at_ms=0, role="inbox", sender=0, publish=True, newest=0
):
    """Member ``uid``'s side of conversation ``cid``: ``action`` "deliver" (message
    ``mid`` at ``at_ms``, ``role`` "sender", "request", "inbox" or "auto": by whether
    they follow ``sender``, keys.following(uid)), "read", "mute",
    "unmute", "accept", "drop", "leave", or "show" (the inbox row shows message ``mid``,
    if ``newest`` is still the newest delivered), on keys.direct_inbox, keys.direct_requests,
    keys.direct_state and keys.direct_joined; with ``publish``, a new message or badge
    is published on keys.NOTIFICATION_CHANNEL. Returns [badge, version, its unread]."""
    return {
        "inbox": keys.direct_inbox(uid),
        "requests": keys.direct_requests(uid),
        "state": keys.direct_state(uid),
        "joined": keys.direct_joined(uid),
        "following": keys.following(uid),
    }, [action, int(cid), int(uid), keys.NOTIFICATION_CHANNEL if publish else "", int(mid),
        int(at_ms), role, int(sender), int(newest)]  # fmt: skip


# --- accounts and sessions (users.py, sessions.py, search.py) ------------------------------


@script()
def replace_pending_upload(*, uid, upload_id, entry, new_entry):
    """Replace pending upload ``upload_id`` of ``uid``'s entry ``entry`` (as read) by
    ``new_entry`` while it is pending and unchanged. Returns 1 if replaced, else 0."""
    return {
        "pending": keys.pending_uploads(uid),
        "items": keys.pending_upload_items(uid),
    }, [upload_id, entry, new_entry]


@script()
def release_login(*, login, uid):
    """Free ``login`` (any case) in keys.LOGINS if it still names ``uid``. Returns 1 if
    freed, else 0."""
    return {"LOGINS": keys.LOGINS}, [login.lower(), int(uid)]


@script()
def release_email(*, address, uid):
    """Free ``address`` (any case) in keys.EMAILS if it is still ``uid``'s. Returns 1 if
    freed, else 0."""
    return {"EMAILS": keys.EMAILS}, [address.lower(), int(uid)]


@script()
def flag_user(*, uid, field, value):
    """Set ``field`` of keys.user(uid) unless it is set (``value`` "": remove it), while
    the hash exists. Returns 1 if it changed, else 0."""
    return {"user": keys.user(uid)}, [field, value]


@script()
def set_user_field(*, uid, field, value, credentials=False):
    """Set ``field`` of keys.user(uid) (with ``credentials``: of keys.credentials(uid))
    to ``value`` while the hash exists. Returns 1 if set, 0 if the user is gone."""
    user_hash = keys.credentials(uid) if credentials else keys.user(uid)
    return {"user_hash": user_hash}, [field, value]


@script()
def update_user_fields(*, uid, changes):
    """Set each field of keys.user(uid) in ``changes`` (a dict; a value "" removes the
    field) while the hash exists and has no keys.LEAVING_FIELD. Returns 0 if nothing
    changed for that reason, else the fields' former values in order ("" for unset)."""
    args = [keys.LEAVING_FIELD]
    for field, value in changes.items():
        args += [field, value]
    return {"user": keys.user(uid)}, args


@script()
def save_session(*, session_key, uid, data, ttl_seconds, must_create, now_ms):
    """Write keys.session(session_key) (SET NX with ``must_create``, else XX) and list it
    in keys.user_sessions(uid), dropping the ones expired. Returns 1 if written, 0 if
    NX or XX refused it."""
    return {
        "session": keys.session(session_key),
        "user_sessions": keys.user_sessions(uid),
    }, [data, int(ttl_seconds), "NX" if must_create else "XX", session_key, now_ms]


@script()
def suggestions_cached(*, uid):
    """uid's cached who-to-follow list (keys.suggestions) and the positions of its
    entries uid has not followed, blocked, muted or been blocked by since (keys.
    following, keys.blocks, keys.blocked_by, keys.mutes). Returns None if nothing is
    cached, else [the JSON, position, ...]."""
    return {
        "suggestions": keys.suggestions(uid),
        "following": keys.following(uid),
        "blocks": keys.blocks(uid),
        "blocked_by": keys.blocked_by(uid),
        "mutes": keys.mutes(uid),
    }, []


# --- search and trends (search.py, trends.py) ----------------------------------------------


@script()
def search_people(*, first_character, tiers, low, high, candidates, need):
    """The ids in the lex range [low, high] of the people index for ``first_character``
    in each of ``tiers`` (keys.people_index; limits.SEARCH_TIERS), read from the highest
    tier down until they hold ``need`` people (0: all tiers), at most ``candidates`` a
    tier. Returns [matches per tier..., the lowest tier read, uid, ...]."""
    return {
        "people_index": [keys.people_index(first_character, tier) for tier in tiers],
    }, [low, high, candidates, need or 2**31]


@script()
def search_tags(*, low, high, candidates, offset, count):
    """One page (``offset``, ``count``) of the tags in the lex range [low, high] of
    keys.TAG_NAMES (at most ``candidates`` read), most recently used first (keys.
    TAG_USES). Returns [candidates read, tag, last use, ...]."""
    return {"TAG_NAMES": keys.TAG_NAMES, "TAG_USES": keys.TAG_USES}, [
        low, high, candidates, offset, count,
    ]  # fmt: skip


@script()
def search_statuses(*, shard, blocks, words, before, count):
    """Up to ``count`` ids, newest first and below ``before`` (None: no bound), of the
    statuses of index shard ``shard`` in every keys.status_words SET of ``words`` (the
    intersection, from the rarest), reading ``blocks`` in the order given (newest
    first) until the page is full. Reads only."""
    return {
        "status_words": [
            keys.status_words(shard, block, word) for block in blocks for word in words
        ]
    }, [len(words), _id_or_blank(before), int(count)]


@script()
def store_trends(*, trends, peaks, forgotten):
    """Replace keys.TRENDS and keys.TREND_USES with ``trends`` ([(tag, score, uses)]),
    set ``peaks`` ({tag: "<score>:<ms>"}) in keys.TREND_PEAKS and forget the peaks of
    ``forgotten`` tags, in one step. Returns the number of trends."""
    args = [len(trends)]
    for tag, score, uses in trends:
        args += [tag, score, uses]
    args.append(len(peaks))
    for tag, peak in peaks.items():
        args += [tag, peak]
    args += forgotten
    return {
        "TRENDS": keys.TRENDS,
        "TREND_USES": keys.TREND_USES,
        "TREND_PEAKS": keys.TREND_PEAKS,
    }, args


# --- jobs, locks and throttles (jobs.py, locks.py, throttles.py) ---------------------------


@script()
def complete_job(*, job_id, followups_json, mail=False):
    """Queue ``followups_json`` (jobs as JSON texts) on keys.JOBS, acknowledge and delete
    job ``job_id``, forget its failures (keys.JOB_FAILURES) and count it completed
    (keys.JOBS_COMPLETED, once however many workers complete it). Returns the number of
    follow-ups queued. With ``mail``: the same on the mail queue (keys.MAIL, ...,
    keys.MAIL_SENT)."""
    if mail:
        return {"queue": keys.MAIL, "failures": keys.MAIL_FAILURES, "done": keys.MAIL_SENT}, [
            keys.MAIL_GROUP, job_id, *followups_json,
        ]  # fmt: skip
    return {"queue": keys.JOBS, "failures": keys.JOB_FAILURES, "done": keys.JOBS_COMPLETED}, [
        keys.JOBS_GROUP, job_id, *followups_json,
    ]  # fmt: skip


@script()
def fail_job(*, job_id, job_json, max_attempts, error, deliveries, mail=False):
    """Count a failed run of job ``job_id`` in keys.JOB_FAILURES; at ``max_attempts``
    move it from keys.JOBS to keys.DEAD_JOBS with ``error``. Returns the failed runs so
    far, 0 if dead-lettered now, -1 if the job is no longer queued. With ``mail``: the
    same on the mail queue (keys.MAIL, keys.DEAD_MAIL, keys.MAIL_FAILURES)."""
    if mail:
        return {
            "queue": keys.MAIL,
            "dead": keys.DEAD_MAIL,
            "failures": keys.MAIL_FAILURES,
        }, [keys.MAIL_GROUP, job_id, job_json, max_attempts, error, deliveries]
    return {
        "queue": keys.JOBS,
        "dead": keys.DEAD_JOBS,
        "failures": keys.JOB_FAILURES,
    }, [keys.JOBS_GROUP, job_id, job_json, max_attempts, error, deliveries]


@script()
def replay_dead(*, count, mail=False):
    """Move up to ``count`` jobs from keys.DEAD_JOBS back to keys.JOBS, oldest first
    (with ``mail``: from keys.DEAD_MAIL to keys.MAIL). Returns how many."""
    if mail:
        return {"dead": keys.DEAD_MAIL, "queue": keys.MAIL}, [count]
    return {"dead": keys.DEAD_JOBS, "queue": keys.JOBS}, [count]


@script()
def inbox_ids(*, uid, requests=False, before=None, after=None, count=21, oldest_first=False):
    """Read a page of ``uid``'s inbox (keys.direct_inbox; with ``requests``, of
    keys.direct_requests): up to ``count`` conversations below last activity ``before``
    and above ``after`` (ms; None: no bound), the newest of them (with
    ``oldest_first``: the oldest, in that order), the number of requests, and for each
    conversation listed the fields u, x, q, m and s of keys.direct_state. Returns [[cid,
    at, ...], requests waiting, [u, x, q, m, s of each cid, ...]]."""
    return {
        "conversations": keys.direct_requests(uid) if requests else keys.direct_inbox(uid),
        "requests": keys.direct_requests(uid),
        "state": keys.direct_state(uid),
    }, [
        "+inf" if before is None else f"({int(before)}",
        int(count),
        "-inf" if after is None else f"({int(after)}",
        1 if oldest_first else 0,
    ]


@script()
def inbox_row(*, cid, mid=0):
    """Read conversation ``cid``'s members (keys.conversation_members) and its message
    ``mid`` (keys.conversation_messages; 0: none). Returns [members, [] or [id, [field,
    value, ...]]]."""
    return {
        "conversation_members": keys.conversation_members(cid),
        "conversation_messages": keys.conversation_messages(cid),
    }, [int(mid)]


@script()
def release_lock(*, lock, token):
    """Delete the lock key ``lock`` (built by keys.py: keys.follow_lock, ...) if it still
    holds ``token``. Returns 1 if released, 0 if someone else holds it now."""
    return {"lock": lock}, [token]


@script()
def throttle(*, counter, now_ms, limit, window_ms, token, session_key=None, guard_key=None):
    """Count one use (``token``) on the throttle counter ``counter`` (keys.
    account_throttle, keys.address_throttle, keys.login_throttle) unless its window
    (``window_ms`` long) holds ``limit`` uses; with ``session_key``, only while
    keys.session(session_key) exists, with ``guard_key`` (a key in the counter's slot:
    keys.oauth_token) only while it exists. Returns [1 counted, 0 refused or -1 no
    session, the window's uses, its start in ms]."""
    script_keys = {"counter": counter}
    if session_key is not None:
        script_keys["guard"] = keys.session(session_key)
    elif guard_key is not None:
        script_keys["guard"] = guard_key
    return script_keys, [now_ms, int(limit), int(window_ms), token]


@script()
def hold_stream(*, server, process, processes, token, address, limit):
    """Count stream ``token`` of client ``address`` in process ``process``'s keys.
    stream_holders and keys.stream_address_counts (of stream server ``server``), unless
    the address holds ``limit`` streams over all ``processes`` processes' counts (0: no
    limit); the process's keys live limits.STREAM_ADDRESSES_TTL_MS. Returns [1 held or
    0 refused, the streams the address holds on the server]."""
    return {
        "stream_holders": keys.stream_holders(server, process),
        "stream_address_counts": keys.stream_address_counts(server, process),
        "other_processes_counts": [
            keys.stream_address_counts(server, other)
            for other in range(processes)
            if other != process
        ],
    }, [token, address, int(limit), STREAM_ADDRESSES_TTL_MS]


@script()
def release_stream(*, server, process, token):
    """Forget stream ``token`` in process ``process``'s keys.stream_holders and take it
    off its address's count in keys.stream_address_counts. Returns 1 if released, 0 if
    it was not counted."""
    return {
        "stream_holders": keys.stream_holders(server, process),
        "stream_address_counts": keys.stream_address_counts(server, process),
    }, [token]


@script()
def unthrottle(*, counter, start_ms, token):
    """Give back the use ``token`` counted on ``counter`` in the window that began at
    ``start_ms``, if that window still runs. Returns 1 if given back, else 0."""
    return {"counter": counter}, [start_ms, token]


# --- Groups (communities.py) ---------------------------------------------


@script()
def community_join(*, cid, uid, now_ms, approve=False):
    """``uid`` joins community ``cid`` (keys.community_members), or asks to join a
    private one (keys.community_requests) unless invited (keys.community_invites);
    ``approve``: an admin lets a requester in. Refused for a member of
    keys.community_banned, or a community suspended or deleted. Returns "joined",
    "requested", "member", "banned", "not_requested" or "missing"."""
    return {
        "community": keys.community(cid),
        "members": keys.community_members(cid),
        "banned": keys.community_banned(cid),
        "requests": keys.community_requests(cid),
        "invites": keys.community_invites(cid),
    }, [int(uid), int(now_ms), "approve" if approve else ""]


# --- polls (polls.py) ----------------------------------------------------


@script()
def poll_vote(*, sid, uid, choices, options, now_ms):
    """Count ``uid``'s vote, ``choices`` (option indexes), in status ``sid``'s poll of
    ``options`` options: noted in keys.poll_votes(sid) unless there already, and added
    to the tally (the ``poll`` field of keys.status_counts) in the same step, if the
    poll (keys.status's ``poll_expires``) has not ended at ``now_ms``. Returns 1 if
    counted, 0 if the voter had voted, -1 for no such poll, -2 for one ended."""
    return {
        "status": keys.status(sid),
        "poll_votes": keys.poll_votes(sid),
        "status_counts": keys.status_counts(sid),
    }, [int(uid), ",".join(str(int(choice)) for choice in choices), int(options), int(now_ms)]


# --- keyword filters (filters.py) ----------------------------------------------------------


@script()
def save_filter(*, uid, fid, filter_json, limit):
    """Create (``fid`` 0, unless uid has ``limit`` filters) or replace uid's filter
    ``fid`` in keys.filters(uid), the filter's id and its new keywords' ids (0 in
    ``filter_json``) from keys.filter_ids(uid). Returns ["saved", id], ["full", 0] or
    ["missing", 0]."""
    return {"filters": keys.filters(uid), "filter_ids": keys.filter_ids(uid)}, [
        int(fid),
        filter_json,
        int(limit),
    ]

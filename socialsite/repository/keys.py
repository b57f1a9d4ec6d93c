"""Every Redis key socialsite uses is built here, and nowhere else.

Key names follow the book (chapter 8 of *Redis in Action*): ``user:<id>``,
``status:<id>``, ``home:<id>``, ... with one addition: every key that belongs to a user
carries that user's *shard* as a hash tag: ``user:{s42}:1066`` is user 1066's hash in
shard 42 (1066 mod 64). Redis Cluster puts keys with the same hash tag in the same
slot, which gives us two things:
- one user's hash, timelines and follow lists share a slot, so a Lua script may
  change several of them atomically (no script or MULTI ever spans two slots);
- a fan-out batch of 1000 followers falls into at most USER_SHARDS slot groups, and
  each group is delivered by one script call instead of 1000 (fanout.deliver).
"""

from .ids import parse_id

# Counters that hand out ids. INCR makes ids unique and increasing: status ids are
# issued in posting order, which is why timelines can be scored by id.
USER_IDS = "user:id:"
STATUS_IDS = "status:id:"

# HASH: lowercased login -> user id. HSETNX on it decides who gets a login.
LOGINS = "users:"

# PUBSUB channel carrying posted and deleted statuses to the streaming servers.
STATUS_CHANNEL = "streaming:status:"
# PUBSUB channel carrying users' new unread notification counts, and their new direct
# messages with their unread conversations, to the streaming servers' live pages
# (published by the notification scripts, notifications.py, and direct_member.lua).
NOTIFICATION_CHANNEL = "streaming:notifications:"
# ZSET: the ids of the newest limits.RECENT_PUBLIC_STATUSES public statuses (not those
# posted while their author was private), each scored by the id itself: where the
# streaming API's clients catch up from (?since_id=, timelines.recent_public). Noted
# in posting's writes, before the status is published (events.queue_note_recent). A
# deleted status's id stays until trimmed: readers skip ids without a hash.
RECENT_PUBLIC_STATUSES = "streaming:recent:"

# How many shards users are spread over (see above). More shards spread a big cluster
# more evenly; fewer make fan-out batches bigger. It is part of every user key's name:
# changing it means moving the data, so it is a constant, not a setting.
USER_SHARDS = 64


def shard(uid):
    """The hash tag of user ``uid``'s keys."""
    return f"{{s{int(uid) % USER_SHARDS}}}"


def user(uid):
    """HASH: login, name, id, followers, following, posts, signup; and while they
    apply, SUSPENDED_FIELD, LEAVING_FIELD, MODERATOR_FIELD (below). Public fields only."""
    return f"user:{shard(uid)}:{uid}"


# SCAN pattern matching every ``user`` key (search.rebuild).
ALL_USERS_PATTERN = "user:{s*}:*"


def credentials(uid):
    """HASH: password (an Argon2 hash) and DEVICE_GENERATION_FIELD. Kept apart so the
    public hash never carries them."""
    return f"credentials:{shard(uid)}:{uid}"


# Field of the credentials hash: a random token every device cookie of the account
# names (devices.py); replaced to revoke them all. Absent until the first revocation:
# cookies then name "".
DEVICE_GENERATION_FIELD = "devices"


def home(uid):
    """SET of integers: ids of the statuses of the user and everyone they follow, and
    of reposts by those they follow (one entry per original: keys.home_reposts).

    Status ids grow with time, so the set's numeric order is the timeline's order.
    Redis keeps an all-integer set of up to set-max-intset-entries members as a sorted
    array of 4-byte integers (an intset): ~4 bytes per entry, and SADD is a binary
    search. Capped at HOME_TIMELINE_SIZE (+ slack, trimmed in batches).
    """
    return f"home:{shard(uid)}:{uid}"


def evicted_homes(uid):
    """ZSET, in user ``uid``'s slot (one per shard): the users of the shard whose home
    and list timelines were evicted (eviction.py), each scored 0; and, while a returning
    user's home is being rebuilt, ``r:<uid>`` scored by when that rebuild's hold ends
    (ms). deliver.lua skips a follower noted evicted; a page of theirs rebuilds first.
    The mark, not an absent home, says "evicted": Redis deletes an empty set, so a new
    or emptied home has no key either."""
    return f"evicted:{shard(uid)}"


def all_evicted_homes():
    """The evicted_homes key of every shard (counting, sweeping)."""
    return [f"evicted:{{s{index}}}" for index in range(USER_SHARDS)]


# STRING: set (NX EX) by the fan-out worker that sweeps evictions, for as long as the
# next sweep is not due (eviction.sweep_if_due).
EVICTION_SWEEP_DUE = "evicted:sweep-due"


def seen(uid):
    """ZSET, in user ``uid``'s slot (one per shard): the users of the shard, each scored
    by the day (its first second) they were last seen, written at most once a day each
    with ZADD GT on a round trip the request makes anyway (eviction.py)."""
    return f"seen:{shard(uid)}"


def all_seen():
    """The seen key of every shard (eviction's sweep)."""
    return [f"seen:{{s{index}}}" for index in range(USER_SHARDS)]


def homes_in_one_shard(uids):
    """``[home(uid) for uid in uids]`` for users of one shard, with the tag made once
    (a fan-out builds a million of these)."""
    tag = shard(uids[0])
    return [f"home:{tag}:{uid}" for uid in uids]


def home_reposts_in_one_shard(uids):
    """``[home_reposts(uid) for uid in uids]`` for users of one shard, with the tag made
    once (as homes_in_one_shard)."""
    tag = shard(uids[0])
    return [f"home-reposts:{tag}:{uid}" for uid in uids]


def profile(uid):
    """ZSET: ids of the statuses the user posted, scored by id."""
    return f"profile:{shard(uid)}:{uid}"


def followers(uid):
    """ZSET: ids of the users who follow ``uid``, scored by follow time (unique ms)."""
    return f"followers:{shard(uid)}:{uid}"


def following(uid):
    """ZSET: ids of the users ``uid`` follows, scored by follow time (unique ms)."""
    return f"following:{shard(uid)}:{uid}"


def unfollowed(uid, other_uid):
    """ZSET: users of ``uid``'s shard who stopped following ``other_uid`` lately.

    Members are user ids scored by the unfollow's time in ms; entries older than
    limits.UNFOLLOW_MEMORY_MS are dropped and the key expires after it. A fan-out
    batch reads its followers, then delivers: whoever unfollowed in between is
    listed here, in the same slot as their home timeline, so deliver.lua can skip
    them while touching one key per shard instead of every follower's list.
    """
    return f"unfollowed:{shard(uid)}:{other_uid}"


def same_shard_groups(uids):
    """``uids`` grouped by shard, each in its order: each group's keys share one
    cluster slot. The groups come by shard number."""
    groups = [[] for _ in range(USER_SHARDS)]
    # Each group's bound append, indexed by shard: a fan-out groups a million ids, and
    # this is four times quicker than a dict's setdefault per id.
    append_to = [group.append for group in groups]
    for uid in uids:
        append_to[uid % USER_SHARDS](uid)
    return [group for group in groups if group]


def follow_lock(uid):
    """STRING: held while ``uid`` follows or unfollows someone (see graph.py)."""
    return f"lock:follow:{shard(uid)}:{uid}"


def status(sid):
    """HASH: message, posted, id, uid, login, and optional fields: location; entities
    (the message's mentions, hashtags and links, packed as entities.pack makes them,
    left out when there are none and in statuses posted before there were entities)."""
    return f"status:{sid}"


def tag(normalized):
    """ZSET: ids of the newest limits.TAG_TIMELINE_SIZE statuses with the hashtag
    ``normalized`` (entities.normalize_tag), scored by id. The tag is its own hash tag
    (after "#", so that no tag shares its name with a user shard's {sN}): the key is in
    no author's slot, and any key a tag may add later can share its slot."""
    return f"tag:{{#{normalized}}}"


# SCAN pattern matching every ``tag`` key (search.rebuild).
ALL_TAGS_PATTERN = "tag:{#*}"


def tag_named_by(key):
    """The normalized hashtag whose ``tag`` key is ``key``: ``tag``'s inverse."""
    return key[len("tag:{#") : -1]


def deleted_statuses(uid):
    """ZSET: the ids of statuses deleted in the last limits.DELETED_NOTE_MS, scored by
    the time of deletion (ms), in user ``uid``'s slot. Every shard holds the same notes
    (all_deleted_statuses), so that home_page.lua can skip deleted ids within its own
    slot. The key expires when no status has been deleted for that long."""
    return f"deleted:{shard(uid)}"


def all_deleted_statuses():
    """The deleted_statuses key of every shard (a delete writes to each)."""
    return [f"deleted:{{s{index}}}" for index in range(USER_SHARDS)]


def unfinished_posts(uid):
    """HASH: status id -> JSON {author, upto, at} for each status of the users of
    ``uid``'s shard that is on its author's profile but whose fan-out is not yet queued
    in full. add_own_status.lua writes the entry in the same step as the profile, the
    posting request deletes it once the deferred job is queued, and the fan-out
    workers finish any left behind by a request that died (statuses.finish_unfinished)."""
    return f"unfinished:{shard(uid)}"


def all_unfinished_posts():
    """The unfinished_posts key of every shard."""
    return [f"unfinished:{{s{index}}}" for index in range(USER_SHARDS)]


def pulled_accounts(uid):
    """SET: the ids of the pulled accounts (fanout.py: statuses merged into their
    followers' pages at read time, not delivered), in user ``uid``'s slot. Every shard
    holds the same set (all_pulled_accounts), so that home_page.lua finds, in the
    reader's own slot, which of them the reader follows. An account is added before
    its first pulled status is written and is never taken out while it has one."""
    return f"pulled:{shard(uid)}"


def all_pulled_accounts():
    """The pulled_accounts key of every shard (registering an account writes to each)."""
    return [f"pulled:{{s{index}}}" for index in range(USER_SHARDS)]


def pulled_statuses(uid):
    """ZSET: the statuses ``uid`` posted while pulled (not delivered to followers), the
    newest HOME_TIMELINE_SIZE, scored by id; a member is the id, ``<id>:<uid>`` for a
    reply to another user ``uid`` (the reply rule is applied when read), or
    ``<id>:<orig>:<author>`` for a repost of ``orig`` by ``author`` (the dedupe rules
    of home timelines are applied when read)."""
    return f"pulled-statuses:{shard(uid)}:{uid}"


def pulled_copy(uid, author_uid):
    """ZSET: a copy of the newest PULLED_COPY_SIZE members of pulled_statuses(author_uid),
    in user ``uid``'s slot. Every shard holds one (all_pulled_copies), so that
    home_page.lua merges a page's pulled statuses in the reader's own slot, in the round
    trip that reads the page's ids. Kept small enough for Redis's compact encoding."""
    return f"pulled-copy:{shard(uid)}:{author_uid}"


def all_pulled_copies(author_uid):
    """The pulled_copy keys of ``author_uid`` in every shard (posting writes to each)."""
    return [f"pulled-copy:{{s{index}}}:{author_uid}" for index in range(USER_SHARDS)]


# Field of the user hash: the account's fan-out path (add_own_status.lua): absent
# (pushed), "ready" (pushed, registered in pulled_accounts) or "pulled".
FANOUT_PATH_FIELD = "fanout"


def posting_key(uid, key):
    """STRING: the status id posted by the form submission ``key`` of user ``uid``
    (limits.POSTING_KEY_SECONDS): the same form sent again posts nothing new."""
    return f"posting:{shard(uid)}:{uid}:{key}"


# STRING: held (SET NX PX) by the one fan-out worker sweeping unfinished posts.
UNFINISHED_SWEEP_LOCK = "unfinished:sweep-lock"


def session(session_key):
    """STRING: one Django session's signed data, expiring with the session.

    A logged-in session's key starts with its user's id ("42.k3j...":
    sessions.key_naming_user), and its data lives in that user's slot, so that the
    session and the user are read in one round trip even on a cluster.
    """
    uid = session_user_id(session_key)
    if uid is None:
        return f"session:{session_key}"
    return f"session:{shard(uid)}:{session_key}"


def session_user_id(session_key):
    """The user id a session key starts with ("42.k3j..." -> 42), or None."""
    head, dot, _ = session_key.partition(".")
    return parse_id(head) if dot else None


# STREAMs of deferred work (fan-out beyond the inline followers, cleanup after a
# delete, refill after an unfollow), read by the fan-out workers' consumer group.
# The shared hash tag keeps both in one slot, so a script can move a job from one
# to the other atomically.
JOBS = "fanout:{queue}:jobs"
DEAD_JOBS = "fanout:{queue}:dead"
# HASH: stream id of a queued job -> how many of its runs raised an error so far.
JOB_FAILURES = "fanout:{queue}:failures"
# STRING: how many jobs have been completed, ever (complete_job.lua): the metrics'
# fan-out throughput.
JOBS_COMPLETED = "fanout:{queue}:completed"
JOBS_GROUP = "fanout-workers"  # the consumer group's name (not a key)
# ZSET: fan-out worker name -> when it last went round its loop (ms since the epoch):
# which workers are alive (heartbeats.py), the same on every Redis version.
JOB_WORKERS_SEEN = "fanout:{queue}:workers"

# STREAM of mail to send (mail.py), read by the fan-out workers' group MAIL_GROUP, with
# its dead letters and failure counts: the same shape as the jobs above, in a slot of
# their own.
MAIL = "mail:{outbox}:queue"
DEAD_MAIL = "mail:{outbox}:dead"
MAIL_FAILURES = "mail:{outbox}:failures"
MAIL_SENT = "mail:{outbox}:sent"  # STRING: messages sent, ever
MAIL_GROUP = "mail-senders"  # the consumer group's name (not a key)
# ZSET: mail sender (a fan-out worker's mail thread) name -> when it last looked for
# mail (ms since the epoch), as JOB_WORKERS_SEEN.
MAIL_SENDERS_SEEN = "mail:{outbox}:senders"

# HASH: lowercased email address -> id of the account it is the address of. HSETNX on it
# decides who gets an address (emails.py).
EMAILS = "emails:"


# --- throttles (repository/throttles.py): one HASH per counter ----------------------
# Each holds ``start`` (ms, when its window began), ``count`` (uses counted in that
# window) and ``last`` (the token of the last use counted, so that a use sent again
# after a dropped connection is not counted twice); it expires when its window ends.


def account_throttle(uid, name):
    """HASH (start, count, last): user ``uid``'s uses of throttle ``name`` (statuses,
    follows, ...) in the present window, in the user's slot: a logged-in request can
    count it in the round trip that reads its session (throttles.AccountHitRead)."""
    return f"throttle:{shard(uid)}:{uid}:{name}"


def address_throttle(name, address):
    """HASH (start, count, last): uses of throttle ``name`` from one client address (an
    IPv4 address, or an IPv6 /64 network such as ``2001:db8:1:2::/64``)."""
    return f"throttle:address:{name}:{address}"


def login_throttle(name, login):
    """HASH (start, count, last): uses of throttle ``name`` against one attempted login
    name (lowercased), whatever the address: failed log-ins."""
    return f"throttle:login:{name}:{login}"


def device_throttle(name, uid, nonce):
    """HASH (start, count, last): uses of throttle ``name`` by one device cookie of user
    ``uid`` (its random ``nonce``): the failed log-ins of a browser that logged in to the
    account before (devices.py). In the user's slot."""
    return f"throttle:{shard(uid)}:{uid}:device:{nonce}:{name}"


# --- streams per client address (stream_addresses.py) ------------------------------
# One pair of keys per process of a stream server, all under the server's hash tag: a
# script reads every process's counts in one slot. They expire unless their process
# renews them (limits.STREAM_ADDRESSES_TTL_MS): a process that dies leaks nothing for long.


def stream_holders(server, process):
    """HASH: stream token -> client address, of the streams process ``process`` (0, 1,
    ...) of stream server ``server`` (a random name per ``manage.py stream``) holds."""
    return f"streaming:{{{server}}}:{process}:holders"


def stream_address_counts(server, process):
    """HASH: client address -> how many streams process ``process`` of stream server
    ``server`` holds for it (the holders of keys.stream_holders, counted by address)."""
    return f"streaming:{{{server}}}:{process}:addresses"


# --- blocks, mutes and private accounts (blocks.py, privacy.py, visibility.py) ----------
# Whether ``uid`` gets another user's statuses is decided from ``uid``'s own slot: each
# side of a block is written in its user's slot, and both block directions, mutes and
# the per-shard notes deliver.lua reads are in the slot of the one who does not get
# the statuses.


def blocks(uid):
    """ZSET: the users ``uid`` blocks, scored by the block's time in ms (unique per
    list, as follow scores, so that /settings/blocks/ pages by score)."""
    return f"blocks:{shard(uid)}:{uid}"


def blocked_by(uid):
    """ZSET: the users who block ``uid``, scored by the block's time in ms: the other
    side of ``blocks``, in ``uid``'s slot, where ``uid``'s follows are checked."""
    return f"blocked_by:{shard(uid)}:{uid}"


def mutes(uid):
    """ZSET: the users ``uid`` mutes, scored by when the mute was made, in ms (unique
    per list, for paging /settings/mutes/)."""
    return f"mutes:{shard(uid)}:{uid}"


def mute_ends(uid):
    """HASH: user id muted by ``uid`` -> when the mute ends, in ms; 0 for no end."""
    return f"mute_ends:{shard(uid)}:{uid}"


def hides(uid):
    """ZSET: the authors whose statuses ``uid`` does not get (blocked either way,
    muted), scored by when that ends, in ms: +inf for a block or a mute without end.
    Entries whose score has passed count for nothing (a mute that ended); the mute
    sweep removes them. home_page.lua reads it with every home page."""
    return f"hides:{shard(uid)}:{uid}"


def hiding(uid, author_uid):
    """ZSET: the users of ``uid``'s shard who do not get ``author_uid``'s statuses,
    scored as in ``hides``. The key exists only while someone in the shard hides the
    author: deliver.lua checks it once per shard group (as keys.unfollowed), and only
    then each follower."""
    return f"hiding:{shard(uid)}:{author_uid}"


def mute_endings(uid):
    """ZSET: "<muter>:<muted>" for each mute with an end of the users of ``uid``'s
    shard, scored by the end in ms: the fan-out workers' sweep (blocks.end_mutes)
    ends the mutes that are due and brings the muted statuses back."""
    return f"mute_endings:{shard(uid)}"


def all_mute_endings():
    """The mute_endings key of every shard."""
    return [f"mute_endings:{{s{index}}}" for index in range(USER_SHARDS)]


def follow_requests(uid):
    """ZSET: the users asking to follow the private account ``uid``, scored by the
    request's time in ms (unique per list, for paging /settings/requests/)."""
    return f"follow_requests:{shard(uid)}:{uid}"


# --- conversations: replies, threads and notifications ---------------------------------


def replies(sid):
    """ZSET: ids of the direct replies to status ``sid``, scored by id; its size is the
    status's reply count.

    Its hash tag is the status key's own name ("{status:42}:replies"), and a key without
    braces is hashed whole, so it shares the slot of ``status(sid)``: add_reply.lua can
    check that the status exists and count the reply in one step, and deleting the status
    deletes its replies list in the same DEL.
    """
    return f"{{status:{sid}}}:replies"


def removed_replies(sid):
    """SET: ids of replies to status ``sid`` that were deleted, in its slot (see
    replies). add_reply.lua refuses them, so a step that counts a reply late (a form sent
    again, the sweep of unfinished posts) cannot count a deleted one again. Deleted with
    the status."""
    return f"{{status:{sid}}}:removed-replies"


def profile_replies(uid):
    """ZSET: "<status id>:<replied-to user id>" for each reply among the user's newest
    limits.HOME_TIMELINE_SIZE statuses, scored by the status id. A follow's backfill and
    an unfollow's refill read it with the profile, to apply the home timeline's reply
    rule (a reply reaches a home only if its owner follows the person replied to, or is
    them) without reading the statuses' hashes."""
    return f"profile-replies:{shard(uid)}:{uid}"


def notifications(uid):
    """ZSET: the user's notifications, newest last. A member is one event,
    "<kind>:<actor id>:<status id>:<subject id>" (0 where there is none: a follow has
    neither), so writing it again changes nothing; scored by its time in ms, made unique
    and above the read mark (notifications.py). At most limits.NOTIFICATIONS_KEPT."""
    return f"notifications:{shard(uid)}:{uid}"


def hidden_actors(uid):
    """The keys in ``uid``'s slot holding the ids of users whose notifications ``uid``
    does not see (SETs or ZSETs of user ids): ``hides``, the users blocked either way or
    muted. notify.lua and unnotify.lua leave them out of the unread count, in the same
    step as every change; blocks.py has the count worked out again when they change."""
    return [hides(uid)]


def markers(uid):
    """HASH: the user's read markers (Mastodon's ``/api/v1/markers``): ``home_id``,
    ``home_version``, ``home_updated`` (ms) for the home timeline; ``notifications_updated``
    (ms) for the notifications, whose last read id is notifications_state's ``read``."""
    return f"markers:{shard(uid)}:{uid}"


def notifications_state(uid):
    """HASH: ``read``, the score of the newest notification the user has seen (the unread
    ones score above it), and ``version``, raised by every change of the user's
    notifications, so that a page can tell a newer unread count from an older one."""
    return f"notifications-state:{shard(uid)}:{uid}"


# --- moderation, suspension and leaving the site (moderation.py, leaving.py) -------------

# Fields of the user hash (keys.user) that hide or mark an account. Public: every read of
# a user hash sees them at no cost (a home page's authors, a session's user), and search
# can leave hidden accounts out by them.
SUSPENDED_FIELD = "suspended"  # time of the suspension, while suspended
LEAVING_FIELD = "leaving"  # time the account's deletion began, until the hash goes
MODERATOR_FIELD = "moderator"  # "1" for a moderator
# "verified" or "unverified": whether the account's address (kept in its credentials,
# never here) is verified; absent for an account without one. On the user hash so that
# every page knows it with the session's own read (emails.py).
EMAIL_STATE_FIELD = "email_state"
# Fields of the credentials hash: the account's address, as typed, and the one it is
# changing to, waiting for verification.
EMAIL_FIELD = "email"
PENDING_EMAIL_FIELD = "email_pending"

# --- profiles (profiles.py) -----------------------------------------------------------
# Fields of the user hash (keys.user) describing the account beyond its name, read with
# it wherever it is read (the profile page, lists of people, a page's authors) at no
# extra round trip. Pictures are storage names (media/files.py), never bytes.
AVATAR_FIELD = "avatar"  # the 400 x 400 avatar
AVATAR_SMALL_FIELD = "avatar_small"  # the 96 x 96 one, beside names in lists
HEADER_FIELD = "header"  # the header picture, at most 1500 x 500
HEADER_SIZE_FIELD = "header_size"  # its "WIDTHxHEIGHT"
BIO_FIELD = "bio"
BIO_ENTITIES_FIELD = "bio_entities"  # the bio's packed entities (entities.pack)
WEBSITE_FIELD = "website"
# The reader's time zone (an IANA name, "Europe/Paris"), in which the pages show times;
# absent for UTC, the default (profiles.set_time_zone). Read with the session's user.
TIME_ZONE_FIELD = "time_zone"
# The reader's theme ("light", "dark"; none: the system's), read with the session's user
# (no round trip of its own) and written as <html data-theme="...">.
THEME_FIELD = "theme"
# The reader's tuning of the Top timeline (ranking.Weights.pack: "1,1,1,0,0"; none: the
# defaults), and the tab their home opens with ("top"; none: Latest). Read with the
# session's user.
TOP_WEIGHTS_FIELD = "top_weights"
HOME_TAB_FIELD = "home_tab"
# The fields naming stored files: what a deletion or a replacement frees.
PICTURE_FIELDS = (AVATAR_FIELD, AVATAR_SMALL_FIELD, HEADER_FIELD)

# ZSET: storage names of pictures nothing shows any more (a deleted account's avatar and
# header, a deleted status's images), scored by when they were let go (ms): the app
# deletes their files and then the entries (media/pictures.py, delete_unused). A name
# listed twice is one entry.
UNUSED_PICTURES = "pictures:unused"

# Uploads not yet on a status (uploads.py, media/attachments.py): an image's files are
# stored only once it is listed here, in its uploader's shard, and the status that shows
# it takes it off in its own write; the fan-out workers delete what stays past
# MEDIA_PENDING_MAX_AGE. Each upload is named by its id, the random token of its
# original's storage name.


def pending_uploads_of_shard(index):
    """ZSET: ids of the uploads of users of shard ``index`` that no status shows yet,
    scored by when they were stored (ms): what the sweep reads, oldest first."""
    return f"uploads:pending:{{s{index}}}"


def pending_upload_items_of_shard(index):
    """HASH, beside pending_uploads_of_shard in its slot: upload id -> JSON {"u": the
    uploader's id, "m": the image as a status's media field keeps it}."""
    return f"uploads:items:{{s{index}}}"


def pending_uploads(uid):
    """pending_uploads_of_shard for user ``uid``'s shard."""
    return pending_uploads_of_shard(int(uid) % USER_SHARDS)


def pending_upload_items(uid):
    """pending_upload_items_of_shard for user ``uid``'s shard."""
    return pending_upload_items_of_shard(int(uid) % USER_SHARDS)


# Fields of a status hash (keys.status) for its images and content warning, written
# once with it. STATUS_MEDIA_FIELD: a compact JSON list, one object per image in order:
# "o" and "p" the storage names of the original and the preview, "w"/"h" and "pw"/"ph"
# their sizes, "a" the alt text, "c" the placeholder colour ("#rrggbb"), "b" the blurhash
# (absent from images kept before blurhashes were made). The repository
# keeps the string it is given and reads back only the names ("o", "p"), to free them.
STATUS_MEDIA_FIELD = "media"
STATUS_SENSITIVE_FIELD = "sensitive"  # "1" when the poster marked it sensitive
STATUS_SPOILER_FIELD = "spoiler"  # the content warning's text


def user_sessions(uid):
    """ZSET: the session keys of ``uid``'s logged-in sessions (sessions.key_naming_user),
    scored by when each expires (ms). Written in the same step as the session, in its
    slot (lua/save_session.lua), so that all of a user's sessions can be ended at once
    (sessions.end_all). Entries past their expiry are dropped as sessions are saved."""
    return f"sessions:{shard(uid)}:{uid}"


def posting_keys(uid):
    """ZSET: the form submission keys of ``uid``'s posting_key strings, scored by when
    each was claimed (ms), pruned past limits.POSTING_KEY_SECONDS: what deleting the
    account deletes (statuses.forget_posting_keys)."""
    return f"posting-keys:{shard(uid)}:{uid}"


def all_unfollowed_notes(other_uid):
    """The unfollowed key of every shard for ``other_uid`` (an account that leaves
    deletes them all once its followers are gone)."""
    return [f"unfollowed:{{s{index}}}:{other_uid}" for index in range(USER_SHARDS)]


# SET: the ids of the moderators (the user hash's MODERATOR_FIELD decides; this lists them).
MODERATORS = "moderators:"

# ZSET: the ids of the suspended accounts, scored by the suspension's time (ms). The
# stream servers read it (a few ids) to leave these authors' events out.
SUSPENDED = "suspended:"

# STRING: counter handing out report ids (INCR).
REPORT_IDS = "report:id:"


def report(rid):
    """HASH: id, reporter (uid), reporter_login, account (uid), login, reason, comment,
    statuses (comma-separated status ids), created (s), state (open, closed), and once
    closed: outcome, closed_by, closed_at. Expires limits.REPORT_KEEP_SECONDS after it
    is closed."""
    return f"report:{rid}"


# ZSET: the ids of the open reports, scored by id (newest first is highest first).
OPEN_REPORTS = "reports:open"


def reports_about(uid):
    """ZSET: the ids of the open reports about ``uid``, scored by id, so that
    suspending (or deleting) the account closes them all."""
    return f"reports:{shard(uid)}:{uid}"


# STREAM: the moderation audit log, one entry per action: action, by, by_id, target,
# target_id, status, report, reason. The entry id says when.
MODERATION_LOG = "moderation:log"

# ZSET: lowercased logins of deleted accounts, scored by when they are free again (s).
# Sign-up refuses a login while it is listed here with a time in the future.
RESERVED_LOGINS = "logins:reserved"


# --- who to follow and trending tags (suggestions.py, trends.py) -----------------------

# Field of the user hash: when the user last posted (ms), written with every post in
# posting's round trip. Who-to-follow's "most-followed active accounts" read it with
# the user hash they read anyway.
LAST_POSTED_FIELD = "last_posted"

# ZSET: the most-followed accounts, user id -> follower count, the top
# limits.MOST_FOLLOWED_KEPT. Set to the count a follow or unfollow leaves (ZADD of an
# absolute count: repeating it changes nothing). Global: no user's slot.
MOST_FOLLOWED = "people:most-followed"


def suggestions(uid):
    """STRING: ``uid``'s who-to-follow list as JSON, ``[[id, login, name, followers,
    private, followed_by], ...]`` best first, kept limits.SUGGESTIONS_CACHE_SECONDS. In
    the user's slot, so that lua/suggestions_cached.lua drops whoever the user follows,
    blocks, mutes or is blocked by since it was made, in the same read."""
    return f"suggestions:{shard(uid)}:{uid}"


def trend_users(tag, day):
    """HyperLogLog: the users who used hashtag ``tag`` (normalized) on UTC day ``day``
    (YYYYMMDD), counted at posting (PFADD). In the tag's own slot (keys.tag's hash tag),
    kept limits.TREND_DAYS_KEPT days."""
    return f"trend-users:{{#{tag}}}:{day}"


def trend_tags(day):
    """SET: the hashtags used on UTC day ``day`` (YYYYMMDD): which HyperLogLogs the
    trends' recompute counts. In the {trends} slot; kept two days."""
    return f"{{trends}}:tags:{day}"


# The trends (trends.py), all in the {trends} slot so that the recompute stores them in
# one step and a page reads them in one round trip:
# ZSET: the trending tags, tag -> decayed score, the best limits.TRENDS_KEPT.
TRENDS = "{trends}:list"
# HASH: tag -> distinct users today, for each tag of TRENDS, as of the recompute.
TREND_USES = "{trends}:uses"
# HASH: tag -> "<best score>:<when, ms>": each tag's peak score, forgotten after
# limits.TREND_PEAK_FORGOTTEN_MS.
TREND_PEAKS = "{trends}:peaks"
# SET: tags an operator hid from trends (manage.py trends hide).
HIDDEN_TRENDS = "{trends}:hidden"
# STRING: set (SET NX PX limits.TRENDS_RECOMPUTE_MS) by the fan-out worker that
# recomputes the trends; while it lives no other worker does.
TRENDS_RECOMPUTE_LOCK = "{trends}:recompute-lock"
# --- named lists (lists.py) -------------------------------------------------------------
# Every key of a list is in its owner's slot, so that a delivery to the owner's home
# (deliver.lua) reaches the owner's lists in the same step. Scripts build the per-list
# keys (listed, listing, list_timeline, list_members) from the owner's hash tag when the
# ids come from Redis itself, with the formats of lua/_keys.lua, which must build what
# these functions build (tests/test_repository_scripts.py checks it; decision 0045): the
# keys are in the slot of the key they start from by construction.


def list_ids(uid):
    """STRING: counter handing out ``uid``'s list ids (INCR): ids are per user, so a
    list is found only among its owner's (another user's id is simply not there)."""
    return f"list-ids:{shard(uid)}:{uid}"


def lists(uid):
    """HASH: list id -> name, of ``uid``'s lists (at most limits.LISTS_PER_USER)."""
    return f"lists:{shard(uid)}:{uid}"


def list_members(uid, lid):
    """ZSET: the users in ``uid``'s list ``lid``, scored by when they were added, in ms
    (unique per list, for paging). At most limits.LIST_MEMBERS."""
    return f"list-members:{shard(uid)}:{uid}:{lid}"


def list_timeline(uid, lid):
    """SET of integers: ids of the statuses of the members of ``uid``'s list ``lid``,
    as a home timeline (keys.home): capped at HOME_TIMELINE_SIZE (+ slack)."""
    return f"list:{shard(uid)}:{uid}:{lid}"


def listed(uid):
    """HASH: member id -> "<list id>,<list id>..." for each user in one of ``uid``'s
    lists: which lists a delivery of that member's status goes to."""
    return f"listed:{shard(uid)}:{uid}"


def listing(uid, author_uid):
    """SET: the users of ``uid``'s shard who have ``author_uid`` in one of their lists.
    The key exists only while someone in the shard does: deliver.lua checks it once
    per shard group (as keys.hiding), and only then each follower."""
    return f"listing:{shard(uid)}:{author_uid}"


# --- likes (likes.py) and a status's counts --------------------------------------------
# --- reposts (reposts.py) ----------------------------------------------------------------
# A repost is a status of its own (keys.status: id, uid, login, posted, and repost_of,
# repost_of_uid) with an id from STATUS_IDS, so that it sorts at the repost's time.


def status_counts(sid):
    """HASH: ``likes`` and ``reposts``, the status's like and repost counts, changed in
    the same step as keys.likes / keys.reposts (in the status's slot, as keys.replies).
    Apart from the status hash, which never changes once written."""
    return f"{{status:{sid}}}:counts"


# --- edits ---------------------------------------------------------------

STATUS_EDITED_FIELD = "edited"  # the status hash's and keys.status_counts': its last edit (ms)


def status_history(sid):
    """LIST: the earlier versions of status ``sid``, oldest first, each JSON (message,
    entities, spoiler, sensitive, media, ``at``: when it was written, ms), pushed by
    edit_status.lua; in the status's slot (as keys.replies), deleted with it."""
    return f"{{status:{sid}}}:history"


def likes(sid):
    """ZSET: the ids of the users who like status ``sid``, scored by the like's time in
    ms (unique per list, for paging /@login/<id>/likes/). In the status's slot (as
    keys.replies): status_count.lua checks that the status exists and counts the like in
    status_counts in the same step, and deleting the status deletes it in the same DEL."""
    return f"{{status:{sid}}}:likes"


def user_likes(uid):
    """ZSET: the ids of the statuses ``uid`` likes, scored by the like's time in ms
    (unique per list), in the user's slot: /@login/likes/, and whether a page shows
    "Like" or "Unlike" (one ZMSCORE with the page's ids). Written after keys.likes;
    entries naming a deleted status are skipped when read and taken out by the page
    that finds them (likes.liked_page)."""
    return f"likes:{shard(uid)}:{uid}"


# --- bookmarks -------------------------------------------------------------------


def bookmarks(uid):
    """ZSET: the ids of the statuses ``uid`` bookmarked, scored by when (ms, unique per
    list), in the user's slot: /bookmarks/ and GET /api/v1/bookmarks, private to them.
    Entries naming a deleted status are skipped when read and taken out by the page that
    finds them (bookmarks.bookmarks_page)."""
    return f"bookmarks:{shard(uid)}:{uid}"


def pinned(uid):
    """ZSET: the ids of the statuses ``uid`` pinned to their profile (at most
    pins.MAX_PINNED), scored by when (ms), in the user's slot beside keys.profile: the
    profile page reads it with its first page's ids. Entries naming a deleted status are
    skipped when read and taken out when the next pin finds them."""
    return f"pinned:{shard(uid)}:{uid}"


def tag_followers(normalized):
    """ZSET: the users who follow hashtag ``normalized``, scored by when (ms), in the tag's
    slot beside keys.tag (the tag page reads whether its reader follows it with its ids):
    followed_tags.py delivers the tag's public statuses to their homes."""
    return f"tag-followers:{{#{normalized}}}"


def followed_tags(uid):
    """ZSET: the hashtags ``uid`` follows (normalized), scored by when (ms, unique), in the
    user's slot: GET /api/v1/followed_tags. Written with keys.tag_followers."""
    return f"followed-tags:{shard(uid)}:{uid}"


def likes_changed(uid):
    """STRING: "1" for limits.COUNTS_TRUST_SECONDS after ``uid`` liked or unliked a
    status (it expires then). home_page.lua reads it: while it stands, the page reads
    its statuses' counts from Redis instead of trusting a process's memory of them, so
    the liker sees their own like counted whichever web process answers."""
    return f"likes-changed:{shard(uid)}:{uid}"


# --- search and autocomplete (search.py) ------------------------------------------------
# Indexes read by lexicographic range (ZRANGE ... BYLEX), the Redis documentation's
# secondary-indexing pattern: every member scores 0, so a ZSET keeps them in byte order
# and a prefix is one range. They belong to no user: each is in a slot of its own.


def people_index(first_character, tier=0):
    """ZSET, every score 0: "<term>\\x00<uid>" for each search term of each shown user
    whose term starts with ``first_character`` (search.person_terms: the lowercased
    login and every folded word of the display name) and who has at least ``tier``
    followers (limits.SEARCH_TIERS: tier 0 holds everyone; the higher tiers the same
    entries of the more followed, so that a prefix matching many people still reaches
    the most followed among them). One key per first character spreads the index over
    a cluster's slots; a prefix falls in one slot, all its tiers with it."""
    tail = f":{int(tier)}" if tier else ""
    return f"search:people:{{p:{first_character}}}{tail}"


# SCAN pattern matching every people_index key, all tiers.
ALL_PEOPLE_INDEX_PATTERN = "search:people:{p:*"

# ZSET, every score 0: "<folded tag>\x00<tag>" for each normalized hashtag in use
# (entities.normalize_tag; folded as search.fold: "réseau" is found by "rese"), for
# prefix ranges; and ZSET: the tags scored by the id of the newest status that used
# them (its recency). One hash tag: search_tags.lua reads both in one step.
TAG_NAMES = "search:{tags}:names"
TAG_USES = "search:{tags}:uses"


# --- full-text search of statuses (status_search.py) -----------------------------------
# The book's inverted index (chapter 7): one SET of status ids per normalized word, cut
# into STATUS_SEARCH_SHARDS shards by status id so that a cluster spreads it and every
# word of one status's shard shares a slot (a query intersects them in one script).

# How many shards the status index is cut into (sid mod this). Part of every index
# key's name: a constant, not a setting.
STATUS_SEARCH_SHARDS = 16


def status_search_shard(sid):
    """The shard of status ``sid`` in the status index."""
    return int(sid) % STATUS_SEARCH_SHARDS


# How many status ids a block of the index covers (2 ** this): a word's SET holds the
# statuses of one shard and one block, so that a shard's word has at most
# 2 ** STATUS_SEARCH_BLOCK_BITS / STATUS_SEARCH_SHARDS (4,096) statuses and stays an
# intset (set-max-intset-entries 2048) unless the word is in half of them; and a query
# reads the newest blocks first, stopping once it has a page.
STATUS_SEARCH_BLOCK_BITS = 16


def status_search_block(sid):
    """The block of status ``sid`` in the status index."""
    return int(sid) >> STATUS_SEARCH_BLOCK_BITS


def status_words(shard, block, word):
    """SET of integers: the ids of the statuses of index shard ``shard`` (status id mod
    STATUS_SEARCH_SHARDS) and block ``block`` (status id >> STATUS_SEARCH_BLOCK_BITS)
    whose text has the normalized ``word`` (status_index.words), or, for the
    operator's word ``has:media``, that have pictures. Only
    statuses status_index.indexable lets in."""
    return f"search:statuses:{{ss:{int(shard)}}}:{int(block)}:{word}"


def status_words_of(sid, word):
    """The status_words SET status ``sid`` is in under ``word``."""
    return status_words(status_search_shard(sid), status_search_block(sid), word)


# SCAN pattern matching every status hash (and the STATUS_IDS counter, which
# status_id_of leaves out): status_search.rebuild.
ALL_STATUSES_PATTERN = "status:*"


def status_id_of(key):
    """The status id of a ``status`` key, None for any other key."""
    head, _, tail = key.partition(":")
    return int(tail) if head == "status" and tail.isdigit() else None


# SCAN pattern matching every status_words key (status_search.rebuild).
ALL_STATUS_WORDS_PATTERN = "search:statuses:{ss:*"

# Field of the user hash: "1" when the user lets their public statuses be found by
# search (Mastodon's ``indexable``); absent or "" when not (the default).
INDEXABLE_FIELD = "indexable"


def reposts(sid):
    """ZSET: the users who reposted status ``sid``, scored by when (ms), in the status's
    slot (as keys.replies): status_count.lua changes it and the ``reposts`` count of
    keys.status_counts in one step, and refuses once the status hash is gone."""
    return f"{{status:{sid}}}:reposts"


def reposted(uid):
    """ZSET: original status id -> the id of ``uid``'s repost of it (the score), in the
    user's slot: finds the repost to undo, makes a second repost of the same status a
    no-op, and tells pages which statuses the user reposted (ZMSCORE)."""
    return f"reposted:{shard(uid)}:{uid}"


def profile_reposts(uid):
    """ZSET: "<repost id>:<original id>:<original's author>" for each of the user's
    newest limits.HOME_TIMELINE_SIZE reposts, scored by the repost id: what a follow's
    backfill, an unfollow and a refill read with the profile (as keys.profile_replies)
    to put a repost into a home timeline by the dedupe rules, or take it out."""
    return f"profile-reposts:{shard(uid)}:{uid}"


def home_reposts(uid):
    """HASH, only for home timelines that received reposts, in the home's slot:
    "<original id>" -> "<entry> <reposter>:<repost id> ..." (the id in keys.home that
    stands for the original: the original itself or one repost of it, then the
    followed reposters who bring it, first arrival first), and "r:<repost id>" ->
    "<original id>" for each of those reposts. A home shows an original once over all
    its entries (lua/_reposts.lua)."""
    return f"home-reposts:{shard(uid)}:{uid}"


def reposts_shown(uid, sid):
    """SET: the users of ``uid``'s shard whose home timeline holds status ``sid``
    through a repost (keys.home_reposts has a field for it). deliver.lua checks it once
    per shard group (as keys.hiding), and only when it exists each follower: a late
    delivery of the original adds no second entry. Expires limits.REPOSTS_SHOWN_NOTE_MS
    after its last change (fan-outs are long over)."""
    return f"reposts-shown:{shard(uid)}:{sid}"


# --- OAuth 2 (the client API's apps and their tokens: repository/oauth.py) -----------


def oauth_app(client_id):
    """HASH: a registered app: name, website, redirect_uris (one per line), scopes
    (space-separated), secret (sha256 of the client secret), created."""
    return f"oauth:app:{client_id}"


def oauth_code(code_digest):
    """HASH: an authorization code not yet exchanged (sha256 of the code): client_id,
    uid, redirect_uri, scopes, challenge, challenge_method, guard. Expires after
    limits.OAUTH_CODE_SECONDS; taken once."""
    return f"oauth:code:{code_digest}"


def oauth_spent_code(code_digest):
    """HASH: an authorization code exchanged (sha256 of the code): uid and token (the
    digest of the access token it gave), so that a second use revokes that token (RFC
    6749 4.1.2). Expires after limits.OAUTH_CODE_SECONDS, as the code would have."""
    return f"oauth:spent:{code_digest}"


def oauth_token(uid, token_digest):
    """HASH: an access token (sha256 of the token): uid ("" for an app's own token),
    client_id, scopes, created. In its user's slot (uid 0 for an app's own), so the
    token and its user are read together."""
    return f"oauth:token:{shard(uid)}:{token_digest}"


def oauth_user_tokens(uid):
    """HASH: the access tokens of user ``uid``: token digest -> client_id. What
    /settings/apps/ lists and a revocation of them all reads."""
    return f"oauth:tokens:{shard(uid)}:{uid}"


# --- direct messages (direct.py) ---------------------------------------------------------
# A conversation's own keys share one slot, its hash tag "{dm<id>}": sending appends the
# message and moves the conversation's last-message mark in one script. Each member's
# inbox, requests and unread counts are in that member's slot (their shard).

# STRING: INCR hands out conversation ids.
CONVERSATION_IDS = "dm:id:"
# Field of the user hash: who may start a conversation with the account (direct.py's
# MESSAGES_FROM); absent: the default.
MESSAGES_FROM_FIELD = "messages_from"


def conversation_tag(cid):
    """The hash tag of conversation ``cid``'s keys."""
    return f"{{dm{int(cid)}}}"


def conversation(cid):
    """HASH: id, created (ms), by (who started it), seq (the last message id handed
    out), last (the newest message's id), at (its time in ms), and for a conversation of
    two, pair ("<lower id>:<higher id>")."""
    return f"dm:{conversation_tag(cid)}:meta"


def conversation_members(cid):
    """ZSET: the ids of the conversation's members, scored by the time they joined
    (ms); a member who leaves is taken out."""
    return f"dm:{conversation_tag(cid)}:members"


def conversation_messages(cid):
    """STREAM: the conversation's messages, entry id "<message id>-0" (message ids
    count from 1 in each conversation), fields ``from`` (the sender's id), ``at`` (ms),
    ``text``, and ``e`` (packed entities, entities.pack) when there are any. Written
    once, whatever the number of members."""
    return f"dm:{conversation_tag(cid)}:messages"


def conversation_hidden(cid, uid):
    """SET: the ids of the conversation's messages member ``uid`` deleted for
    themselves."""
    return f"dm:{conversation_tag(cid)}:hidden:{uid}"


def conversation_sent(cid, uid, key):
    """STRING: the message id sent by the form submission ``key`` of member ``uid``
    (limits.POSTING_KEY_SECONDS): the same form sent again sends nothing new."""
    return f"dm:{conversation_tag(cid)}:sent:{uid}:{key}"


def conversation_pair(low_uid):
    """HASH: the higher id of a pair of users -> the id of the one conversation of the
    two (the lower id is ``low_uid``); HSETNX decides which conversation that is."""
    return f"dm-pair:{shard(low_uid)}:{low_uid}"


def conversation_started(uid, key):
    """STRING: the id of the conversation the form submission ``key`` of user ``uid``
    started (limits.POSTING_KEY_SECONDS): a group is started once per form."""
    return f"dm-start:{shard(uid)}:{uid}:{key}"


def direct_inbox(uid):
    """ZSET: the ids of the conversations in ``uid``'s inbox, scored by their last
    activity (ms)."""
    return f"dm-inbox:{shard(uid)}:{uid}"


def direct_requests(uid):
    """ZSET: the ids of the conversations waiting in ``uid``'s requests (started by
    people ``uid`` does not follow), scored by their last activity (ms)."""
    return f"dm-requests:{shard(uid)}:{uid}"


def direct_joined(uid):
    """ZSET: the ids of every conversation ``uid`` is a member of (inbox, requests and
    those cleared from both), scored by when it first reached them (ms): what their
    export and their account's deletion go through."""
    return f"dm-joined:{shard(uid)}:{uid}"


def direct_state(uid):
    """HASH: ``unread`` (how many inbox conversations, not muted, have unread
    messages: the badge), ``version`` (raised by each change) and per conversation
    <cid>: ``u<cid>`` (its unread messages), ``m<cid>`` (the newest message delivered),
    ``r<cid>`` (the newest read), ``x<cid>`` (messages up to it cleared: a request
    deleted, a group left), ``q<cid>`` ("1": muted)."""
    return f"dm-state:{shard(uid)}:{uid}"


# --- Groups: "communities" in code and keys, "groups" on pages, apart from a
# direct-message "group conversation" (direct.py). docs/decisions/0067. ---------------

# STRING: the counter handing out community ids (INCR).
COMMUNITY_IDS = "community:id:"
# HASH: lowercased slug -> community id. HSETNX on it decides who gets a slug.
COMMUNITY_SLUGS = "communities:slugs"
# ZSET: every live community's id -> when it last had a status (ms; its creation time
# before one): the directory of /groups/, most active first.
COMMUNITIES_ACTIVE = "communities:active"


def community_tag(cid):
    """The hash tag of community ``cid``'s keys: one slot holds the community, its
    members, admins, requests, invitations, bans, timeline and audit log, so a script
    may change several of them together."""
    return f"{{g{int(cid)}}}"


def community(cid):
    """HASH: id, slug, name, description, kind (public, private, announcement), owner,
    created (ms); ``suspended`` (ms) while site moderators suspend it; ``deleted`` (ms)
    once deleted."""
    return f"community:{community_tag(cid)}:{cid}"


def community_members(cid):
    """ZSET: the community's members (uid) -> when they joined (ms)."""
    return f"community-members:{community_tag(cid)}:{cid}"


def community_admins(cid):
    """ZSET: the community's admins (members too) -> since when (ms)."""
    return f"community-admins:{community_tag(cid)}:{cid}"


def community_requests(cid):
    """ZSET: people asking to join the private community -> when they asked (ms)."""
    return f"community-requests:{community_tag(cid)}:{cid}"


def community_invites(cid):
    """ZSET: people an admin invited -> when (ms); an invited person's join is let in
    at once."""
    return f"community-invites:{community_tag(cid)}:{cid}"


def community_banned(cid):
    """ZSET: people banned from the community -> when (ms): they cannot join again."""
    return f"community-banned:{community_tag(cid)}:{cid}"


def community_quiet(cid):
    """SET: members who switched the community's statuses out of their home timeline
    (``in_home`` off): the delivery skips them (the member's side:
    communities_out_of_home)."""
    return f"community-quiet:{community_tag(cid)}:{cid}"


def community_timeline(cid):
    """ZSET: the ids of the community's statuses, scored by id (a timeline like a
    profile's)."""
    return f"community-timeline:{community_tag(cid)}:{cid}"


def community_log(cid):
    """STREAM: the community's own audit log (action, by, target, status), capped."""
    return f"community-log:{community_tag(cid)}:{cid}"


def memberships(uid):
    """ZSET, in the user's slot: the communities ``uid`` belongs to -> when they joined
    (ms). What the one visibility path reads for a members-only status (visibility.py),
    with the viewer's other keys."""
    return f"communities:{shard(uid)}:{uid}"


# --- Pulled communities (communities.py, fanout.py): a community of FANOUT_PULL_FOLLOWERS
# members or more is merged into its members' home pages at read time, as a pulled
# account is. In the merge it is the pulled source ``-cid`` (a negative id: never a
# user's): its copies are pulled_copy(uid, -cid) in every shard. ----------------------


def pulled_communities(uid):
    """SET: the ids of the pulled communities, in user ``uid``'s slot. Every shard holds
    the same set (all_pulled_communities), so that home_page.lua finds, in the reader's
    own slot, which of them the reader belongs to. A community is added before its
    first pulled status is written and never taken out."""
    return f"pulled-communities:{shard(uid)}"


def all_pulled_communities():
    """The pulled_communities key of every shard (registering a community writes each)."""
    return [f"pulled-communities:{{s{index}}}" for index in range(USER_SHARDS)]


def community_pulled(cid):
    """ZSET: the statuses posted to community ``cid`` while pulled (delivered to
    nobody), the newest HOME_TIMELINE_SIZE, scored by id; a member is the id, or
    ``<id>:<uid>`` for a reply to another user ``uid`` (the reply rule is applied when
    read), as keys.pulled_statuses holds an account's."""
    return f"community-pulled:{community_tag(cid)}:{cid}"


def communities_out_of_home(uid):
    """SET, in the user's slot: the communities whose statuses ``uid`` keeps out of
    their home (``in_home`` off; community_quiet's other side): home_page.lua does not
    merge a pulled one's, a rebuilt home does not take them back."""
    return f"communities-out:{shard(uid)}:{uid}"


# Field of the community hash: "1" once the community is in pulled_communities.
COMMUNITY_PULLED_FIELD = "pulled"


# Fields of a status of a community (statuses.post_status): its community's id, and "1"
# when it was posted in a private community (members only; the status is also marked
# "private", so no public timeline, tag, trend or public stream carries it).
STATUS_COMMUNITY_FIELD = "community"
STATUS_MEMBERS_ONLY_FIELD = "members_only"
# --- the Top timeline (ranking.py, affinity.py) ---------------------------------------


def affinity(uid):
    """ZSET: how much ``uid`` turned to each author lately: ``<kind>:<author>`` (kind
    like, repost, reply, open) scored by a counter that decays with a half-life
    (affinity.py: each act adds its weight scaled up by the time since an epoch, so
    that older ones count less), the strongest affinity.KEPT kept. Written by the like,
    repost, reply and profile-open acts in the pipelines they already send; read by the
    first page of Top."""
    return f"affinity:{shard(uid)}:{uid}"


def top_snapshot(uid, token):
    """STRING: the ranking of ``uid``'s Top timeline made at ``token`` (ms), as JSON,
    for ranking.SNAPSHOT_SECONDS: the pages after the first read through it, so that
    none repeats or skips a status while scores move."""
    return f"top:{shard(uid)}:{uid}:{int(token)}"


# --- polls (polls.py) ---------------------------------------------------------------------


def poll_votes(sid):
    """HASH: voter id → the options they chose ("0,2"), of status ``sid``'s poll; in the
    status's slot with keys.status_counts, whose ``poll`` field is the tally
    ("<voters>,<votes of option 0>,..."), both written by poll_vote.lua. Who chose what
    is never shown: only the voter's own choices are read back to them."""
    return f"{{status:{sid}}}:poll-votes"


def poll_endings(uid):
    """ZSET: the ids of the polls of the statuses of ``uid``'s shard's authors, scored by
    the poll's end in ms: the fan-out workers' sweep (polls.end_due) notifies the author
    and the voters of each that has ended, once."""
    return f"poll_endings:{shard(uid)}"


def all_poll_endings():
    """The poll_endings key of every shard."""
    return [f"poll_endings:{{s{index}}}" for index in range(USER_SHARDS)]


# Fields of a status with a poll: ``poll``, JSON {"options": [...], "multiple": bool,
# "hide_totals": bool}, and ``poll_expires``, its end in ms (read by poll_vote.lua).
STATUS_POLL_FIELD = "poll"
STATUS_POLL_EXPIRES_FIELD = "poll_expires"
# Field of keys.status_counts: the poll's tally.
POLL_TALLY_FIELD = "poll"


# --- keyword filters (filters.py) -----------------------------------------------------------


def filters(uid):
    """HASH: filter id -> the filter as JSON (title, context, action, keywords with their
    ids and whole_word, expires in ms or 0), of ``uid``'s keyword filters (at most
    limits.FILTERS_PER_USER). Read with every logged-in page's session (filters.Read)."""
    return f"filters:{shard(uid)}:{uid}"


def filter_ids(uid):
    """STRING: counter handing out ``uid``'s filter and keyword ids (INCR): ids are per
    user, so another user's filter id names nothing among one's own."""
    return f"filter-ids:{shard(uid)}:{uid}"

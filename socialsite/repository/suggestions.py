"""Who to follow: people followed by the people a user follows, ranked by how many of
them follow each, then the most-followed active accounts.

Never the user, anyone they follow, have asked to follow, block, mute or are blocked
by, nor a suspended account or one being deleted.

The work is bounded whatever the graph (make): the user's SUGGESTION_FOLLOWS_SAMPLED
most recent follows are read, and each one's SUGGESTION_FOLLOWS_EACH most recent
follows: at most 5,000 ids, in one pipeline. Recent follows say most about what a user
wants now; a user following 5,000 people gets suggestions from the 50 they followed
last. Three round trips: the user's follows with the most-followed list; their follows;
then, for the best candidates, the user's follows, blocks and mutes (ZMSCORE, in the
user's slot) and each candidate's hash and whether the user asked to follow them (in
the candidate's slot).

"Most-followed": keys.MOST_FOLLOWED, set to the count each follow and unfollow leaves
(queue_followers_count, from graph.py). Two concurrent follows of one account may
store their counts in either order: the list may be one follow behind until the next
change, which is good enough to rank by. "Active": posted within ACTIVE_DAYS
(keys.LAST_POSTED_FIELD, written with each post).

Each user's list is cached SUGGESTIONS_CACHE_SECONDS (keys.suggestions, in their slot);
reading it (for_user) is one script call that also drops whoever the user followed,
blocked or muted, or was blocked by, since. A follow request drops the cache
(forget). A suspension shows in the list within the cache's life.
"""

import dataclasses
import json
import time
from collections import Counter

from . import keys, scripts, users
from .limits import (
    ACTIVE_DAYS,
    MOST_FOLLOWED_KEPT,
    SUGGESTION_CANDIDATES_FOF,
    SUGGESTION_CANDIDATES_POPULAR,
    SUGGESTION_FOLLOWS_EACH,
    SUGGESTION_FOLLOWS_SAMPLED,
    SUGGESTIONS_CACHE_SECONDS,
    SUGGESTIONS_KEPT,
    SUGGESTIONS_SHOWN,
)

# The most-followed list is read this far: people the user follows and friends of
# friends are skipped in it before SUGGESTION_CANDIDATES_POPULAR are taken.
MOST_FOLLOWED_READ = 100

_FIELDS = ["id", "login", "name", "followers", "private", keys.SUSPENDED_FIELD,
           keys.LEAVING_FIELD, keys.LAST_POSTED_FIELD, keys.AVATAR_SMALL_FIELD]  # fmt: skip


@dataclasses.dataclass(frozen=True)
class Suggestion:
    id: int
    login: str
    name: str
    followers: int
    private: bool
    followed_by: int  # how many of the people the user follows follow them (0: popular)
    avatar_small: str = ""  # the small avatar's storage name (keys.AVATAR_SMALL_FIELD)


def queue_followers_count(pipe, uid, count, follow):
    """Queue on ``pipe`` setting ``uid``'s place in the most-followed list to ``count``
    followers. ``follow``: after a follow (the account may enter the list); after an
    unfollow only an account already listed is updated (ZADD XX). The list is cut to its
    best MOST_FOLLOWED_KEPT."""
    pipe.zadd(keys.MOST_FOLLOWED, {int(uid): int(count)}, xx=not follow)
    if follow:
        pipe.zremrangebyrank(keys.MOST_FOLLOWED, 0, -MOST_FOLLOWED_KEPT - 1)


def note_followers_counts(r, counts):
    """Put the users of ``counts`` ({uid: followers}) in the most-followed list (bulk
    loading, a rebuild)."""
    if counts:
        pipe = r.pipeline(transaction=False)  # one key: one node
        pipe.zadd(keys.MOST_FOLLOWED, {int(uid): int(n) for uid, n in counts.items()})
        pipe.zremrangebyrank(keys.MOST_FOLLOWED, 0, -MOST_FOLLOWED_KEPT - 1)
        pipe.execute()


def _candidates(r, uid):
    """Friends of friends ranked ({id: how many followed follow them}) and most-followed
    ids, neither holding ``uid`` nor anyone among the follows read. Two round trips."""
    pipe = r.pipeline(transaction=False)
    pipe.zrevrange(keys.following(uid), 0, SUGGESTION_FOLLOWS_SAMPLED - 1)
    pipe.zrevrange(keys.MOST_FOLLOWED, 0, MOST_FOLLOWED_READ - 1)
    followed, popular = pipe.execute()
    known = {int(other) for other in followed} | {uid}
    counted = Counter()
    if followed:

        def read(pipe):
            for other in followed:
                pipe.zrevrange(keys.following(other), 0, SUGGESTION_FOLLOWS_EACH - 1)

        for their_follows in scripts.run_pipeline(r, read):
            counted.update(int(other) for other in their_follows)
    for other in known:
        counted.pop(other, None)
    # most_common: by count, then first seen (their most recent follows first).
    fof = dict(counted.most_common(SUGGESTION_CANDIDATES_FOF))
    most_followed = [int(other) for other in popular]
    most_followed = [other for other in most_followed if other not in known and other not in fof]
    return fof, most_followed[:SUGGESTION_CANDIDATES_POPULAR]


def make(r, uid, now=None):
    """Work out ``uid``'s suggestions, best first (up to SUGGESTIONS_KEPT), without the
    cache. Three round trips (two if the user follows nobody)."""
    uid = int(uid)
    now = time.time() if now is None else now
    fof, most_followed = _candidates(r, uid)
    candidates = [*fof, *most_followed]
    if not candidates:
        return []

    def check(pipe):
        for key in (keys.following(uid), keys.blocks(uid), keys.blocked_by(uid), keys.mutes(uid)):
            pipe.zmscore(key, candidates)
        for other in candidates:
            pipe.hmget(keys.user(other), _FIELDS)
            pipe.zscore(keys.follow_requests(other), uid)

    following, blocking, blocked_by, muting, *per_candidate = scripts.run_pipeline(r, check)
    active_since_ms = (now - ACTIVE_DAYS * 24 * 3600) * 1000
    chosen = []
    for n, other in enumerate(candidates):
        if following[n] is not None or blocking[n] is not None:
            continue
        if blocked_by[n] is not None or muting[n] is not None:
            continue
        fields, requested = per_candidate[2 * n], per_candidate[2 * n + 1]
        user = dict(zip(_FIELDS, fields, strict=True))
        if requested is not None or not user["login"] or users.is_hidden(user):
            continue
        followed_by = fof.get(other, 0)
        if not followed_by and float(user[keys.LAST_POSTED_FIELD] or 0) < active_since_ms:
            continue  # a most-followed account that has not posted lately
        chosen.append(
            Suggestion(
                other,
                user["login"],
                user["name"] or user["login"],
                int(user["followers"] or 0),
                user["private"] == "1",
                followed_by,
                user[keys.AVATAR_SMALL_FIELD] or "",
            )  # fmt: skip
        )
    chosen.sort(key=lambda s: (s.followed_by == 0, -s.followed_by, -s.followers, s.id))
    return chosen[:SUGGESTIONS_KEPT]


def _encode(suggestions):
    # Ids as strings: the script passes them to ZSCORE as they are.
    return json.dumps(
        [
            [str(s.id), s.login, s.name, s.followers, int(s.private), s.followed_by, s.avatar_small]
            for s in suggestions
        ]  # fmt: skip
    )


def _decode(entry):
    # A list cached without the avatar (six entries) reads as one without an avatar.
    uid, login, name, followers, private, followed_by, *avatar = entry
    return Suggestion(
        int(uid), login, name, int(followers), bool(private), int(followed_by), *avatar[:1]
    )


def for_user(r, uid, count=SUGGESTIONS_SHOWN, now=None):
    """Up to ``count`` suggestions for ``uid``, best first: from the cache, less whoever
    the user followed, blocked or muted or was blocked by since (one round trip), else
    made (make) and cached (four round trips more, once per SUGGESTIONS_CACHE_SECONDS)."""
    uid = int(uid)
    cache = keys.suggestions(uid)
    cached = scripts.suggestions_cached(r, uid=uid)
    if cached is not None:
        entries = json.loads(cached[0])
        return [_decode(entries[int(position) - 1]) for position in cached[1:]][:count]
    made = make(r, uid, now)
    r.set(cache, _encode(made), ex=SUGGESTIONS_CACHE_SECONDS)
    return made[:count]


def forget(r, uid):
    """Drop ``uid``'s cached suggestions (they asked to follow someone: the request is
    in the other's slot, where the cached read does not look)."""
    r.delete(keys.suggestions(uid))

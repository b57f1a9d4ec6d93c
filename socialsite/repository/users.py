"""Users: creating them, finding them by id or login, and their password hashes.

The password hash is stored by the caller already hashed (the repository never sees
a password): ``credentials:{uid}`` holds it, apart from the public ``user:{uid}``.

An account is *hidden* while suspended or while its deletion runs (keys.SUSPENDED_FIELD,
keys.LEAVING_FIELD on the user hash): its profile, statuses and name are shown nowhere.
Every read of a user hash sees those fields at no extra cost, which is how the pages,
the authors memory and the fan-out workers leave hidden accounts out (is_hidden).
"""

import time
from collections.abc import Iterable, Mapping
from typing import Any, cast

from ..memory import Memory
from . import keys, scripts, search
from .client import Client
from .records import User

# Authors' names on pages are remembered by each process this long (get_authors): a
# page of 30 statuses needs no read for authors it has shown lately. A new name
# (change_name, from the profile editor) shows within this long, on pages and live.
AUTHOR_CACHE_SECONDS = 60.0
AUTHOR_CACHE_SIZE = 50_000  # ~200 bytes each: ~10 MB per process at most

PUBLIC_FIELDS = ("id", "login", "name", "followers", "following", "posts", "signup")
COUNT_FIELDS = ("followers", "following", "posts")


def decode_user(data: Mapping[str, str] | None) -> User | None:
    """A user hash as a dict with its counts as ints; None for a missing user."""
    if not data:
        return None
    user: dict[str, Any] = dict(data)
    for field in COUNT_FIELDS:
        user[field] = int(user.get(field, 0))
    user["id"] = int(user["id"])
    user["signup"] = float(user["signup"])
    return cast(User, user)


def create_user(
    r: Client, login: str, name: str, password_hash: str, now: float | None = None
) -> int | None:
    """Create a user and return their id, or None if the login is taken (any case) or
    reserved (login_free_at: a deleted account's, for a while).

    1. INCR user:id: for a new id.
    2. Write user:{id} and credentials:{id} (one slot, one MULTI). Nothing points at
       them yet, so a crash here leaves only an unreachable pair of keys.
    3. HSETNX users: <lowercased login> <id>. This single command is the decision:
       of two sign-ups racing for one login, exactly one sets the field. In the same
       round trip, the user's entries in the search index (search.queue_add_person):
       readers drop entries whose user hash is gone, so a loser's are never shown.
    4. The winner checks that the login is not reserved. A deletion reserves the
       login before it frees it (release_login), so a sign-up that got it from a
       deletion sees the reservation: it gives the login back.
    5. The loser deletes the keys it wrote in step 2, and its index entries.
    """
    uid = r.incr(keys.USER_IDS)
    pipe = r.pipeline(transaction=True)
    pipe.hset(
        keys.user(uid),
        mapping={
            "id": uid,
            "login": login,
            "name": name,
            "followers": 0,
            "following": 0,
            "posts": 0,
            "signup": time.time(),
        },
    )
    pipe.hset(keys.credentials(uid), "password", password_hash)
    pipe.execute()
    pipe = r.pipeline(transaction=False)
    pipe.hsetnx(keys.LOGINS, login.lower(), uid)
    search.queue_add_person(pipe, uid, login, name)
    won = pipe.execute()[0]
    if won and login_free_at(r, login, now) is not None:
        scripts.release_login(r, login=login, uid=uid)
        won = False
    if not won:
        r.delete(keys.user(uid), keys.credentials(uid))  # one slot: one command
        pipe = r.pipeline(transaction=False)
        search.queue_remove_person(pipe, uid, login, name)
        pipe.execute()
        return None
    return uid


def login_free_at(r: Client, login: str, now: float | None = None) -> float | None:
    """When the login (any case) of a deleted account is free again (seconds since
    the epoch), or None if it is not reserved (any more)."""
    free_at = r.zscore(keys.RESERVED_LOGINS, login.lower())
    now = time.time() if now is None else now
    return free_at if free_at is not None and free_at > now else None


def reserve_login(r: Client, login: str, seconds: float, now: float | None = None) -> None:
    """Keep ``login`` from sign-ups for ``seconds`` (its account is being deleted);
    reservations that have run out are dropped meanwhile."""
    now = time.time() if now is None else now
    pipe = r.pipeline(transaction=False)  # one key: one node
    pipe.zadd(keys.RESERVED_LOGINS, {login.lower(): now + seconds})
    pipe.zremrangebyscore(keys.RESERVED_LOGINS, "-inf", now)
    pipe.execute()


def release_login(r: Client, login: str, uid: int) -> bool:
    """Let the login of ``uid`` name nobody (any more); whether it did until now."""
    return bool(scripts.release_login(r, login=login, uid=uid))


def get_user_id(r: Client, login: str) -> int | None:
    """The id of the user with this login (any case), or None."""
    uid = r.hget(keys.LOGINS, login.lower())
    return int(uid) if uid else None


def get_user_ids(r: Client, logins: Iterable[str]) -> dict[str, int]:
    """Ids of several logins (any case) in one round trip: {lowercased login: id}.

    Logins nobody has are left out.
    """
    wanted = list(dict.fromkeys(login.lower() for login in logins))
    if not wanted:
        return {}
    return user_ids_read(wanted, r.hmget(keys.LOGINS, wanted))


def queue_user_ids(pipe, lowercased_logins):
    """Queue get_user_ids's read on ``pipe``, for a caller that reads it along with
    other things; user_ids_read decodes its reply. ``lowercased_logins``: not empty."""
    pipe.hmget(keys.LOGINS, lowercased_logins)


def user_ids_read(lowercased_logins, reply):
    """get_user_ids's answer from the reply to queue_user_ids."""
    return {login: int(uid) for login, uid in zip(lowercased_logins, reply, strict=True) if uid}


def get_user(r: Client, uid: int | str) -> User | None:
    """The public hash of user ``uid`` as a dict, or None."""
    return decode_user(cast(dict[str, str], r.hgetall(keys.user(uid))))


def get_user_by_login(r: Client, login: str) -> User | None:
    """The public hash of the user with this login (any case), or None."""
    uid = get_user_id(r, login)
    return get_user(r, uid) if uid else None


def get_users(r: Client, uids: Iterable[int | str]) -> dict[int, User]:
    """Public hashes of several users in one round trip: {uid: user}, missing ones left out."""
    uids = list(dict.fromkeys(int(uid) for uid in uids))
    if not uids:
        return {}
    pipe = r.pipeline(transaction=False)
    for uid in uids:
        pipe.hgetall(keys.user(uid))
    users = (decode_user(data) for data in pipe.execute())
    return {user["id"]: user for user in users if user}


# What a published status event carries of its author (events.publish_posted), read with
# posting's own first round trip: the account as it was at posting time, so that a stream
# server makes the event's bytes once, without a read of its own.
EVENT_AUTHOR_FIELDS = ("login", "name", "followers", "following", "posts", "signup")


def event_author(uid, values, posts_added=0):
    """The author of a status event: {id, login, name, followers, following, posts,
    signup} from the values of an HMGET of EVENT_AUTHOR_FIELDS on the user's hash, with
    ``posts_added`` counted (the status being posted, which its writes count next);
    None for a user without a login (none). A status's own fields stay as stored: this
    travels with its event only."""
    login, name, followers, following, posts, signup = values
    if not login:
        return None
    return {
        "id": int(uid),
        "login": login,
        "name": name or login,
        "followers": int(followers or 0),
        "following": int(following or 0),
        "posts": int(posts or 0) + posts_added,
        "signup": float(signup or 0),
    }


def is_hidden(user: User) -> bool:
    """Whether the account of the user dict ``user`` is shown nowhere: suspended, or
    being deleted."""
    return bool(user.get(keys.SUSPENDED_FIELD) or user.get(keys.LEAVING_FIELD))


def is_suspended(user: User) -> bool:
    return bool(user.get(keys.SUSPENDED_FIELD))


# {uid: {id, login, name}, or None for a hidden author} for get_authors.
_authors = Memory("authors", AUTHOR_CACHE_SIZE, ttl=AUTHOR_CACHE_SECONDS)


def get_authors(r: Client, uids: Iterable[int]) -> dict[int, User | None]:
    """{uid: {id, login, name}} for showing statuses: what get_users would give, from
    this process's recent reads where it can; missing users are left out, and a
    hidden author (is_hidden: suspended, or being deleted) maps to None.

    The home page shows 30 statuses by a few dozen authors, the same ones page after
    page: remembering them spares a round trip and 30 hashes on most pages. The dicts
    are shared: callers must not change them. Hidden authors are remembered as None
    like the others, so a page leaves their statuses out (timelines) without asking
    again; a suspension therefore shows within AUTHOR_CACHE_SECONDS in other
    processes, at once in the one that made it (forget_author).
    """
    uids = list(dict.fromkeys(int(uid) for uid in uids))
    found = _authors.get_many(uids)
    if len(found) < len(uids):
        missing = [uid for uid in uids if uid not in found]
        read = {uid: _author(uid, user) for uid, user in get_users(r, missing).items()}
        _authors.put_many(read)
        found.update(read)
    return found


def _author(uid, user):
    """What get_authors keeps of a user hash: None for a hidden account; else id, login
    and name, its counts and sign-up time, ``private`` (True) for a private account, so
    that a page can leave out what reached it through a repost of a status that is no
    longer public, and the small avatar's storage name when there is one
    (keys.AVATAR_SMALL_FIELD)."""
    if is_hidden(user):
        return None
    author = {"id": uid, "login": user["login"], "name": user["name"]}
    # The client API's Account of a status's author says these too (api/entities.py):
    # as true as the page's names, within AUTHOR_CACHE_SECONDS.
    for name in (*COUNT_FIELDS, "signup"):
        if name in user:
            author[name] = user[name]
    if user.get("private") == "1":
        author["private"] = True
    if user.get(keys.AVATAR_SMALL_FIELD):
        author[keys.AVATAR_SMALL_FIELD] = user[keys.AVATAR_SMALL_FIELD]
    return author


def site_counts(r: Client) -> tuple[int, int]:
    """(accounts, statuses) of the site, in one round trip: the logins taken (deleted
    accounts' are freed) and the status ids handed out (deleted statuses included)."""
    pipe = r.pipeline(transaction=False)
    pipe.hlen(keys.LOGINS)
    pipe.get(keys.STATUS_IDS)
    accounts, status_ids = pipe.execute()
    return int(accounts or 0), int(status_ids or 0)


def remembered_authors(uids):
    """What get_authors would give for ``uids`` from this process's memory alone,
    without asking Redis: for the stream server's event loop, which must not wait on
    Redis for authors it has just shown."""
    return _authors.get_many(int(uid) for uid in uids)


def forget_author(uid: int) -> None:
    """Make this process read ``uid``'s hash again the next time it shows them (after
    a suspension or its end: this process shows it at once, the others within
    AUTHOR_CACHE_SECONDS)."""
    _authors.forget(int(uid))


def flag(r: Client, uid: int, field: str, value: str) -> bool:
    """Set ``field`` of ``uid``'s hash to ``value`` unless it is set already, or with
    value "" remove it; nothing if the user is gone. Whether it changed (flag_user.lua)."""
    return bool(scripts.flag_user(r, uid=uid, field=field, value=value))


def change_name(r: Client, uid: int, name: str) -> bool:
    """Give user ``uid`` the display name ``name`` (checked as sign-up checks it:
    accounts.display_names), in their hash and in the search index together
    (search.rename); shown at once by this process, within AUTHOR_CACHE_SECONDS by the
    others. False if there is no such user."""
    user = get_user(r, uid)
    if user is None:
        return False
    changed = search.rename(r, user, name)
    forget_author(uid)
    return changed


def get_user_and_password_hash(r, uid):
    """(public user dict, password hash) in one round trip; (None, None) if missing.

    Both keys carry the hash tag {uid}, so even on a cluster this is one node.
    """
    pipe = r.pipeline(transaction=False)
    queue_user_and_password_hash(pipe, uid)
    data, password_hash = pipe.execute()
    user = decode_user(data)
    if user is None:
        return None, None
    return user, password_hash


def queue_user_and_password_hash(pipe, uid):
    """Queue the two reads of get_user_and_password_hash on ``pipe`` (their replies:
    the raw user hash, for decode_user, then the password hash)."""
    pipe.hgetall(keys.user(uid))
    pipe.hget(keys.credentials(uid), "password")


def get_password_hash(r, uid):
    return r.hget(keys.credentials(uid), "password")


def set_password_hash(r: Client, uid: int, password_hash: str) -> None:
    r.hset(keys.credentials(uid), "password", password_hash)

"""The Lua scripts in ``lua/``, each wrapped in a Python function.

Scripts are called by SHA (EVALSHA) so the script text crosses the network once per
server, not once per call. A server that has not seen a script yet (first use, or a
restart) answers NOSCRIPT; we then load every script on every primary and try again.
Retrying is safe because every script here is idempotent.
"""

import hashlib
from pathlib import Path

from redis.exceptions import NoScriptError

from . import client

LUA_DIR = Path(__file__).parent / "lua"


class Script:
    def __init__(self, name, preludes=()):
        """Load lua/<name>.lua, after the shared lua/_<prelude>.lua files it uses."""
        self.name = name
        parts = [(LUA_DIR / f"_{prelude}.lua").read_text() for prelude in preludes]
        self.text = "".join([*parts, (LUA_DIR / f"{name}.lua").read_text()])
        # SHA-1 because that is how Redis names scripts, not for security.
        self.sha = hashlib.sha1(self.text.encode(), usedforsecurity=False).hexdigest()

    def __call__(self, r, keys, args):
        """Run the script now and return its result."""
        try:
            return r.evalsha(self.sha, len(keys), *keys, *args)
        except NoScriptError:
            load_all(r)
            return r.evalsha(self.sha, len(keys), *keys, *args)

    def queue(self, pipe, keys, args):
        """Add a call of the script to a pipeline, or to run_pipeline's batch."""
        # execute_command rather than pipe.evalsha: redis-py refuses the evalsha
        # method on cluster pipelines, but routes a raw EVALSHA by its first key.
        pipe.execute_command("EVALSHA", self.sha, len(keys), *keys, *args)


ADD_EDGE = Script("add_edge")
REMOVE_EDGE = Script("remove_edge")
UNFOLLOW = Script("unfollow", preludes=["home", "reposts"])
BACKFILL = Script("backfill", preludes=["home", "reposts"])
DELIVER = Script("deliver", preludes=["home", "lists"])
ADD_OWN_STATUS = Script("add_own_status", preludes=["home"])
REMOVE_OWN_STATUS = Script("remove_own_status")
RELEASE_LOCK = Script("release_lock")
HOME_PAGE = Script("home_page")
DELIVER_REPOST = Script("deliver_repost", preludes=["home", "reposts"])
REMOVE_REPOST = Script("remove_repost", preludes=["home", "reposts"])
TAKE_OUT = Script("take_out", preludes=["home", "reposts"])
# Likes and reposts counted in the status's slot (likes.py, reposts.py).
STATUS_COUNT = Script("status_count")
ADD_REPOST = Script("add_repost")
REMOVE_OWN_REPOST = Script("remove_own_repost")
COMPLETE_JOB = Script("complete_job")
FAIL_JOB = Script("fail_job")
REPLAY_DEAD = Script("replay_dead")
THROTTLE = Script("throttle")
UNTHROTTLE = Script("unthrottle")
# Streams per client address over a stream server's processes (stream_addresses.py).
HOLD_STREAM = Script("hold_stream")
RELEASE_STREAM = Script("release_stream")
FOLLOW_CHECK = Script("follow_check", preludes=["hide"])
SET_BLOCK = Script("set_block", preludes=["hide"])
SET_MUTE = Script("set_mute", preludes=["hide"])
ADD_REPLY = Script("add_reply")
REMOVE_REPLY = Script("remove_reply")
NOTIFY = Script("notify", preludes=["notifications"])
UNNOTIFY = Script("unnotify", preludes=["notifications"])
SAVE_SESSION = Script("save_session")
FLAG_USER = Script("flag_user")
RELEASE_LOGIN = Script("release_login")
STORE_TRENDS = Script("store_trends")
SUGGESTIONS_CACHED = Script("suggestions_cached")
# Named lists (lists.py).
CREATE_LIST = Script("create_list")
RENAME_LIST = Script("rename_list")
DELETE_LIST = Script("delete_list", preludes=["home", "lists"])
LIST_MEMBER = Script("list_member", preludes=["home", "lists"])
LIST_FILL = Script("list_fill", preludes=["home", "lists"])
LIST_FORGET = Script("list_forget", preludes=["home", "lists"])
LIST_REMOVE_STATUS = Script("list_remove_status", preludes=["home", "lists"])
MARK_LIKE = Script("mark_like")
SEARCH_TAGS = Script("search_tags")
SEARCH_PEOPLE = Script("search_people")
SET_USER_FIELD = Script("set_user_field")

ALL = [
    ADD_EDGE,
    REMOVE_EDGE,
    UNFOLLOW,
    BACKFILL,
    DELIVER,
    ADD_OWN_STATUS,
    REMOVE_OWN_STATUS,
    RELEASE_LOCK,
    HOME_PAGE,
    COMPLETE_JOB,
    FAIL_JOB,
    REPLAY_DEAD,
    THROTTLE,
    UNTHROTTLE,
    HOLD_STREAM,
    RELEASE_STREAM,
    FOLLOW_CHECK,
    SET_BLOCK,
    SET_MUTE,
    ADD_REPLY,
    REMOVE_REPLY,
    NOTIFY,
    UNNOTIFY,
    SAVE_SESSION,
    FLAG_USER,
    RELEASE_LOGIN,
    STORE_TRENDS,
    SUGGESTIONS_CACHED,
    CREATE_LIST,
    RENAME_LIST,
    DELETE_LIST,
    LIST_MEMBER,
    LIST_FILL,
    LIST_FORGET,
    LIST_REMOVE_STATUS,
    MARK_LIKE,
    SEARCH_TAGS,
    SEARCH_PEOPLE,
    SET_USER_FIELD,
    DELIVER_REPOST,
    REMOVE_REPOST,
    TAKE_OUT,
    STATUS_COUNT,
    ADD_REPOST,
    REMOVE_OWN_REPOST,
]


def load_all(r):
    """SCRIPT LOAD every script (on every primary, for a cluster client)."""
    for script in ALL:
        r.script_load(script.text)


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

"""The book's own fan-out, for comparison only: listings 8.2, 8.6 and 8.7 of *Redis in
Action* (create_status, post_status, syndicate_status), with chapter 6's
``execute_later`` reduced to what it does with no delay (RPUSH a task on a list that
a worker pops).

Deliberately not socialsite's code: it keeps the book's layout (home timelines as
ZSETs of status id -> post time, trimmed with ZREMRANGEBYRANK after every ZADD) and
its algorithm (1000 followers per pass, each pass queueing the next). Its keys start
with "book:" so they never meet socialsite's. Pass a client that decodes responses.
"""

import json
import time

HOME_TIMELINE_SIZE = 1000
POSTS_PER_PASS = 1000
QUEUE = "book:queue:default"


def key(name, ident):
    return f"book:{name}:{ident}"


def create_status(conn, uid, message, **data):
    pipeline = conn.pipeline(True)
    pipeline.hget(key("user", uid), "login")
    pipeline.incr("book:status:id:")
    login, sid = pipeline.execute()
    if not login:
        return None
    data.update({"message": message, "posted": time.time(), "id": sid, "uid": uid,
                 "login": login})  # fmt: skip
    pipeline.hset(key("status", sid), mapping=data)
    pipeline.hincrby(key("user", uid), "posts")
    pipeline.execute()
    return sid


def post_status(conn, uid, message, **data):
    sid = create_status(conn, uid, message, **data)
    if not sid:
        return None
    posted = conn.hget(key("status", sid), "posted")
    if not posted:
        return None
    post = {str(sid): float(posted)}
    conn.zadd(key("profile", uid), post)
    syndicate_status(conn, uid, post)
    return sid


def syndicate_status(conn, uid, post, start=0):
    followers = conn.zrangebyscore(
        key("followers", uid), start, "inf", start=0, num=POSTS_PER_PASS, withscores=True
    )
    pipeline = conn.pipeline(False)
    for follower, start in followers:  # noqa: B007 - the book reuses start on purpose
        pipeline.zadd(key("home", follower), post)
        pipeline.zremrangebyrank(key("home", follower), 0, -HOME_TIMELINE_SIZE - 1)
    pipeline.execute()
    if len(followers) >= POSTS_PER_PASS:
        execute_later(conn, "syndicate_status", [uid, post, start])


def execute_later(conn, name, args):
    """Chapter 6's execute_later with no delay: queue the task for a worker."""
    conn.rpush(QUEUE, json.dumps([name, args]))


def work_until_idle(conn):
    """Chapter 6's worker loop, one worker: pop and run tasks until the queue is empty."""
    done = 0
    while task := conn.lpop(QUEUE):
        name, args = json.loads(task)
        assert name == "syndicate_status"
        syndicate_status(conn, *args)
        done += 1
    return done

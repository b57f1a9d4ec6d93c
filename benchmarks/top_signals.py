"""The two ways of knowing "liked by N people you follow" for the Top timeline, measured
side by side (docs/decisions/0068):

A. per-reader signals written at like time: a like by someone with F followers adds
   one to a counter of the status in each follower's own slot (an HINCRBY and an
   EXPIRE per follower, pipelined: what a fan-out of the like would cost);
B. read at page time: a first page of Top reads the newest LIKERS_READ likers of each
   of its candidates with likes (one pipeline) and intersects them with the reader's
   follows (what ranking.rank does).

Run: ``.venv/bin/python -m benchmarks.top_signals`` (a throwaway redis-server; a few
seconds). It prints, for A, the wall time and Redis CPU per like at several follower
counts, and for B, per ranked page at 200 and 800 candidates.
"""

import tempfile
import time
from pathlib import Path

from socialsite.repository import client, keys, ranking
from socialsite_dev.redis_servers import RedisServer


def redis_cpu(r):
    info = r.info("cpu")
    return float(info["used_cpu_user"]) + float(info["used_cpu_sys"])


def per_like(r, followers, likes=50):
    """(wall ms, Redis CPU ms) of writing one like's signals to ``followers`` homes."""
    cpu, started = redis_cpu(r), time.perf_counter()
    for sid in range(likes):

        def fill(pipe, sid=sid):
            for reader in range(followers):
                key = f"top-signals:{keys.shard(reader)}:{reader}"
                pipe.hincrby(key, sid, 1)
                pipe.expire(key, 172_800)

        client.round_trip(r, fill)
    wall = (time.perf_counter() - started) / likes * 1000
    return wall, (redis_cpu(r) - cpu) / likes * 1000


def per_page(r, candidates, liked_share=3, likers=30, pages=50):
    """(wall ms, Redis CPU ms) of reading the likers of a page's candidates and
    intersecting them with 300 follows."""
    following = set(range(300))
    with_likes = list(range(0, candidates, liked_share))
    pipe = r.pipeline(transaction=False)
    for sid in with_likes:
        pipe.zadd(keys.likes(sid), {uid * 7: uid for uid in range(likers)})
    pipe.execute()
    cpu, started = redis_cpu(r), time.perf_counter()
    for _ in range(pages):

        def fill(pipe):
            for sid in with_likes:
                pipe.zrevrange(keys.likes(sid), 0, ranking.LIKERS_READ - 1)

        replies = client.round_trip(r, fill)
        for found in replies:
            sum(1 for liker in found if int(liker) in following)
    wall = (time.perf_counter() - started) / pages * 1000
    return wall, (redis_cpu(r) - cpu) / pages * 1000


def main():
    with tempfile.TemporaryDirectory(prefix="top-signals-") as workdir:
        server = RedisServer(Path(workdir)).start()
        try:
            r = client.connect(server.url, cluster=False)
            print("A. signals written at like time (per like):")
            for followers in (100, 1_000, 10_000):
                wall, cpu = per_like(r, followers, likes=20 if followers > 1000 else 50)
                print(f"  {followers:>6} followers: {wall:8.2f} ms wall, {cpu:8.3f} ms Redis CPU")
            print("B. likers read at page time (per first page of Top):")
            for candidates in (200, 800):
                wall, cpu = per_page(r, candidates)
                print(f"  {candidates:>6} candidates: {wall:8.2f} ms wall, {cpu:8.3f} ms Redis CPU")
        finally:
            server.stop()


if __name__ == "__main__":
    main()

"""The poster of ``manage.py bench_stream``: statuses posted at a steady rate from a
process of its own.

In the load generator's process, the poster's thread and the 10,000 clients' reading
share one interpreter lock: a post waits for the reading (and the reading for the
post) up to the interpreter's switch interval, 5 ms, and that wait lands in the
measured delays. Here it costs neither, and its CPU is counted apart.

Only the standard library is imported at the top: a spawned process imports this
module before it has set Django up.
"""

import random
import time

# The words statuses are made of and clients track: a small vocabulary, so that a
# tracked word turns up in a few percent of statuses, as a popular topic would.
VOCABULARY = """
    redis django python stream cluster timeline status follow post delete coffee
    morning release deploy review queue server client latency memory socket chunk
    filter sample track location paris london tokyo berlin lagos lima sydney toronto
    music football weather lunch train meeting holiday garden book film game news
    cat dog rain sun snow code test bug fix ship build cloud data model graph cache
    index query shard replica backup restart monitor alert metric log trace span
    green blue red quick slow happy tired busy early late today tomorrow weekend
""".split()
WORDS_PER_STATUS = 10
# Share of the statuses with a location, and share mentioning another poster.
LOCATED = 0.5
MENTIONING = 0.2


def status_text(rng, posters):
    """A status's message and location ("" for none), drawn from ``rng``."""
    words = rng.choices(VOCABULARY, k=WORDS_PER_STATUS)
    if rng.random() < MENTIONING:
        words.append("@" + posters[rng.choice(list(posters))])
    location = ""
    if rng.random() < LOCATED:
        location = f"{rng.uniform(-60, 60):.4f},{rng.uniform(-180, 180):.4f}"
    return " ".join(words), location


def run(pipe, url, cluster, posters, rate, seconds, warmup, seed):
    """The process's work: set Django up, say "ready" on ``pipe``, wait for "go", post
    ``rate`` statuses a second for ``seconds`` on a fixed schedule (a late post does not
    shift the ones after it), then send back (posted, post_times, cpu_seconds):
    ``posted`` each status's fields with ``warmup`` (posted in the first ``warmup``
    seconds), ``post_times`` {status id: time just before posting it} (the live pages'
    events carry no time), and the CPU this process used posting."""
    import django

    django.setup()
    from socialsite.repository import client as redis_client
    from socialsite.repository import statuses

    r = redis_client.connect(url, cluster=cluster)
    rng = random.Random(seed)
    uids = list(posters)
    posted, post_times = [], {}
    pipe.send("ready")
    pipe.recv()
    cpu_before = time.process_time()
    start = time.monotonic()
    for n in range(int(rate * seconds)):
        delay = start + n / rate - time.monotonic()
        if delay > 0:
            time.sleep(delay)
        uid = rng.choice(uids)
        message, location = status_text(rng, posters)
        before = time.time()
        sid = statuses.post_status(r, uid, message, location=location)
        post_times[sid] = before
        status = {"id": sid, "uid": uid, "login": posters[uid], "message": message}
        if location:
            status["location"] = location
        posted.append({**status, "warmup": n < rate * warmup})
    pipe.send((posted, post_times, time.process_time() - cpu_before))

"""What a process remembers between requests (statuses, authors, rendered markup, the
stream server's author names) is kept in plain dicts, bounded by make_room below.

A dict keeps its keys in the order they were first put in, so its first keys are its
oldest. Forgetting all of them when full, as these memories once did, threw the entries
still in use out with the rest: on a demo network, 2,000 readers' pages in random turn
rendered 4.52 statuses a page afresh that way and 3.23 forgetting the oldest quarter
(10,000 readers: 11.13 and 8.89; docs/bench_web.md, "Eighth session").
"""

import itertools


def make_room(memory, limit, adding=1):
    """Forget the oldest entries of the dict ``memory`` if ``adding`` more would take it
    past ``limit``: a quarter of ``limit`` at least, so that a full memory is trimmed once
    in many additions rather than at each.

    The memories are shared by a process's threads. Reading the oldest keys is one call
    into C (the GIL is held throughout); should another thread still change the dict
    meanwhile, everything is forgotten instead, which only costs misses.
    """
    excess = len(memory) + adding - limit
    if excess <= 0:
        return
    try:
        oldest = list(itertools.islice(memory, max(excess, limit // 4)))
    except RuntimeError:  # "dictionary changed size during iteration"
        memory.clear()
        return
    for key in oldest:
        memory.pop(key, None)

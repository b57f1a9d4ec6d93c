"""What a process remembers between requests: named, bounded memories.

Each memory is a Memory with a name, a size and an optional time to live, and one rule
for all of them:

- it holds at most ``size`` entries; when full, the entry least recently used (read or
  put) is forgotten first;
- with a ``ttl``, an entry is forgotten ``ttl`` seconds after it was put in, however
  often it is read (without one, only room forgets it).

The memories of a process (``memories()`` lists them by name; each module states the
size and time to live of its own next to it): "statuses" (repository/statuses.py),
"authors" (repository/users.py), "inbox messages" and "conversation members"
(repository/direct.py), "status markup", "conversation rows" and "page headers"
(timeline/jinja_helpers.py) and "blank forms" (socialsite/form_markup.py).

A process's threads share them (gunicorn's gthread workers; the stream server, which
reads through asyncio.to_thread), so every operation holds the memory's lock. A page
reads many entries of one memory at once: ``get_many`` and ``put_many`` take the lock
(and read the clock) once for all of them.

Every memory is a collections.OrderedDict kept in order of use: a read moves its key to
the end, and room is made by dropping from the front. Both are single calls into C, and
a home page makes about a hundred reads; cachetools' LRUCache, which keeps the same
order through Python-level methods, made the page measurably slower
(docs/decisions/0009). A memory with a ttl keeps each value with the time it expires,
and treats an expired entry as forgotten (and forgets it) when it is read.

``forget_all()`` empties every memory: after a FLUSHALL, when ids start again from 1,
what a process remembers of the old ones is wrong.

Not memories: functools.lru_cache on pure functions (reversing a URL pattern, a static
file's URL). What they keep depends on their arguments alone, is never stale, and needs
no clearing; their size bounds them.

No Django here: the repository uses this module.
"""

import threading
import time
import weakref
from collections import OrderedDict

_MISSING = object()

# Every live Memory by name; a memory that is garbage collected leaves it.
_registry = weakref.WeakValueDictionary()
_registry_lock = threading.Lock()


def _monotonic():
    # time.monotonic looked up at each call, so that a test can move every memory's
    # clock by patching it.
    return time.monotonic()


class Memory:
    """Keys and values a process keeps between requests, bounded and thread-safe.

    ``size``: entries at most, the least recently used forgotten first. ``ttl``:
    seconds an entry lives after it was put in (None: until room is needed).
    ``name``: how ``memories()`` lists it; two memories cannot share one.
    """

    __slots__ = ("name", "size", "ttl", "_cache", "_lock", "__weakref__")

    def __init__(self, name, size, ttl=None):
        self.name, self.size, self.ttl = name, size, ttl
        # {key: value}, or with a ttl {key: (value, monotonic time it expires)}; the
        # least recently used first.
        self._cache = OrderedDict()
        self._lock = threading.Lock()
        with _registry_lock:
            if _registry.get(name) is not None:
                raise ValueError(f"there is already a memory named {name!r}")
            _registry[name] = self

    def __repr__(self):
        ttl = "" if self.ttl is None else f", ttl={self.ttl:g}"
        return f"<Memory {self.name!r}: {len(self)} of {self.size}{ttl}>"

    def get(self, key, default=None):
        """The value remembered for ``key``, or ``default``."""
        return self.get_many((key,)).get(key, default)

    def get_many(self, keys):
        """{key: value} for those of ``keys`` that are remembered."""
        found = {}
        cache = self._cache
        read, used = cache.get, cache.move_to_end
        with self._lock:
            if self.ttl is None:
                for key in keys:
                    value = read(key, _MISSING)
                    if value is not _MISSING:
                        used(key)
                        found[key] = value
                return found
            now = _monotonic()
            for key in keys:
                entry = read(key)
                if entry is None:
                    continue
                if entry[1] > now:
                    used(key)
                    found[key] = entry[0]
                else:
                    del cache[key]
        return found

    def put(self, key, value):
        """Remember ``value`` for ``key`` (making room if full)."""
        self.put_many({key: value})

    def put_many(self, items):
        """Remember each (key, value) of the mapping ``items``."""
        cache = self._cache
        used = cache.move_to_end
        with self._lock:
            if self.ttl is None:
                for key, value in items.items():
                    cache[key] = value
                    used(key)
            else:
                expires = _monotonic() + self.ttl
                for key, value in items.items():
                    cache[key] = (value, expires)
                    used(key)
            while len(cache) > self.size:
                cache.popitem(last=False)

    def forget(self, key):
        """Forget ``key``, if remembered."""
        with self._lock:
            self._cache.pop(key, None)

    def clear(self):
        """Forget everything."""
        with self._lock:
            self._cache.clear()

    def __contains__(self, key):
        """Whether ``key`` is remembered (without counting as a use)."""
        with self._lock:
            if key not in self._cache:
                return False
            return self.ttl is None or self._cache[key][1] > _monotonic()

    def __len__(self):
        """How many entries the memory holds, the expired ones not yet forgotten too."""
        with self._lock:
            return len(self._cache)


def memories():
    """{name: Memory} of the process's memories."""
    with _registry_lock:
        return dict(_registry)


def forget_all():
    """Empty every memory of the process (after a FLUSHALL: ids may be used again)."""
    for memory in memories().values():
        memory.clear()

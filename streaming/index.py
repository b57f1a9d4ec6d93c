"""Which clients an event can match, found through indexes instead of a scan.

Running every client's filter on every event costs clients x events: at 10,000
clients and 100 posts a second, a million filter calls a second, more than a core.
Here each client is indexed, when it is added, under the keys its filter says an
event must have for it to match (filters.py, ``index_keys``): the authors it
follows, the logins whose mentions it wants, one word of each tracked phrase, the
cells of a grid that its location boxes cover, the sample buckets it keeps. An
event looks up its own keys (its author, its mentions, its words, its point's cell,
its bucket) and gets the clients that can match it; the full filter then confirms
each of those. So the index only narrows: the matches are exactly the scan's, and
the per-event cost grows with the candidates, not with all clients.

Adding or removing a client costs one set operation per key it is indexed under
(a live home page: its followed users and its groups). A filter whose keys change (a live page's
followed and hidden users, read again) is re-indexed by the difference.

Plain Python, no asyncio: the hub (hub.py) owns one ClientIndex and keeps it up to
date as clients come, go and change filters.
"""

from . import filters

# The kinds of keys, and how an event finds its own key of each kind.
KINDS = (
    filters.INDEX_EVERY,
    filters.INDEX_AUTHOR,
    filters.INDEX_MENTION,
    filters.INDEX_WORD,
    filters.INDEX_CELL,
    filters.INDEX_WIDE,
    filters.INDEX_BUCKET,
    filters.INDEX_COMMUNITY,
)


def keys_of(match):
    """``{kind: keys}`` of a filter: its ``index_keys()``, or EVERY for a filter that
    has none (checked on every event, as the scan would: correct, only slower)."""
    index_keys = getattr(match, "index_keys", None)
    if index_keys is None:
        return {filters.INDEX_EVERY: filters.ALWAYS}
    merged = {}
    for kind, keys in index_keys():
        if kind not in merged:
            merged[kind] = keys
        else:
            merged[kind] = frozenset(merged[kind]) | frozenset(keys)
    return merged


class ClientIndex:
    """The clients of a hub by the keys an event must have to match them."""

    def __init__(self):
        # {kind: {key: set of clients}}
        self.tables = {kind: {} for kind in KINDS}
        # {client: its {kind: keys}}, as indexed (to remove or re-index it exactly).
        self.indexed = {}

    def __len__(self):
        return len(self.indexed)

    def add(self, client):
        """Index ``client`` under its filter's keys."""
        keys = keys_of(client.match)
        self.indexed[client] = keys
        for kind, values in keys.items():
            table = self.tables[kind]
            for key in values:
                clients = table.get(key)
                if clients is None:
                    table[key] = {client}
                else:
                    clients.add(client)

    def remove(self, client):
        """Forget ``client``: nothing if it is not indexed."""
        keys = self.indexed.pop(client, None)
        if keys is None:
            return
        for kind, values in keys.items():
            self._unindex(self.tables[kind], values, client)

    def update(self, client):
        """Index ``client`` under its filter's keys now (the filter was replaced or
        changed): only the keys that differ are touched."""
        old = self.indexed.get(client)
        if old is None:
            return
        new = keys_of(client.match)
        self.indexed[client] = new
        for kind in old.keys() | new.keys():
            before, after = old.get(kind, ()), new.get(kind, ())
            if before is after:
                continue
            before = before if isinstance(before, (set, frozenset)) else frozenset(before)
            after = after if isinstance(after, (set, frozenset)) else frozenset(after)
            table = self.tables[kind]
            self._unindex(table, before - after, client)
            for key in after - before:
                table.setdefault(key, set()).add(client)

    @staticmethod
    def _unindex(table, values, client):
        for key in values:
            clients = table.get(key)
            if clients is not None:
                clients.discard(client)
                if not clients:
                    del table[key]

    def candidates(self, event):
        """The clients whose filter may match ``event`` (a StatusEvent): a superset
        of those that do, usually far smaller than all clients."""
        tables = self.tables
        found = set()
        every = tables[filters.INDEX_EVERY].get(None)
        if every:
            found.update(every)
        by_author = tables[filters.INDEX_AUTHOR].get(event.uid)
        if by_author:
            found.update(by_author)
        by_bucket = tables[filters.INDEX_BUCKET].get(filters.bucket_of(event))
        if by_bucket:
            found.update(by_bucket)
        communities_table = tables[filters.INDEX_COMMUNITY]
        if communities_table and event.community is not None:
            by_community = communities_table.get(event.community)
            if by_community:
                found.update(by_community)
        mentions_table = tables[filters.INDEX_MENTION]
        if mentions_table:
            for login in event.mentions:
                clients = mentions_table.get(login)
                if clients:
                    found.update(clients)
        words_table = tables[filters.INDEX_WORD]
        if words_table:
            for word in event.words:
                clients = words_table.get(word)
                if clients:
                    found.update(clients)
        cells, wide = tables[filters.INDEX_CELL], tables[filters.INDEX_WIDE]
        if cells or wide:
            point = event.point
            if point is not None:
                clients = cells.get(filters.cell_of(*point))
                if clients:
                    found.update(clients)
                clients = wide.get(None)
                if clients:
                    found.update(clients)
        return found

"""A user's home timeline as a stream filter: what the live home page and Mastodon's user
and list streams send."""

import asyncio

from socialsite.repository import blocks, graph, keys

from . import filters


class HomeFilter:
    """Statuses by the user or by anyone they follow, as their home timeline has them:
    not by those they do not get (blocked either way, muted), and a reply by someone
    else only if the user follows, or is, the user it replies to (fan-out's rule,
    deliver.lua). Deletions go through the same filter."""

    def __init__(self, uid, following, hidden=()):
        self.uid = uid
        self.following = frozenset(following) | {uid}
        hidden = frozenset(hidden) - {uid}
        # The same set when nobody is hidden (the usual case): a live page's memory is
        # mostly these sets.
        self.uids = self.following - hidden if hidden else self.following

    def hide(self, authors):
        """Stop matching ``authors``' statuses (a block or mute made just now)."""
        self.uids = self.uids - (frozenset(authors) - {self.uid})

    def index_keys(self):
        # Indexed under every author it gets (hub.py's ClientIndex): re-indexed when
        # hide() or a refresh changes them.
        return [(filters.INDEX_AUTHOR, self.uids)]

    def __call__(self, event):
        if event.uid not in self.uids:
            return False
        # Groups (issue 44): a private group's status goes live to its author alone;
        # members get it on their next page (memberships are not in the filter).
        if event.status.get(keys.STATUS_MEMBERS_ONLY_FIELD) == "1" and event.uid != self.uid:
            return False
        if str(event.status.get("repost_of_uid")) == str(self.uid):
            return False  # one's own status reposted does not come back home
        replied_to = event.replied_to
        return replied_to is None or event.uid == self.uid or replied_to in self.following


class HomeFilters:
    """Reads users' HomeFilters for the streams of one process."""

    def __init__(self, redis):
        self.redis = redis
        # {user id: the one int object for it}: one int per user id for all the
        # streams of the process, not one per stream that follows them: 200 follows
        # cost 200 pointers, not 200 ints.
        self.user_ids = {}

    async def filter_for(self, uid):
        """A HomeFilter for user ``uid``, with whom they follow and do not get now."""

        def read():
            shared = self.user_ids
            following = [shared.setdefault(f, f) for f in graph.following_ids(self.redis, uid)]
            return following, blocks.hidden_authors(self.redis, uid)

        following, hidden = await asyncio.to_thread(read)
        return HomeFilter(uid, following, hidden)

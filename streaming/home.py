"""A user's home timeline as a stream filter: what the live home page and Mastodon's user
and list streams send."""

import asyncio

from socialsite.repository import blocks, communities, graph, keys
from socialsite.repository import filters as keyword_filters

from . import filters


class HomeFilter:
    """Statuses by the user or by anyone they follow, as their home timeline has them:
    not by those they do not get (blocked either way, muted), and a reply by someone
    else only if the user follows, or is, the user it replies to (fan-out's rule,
    deliver.lua). And the statuses of the groups the user belongs to and keeps in their
    home (``communities``), whoever their authors, by the same rules: delivered to the
    home or, for a pulled group, merged into it when read (fanout.py), they reach the
    live page alike. Deletions go through the same filter."""

    def __init__(self, uid, following, hidden=(), communities=(), keywords=None):
        self.uid = uid
        # Keyword filters: the user's of the home context, compiled (a Matcher), or None.
        self.keywords = keywords
        self.following = frozenset(following) | {uid}
        hidden = frozenset(hidden) - {uid}
        self.hidden = hidden
        # The same set when nobody is hidden (the usual case): a live page's memory is
        # mostly these sets.
        self.uids = self.following - hidden if hidden else self.following
        self.communities = frozenset(communities)

    def hide(self, authors):
        """Stop matching ``authors``' statuses (a block or mute made just now)."""
        authors = frozenset(authors) - {self.uid}
        self.uids = self.uids - authors
        self.hidden = self.hidden | authors

    def leave(self, cids):
        """Stop matching the statuses of groups ``cids`` (a membership ended just now)."""
        self.communities = self.communities - frozenset(cids)

    def index_keys(self):
        # Indexed under every author it gets (hub.py's ClientIndex) and every group:
        # re-indexed when hide(), leave() or a refresh changes them.
        keys = [(filters.INDEX_AUTHOR, self.uids)]
        if self.communities:
            keys.append((filters.INDEX_COMMUNITY, self.communities))
        return keys

    def __call__(self, event):
        community = event.community
        if community is not None and community in self.communities:
            if event.uid in self.hidden:
                return False
            return self._reply_rule(event)
        return self.followed_match(event)

    def followed_match(self, event):
        """The rule for the statuses of the user and of those they follow."""
        if event.uid not in self.uids:
            return False
        # A private group's status goes live to its author and, above, to the members
        # who keep the group in their home; not to other followers of its author.
        if event.status.get(keys.STATUS_MEMBERS_ONLY_FIELD) == "1" and event.uid != self.uid:
            return False
        if str(event.status.get("repost_of_uid")) == str(self.uid):
            return False  # one's own status reposted does not come back home
        return self._reply_rule(event)

    def _reply_rule(self, event):
        replied_to = event.replied_to
        if not (replied_to is None or event.uid == self.uid or replied_to in self.following):
            return False
        # Keyword filters: a hide filter's status is not sent.
        found = self.keyword_match(event)
        return found is None or found.action != keyword_filters.HIDE

    def keyword_match(self, event):
        """The user's keyword filters' filters.Match of ``event``'s status (a repost's:
        its original's), None for none or for the user's own."""
        return keyword_match(self.keywords, event, self.uid)


def keyword_match(matcher, event, uid):
    """``matcher``'s (filters.Matcher or None) Match of ``event``'s status, a repost's
    original's; None for none, a deletion, or a status of user ``uid``'s own."""
    if matcher is None or event.deleted:
        return None
    status = event.status
    original = status.get("retweeted_status")
    if isinstance(original, dict):
        status = original
    if str(status.get("uid", event.uid)) == str(uid):
        return None
    return matcher.check(status)


class HomeFilters:
    """Reads users' HomeFilters for the streams of one process."""

    def __init__(self, redis):
        self.redis = redis
        # {user id: the one int object for it}: one int per user id for all the
        # streams of the process, not one per stream that follows them: 200 follows
        # cost 200 pointers, not 200 ints.
        self.user_ids = {}

    async def filter_for(self, uid):
        """A HomeFilter for user ``uid``, with whom they follow and do not get now, and
        the groups they keep in their home."""

        def read():
            shared = self.user_ids
            following = [shared.setdefault(f, f) for f in graph.following_ids(self.redis, uid)]
            in_home = communities.in_home_ids(self.redis, uid)
            mine = keyword_filters.get_filters(self.redis, uid)  # keyword filters
            matcher = keyword_filters.matcher_for(mine, "home")
            return following, blocks.hidden_authors(self.redis, uid), in_home, matcher

        following, hidden, in_home, matcher = await asyncio.to_thread(read)
        return HomeFilter(uid, following, hidden, in_home, matcher)


# --- Groups ------------------------------------------------------------------


class GroupFilter:
    """A group's statuses, as its page (timeline/groups.py) shows them to a reader: those
    of community ``cid``, not by authors the reader does not get (blocked either way,
    muted: ``hidden``), and its members-only ones only for a ``member``. Offered every
    event (a group's statuses have no index of their own): one dict lookup each."""

    def __init__(self, cid, member, hidden=(), keywords=None, uid=None):
        self.cid = str(int(cid))
        self.member = member
        self.hidden = frozenset(hidden)
        # The reader's membership ended (leave): nothing more until the stream closes.
        self.closed = False
        # Keyword filters: the reader's of the public context (a Matcher), or None.
        self.keywords = keywords
        self.uid = uid

    def index_keys(self):
        return [(filters.INDEX_COMMUNITY, (int(self.cid),))]

    def hide(self, authors):
        self.hidden = self.hidden | frozenset(authors)

    def leave(self, cids):
        """The reader left groups ``cids``: if this one, it matches nothing more (its
        stream is closed by the refresh this comes with)."""
        if int(self.cid) in {int(cid) for cid in cids}:
            self.closed = True

    def __call__(self, event):
        if self.closed:
            return False
        status = event.status
        if str(status.get(keys.STATUS_COMMUNITY_FIELD)) != self.cid or event.uid in self.hidden:
            return False
        if not (self.member or status.get(keys.STATUS_MEMBERS_ONLY_FIELD) != "1"):
            return False
        found = self.keyword_match(event)  # keyword filters: a hide filter's is not sent
        return found is None or found.action != keyword_filters.HIDE

    def keyword_match(self, event):
        return keyword_match(self.keywords, event, self.uid)


def group_filter(redis, slug, uid):
    """The GroupFilter of group ``slug`` for user ``uid``, or None when they may not
    read it (no such group, deleted or suspended; a private one they are not in)."""
    community, standing = communities.by_slug(redis, slug, uid)
    if not communities.is_live(community):
        return None
    if community["kind"] == "private" and not standing.member:
        return None
    # Keyword filters: the reader's, of the public context (a group's page is one).
    matcher = keyword_filters.matcher_for(keyword_filters.get_filters(redis, uid), "public")
    hidden = blocks.hidden_authors(redis, uid)
    return GroupFilter(community["id"], standing.member, hidden, matcher, uid)

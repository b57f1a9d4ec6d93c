"""The Redis repository: every key, script and round trip of socialsite lives here.

No Django imports: views, management commands and the streaming server all call these
functions, passing the client explicitly as ``r`` (see client.connect, which returns
str rather than bytes), as the listings of chapter 8 of *Redis in Action* do.

Modules, one per concern:
- keys: the name of every key; limits: the sizes that bound data and work
- users: accounts and password hashes; sessions: Django's session data;
  devices: revoking the device cookies of an account (the log-in throttle's exemption)
- statuses: posting, reading and deleting statuses, and a reply's counting
- conversations: thread pages and notification pages
- notifications: notifications, their unread count and its badge
- timelines: reading home, profile and tag timelines; paging: cursor pages
- graph: follow, unfollow and the follower/following lists
- fanout: delivering statuses to followers' home timelines
- events: publishing posts and deletions for the streaming API
- scripts, lua/: the Lua scripts; locks: a short Redis lock
- entities: mentions, hashtags and links in a message (plain Python, no Redis);
  tags: writing tag timelines (timelines reads them)
- moderation: reports, moderators, suspensions, the audit log
- leaving: deleting an account in steps, exporting it
"""

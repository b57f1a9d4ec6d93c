"""The sizes that bound socialsite's data and work, each with the reason for it."""

# The book's cap: a home timeline keeps the 1000 newest ids. Nobody scrolls further
# back on a home page, and the cap bounds both memory per user and fan-out work.
HOME_TIMELINE_SIZE = 1000

# A home timeline may grow this far past its cap before it is cut back (lua/_home.lua):
# cutting costs a SORT, so doing it once per 200 deliveries keeps a delivery cheap.
# Redis must keep sets of HOME_TIMELINE_SIZE + HOME_TIMELINE_SLACK integers compact:
# set-max-intset-entries (embedded_redis.SERVER_SETTINGS) is set above that.
HOME_TIMELINE_SLACK = 200

# Followers who get a new status within the posting request (the book's 1000: that
# covers 99.9% of authors). The rest is deferred work (fanout.plan_job).
# Django's INLINE_FANOUT_LIMIT setting overrides it per call.
INLINE_FANOUT_LIMIT = 1000

# Followers read and delivered to per round trip past the inline part: big enough to
# amortize the round trip, small enough to keep each pipeline's reply modest.
FANOUT_BATCH_SIZE = 1000

# Jobs a worker takes from the stream at once. Deliver jobs of one status among them
# are delivered together (fanout.deliver_ranges): fewer, bigger script calls
# (docs/decisions/0006; manage.py bench_fanout --jobs-per-step 1,5 compares).
JOBS_PER_STEP = 5

# Deliver jobs one plan job cuts at most (200 x 1000 = 200,000 followers). Bounds the
# time one job takes, so a dead worker's plan is redone quickly, and keeps one MULTI
# on the followers list short.
PLAN_BATCHES_PER_JOB = 200

# How long an unfollow is remembered for fan-out (keys.unfollowed). A fan-out batch
# delivers within milliseconds of reading its followers; this only has to be longer
# than any pause between the two, with a margin of hours.
UNFOLLOW_MEMORY_MS = 24 * 3600 * 1000

# How long a deleted status is noted in every shard (keys.deleted_statuses), so that a
# home page's script skips it in the timeline without asking whether its hash still
# exists. The cleanup that takes the id out of followers' timelines normally ends within
# seconds; what matters is that this is well over STATUS_TRUST_SECONDS.
DELETED_NOTE_MS = 3600 * 1000

# How long a process trusts its memory of a status (statuses.get_statuses) for ids that
# came through the deletion notes, without asking Redis whether the status still exists.
# Anything deleted since the memory was last confirmed is still noted, since notes live
# DELETED_NOTE_MS, six times longer; past this the memory is confirmed again (EXISTS).
STATUS_TRUST_SECONDS = 600

# A post still unfinished this long after it was made (keys.unfinished_posts) belongs
# to a request that died; a posting request normally finishes within milliseconds.
# The fan-out workers then queue its fan-out over all followers at posting time.
UNFINISHED_POST_GRACE_MS = 60 * 1000

# How long a form submission's key is remembered (keys.posting_key): a browser that
# sends the same form again within this long, after an error or a double click, does
# not post twice.
POSTING_KEY_SECONDS = 24 * 3600

# A tag timeline (keys.tag) keeps the newest this many statuses with the tag, like a
# home timeline: bounded memory per tag however popular it is. Older statuses fall off
# the tag's page but stay on their authors' profiles.
TAG_TIMELINE_SIZE = 1000

# The most characters a message may have as written, whatever its weighted length
# (entities.weighted_length counts every link as 23): bounds a status's size when its
# links are long. The status form refuses longer ones.
MESSAGE_MAX_CHARACTERS = 1000
# How long a process trusts its memory of a status's reply count (statuses.get_statuses)
# on a home page, whose statuses are otherwise shown without a round trip: a home page
# that reads no status reads no count either, and shows counts at most this old. Profile,
# thread and status pages read every count with the page.
REPLY_COUNT_TRUST_SECONDS = 10

# Ancestors a reply keeps the ids of (its status hash's ``ancestors``), and a thread
# page shows, oldest first: Mastodon's 40.
THREAD_ANCESTORS = 40

# A thread page's direct replies per page (oldest first), and how many replies of each
# it shows nested below it, down to THREAD_DEPTH levels; past those, a "more replies"
# link leads to that status's own page. The reads are one pipeline per level: a fixed
# number of round trips whatever the thread's size; a page shows at most 30 + 60 + 120
# replies.
THREAD_PAGE_SIZE = 30
THREAD_NESTED_REPLIES = 2
THREAD_DEPTH = 3

# Notifications a user keeps, the newest (Django's NOTIFICATIONS_KEPT setting overrides it
# per call), and users notified of a mention per status.
NOTIFICATIONS_KEPT = 1000
MENTIONS_NOTIFIED = 10

# Notifications of one kind on one subject within this long show as one entry ("alice
# and 3 others ...").
NOTIFICATION_GROUP_MS = 24 * 3600 * 1000
# --- moderation and leaving the site -----------------------------------------------------

# A report's comment, and a moderator's reason, at most this many characters: enough to
# say what is wrong, short enough to read in a queue.
REPORT_COMMENT_MAX_LENGTH = 1000
MODERATION_REASON_MAX_LENGTH = 500
# Statuses one report may name: a report is about what a moderator can read at once.
REPORT_STATUSES_MAX = 20
# A closed report is kept this long for reference (the audit log keeps the action for good).
REPORT_KEEP_SECONDS = 180 * 24 * 3600

# A deleted account's login is refused at sign-up this long, so that nobody can pass
# for the person who just left (Mastodon also takes 30 days to finish a deletion).
LOGIN_RESERVED_SECONDS = 30 * 24 * 3600

# Units of work (a follower, a followed user, a status) that deleting an account does
# within the request; the rest goes to the fan-out workers, in runs of the second size
# (leaving.continue_deletion). An unfollow is a few round trips: 100 keep the request
# well under a second, and cover most accounts whole, so that their followers' counts
# are right when the page answers. A run of 1000 keeps one job to seconds.
DELETION_INLINE_BUDGET = 100
DELETION_JOB_BUDGET = 1000

# Recent public status ids kept for the streaming API's catch-up (?since_id=,
# keys.RECENT_PUBLIC_STATUSES): a client that was away for up to this many statuses
# finds every one it missed. 10,000 ids are about 1 MB of Redis memory; at 100 posts a
# second they cover the last 100 s, at 1 a second nearly three hours.
RECENT_PUBLIC_STATUSES = 10_000

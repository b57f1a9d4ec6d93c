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

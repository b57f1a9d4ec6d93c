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

# Followers from which an account is "pulled" (fanout.py): its statuses are merged
# into its followers' pages when read instead of delivered to each of them. 0 turns
# the path off. Django's FANOUT_PULL_FOLLOWERS setting overrides it per call.
FANOUT_PULL_FOLLOWERS = 100_000

# The newest pulled statuses of each pulled account copied into every shard
# (keys.pulled_copy), where home pages merge them with no round trip of their own:
# four pages of 30, and under Redis's default zset-max-listpack-entries (128), so each
# copy stays a compact listpack. Deeper pages read the account's own list.
PULLED_COPY_SIZE = 120

# A pulled account goes back to being pushed only below this share of the threshold
# (hysteresis): an account hovering around it does not switch at every post.
FANOUT_PUSH_BELOW_SHARE = 0.9

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
# The same for all of a status's counts (replies, likes, reposts: statuses.get_statuses),
# and how long keys.likes_changed stands after a like or unlike: a viewer who liked
# lately gets their home page's counts read fresh, whichever process answers.
COUNTS_TRUST_SECONDS = REPLY_COUNT_TRUST_SECONDS

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

# --- who to follow (suggestions.py) -----------------------------------------------------

# Suggestions shown, and kept in the cache (more than shown, so that following a few
# from the list still leaves a full one until the cache is made again).
SUGGESTIONS_SHOWN = 10
SUGGESTIONS_KEPT = 20
# A user's list is made again after this long; who they follow, block or mute since is
# dropped at once (lua/suggestions_cached.lua), a suspension shows within this long.
SUGGESTIONS_CACHE_SECONDS = 300
# The home page shows suggestions to users following fewer than this many people.
SUGGESTIONS_ON_HOME_BELOW = 20
# Work bounds for a user following thousands: the most recent follows read, and each
# one's newest follows: 50 x 100 = at most 5,000 ids read in one pipeline, whatever the
# graph. Recent follows say most about what a user wants now.
SUGGESTION_FOLLOWS_SAMPLED = 50
SUGGESTION_FOLLOWS_EACH = 100
# Candidates checked (blocks, requests, accounts) in one pipeline: the best friends of
# friends, then the most-followed.
SUGGESTION_CANDIDATES_FOF = 30
SUGGESTION_CANDIDATES_POPULAR = 20
# The most-followed accounts kept in keys.MOST_FOLLOWED.
MOST_FOLLOWED_KEPT = 1000
# "Active": posted within this many days (keys.LAST_POSTED_FIELD).
ACTIVE_DAYS = 30

# --- trending tags (trends.py) -----------------------------------------------------------

# Distinct users per tag per day are kept this long (Mastodon's 14 days).
TREND_DAYS_KEPT = 14
# The workers recompute the trends this often (Mastodon: every 5 minutes).
TRENDS_RECOMPUTE_MS = 5 * 60 * 1000
# Mastodon's scoring: a tag scores only with at least this many distinct users today;
# its best score halves every TREND_HALF_LIFE_MS and is forgotten after
# TREND_PEAK_FORGOTTEN_MS.
TREND_MIN_USERS = 5
TREND_HALF_LIFE_MS = 4 * 3600 * 1000
TREND_PEAK_FORGOTTEN_MS = 2 * 24 * 3600 * 1000
# TREND_MIN_USERS is for a site of more than 16 accounts. A smaller site asks for a share
# of its accounts instead: one in TREND_MIN_USERS_SHARE (rounded up), and never fewer
# than TREND_MIN_USERS_SMALL (one person alone does not make a trend). A site of 10
# accounts: 3 people (trends.min_users).
TREND_MIN_USERS_SHARE = 4
TREND_MIN_USERS_SMALL = 2
# A trend whose decayed score is under this is not listed (Mastodon's decay_threshold):
# it also keeps out tags as steady as a day's HyperLogLog estimates' error (0.81%),
# whose "rise" scores well under 1 (500 users: 4^2 / 500).
TREND_MIN_SCORE = 1.0
# Trends kept by the recompute, and shown on /explore/.
TRENDS_KEPT = 50
TRENDS_SHOWN = 20
# --- named lists (lists.py) --------------------------------------------------------------
# Mastodon's 50 lists per account; a name as long as a display name. A list holds at most
# 5,000 members: adding one is a script over the list, and deleting a list walks them all
# in one step, which this keeps to milliseconds.
LISTS_PER_USER = 50
# Keyword filters (filters.py): how many a user may have, keywords per filter, and a
# keyword's and a title's length. Bounded so that a reader's filters stay one small read
# and one regular expression per context.
FILTERS_PER_USER = 50
FILTER_KEYWORDS = 50
FILTER_KEYWORD_LENGTH = 100
FILTER_TITLE_LENGTH = 100
LIST_NAME_MAX_LENGTH = 50
LIST_MEMBERS = 5000
# Search (search.py). A query is 1 to SEARCH_QUERY_MAX_LENGTH characters. A prefix
# search reads at most SEARCH_CANDIDATES entries of the index's range and ranks those
# (people by followers, tags by recent use): the work of one query is bounded whatever
# the prefix, and a short prefix that matches more ranks the first this many of its
# matches in alphabetical order of the matching word (search.py says what that means).
SEARCH_QUERY_MAX_LENGTH = 100
SEARCH_CANDIDATES = 1000
# Results per page (people, and tags), and completions offered while typing.
SEARCH_PAGE_SIZE = 20
SEARCH_COMPLETIONS = 8
# The people index's tiers (keys.people_index): a person is in each tier whose number
# of followers they have. A query reads up to SEARCH_CANDIDATES entries of each tier's
# range, so everyone with at least the lowest tier's count whose range was read whole
# is ranked exactly, and only the hashes of the highest tier that holds a page's people
# are read (search.py). Each step is 10 times the last: each tier is a fraction of the
# one below, and a person changes tier rarely (the follow that crosses a threshold).
SEARCH_TIERS = (0, 10, 100, 1_000, 10_000)
# A follow that leaves someone with at least a tier's count and fewer than this many
# more writes them into the tier (search.followers_changed): of up to this many follows
# racing across a threshold, one sees a count in that window.
SEARCH_TIER_WINDOW = 8
# Search terms kept per person: the login and the first words of the display name.
SEARCH_TERMS_PER_PERSON = 16
# The longest search term kept, in characters (a longer word is cut).
SEARCH_TERM_MAX_LENGTH = 64

# Full-text search of statuses (status_search.py). A page of statuses found; the most
# statuses each index shard returns a page (more pages are read by cursor); how many
# times a query reads on when what it read was left out (deleted, hidden, a phrase
# that did not match) before it answers what it has; how many of the newest ids of
# each of a reader's own sets (own statuses, likes, mentions) a search reads for the
# statuses only they can find.
STATUS_SEARCH_PAGE_SIZE = 20
STATUS_SEARCH_READS = 4
# How many blocks of the status index (keys.STATUS_SEARCH_BLOCK_BITS: 65,536 ids each)
# one read of a query covers, from the newest: 2,097,152 ids; a page reads on below
# them while it is not full (STATUS_SEARCH_READS), then answers with a cursor.
STATUS_SEARCH_BLOCKS_READ = 32
# With from:, how many of the author's statuses one read matches (their profile).
STATUS_SEARCH_AUTHOR_SCAN = 200
STATUS_SEARCH_OWN_SCAN = 200
# How long keys.reposts_shown notes are kept after their last change. They only gate a
# late delivery of an original that a repost of it reached first (a deferred fan-out
# that runs late), which happens within the fan-out's run: a day is a wide margin.
REPOSTS_SHOWN_NOTE_MS = 24 * 3600 * 1000

# Recent public status ids kept for the streaming API's catch-up (?since_id=,
# keys.RECENT_PUBLIC_STATUSES): a client that was away for up to this many statuses
# finds every one it missed. 10,000 ids are about 1 MB of Redis memory; at 100 posts a
# second they cover the last 100 s, at 1 a second nearly three hours.
RECENT_PUBLIC_STATUSES = 10_000

# How long a stream server process's counts of streams per client address
# (keys.stream_holders, stream_address_counts) outlive their last renewal. The process
# renews them three times as often: a process that dies (killed, its machine gone)
# leaks its counts this long at most; one restarted in its place clears them at once.
STREAM_ADDRESSES_TTL_MS = 60 * 1000

# An OAuth 2 authorization code's life (RFC 6749 section 4.1.2 recommends at most 10
# minutes); it is taken once.
OAUTH_CODE_SECONDS = 600

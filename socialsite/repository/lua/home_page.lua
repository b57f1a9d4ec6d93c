-- Read a page of a home timeline, newest first, without deleted statuses; and the
-- authors whose statuses the user does not get.
-- KEYS[1] = home:{s}:uid     (SET of status ids)
-- KEYS[2] = deleted:{s}      (ZSET: statuses deleted lately, noted in every shard)
-- KEYS[3] = hides:{s}:uid    (ZSET: authors the user does not get, until when)
-- KEYS[4] = likes:{s}:uid    (ZSET: the statuses the user likes; optional)
-- KEYS[5] = likes-changed:{s}:uid  (STRING: the user liked or unliked lately; with KEYS[4])
-- ARGV[1] = the cursor: only ids below it ("" for the newest page)
-- ARGV[2] = how many ids to return at most
-- ARGV[3] = the home timeline's cap: ids past the newest cap are not part of it
-- ARGV[4] = "1" to leave out the noted deleted ids (pages), "0" for all (maintenance)
-- ARGV[5] = now, in ms
-- Returns {the ids, newest first; the ids of the authors hidden now; with KEYS[4], the
-- ids among them the user likes, and 1 if KEYS[5] exists, else 0}.
--
-- A script rather than a SORT from the client: SORT's keys are "movable", which
-- makes cluster clients ask the server where they are first (two more round trips).
-- A deleted status's id stays in followers' timelines until the deferred cleanup
-- reaches them; skipping the noted ids here means the page's reader need not ask
-- whether each status still exists (statuses.get_statuses).
-- Statuses of hidden authors are kept out when delivered, and taken out when a block
-- or mute is made; the list comes along (empty for nearly everyone) so that the
-- reader can drop any that slipped in before, without asking for it separately. The
-- script cannot drop them itself: an author is in the status's hash, in another slot.
-- The user's likes are in the same slot: the page's "Like" or "Unlike" costs no round
-- trip, and neither does knowing whether the counts shown must be read fresh.
local count, cap = tonumber(ARGV[2]), tonumber(ARGV[3])
local noted = 0
if ARGV[4] == '1' then noted = redis.call('ZCARD', KEYS[2]) end

local ids, first
if ARGV[1] == '' then
    -- Enough for a full page even if every noted id is among the newest.
    ids = redis.call('SORT', KEYS[1], 'LIMIT', 0, math.min(count + noted, cap), 'DESC')
    first = 1
else
    ids = redis.call('SORT', KEYS[1], 'LIMIT', 0, cap, 'DESC')
    local before = tonumber(ARGV[1])
    -- Bisect for the first id below the cursor (ids are in descending order).
    local lo, hi = 1, #ids + 1
    while lo < hi do
        local mid = math.floor((lo + hi) / 2)
        if tonumber(ids[mid]) >= before then lo = mid + 1 else hi = mid end
    end
    first = lo
end

local page = {}
for i = first, #ids do
    if #page >= count then break end
    if noted == 0 or not redis.call('ZSCORE', KEYS[2], ids[i]) then
        page[#page + 1] = ids[i]
    end
end
local hidden = redis.call('ZRANGEBYSCORE', KEYS[3], '(' .. ARGV[5], '+inf')
if not KEYS[4] then
    return {page, hidden}
end
local liked = {}
if #page > 0 then
    local scores = redis.call('ZMSCORE', KEYS[4], unpack(page))
    for i = 1, #page do
        if scores[i] then liked[#liked + 1] = page[i] end
    end
end
return {page, hidden, liked, redis.call('EXISTS', KEYS[5])}

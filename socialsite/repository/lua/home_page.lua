-- Read a page of a home timeline, newest first, without deleted statuses.
-- KEYS[1] = home:{s}:uid     (SET of status ids)
-- KEYS[2] = deleted:{s}      (ZSET: statuses deleted lately, noted in every shard)
-- ARGV[1] = the cursor: only ids below it ("" for the newest page)
-- ARGV[2] = how many ids to return at most
-- ARGV[3] = the home timeline's cap: ids past the newest cap are not part of it
-- ARGV[4] = "1" to leave out the noted deleted ids (pages), "0" for all (maintenance)
-- Returns the ids, newest first.
--
-- A script rather than a SORT from the client: SORT's keys are "movable", which
-- makes cluster clients ask the server where they are first (two more round trips).
-- A deleted status's id stays in followers' timelines until the deferred cleanup
-- reaches them; skipping the noted ids here means the page's reader need not ask
-- whether each status still exists (statuses.get_statuses).
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
return page

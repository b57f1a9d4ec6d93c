-- Read a page of a home timeline, newest first.
-- KEYS[1] = home:{s}:uid   (SET of status ids)
-- ARGV[1] = the cursor: only ids below it ("" for the newest page)
-- ARGV[2] = how many ids to return at most
-- ARGV[3] = the home timeline's cap: ids past the newest cap are not part of it
-- Returns the ids, newest first.
--
-- A script rather than a SORT from the client: SORT's keys are "movable", which
-- makes cluster clients ask the server where they are first (two more round trips).
local count, cap = tonumber(ARGV[2]), tonumber(ARGV[3])
if ARGV[1] == '' then
    return redis.call('SORT', KEYS[1], 'LIMIT', 0, math.min(count, cap), 'DESC')
end
local ids = redis.call('SORT', KEYS[1], 'LIMIT', 0, cap, 'DESC')
local before = tonumber(ARGV[1])
-- Bisect for the first id below the cursor (ids are in descending order).
local lo, hi = 1, #ids + 1
while lo < hi do
    local mid = math.floor((lo + hi) / 2)
    if tonumber(ids[mid]) >= before then lo = mid + 1 else hi = mid end
end
return {unpack(ids, lo, math.min(lo + count - 1, #ids))}

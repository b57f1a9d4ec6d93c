-- Give back one use a rate limit counted (throttle.lua), if its window still runs:
-- a log-in attempt that succeeded is not a failed one.
-- KEYS[1] = counter  the counter (HASH: start, count, last, refunded)
-- ARGV[1] = the start of the window the use was counted in (ms)
-- ARGV[2] = the token of the use (throttle.lua's ARGV[4])
-- Returns 1 if given back, 0 if not (another window by now, or given back already).
local fields = redis.call('HMGET', KEYS[1], 'start', 'count', 'refunded')
if fields[1] ~= ARGV[1] or fields[3] == ARGV[2] or (tonumber(fields[2]) or 0) <= 0 then
    return 0
end
redis.call('HINCRBY', KEYS[1], 'count', -1)
redis.call('HSET', KEYS[1], 'refunded', ARGV[2])
return 1

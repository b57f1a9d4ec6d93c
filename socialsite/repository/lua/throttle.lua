-- Count one use of a rate limit, unless the limit is reached (throttles.py).
-- KEYS[1] = counter   the counter (HASH: start, count, last; keys.*_throttle)
-- KEYS[2] = guard?    a key that must exist for the use to count, in the same slot:
--                     keys.session of the session a logged-in request read its user
--                     from, or keys.oauth_token of a client API request's token
-- ARGV[1] = now, in milliseconds (the caller's clock: tests control it)
-- ARGV[2] = the limit: uses allowed in one window
-- ARGV[3] = the window's length, in milliseconds
-- ARGV[4] = a token naming this use: the same use sent again is not counted twice
-- Returns {verdict, count, start}: verdict 1 counted, 0 refused (the window's uses
-- are all taken: nothing changes), -1 not counted because KEYS[2] does not exist;
-- count is the window's uses so far, start when the window began (ms).
--
-- A fixed window that starts at the first use after the last window ended: each
-- counter has its own, so resets are spread out instead of falling on the same
-- instant for everyone. A use at a time before the window's start (another web
-- server's clock a little behind) belongs to the present window.
local now, limit, window = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3])
if KEYS[2] and redis.call('EXISTS', KEYS[2]) == 0 then
    return {-1, 0, now}
end
local fields = redis.call('HMGET', KEYS[1], 'start', 'count', 'last')
local start, count = tonumber(fields[1]), tonumber(fields[2]) or 0
if start == nil or now >= start + window then
    -- A new window. ARGV[1] is stored as sent: the refund compares it as text.
    start, count = now, 0
    redis.call('DEL', KEYS[1])
    redis.call('HSET', KEYS[1], 'start', ARGV[1], 'count', 0)
    redis.call('PEXPIRE', KEYS[1], window)  -- gone when the window ends
elseif fields[3] == ARGV[4] then
    return {1, count, start}  -- this very use, sent again: counted already
end
if count >= limit then
    return {0, count, start}
end
count = redis.call('HINCRBY', KEYS[1], 'count', 1)
redis.call('HSET', KEYS[1], 'last', ARGV[4])
return {1, count, start}

-- Put a new status on its author's profile and home timelines, count it, and note it
-- as unfinished until its fan-out is queued in full.
-- KEYS[1] = profile:{s}:uid     (ZSET)
-- KEYS[2] = home:{s}:uid        (SET)
-- KEYS[3] = user:{s}:uid        (HASH: the "posts" count)
-- KEYS[4] = followers:{s}:uid   (ZSET: follower -> follow score)
-- KEYS[5] = unfinished:{s}      (HASH: status id -> JSON {author, upto, at})
-- ARGV[1] = the status id (also its score in the profile)
-- ARGV[2] = the home timeline's cap, ARGV[3] = its slack
-- ARGV[4] = the author's id, ARGV[5] = now, in ms
-- Returns {1 if added or 0 if it was there already (a retry: nothing is counted
-- twice), the newest follower's score or -1 without followers}.
--
-- The note is written in the same step as the status becomes visible on the profile,
-- so a status is never shown without either its fan-out or the note that leads the
-- workers to do it. "upto" fixes who the followers at posting time are.
local added = redis.call('ZADD', KEYS[1], ARGV[1], ARGV[1])
if added == 1 then
    redis.call('HINCRBY', KEYS[3], 'posts', 1)
end
redis.call('SADD', KEYS[2], ARGV[1])
trim_home(KEYS[2], tonumber(ARGV[2]), tonumber(ARGV[3]))
local newest = redis.call('ZRANGE', KEYS[4], -1, -1, 'WITHSCORES')
local upto = -1
if #newest == 2 then
    upto = tonumber(newest[2])
end
if upto >= 0 then
    redis.call('HSET', KEYS[5], ARGV[1], cjson.encode({
        author = tonumber(ARGV[4]), upto = upto, at = tonumber(ARGV[5])}))
end
return {added, upto}

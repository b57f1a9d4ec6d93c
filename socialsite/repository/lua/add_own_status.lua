-- Put a new status on its author's profile and home timelines, count it, and note it
-- as unfinished until its fan-out is queued in full.
-- KEYS[1] = profile           keys.profile(uid) (ZSET)
-- KEYS[2] = home              keys.home(uid) (SET)
-- KEYS[3] = user              keys.user(uid) (HASH: the "posts" count)
-- KEYS[4] = followers         keys.followers(uid) (ZSET: follower -> follow score)
-- KEYS[5] = unfinished_posts  keys.unfinished_posts(uid) (HASH: status id -> JSON
--           {author, upto, at[, parent, replied]})
-- KEYS[6] = profile_replies?  a reply only: keys.profile_replies(uid) (ZSET:
--           "<id>:<replied-to uid>" by id)
-- ARGV[1] = the status id (also its score in the profile)
-- ARGV[2] = the home timeline's cap, ARGV[3] = its slack
-- ARGV[4] = the author's id, ARGV[5] = now, in ms
-- ARGV[6] = "1" if the post has conversation writes to make (a reply, mentions): then
--           it is noted unfinished even without followers
-- ARGV[7], ARGV[8] = a reply only: the id of the status replied to, and of its author
-- Returns {1 if added or 0 if it was there already (a retry: nothing is counted
-- twice), the newest follower's score or -1 without followers}.
--
-- The note is written in the same step as the status becomes visible on the profile,
-- so a status is never shown without either its fan-out or the note that leads the
-- workers to do it. "upto" fixes who the followers at posting time are. A reply's
-- entry in KEYS[6] lets a follow's backfill apply the reply rule (backfill.lua); only
-- the newest "cap" entries can matter there, as only the newest "cap" statuses are
-- copied.
local added = redis.call('ZADD', KEYS[1], ARGV[1], ARGV[1])
if added == 1 then
    redis.call('HINCRBY', KEYS[3], 'posts', 1)
end
redis.call('SADD', KEYS[2], ARGV[1])
trim_home(KEYS[2], tonumber(ARGV[2]), tonumber(ARGV[3]))
if KEYS[6] then
    redis.call('ZADD', KEYS[6], ARGV[1], ARGV[1] .. ':' .. ARGV[8])
    redis.call('ZREMRANGEBYRANK', KEYS[6], 0, -(tonumber(ARGV[2]) + 1))
end
local newest = redis.call('ZRANGE', KEYS[4], -1, -1, 'WITHSCORES')
local upto = -1
if #newest == 2 then
    upto = tonumber(newest[2])
end
if upto >= 0 or ARGV[6] == '1' then
    local note = {author = tonumber(ARGV[4]), upto = upto, at = tonumber(ARGV[5])}
    if ARGV[7] then
        note.parent = tonumber(ARGV[7])
        note.replied = tonumber(ARGV[8])
    end
    redis.call('HSET', KEYS[5], ARGV[1], cjson.encode(note))
end
return {added, upto}

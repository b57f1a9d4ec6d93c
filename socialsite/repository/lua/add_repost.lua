-- The reposter's side of a repost, in the reposter's slot.
-- KEYS[1] = reposted          keys.reposted(uid) (ZSET: original -> repost id)
-- KEYS[2] = profile           keys.profile(uid) (ZSET)
-- KEYS[3] = profile_reposts   keys.profile_reposts(uid) (ZSET: "<rid>:<orig>:<author>" by rid)
-- KEYS[4] = followers         keys.followers(uid) (ZSET)
-- KEYS[5] = unfinished_posts  keys.unfinished_posts(uid) (HASH: status id -> JSON note)
-- KEYS[6] = user              keys.user(uid) (HASH: the "fanout" path, fanout.py)
-- KEYS[7] = pulled_statuses   keys.pulled_statuses(uid) (ZSET: "<rid>:<orig>:<author>")
-- ARGV[1] = the original's id, ARGV[2] = the new repost's id, ARGV[3] = the
-- original's author, ARGV[4] = uid, ARGV[5] = now in ms, ARGV[6] = the profile's cap
-- Returns {the repost's id, the newest follower's score or -1, 1 if the reposter is
-- pulled (the repost goes into KEYS[7], for readers to merge, and is delivered to
-- nobody) else 0}; if the user reposted the original already, {that repost's id, -2,
-- 0}: nothing changes (a double click, a retry).
--
-- The repost is on the profile in the same step as it is noted unfinished: until the
-- request has written its hash and queued its fan-out, the workers' sweep of
-- unfinished posts finishes it, or takes it back if the hash was never written.
local existing = redis.call('ZSCORE', KEYS[1], ARGV[1])
if existing then
    return {tonumber(existing), -2, 0}
end
local rid = ARGV[2]
redis.call('ZADD', KEYS[1], rid, ARGV[1])
redis.call('ZADD', KEYS[2], rid, rid)
redis.call('ZADD', KEYS[3], rid, rid .. ':' .. ARGV[1] .. ':' .. ARGV[3])
redis.call('ZREMRANGEBYRANK', KEYS[3], 0, -(tonumber(ARGV[6]) + 1))
local upto, member = -1, nil
-- Posting decides the path (add_own_status.lua); a repost follows it.
if redis.call('HGET', KEYS[6], 'fanout') == 'pulled' then
    member = rid .. ':' .. ARGV[1] .. ':' .. ARGV[3]
    redis.call('ZADD', KEYS[7], rid, member)
    redis.call('ZREMRANGEBYRANK', KEYS[7], 0, -(tonumber(ARGV[6]) + 1))
else
    local newest = redis.call('ZRANGE', KEYS[4], -1, -1, 'WITHSCORES')
    if #newest == 2 then
        upto = tonumber(newest[2])
    end
end
local note = {author = tonumber(ARGV[4]), upto = upto, at = tonumber(ARGV[5]),
              repost_of = tonumber(ARGV[1]), repost_of_uid = tonumber(ARGV[3]),
              pulled = member}
redis.call('HSET', KEYS[5], rid, cjson.encode(note))
local pulled = 0
if member then pulled = 1 end
return {tonumber(rid), upto, pulled}

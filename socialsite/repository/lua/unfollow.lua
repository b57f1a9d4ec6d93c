-- The follower's side of an unfollow, in one step.
-- KEYS[1] = following      keys.following(uid) (ZSET)
-- KEYS[2] = user           keys.user(uid) (HASH: the "following" count)
-- KEYS[3] = home           keys.home(uid) (SET: the home timeline)
-- KEYS[4] = unfollowed     keys.unfollowed(uid, other) (ZSET: who in this shard
--                          unfollowed other lately)
-- KEYS[5] = home_reposts   keys.home_reposts(uid) (HASH: originals shown through reposts)
-- KEYS[6..] = reposts_shown  keys.reposts_shown(uid, orig) (SET) for each repost in
--                            ARGV, in their order
-- ARGV[1] = the unfollowed user's id, ARGV[2] = the user's own id
-- ARGV[3] = now in ms, ARGV[4] = how long to remember the unfollow, in ms
-- ARGV[5], ARGV[6] = the home timeline's cap and slack
-- ARGV[7..] = ids of the unfollowed user's newest statuses, to leave the home timeline;
--             a repost as "<rid>/<orig>/<author>" (lua/_reposts.lua: an original that
--             another followed user's repost, or its followed author, still brings
--             stays)
-- Returns 1 if the user was followed, 0 if not (the home timeline is cleaned anyway).
--
-- A fan-out batch that read this user among the followers just before this script
-- delivers just after it: the note in KEYS[4] makes deliver.lua skip them. Its
-- delivery lands either before this script, and is removed by it, or after, and is
-- refused.
local removed = redis.call('ZREM', KEYS[1], ARGV[1])
if removed == 1 then
    redis.call('HINCRBY', KEYS[2], 'following', -1)
end
local now, memory = tonumber(ARGV[3]), tonumber(ARGV[4])
redis.call('ZADD', KEYS[4], now, ARGV[2])
redis.call('ZREMRANGEBYSCORE', KEYS[4], '-inf', '(' .. (now - memory))
redis.call('PEXPIRE', KEYS[4], memory)
take_out(KEYS[3], KEYS[5], KEYS[1], ARGV[2], ARGV[1], ARGV, 7, 6, tonumber(ARGV[5]), tonumber(ARGV[6]))
return removed

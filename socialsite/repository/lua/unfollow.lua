-- The follower's side of an unfollow, in one step.
-- KEYS[1] = following:{s}:uid        (ZSET)
-- KEYS[2] = user:{s}:uid             (HASH: the "following" count)
-- KEYS[3] = home:{s}:uid             (SET: the home timeline)
-- KEYS[4] = unfollowed:{s}:other     (ZSET: who in this shard unfollowed other lately)
-- ARGV[1] = the unfollowed user's id, ARGV[2] = the user's own id
-- ARGV[3] = now in ms, ARGV[4] = how long to remember the unfollow, in ms
-- ARGV[5..] = ids of the unfollowed user's newest statuses, to leave the home timeline
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
for i = 5, #ARGV, 1000 do
    redis.call('SREM', KEYS[3], unpack(ARGV, i, math.min(i + 999, #ARGV)))
end
return removed

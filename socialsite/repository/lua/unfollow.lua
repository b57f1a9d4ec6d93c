-- The follower's side of an unfollow, in one step.
-- KEYS[1] = following:{s}:uid   (ZSET)
-- KEYS[2] = user:{s}:uid        (HASH: the "following" count)
-- KEYS[3] = home:{s}:uid        (SET: the home timeline)
-- ARGV[1] = the unfollowed user's id
-- ARGV[2..] = ids of the unfollowed user's newest statuses, to leave the home timeline
-- Returns 1 if the user was followed, 0 if not (the home timeline is cleaned anyway).
--
-- Removing the list entry and the statuses together means a fan-out delivery
-- (deliver.lua checks following) lands either before this script, and is removed
-- by it, or after it, and is refused.
local removed = redis.call('ZREM', KEYS[1], ARGV[1])
if removed == 1 then
    redis.call('HINCRBY', KEYS[2], 'following', -1)
end
for i = 2, #ARGV, 1000 do
    redis.call('SREM', KEYS[3], unpack(ARGV, i, math.min(i + 999, #ARGV)))
end
return removed

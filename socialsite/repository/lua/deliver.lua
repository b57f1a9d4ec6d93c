-- Deliver one status to the home timelines of several followers (fan-out).
-- KEYS[1]    = unfollowed:{s}:author  (ZSET) users of this shard who unfollowed lately
-- KEYS[2..]  = home:{s}:follower      (SET)  one per follower, all in KEYS[1]'s slot
-- ARGV[1] = the status id
-- ARGV[2] = the home timeline's cap, ARGV[3] = its slack
-- Returns how many followers received it. Delivering twice changes nothing: the home
-- timeline is a set.
--
-- The caller read these followers from the author's list a moment ago. Anyone who
-- unfollowed since is in KEYS[1] (unfollow.lua writes it in the same step as it
-- cleans their home timeline), so they are skipped here. Almost always nobody in
-- the shard did and the key does not exist: one EXISTS per call, not one check per
-- follower, is what makes a delivery cheap.
local sid = ARGV[1]
local cap, slack = tonumber(ARGV[2]), tonumber(ARGV[3])
local call = redis.call
local check = call('EXISTS', KEYS[1]) == 1
local delivered = 0
for i = 2, #KEYS do
    local home = KEYS[i]
    -- The follower's id ends their home key's name (keys.home).
    if not (check and call('ZSCORE', KEYS[1], string.match(home, '%d+$'))) then
        delivered = delivered + call('SADD', home, sid)
        trim_home(home, cap, slack)
    end
end
return delivered

-- Deliver one status to the home timelines of several followers (fan-out).
-- KEYS[1]    = unfollowed:{s}:author  (ZSET) users of this shard who unfollowed lately
-- KEYS[2..n+1] = home:{s}:follower    (SET)  one per follower, all in KEYS[1]'s slot
-- a reply only: KEYS[n+2..2n+1] = following:{s}:follower (ZSET), in the same order
-- ARGV[1] = the status id
-- ARGV[2] = the home timeline's cap, ARGV[3] = its slack
-- ARGV[4] = a reply only: the id of the user replied to
-- Returns how many followers received it. Delivering twice changes nothing: the home
-- timeline is a set.
--
-- The caller read these followers from the author's list a moment ago. Anyone who
-- unfollowed since is in KEYS[1] (unfollow.lua writes it in the same step as it
-- cleans their home timeline), so they are skipped here. Almost always nobody in
-- the shard did and the key does not exist: one EXISTS per call, not one check per
-- follower, is what makes a delivery cheap.
--
-- A reply reaches a follower only if they are the user replied to or follow them
-- (Mastodon's rule): one ZSCORE per follower, for replies alone; any other status
-- is delivered exactly as cheaply as before there were replies.
local sid = ARGV[1]
local cap, slack = tonumber(ARGV[2]), tonumber(ARGV[3])
local replied_to = ARGV[4]
local call = redis.call
local check = call('EXISTS', KEYS[1]) == 1
local delivered = 0
local last = #KEYS
if replied_to then
    last = (#KEYS - 1) / 2 + 1
end
for i = 2, last do
    local home = KEYS[i]
    -- The follower's id ends their home key's name (keys.home).
    local wanted = not (check and call('ZSCORE', KEYS[1], string.match(home, '%d+$')))
    if wanted and replied_to then
        wanted = string.match(home, '%d+$') == replied_to
            or call('ZSCORE', KEYS[i + last - 1], replied_to) ~= false
    end
    if wanted then
        delivered = delivered + call('SADD', home, sid)
        trim_home(home, cap, slack)
    end
end
return delivered

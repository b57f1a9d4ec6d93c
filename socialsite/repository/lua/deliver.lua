-- Deliver one status to the home timelines (and named lists) of several followers
-- (fan-out).
-- KEYS[1] = unfollowed     keys.unfollowed(shard, author) (ZSET) users of this shard
--                          who unfollowed lately
-- KEYS[2] = hiding         keys.hiding(shard, author) (ZSET) users of this shard who do
--                          not get the author's statuses (blocks, mutes), until when
-- KEYS[3] = reposts_shown  keys.reposts_shown(shard, sid) (SET) users of this shard
--                          whose home shows the status through a repost already
-- KEYS[4] = listing        keys.listing(shard, author) (SET) users of this shard who
--                          list the author (named lists: _lists.lua)
-- KEYS[5..n+4] = home      keys.home(follower) (SET) one per follower, all in KEYS[1]'s
--                          slot
-- KEYS[n+5..2n+4] = following?  a reply only: keys.following(follower) (ZSET), in the
--                               same order
-- ARGV[1] = the status id
-- ARGV[2] = the home timeline's cap, ARGV[3] = its slack
-- ARGV[4] = now, in ms
-- ARGV[5] = a reply only: the id of the user replied to
-- Returns how many home timelines received it. Delivering twice changes nothing: home
-- timelines and lists are sets.
--
-- The caller read these followers from the author's list a moment ago. Anyone who
-- unfollowed since is in KEYS[1] (unfollow.lua writes it in the same step as it
-- cleans their home timeline), and anyone who blocked, was blocked by or muted the
-- author is in KEYS[2] (set_block.lua, set_mute.lua), so they are skipped here;
-- anyone whose home shows the status through a repost of it (the original's fan-out
-- running late) is in KEYS[3] (lua/_reposts.lua): no second entry in that home (its
-- lists still get the status: lists hold statuses, not reposts).
-- Almost always nobody in the shard did and no such key exists: one EXISTS per call,
-- not one check per follower, is what makes a delivery cheap. The listing note is read
-- in the same EXISTS: a key named n times counts n times, so KEYS[4] four times adds 0
-- or 4 to the 0..3 of the other three.
--
-- A follower whose home was evicted (eviction.py) gets nothing, in the home or its lists
-- (they went with it): their first page rebuilds both from the profiles. An evicted
-- home holds only EVICTED_MEMBER; the home's size, which the trim reads anyway, is read
-- first, and only a home of exactly one id is asked whether it is that one (an empty
-- home, new or emptied, is not evicted): a delivery to anyone else costs a SCARD and a
-- SADD, a skipped one a SCARD and a SISMEMBER.
--
-- A reply reaches a follower only if they are the user replied to or follow them
-- (Mastodon's rule): one ZSCORE per follower, for replies alone; any other status
-- is delivered exactly as cheaply as before there were replies.
local sid = ARGV[1]
local cap, slack, now = tonumber(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[4])
local replied_to = ARGV[5]
local call = redis.call
local FIRST_HOME = 5
local noted = call('EXISTS', KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[4], KEYS[4], KEYS[4])
local listed = noted >= 4
local check = noted % 4 > 0
local last = #KEYS
if replied_to then
    last = (#KEYS - FIRST_HOME + 1) / 2 + FIRST_HOME - 1
end
local delivered = 0
for i = FIRST_HOME, last do
    local home = KEYS[i]
    local size = call('SCARD', home)
    local wanted = size ~= 1 or call('SISMEMBER', home, EVICTED_MEMBER) == 0
    local shown = false
    if wanted and (check or replied_to) then
        local follower = keys.user_of(home)
        if check then
            local hidden = call('ZSCORE', KEYS[2], follower)
            wanted = not (call('ZSCORE', KEYS[1], follower)
                or (hidden and tonumber(hidden) > now))
            shown = wanted and call('SISMEMBER', KEYS[3], follower) == 1
        end
        if wanted and replied_to then
            wanted = follower == replied_to
                or call('ZSCORE', KEYS[i + last - FIRST_HOME + 1], replied_to) ~= false
        end
    end
    if wanted then
        if not shown then
            local added = call('SADD', home, sid)
            delivered = delivered + added
            trim_home(home, cap, slack, size + added)
        end
        -- The same status to the follower's lists that hold the author.
        if listed then deliver_to_lists(KEYS[4], home, sid, cap, slack) end
    end
end
return delivered

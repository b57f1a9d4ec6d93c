-- Deliver one repost to the home timelines of several followers of its reposter
-- (fan-out), deciding in this same step, per home, whether it adds an entry.
-- KEYS[1] = unfollowed     keys.unfollowed(shard, reposter) (ZSET) users of this shard
--                          who unfollowed lately
-- KEYS[2] = hiding         keys.hiding(shard, reposter) (ZSET) users of this shard who
--                          do not get the reposter's statuses, until when
-- KEYS[3] = reposts_shown  keys.reposts_shown(shard, orig) (SET) homes of this shard
--                          showing the original through reposts
-- KEYS[4..n+3] = home              keys.home(follower) (SET) one per follower
-- KEYS[n+4..2n+3] = home_reposts   keys.home_reposts(follower) (HASH) in the same order
-- ARGV[1] = the repost's id, ARGV[2] = the home timeline's cap, ARGV[3] = its slack
-- ARGV[4] = now, in ms, ARGV[5] = the original's id, ARGV[6] = the original's author
-- ARGV[7] = the reposter, ARGV[8] = how long to keep KEYS[3] (ms)
-- Followers whose home was evicted (eviction.py) get nothing.
-- Returns how many homes got a new entry. Delivering twice changes nothing.
--
-- Followers who unfollowed or hide the reposter are skipped as deliver.lua skips them;
-- a home that shows the original already (as itself or through another repost) only
-- notes this reposter (lua/_reposts.lua), so that two reposts delivered at once by two
-- workers still make one entry: each runs whole, one after the other, here.
local rid, cap, slack, now = ARGV[1], tonumber(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[4])
local orig, author, reposter, note_ms = ARGV[5], ARGV[6], ARGV[7], tonumber(ARGV[8])
local check = redis.call('EXISTS', KEYS[1], KEYS[2]) > 0
local n = (#KEYS - 3) / 2
local delivered = 0
for i = 4, n + 3 do
    local home = KEYS[i]
    local follower = keys.user_of(home)
    -- An evicted home (holding only EVICTED_MEMBER) gets nothing. Its size, read here,
    -- is also the trim's (add_repost), which then reads it no more.
    local size = redis.call('SCARD', home)
    local wanted = size ~= 1 or redis.call('SISMEMBER', home, EVICTED_MEMBER) == 0
    if wanted and check then
        local hidden = redis.call('ZSCORE', KEYS[2], follower)
        wanted = not (redis.call('ZSCORE', KEYS[1], follower)
            or (hidden and tonumber(hidden) > now))
    end
    if wanted then
        delivered = delivered + add_repost(home, KEYS[i + n], KEYS[3], follower, orig, author,
            reposter, rid, cap, slack, nil, size)
    end
end
-- The note's lifetime, once for the whole group.
if redis.call('EXISTS', KEYS[3]) == 1 then
    redis.call('PEXPIRE', KEYS[3], note_ms)
end
return delivered

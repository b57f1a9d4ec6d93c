-- Copy a followed user's statuses into the follower's home timeline (after a
-- follow, or when a mute ends).
-- KEYS[1] = home:{s}:uid        (SET)
-- KEYS[2] = following:{s}:uid   (ZSET)
-- KEYS[3] = hides:{s}:uid       (ZSET: authors uid does not get, until when)
-- ARGV[1] = the followed user's id
-- ARGV[2] = the home timeline's cap, ARGV[3] = its slack
-- ARGV[4] = now, in ms
-- ARGV[5] = the user's own id
-- ARGV[6..] = status ids; a reply as "<id>:<id of the user it replies to>"
-- Returns the number of ids added; 0 if the follow was undone in the meantime, or if
-- the user does not get this author's statuses (muted, blocked either way).
--
-- A reply is copied only if the user is the one replied to or follows them: the
-- home timeline's reply rule, as deliver.lua applies it.
if not redis.call('ZSCORE', KEYS[2], ARGV[1]) then
    return 0
end
local hidden = redis.call('ZSCORE', KEYS[3], ARGV[1])
if hidden and tonumber(hidden) > tonumber(ARGV[4]) then
    return 0
end
local ids = {}
for i = 6, #ARGV do
    local sid, replied_to = string.match(ARGV[i], '^(%d+):(%d+)$')
    if not sid then
        ids[#ids + 1] = ARGV[i]
    elseif replied_to == ARGV[5] or redis.call('ZSCORE', KEYS[2], replied_to) then
        ids[#ids + 1] = sid
    end
end
local added = 0
for i = 1, #ids, 1000 do
    added = added + redis.call('SADD', KEYS[1], unpack(ids, i, math.min(i + 999, #ids)))
end
trim_home(KEYS[1], tonumber(ARGV[2]), tonumber(ARGV[3]))
return added

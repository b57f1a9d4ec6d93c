-- Copy a followed user's statuses into the follower's home timeline (after a
-- follow, or when a mute ends), or older statuses of everyone followed (a refill).
-- KEYS[1] = home           keys.home(uid) (SET)
-- KEYS[2] = following      keys.following(uid) (ZSET)
-- KEYS[3] = hides          keys.hides(uid) (ZSET: authors uid does not get, until when)
-- KEYS[4] = home_reposts   keys.home_reposts(uid) (HASH: originals shown through reposts)
-- KEYS[5..] = reposts_shown  keys.reposts_shown(uid, orig) (SET) for each repost in
--             ARGV, in their order
-- ARGV[1] = the followed user's id ("" for a refill: the caller chose the authors)
-- ARGV[2] = the home timeline's cap, ARGV[3] = its slack
-- ARGV[4] = now, in ms
-- ARGV[5] = the user's own id
-- ARGV[6] = how long to keep the reposts_shown notes, in ms
-- ARGV[7..] = status ids; a reply as "<id>:<id of the user it replies to>"; a repost
--             as "<rid>/<orig>/<author>/<reposter>"
-- Returns the number of ids added; 0 if the follow was undone in the meantime, or if
-- the user does not get this author's statuses (muted, blocked either way).
--
-- A reply is copied only if the user is the one replied to or follows them: the
-- home timeline's reply rule, as deliver.lua applies it. A status shown through a
-- repost already is not copied again, and a repost goes in by the dedupe rules
-- (lua/_reposts.lua).
if ARGV[1] ~= '' then
    if not redis.call('ZSCORE', KEYS[2], ARGV[1]) then
        return 0
    end
    local hidden = redis.call('ZSCORE', KEYS[3], ARGV[1])
    if hidden and tonumber(hidden) > tonumber(ARGV[4]) then
        return 0
    end
end
local items = {}
for i = 7, #ARGV do
    local sid, replied_to = string.match(ARGV[i], '^(%d+):(%d+)$')
    if not sid then
        items[#items + 1] = ARGV[i]
    elseif replied_to == ARGV[5] or redis.call('ZSCORE', KEYS[2], replied_to) then
        items[#items + 1] = sid
    end
end
return add_items(KEYS[1], KEYS[4], ARGV[5], items, 1, 5, tonumber(ARGV[2]),
    tonumber(ARGV[3]), tonumber(ARGV[6]))

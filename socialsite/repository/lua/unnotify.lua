-- Take notifications out of a user's list (their status was deleted, a follow undone,
-- their actor or status found gone), and, optionally, mark those up to a score as seen.
-- KEYS[1] = notifications        keys.notifications(uid) (ZSET: events, see _notifications.lua)
-- KEYS[2] = notifications_state  keys.notifications_state(uid) (HASH: read, version, unread)
-- KEYS[3..] = hidden_actors      keys.hidden_actors(uid): SETs or ZSETs of user ids
-- ARGV[1] = the user's id, ARGV[2] = the channel to publish the unread count on ("": none)
-- ARGV[3] = the score of the newest notification the user has now seen ("": none;
--           "*": none, but work the unread count out again, as after a change of the
--           hidden-actor keys); the read mark never moves back
-- ARGV[4..] = events to take out
-- Returns {how many were taken out, the unread count, the version}. Nothing changed
-- (a retry): nothing is published and the version stays.
local list, state = KEYS[1], KEYS[2]
local removed = 0
for i = 4, #ARGV, 1000 do
    removed = removed + redis.call('ZREM', list, unpack(ARGV, i, math.min(i + 999, #ARGV)))
end
local seen = tonumber(ARGV[3])
local marked = false
if seen and seen > read_mark(state) then
    redis.call('HSET', state, 'read', seen)
    marked = true
end
if removed == 0 and not marked and ARGV[3] ~= '*' then
    local now = redis.call('HMGET', state, 'unread', 'version')
    return {removed, tonumber(now[1] or '0'), tonumber(now[2] or '0')}
end
local after = refresh(list, state, {unpack(KEYS, 3)}, ARGV[1], ARGV[2])
return {removed, after[1], after[2]}
